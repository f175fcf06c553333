package haproxy

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestCRLFetch: a CRL is taken in PEM or DER when a certificate of the
// bundle signed it, and refused otherwise, with an error naming the URL.
func TestCRLFetch(t *testing.T) {
	ca, stranger := newCA(t, "clients"), newCA(t, "someone else")
	own, err := ca.RevocationList(1, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := stranger.RevocationList(1, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	der, _ := pem.Decode(own)
	bodies := map[string][]byte{"/pem": own, "/der": der.Bytes, "/foreign": foreign, "/junk": []byte("not a CRL")}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { _, _ = w.Write(bodies[req.URL.Path]) }))
	defer srv.Close()
	f := newCRLFetcher()
	for _, c := range []struct{ path, err string }{
		{"/pem", ""}, {"/der", ""},
		{"/foreign", `the CRL of "CN=someone else" is signed by no certificate of ROUTER_MUTUAL_TLS_AUTH_CA`},
		{"/junk", "not a CRL"},
	} {
		got, _, err := f.fetch(context.Background(), srv.URL+c.path, []*x509.Certificate{ca.Cert})
		switch {
		case c.err == "" && (err != nil || string(got) != string(own)):
			t.Errorf("%s: %q, %v; want the CA's CRL in PEM", c.path, got, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), srv.URL+c.path)):
			t.Errorf("%s: %v, want an error with %q and the URL", c.path, err, c.err)
		}
	}
}

// TestCRLRefreshAt: a CRL is fetched again halfway through its validity,
// within the hour, and not sooner than minRefresh.
func TestCRLRefreshAt(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	f := &crlFetcher{minRefresh: 10 * time.Second}
	for _, c := range []struct {
		this, next time.Time
		want       time.Time
	}{
		{now, now.Add(40 * time.Minute), now.Add(20 * time.Minute)},
		{now, now.Add(7 * 24 * time.Hour), now.Add(time.Hour)},
		{now.Add(-time.Hour), now.Add(time.Minute), now.Add(10 * time.Second)},
		{now, time.Time{}, now.Add(time.Hour)},
	} {
		if got := f.refreshAt(&x509.RevocationList{ThisUpdate: c.this, NextUpdate: c.next}, now); !got.Equal(c.want) {
			t.Errorf("this %v, next %v: refresh at %v, want %v", c.this, c.next, got, c.want)
		}
	}
}
