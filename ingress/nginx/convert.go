package nginx

import (
	"fmt"
	"slices"
	"strings"

	"github.com/routeshift/routeshift/routecore"
)

// Input is what Convert reads of one Ingress.
type Input struct {
	// Annotations are the Ingress's annotations; only those with Prefix
	// are read.
	Annotations map[string]string
	// TLS is true when the Ingress has a spec.tls entry, so its Routes
	// terminate TLS (ingress-nginx redirects such hosts to HTTPS by
	// default).
	TLS bool
	// Globals are ingress-nginx's ConfigMap settings (DefaultGlobals when
	// the ConfigMap was not given).
	Globals Globals
	// Namespace is the Ingress's namespace: Secrets named
	// "namespace/name" must be in it.
	Namespace string
}

// Canary is what an Ingress's canary annotations ask for: a share of its
// host and path's traffic for its own backend, to be merged into the
// primary Ingress's Route as an alternate backend.
type Canary struct {
	// Weight is canary-weight (0 when only header or cookie canaries were
	// asked for).
	Weight int32
	// Total is canary-weight-total, 100 by default.
	Total int32
	// ByRequest are the primary Route's annotations that send requests to
	// this canary by header or cookie (routeshift.io/canary-by-header and
	// its value or pattern, canary-by-cookie), without canary-backend,
	// which the merge adds; nil when the canary is chosen by weight only.
	ByRequest map[string]string
}

// Conversion is what the Routes of one Ingress get from its ingress-nginx
// annotations and from ingress-nginx's defaults where they differ from the
// router's.
type Conversion struct {
	// Annotations are set on every Route of the Ingress (router
	// annotations such as haproxy.router.openshift.io/timeout). An
	// annotation the Ingress itself sets wins over these.
	Annotations map[string]string
	// Termination, when not empty, is the TLS termination the Routes get
	// (passthrough for ssl-passthrough, reencrypt for backend-protocol
	// HTTPS); edge is the default for TLS hosts.
	Termination routecore.TLSTerminationType
	// InsecureEdgeTerminationPolicy, when not empty, replaces the policy
	// for plain HTTP on TLS Routes (Redirect or Allow).
	InsecureEdgeTerminationPolicy routecore.InsecureEdgeTerminationPolicyType
	// DestinationCASecret, when not empty, names the Secret (in the
	// Ingress's namespace) whose ca.crt verifies reencrypted endpoints
	// (proxy-ssl-secret's "namespace/name" with the namespace dropped).
	DestinationCASecret string
	// RequestHeaders and ResponseHeaders are header actions for the Routes'
	// spec.httpHeaders, in order.
	RequestHeaders, ResponseHeaders []routecore.RouteHTTPHeader
	// UseRegex is true when the Ingress's paths are regular expressions
	// (use-regex, or implied by rewrite-target as ingress-nginx does).
	UseRegex bool
	// RewriteTarget is rewrite-target's value, for RewritePath.
	RewriteTarget string
	// ExtraHosts are server-alias's hosts: each gets the same Routes as the
	// rule's own host.
	ExtraHosts []string
	// Canary is non-nil when the Ingress is a canary (canary: "true").
	Canary *Canary
	// AppProtocol, when not empty, is the appProtocol the backend
	// Services' ports need (kubernetes.io/h2c for GRPC and HTTP2); it
	// lives on the Service, so it is reported, not applied.
	AppProtocol string
	// Findings say what became of each annotation (and of each default
	// made explicit), sorted by key.
	Findings []Finding
}

// Worst returns the worst verdict of the findings about the Ingress's own
// annotations, or Exact when there is none. Findings about ingress-nginx's
// defaults are left out: they are the same for every Ingress, and a report
// counts them apart.
func (c *Conversion) Worst() Verdict {
	worst := Exact
	for _, f := range c.Findings {
		if !f.Default && f.Verdict.rank() > worst.rank() {
			worst = f.Verdict
		}
	}
	return worst
}

