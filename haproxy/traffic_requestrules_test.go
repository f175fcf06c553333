package haproxy

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/routecore"
)

// post sends a POST of n bytes, with a Content-Length or (chunked)
// without one, and returns the status.
func post(c *http.Client, url string, n int, chunked bool) reply {
	var body io.Reader = strings.NewReader(strings.Repeat("x", n))
	if chunked {
		// A reader of unknown length makes the client send chunks.
		body = io.MultiReader(body)
	}
	req, err := http.NewRequest(http.MethodPost, url, body)
	if err != nil {
		return reply{err: err}
	}
	if !chunked {
		req.ContentLength = int64(n)
	}
	// As curl does for large bodies: a refusal comes before the body is
	// sent, so the client reads it instead of writing into a closed
	// connection.
	req.Header.Set("Expect", "100-continue")
	tr := c.Transport.(*http.Transport).Clone()
	tr.ExpectContinueTimeout = 10 * time.Second
	resp, err := (&http.Client{Transport: tr, Timeout: c.Timeout}).Do(req)
	if err != nil {
		return reply{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return reply{code: resp.StatusCode, body: string(b), header: resp.Header, err: err}
}

// TestTrafficRequestRules: routeshift's request annotations through a real
// HAProxy: body limits (413 at limit+1, 200 at the limit, with and without
// a Content-Length, and the buffer boundary for chunked bodies), deny
// lists (403, deny wins over allow), redirects (every code, $request_uri,
// app-root, HTTPS redirects with the route's code) and rate limits that
// answer 429 with Retry-After, with exempt sources.
func TestTrafficRequestRules(t *testing.T) {
	const routerLimit = 2048
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.MaxBodySize = routerLimit })
	web := newBackend(t, "web", func(w http.ResponseWriter, req *http.Request) {
		n, _ := io.Copy(io.Discard, req.Body)
		w.Header().Set("X-Read", strconv.FormatInt(n, 10))
		io.WriteString(w, "web")
	}, nil)
	r.endpoints("ns", "web", web)
	route := func(name string, mods ...func(*routecore.Route)) {
		r.route(rt("ns", name, name+".example.com", 1, append([]func(*routecore.Route){toService("web")}, mods...)...))
	}
	route("limited", annotated(routecore.AnnMaxBodySize, "1k"))
	route("router-limit")
	route("unlimited", annotated(routecore.AnnMaxBodySize, "0"))
	route("big-limit", annotated(routecore.AnnMaxBodySize, "100k"))
	route("denied", annotated(routecore.AnnIPDenylist, "127.0.0.2 10.0.0.0/8"))
	route("both", annotated(routecore.AnnIPAllowlist, "127.0.0.0/24", routecore.AnnIPDenylist, "127.0.0.2"))
	for _, code := range routecore.RedirectCodes {
		route("moved-"+code, annotated(routecore.AnnRedirectTo, "https://new.example.org/base", routecore.AnnRedirectCode, code))
	}
	route("moved-uri", annotated(routecore.AnnRedirectTo, "https://new.example.org/v2$request_uri"))
	route("percent", annotated(routecore.AnnRedirectTo, "https://new.example.org/a%20b"))
	route("approot", annotated(routecore.AnnAppRoot, "/app/"))
	route("secure", terminated(routecore.TLSTerminationEdge, routecore.InsecureEdgeTerminationPolicyRedirect, nil, nil),
		annotated(routecore.AnnRedirectCode, "308"))
	route("secure-default", terminated(routecore.TLSTerminationEdge, routecore.InsecureEdgeTerminationPolicyRedirect, nil, nil))
	route("limits", annotated(routecore.AnnRateLimit, "true", routecore.AnnRateLimitRateHTTP, "3",
		routecore.AnnRateLimitStatus, "429", routecore.AnnRateLimitExempt, "127.0.0.3"))
	r.start()

	from := func(ip string) *http.Client { return r.client(clientOptions{source: net.ParseIP(ip)}) }
	c := from("127.0.0.1")

	t.Run("body limits", func(t *testing.T) {
		cases := []struct {
			host    string
			n       int
			chunked bool
			want    int
		}{
			{"limited", 1024, false, 200},
			{"limited", 1025, false, 413},
			{"limited", 1024, true, 200},
			{"limited", 1025, true, 413},
			{"router-limit", routerLimit, false, 200},
			{"router-limit", routerLimit + 1, false, 413},
			{"router-limit", routerLimit + 1, true, 413},
			{"unlimited", 200 << 10, false, 200},
			{"unlimited", 200 << 10, true, 200},
			{"big-limit", 100 << 10, false, 200},
			{"big-limit", 100<<10 + 1, false, 413},
			// Above the buffer HAProxy measures chunked bodies with
			// (ROUTER_BUF_SIZE less ROUTER_MAX_REWRITE_SIZE), a chunked
			// body is not measured: it passes, as the docs say.
			{"big-limit", 200 << 10, true, 200},
		}
		for _, tc := range cases {
			got := post(c, "http://"+tc.host+".example.com/upload", tc.n, tc.chunked)
			if got.err != nil || got.code != tc.want {
				t.Errorf("%s: %d bytes (chunked %v): %v, want %d", tc.host, tc.n, tc.chunked, got, tc.want)
			}
			if tc.want == 200 && got.header.Get("X-Read") != strconv.Itoa(tc.n) {
				t.Errorf("%s: the backend read %s bytes of %d", tc.host, got.header.Get("X-Read"), tc.n)
			}
		}
	})

	t.Run("deny lists", func(t *testing.T) {
		cases := []struct {
			host, source string
			want         int // 0: connection closed
		}{
			{"denied", "127.0.0.1", 200},
			{"denied", "127.0.0.2", 403},
			{"both", "127.0.0.1", 200},
			{"both", "127.0.0.2", 403},
			{"both", "127.0.1.1", 0},
		}
		for _, tc := range cases {
			got := fetch(from(tc.source), "http://"+tc.host+".example.com/")
			if tc.want == 0 && got.err == nil || tc.want != 0 && got.code != tc.want {
				t.Errorf("%s from %s: %v, want %d", tc.host, tc.source, got, tc.want)
			}
		}
	})

	t.Run("redirects", func(t *testing.T) {
		cases := []struct {
			url, location string
			code          int
		}{
			{"http://moved-301.example.com/x?y=1", "https://new.example.org/base", 301},
			{"http://moved-302.example.com/x", "https://new.example.org/base", 302},
			{"http://moved-303.example.com/x", "https://new.example.org/base", 303},
			{"http://moved-307.example.com/x", "https://new.example.org/base", 307},
			{"http://moved-308.example.com/x", "https://new.example.org/base", 308},
			{"http://moved-uri.example.com/shop/cart?id=7", "https://new.example.org/v2/shop/cart?id=7", 301},
			{"http://percent.example.com/", "https://new.example.org/a%20b", 301},
			{"http://approot.example.com/", "/app/", 302},
			{"http://secure.example.com/pay?x=1", "https://secure.example.com/pay?x=1", 308},
			{"http://secure-default.example.com/pay", "https://secure-default.example.com/pay", 302},
		}
		for _, tc := range cases {
			got := fetch(c, tc.url)
			if got.err != nil || got.code != tc.code || got.header.Get("Location") != tc.location {
				t.Errorf("%s: %v Location %q, want %d %q", tc.url, got, got.header.Get("Location"), tc.code, tc.location)
			}
		}
		// Only / is redirected by app-root; HTTPS is served.
		if got := fetch(c, "http://approot.example.com/other"); !got.served("web") {
			t.Errorf("app-root redirected /other: %v", got)
		}
		if got := fetch(c, "https://secure.example.com/pay"); !got.served("web") {
			t.Errorf("https to an edge route with redirect-code: %v", got)
		}
	})

	t.Run("429", func(t *testing.T) {
		limited := from("127.0.0.4")
		var codes []int
		for range 5 {
			got := fetch(limited, "http://limits.example.com/")
			if got.err != nil {
				t.Fatalf("request closed instead of answered: %v", got.err)
			}
			codes = append(codes, got.code)
			if got.code == 429 && got.header.Get("Retry-After") != "10" {
				t.Errorf("429 with Retry-After %q, want 10", got.header.Get("Retry-After"))
			}
		}
		if codes[0] != 200 || codes[1] != 200 || codes[2] != 200 || codes[3] != 429 || codes[4] != 429 {
			t.Errorf("statuses of 5 requests with a limit of 3: %v", codes)
		}
		exempt := from("127.0.0.3")
		for i := range 6 {
			if got := fetch(exempt, "http://limits.example.com/"); !got.served("web") {
				t.Fatalf("request %d from an exempt source: %v", i+1, got)
			}
		}
	})
}