// rank orders verdicts from the best (0) to the worst.
func (v Verdict) rank() int {
	switch v {
	case Exact:
		return 0
	case Approximate:
		return 1
	case RouterWide:
		return 2
	case NotSupported:
		return 3
	case Refused:
		return 4
	}
	return 3
}

// Verdicts returns every verdict, from the best to the worst.
func Verdicts() []Verdict {
	return []Verdict{Exact, Approximate, RouterWide, NotSupported, Refused}
}

// converter is a Conversion in progress.
type converter struct {
	in  Input
	out Conversion
	// passthrough and canary are ssl-passthrough and canary "true".
	passthrough, canary bool
}

// value returns the value of another ingress-nginx annotation of the same
// Ingress (key without Prefix).
func (c *converter) value(key string) (string, bool) {
	v, ok := c.in.Annotations[Prefix+key]
	return strings.TrimSpace(v), ok
}

// set records a Route annotation.
func (c *converter) set(key, value string) {
	if c.out.Annotations == nil {
		c.out.Annotations = map[string]string{}
	}
	c.out.Annotations[key] = value
}

// Convert applies the table to the ingress-nginx annotations of one
// Ingress, then makes explicit the defaults of ingress-nginx that differ
// from the router's. An annotation the table does not know is reported as
// not supported (naming the closest known one when it looks misspelled).
//
// As in ingress-nginx, ssl-passthrough "true" makes every other annotation
// void (TLS goes to the endpoints undecrypted), and canary "true" makes
// void every annotation but the canary, balancing and affinity ones (the
// primary Ingress's apply).
func Convert(in Input) Conversion {
	c := &converter{in: in}
	keys := make([]string, 0, len(in.Annotations))
	for k := range in.Annotations {
		if strings.HasPrefix(k, Prefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	c.passthrough = c.isTrue("ssl-passthrough")
	c.canary = !c.passthrough && c.isTrue("canary")
	for _, k := range keys {
		key := strings.TrimPrefix(k, Prefix)
		f := Finding{Key: key, Value: in.Annotations[k]}
		e, ok := Lookup(key)
		switch {
		case !ok:
			f.Verdict = NotSupported
			f.Caveat = "ingress-nginx documents no such annotation, so it had no effect there either"
			if near := closestKey(key); near != "" {
				f.Caveat += fmt.Sprintf("; did you mean %s%s?", Prefix, near)
			} else {
				f.Caveat += "."
			}
		case e.Verdict == Refused:
			f.Verdict, f.Caveat = e.Verdict, e.Caveat
		case c.passthrough && key != "ssl-passthrough":
			f.Verdict, f.Caveat = Exact, "ingress-nginx ignores it on an ssl-passthrough Ingress, whose TLS goes to the endpoints undecrypted, and so does the Route."
		case c.canary && !canaryKeeps(key):
			f.Verdict, f.Caveat = Exact, "ingress-nginx ignores it on a canary Ingress, which takes the primary Ingress's settings, and so does the conversion."
		default:
			f.Verdict, f.Caveat = e.Verdict, e.Caveat
			if e.convert != nil {
				e.convert(c, &f)
			}
		}
		c.out.Findings = append(c.out.Findings, f)
	}
	c.defaults()
	c.finish()
	slices.SortStableFunc(c.out.Findings, func(a, b Finding) int { return strings.Compare(a.Key, b.Key) })
	return c.out
}

// canaryKeeps reports whether ingress-nginx reads an annotation on a
// canary Ingress: the canary ones, load-balance, upstream-hash-by and the
// session-affinity ones.
func canaryKeeps(key string) bool {
	return strings.HasPrefix(key, "canary") || strings.HasPrefix(key, "affinity") || strings.HasPrefix(key, "session-cookie-") ||
		key == "load-balance" || strings.HasPrefix(key, "upstream-hash-by")
}
