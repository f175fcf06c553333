package main

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/internal/invalid"
	"github.com/routeshift/routeshift/internal/settings"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
	"github.com/routeshift/routeshift/webhook"
)

// The validation reference is produced by running the real code on example
// Routes: routecore.Default and routecore.ValidateRoute (or
// ValidateRouteUpdate), the webhook's handlers for the checks that need the
// cluster, and a router Store for the router's verdict. Every message on
// the page is what that code printed, formatted as kubectl prints an
// Invalid error, so the page cannot drift from the code: an example that
// stops producing its error makes docgen fail instead of losing a row.

// exampleName and exampleNamespace name the example Routes.
const (
	exampleName      = "example"
	exampleNamespace = "demo"
	exampleHost      = "www.example.com"
)

// routerDomain and the wildcard permission are the router settings the
// Router column assumes besides the defaults: ROUTER_DOMAIN completes
// spec.subdomain, so subdomain rows show the router's own verdict.
const routerDomain = "apps.example.com"

// example is one row: a rule and a Route that breaks it (or, in the
// accepted table, one that looks as if it might and does not).
type example struct {
	// rule says what is checked.
	rule string
	// shows says, in Markdown, what the example Route does.
	shows string
	// route changes the valid base Route into the example.
	route func(r *routecore.Route)
	// old, when set, makes the row an update: the stored Route is the base
	// Route changed by old, and the example is that Route changed by route.
	old func(r *routecore.Route)
	// field is the path every error of the example must be on (or under):
	// an example that breaks more than its rule is not minimal.
	field string
	// elide is a value longer than maxShown that the message repeats; the
	// page shortens it.
	elide string
}

// group is a table of examples about one part of the Route.
type group struct {
	title, intro string
	examples     []example
}

// row is an example after running the code.
type row struct {
	example
	// messages are kubectl's lines for the errors (empty when accepted).
	messages []string
	// router is the router's verdict, "" for update examples.
	router string
}

// pki is the certificate material of the examples, generated for each run;
// messages never show it (routeshift redacts certificates and keys).
type pki struct {
	ca, otherCA, leaf, otherLeaf, sha1Leaf, expiredLeaf, wrongNameLeaf           string
	leafKey, otherLeafKey, rsaKey, sha1LeafKey, expiredLeafKey, wrongNameLeafKey string
	publicKey, unknownBlock, garbageKey                                          string
}

func newPKI() (*pki, error) {
	var err error
	issue := func(issuer *certs.KeyPair, opts certs.Options) *certs.KeyPair {
		if err != nil {
			return nil
		}
		var kp *certs.KeyPair
		kp, err = certs.Generate(opts, issuer)
		return kp
	}
	ca := issue(nil, certs.Options{CommonName: "Example CA", IsCA: true})
	otherCA := issue(nil, certs.Options{CommonName: "Other CA", IsCA: true})
	leaf := issue(ca, certs.Options{CommonName: exampleHost, DNSNames: []string{exampleHost}})
	other := issue(ca, certs.Options{CommonName: "other.example.com", DNSNames: []string{"other.example.com"}})
	sha1 := issue(ca, certs.Options{CommonName: exampleHost, DNSNames: []string{exampleHost}, SignatureAlgorithm: x509.ECDSAWithSHA1})
	expired := issue(ca, certs.Options{CommonName: exampleHost, DNSNames: []string{exampleHost},
		NotBefore: time.Now().AddDate(-2, 0, 0), Validity: 365 * 24 * time.Hour})
	wrongName := issue(ca, certs.Options{CommonName: "shop.example.org", DNSNames: []string{"shop.example.org"}})
	rsa := issue(nil, certs.Options{CommonName: "rsa.example.com", KeyType: certs.RSA2048})
	if err != nil {
		return nil, fmt.Errorf("generating the example certificates: %w", err)
	}
	pub, err := x509.MarshalPKIXPublicKey(leaf.Cert.PublicKey)
	if err != nil {
		return nil, err
	}
	pemOf := func(typ string, der []byte) string {
		return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
	}
	return &pki{
		ca: string(ca.CertPEM), otherCA: string(otherCA.CertPEM),
		leaf: string(leaf.CertPEM), leafKey: string(leaf.KeyPEM),
		otherLeaf: string(other.CertPEM), otherLeafKey: string(other.KeyPEM),
		sha1Leaf: string(sha1.CertPEM), sha1LeafKey: string(sha1.KeyPEM),
		expiredLeaf: string(expired.CertPEM), expiredLeafKey: string(expired.KeyPEM),
		wrongNameLeaf: string(wrongName.CertPEM), wrongNameLeafKey: string(wrongName.KeyPEM),
		rsaKey:       string(rsa.KeyPEM),
		publicKey:    pemOf("PUBLIC KEY", pub),
		unknownBlock: pemOf("FOO", []byte("bar")),
		garbageKey:   pemOf("PRIVATE KEY", []byte("this is not DER")),
	}, nil
}

// baseRoute is the valid Route every example starts from.
func baseRoute() *routecore.Route {
	return &routecore.Route{
		TypeMeta:   metav1.TypeMeta{APIVersion: routecore.GroupVersion.String(), Kind: "Route"},
		ObjectMeta: metav1.ObjectMeta{Name: exampleName, Namespace: exampleNamespace},
		Spec:       routecore.RouteSpec{Host: exampleHost, To: routecore.RouteTargetReference{Name: "web"}},
	}
}

// Small modifiers, so that each example reads as what it changes.

func annotate(key, value string) func(*routecore.Route) {
	return func(r *routecore.Route) {
		if r.Annotations == nil {
			r.Annotations = map[string]string{}
		}
		r.Annotations[key] = value
	}
}

func withTLS(t routecore.TLSConfig) func(*routecore.Route) {
	return func(r *routecore.Route) { r.Spec.TLS = &t }
}

func edgeWith(cert, key, ca string) func(*routecore.Route) {
	return withTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, Certificate: cert, Key: key, CACertificate: ca})
}

func both(mods ...func(*routecore.Route)) func(*routecore.Route) {
	return func(r *routecore.Route) {
		for _, m := range mods {
			m(r)
		}
	}
}

func weight(w int32) *int32 { return &w }

func headerSet(name, value string) routecore.RouteHTTPHeader {
	return routecore.RouteHTTPHeader{Name: name, Action: routecore.RouteHTTPHeaderActionUnion{Type: routecore.Set, Set: &routecore.RouteSetHTTPHeader{Value: value}}}
}

func responseHeaders(h ...routecore.RouteHTTPHeader) func(*routecore.Route) {
	return func(r *routecore.Route) {
		r.Spec.HTTPHeaders = &routecore.RouteHTTPHeaders{Actions: routecore.RouteHTTPHeaderActions{Response: h}}
	}
}

// invalidAnnotationValues is an invalid value of every catalogue
// annotation; docgen fails when an annotation has none, so a new catalogue
// entry cannot be missing from the page.
var invalidAnnotationValues = map[string]string{
	routecore.AnnBalance:                  "fastest",
	routecore.AnnDisableCookies:           "yes",
	routecore.AnnCookieNameLegacy:         "my cookie",
	routecore.AnnCookieName:               "session;path=/",
	routecore.AnnCookieSameSite:           "lax",
	routecore.AnnPodConcurrentConnections: "-1",
	routecore.AnnRateLimit:                "on",
	routecore.AnnRateLimitConcurrentTCP:   "0",
	routecore.AnnRateLimitRateHTTP:        "100/s",
	routecore.AnnRateLimitRateTCP:         "+10",
	routecore.AnnTimeout:                  "5 minutes",
	routecore.AnnTimeoutTunnel:            "forever",
	routecore.AnnRewriteTarget:            "api/v2",
	routecore.AnnHealthCheckInterval:      "0s",
	routecore.AnnIPWhitelist:              "10.0.0.0/33",
	routecore.AnnIPAllowlist:              "192.168.1.10,10.0.0.0/8",
	routecore.AnnHSTSHeader:               "includeSubDomains",
	routecore.AnnPoolSize:                 "0",
	routecore.AnnPathType:                 "exact",
	routecore.AnnSetForwardedHeaders:      "overwrite",
	routecore.AnnH1AdjustCase:             "yes",

	routecore.AnnCertIssuer:                    "Shop_CA",
	routecore.AnnCertIssuerName:                "shop ca",
	routecore.AnnCertClusterIssuer:             "letsencrypt.",
	routecore.AnnCertIssuerKind:                "",
	routecore.AnnCertIssuerGroup:               "AWSPCA",
	routecore.AnnCertCommonName:                strings.Repeat("c", 65),
	routecore.AnnCertAltNames:                  "a.example.com, b.example.com",
	routecore.AnnCertIPSANs:                    "10.0.0.300",
	routecore.AnnCertURISANs:                   "shop/web",
	routecore.AnnCertEmailSANs:                 "Ops <ops@example.com>",
	routecore.AnnCertDuration:                  "90d",
	routecore.AnnCertRenewBefore:               "1m",
	routecore.AnnCertPrivateKeyAlgorithm:       "ecdsa",
	routecore.AnnCertPrivateKeySize:            "1024",
	routecore.AnnCertPrivateKeyRotationPolicy:  "never",
	routecore.AnnCertRevisionHistoryLimit:      "0",
	routecore.AnnCertSubjectOrganizations:      `"Example`,
	routecore.AnnCertSubjectOrganizationalUnit: `"Web`,
	routecore.AnnCertSubjectCountries:          `"DE`,
	routecore.AnnCertSubjectProvinces:          `"Bavaria`,
	routecore.AnnCertSubjectLocalities:         `"Munich`,
	routecore.AnnCertSubjectStreetAddresses:    `"Main Street 1`,
	routecore.AnnCertSubjectPostalCodes:        `"80331`,
	routecore.AnnCertSubjectSerialNumber:       "12\n34",
}

// annotationExamples is one row per catalogue annotation, in catalogue
// order, plus the rules that apply to every router annotation.
func annotationExamples() ([]example, error) {
	out := []example{{
		rule:  "No router annotation value (`haproxy.router.openshift.io/*`, `*.router.openshift.io/*`, `route.openshift.io/*`, `routeshift.io/*`) may contain control characters",
		shows: "a newline in a value",
		route: annotate("route.openshift.io/owner", "team-a\nteam-b"), field: "metadata.annotations",
	}, {
		rule:  "A TimeUnit is at most 2147483647 ms (HAProxy's limit)",
		shows: "`haproxy.router.openshift.io/timeout: 25d`",
		route: annotate(routecore.AnnTimeout, "25d"), field: "metadata.annotations",
	}, {
		rule:  "Values that reach HAProxy's configuration have limits (routeshift, see [Limits](../validation.md#limits)): rewrite-target 2048 bytes, cookie names and `hsts_header` 1024 bytes, allowlists 10000 entries",
		shows: "`haproxy.router.openshift.io/rewrite-target` of 2049 bytes",
		route: annotate(routecore.AnnRewriteTarget, "/"+strings.Repeat("t", routecore.MaxRewriteTargetLength)), field: "metadata.annotations",
	}}
	for _, a := range routecore.AnnotationCatalogue {
		v, ok := invalidAnnotationValues[a.Key]
		if !ok {
			return nil, fmt.Errorf("annotation %s has no invalid example value in invalidAnnotationValues", a.Key)
		}
		route := annotate(a.Key, v)
		if routecore.IsCertManagerAnnotation(a.Key) {
			route = both(withTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationEdge}), annotate(routecore.AnnCertIssuer, "ca"), route)
			if a.Key == routecore.AnnCertIssuerName || a.Key == routecore.AnnCertClusterIssuer {
				route = both(route, func(r *routecore.Route) { delete(r.Annotations, routecore.AnnCertIssuer) })
			}
		}
		out = append(out, example{
			rule:  "`" + a.Key + "`: " + a.Help,
			shows: fmt.Sprintf("value `%q`", v),
			route: route, field: "metadata.annotations",
		})
	}
	return out, nil
}

func label64() string { return strings.Repeat("x", 64) }

// validationGroups are the rows of routecore's rules, by field, in the
// order ValidateRoute checks them.
func validationGroups(p *pki) ([]group, error) {
	annotations, err := annotationExamples()
	if err != nil {
		return nil, err
	}
	longValue := strings.Repeat("x", 16385)
	longPath := "/" + strings.Repeat("p", routecore.MaxPathLength)
	longSubdomain := strings.Repeat("abc.", 63) + "abc"
	longName := "X-" + strings.Repeat("x", 254)
	tooMany := make([]routecore.RouteHTTPHeader, 21)
	for i := range tooMany {
		tooMany[i] = headerSet(fmt.Sprintf("X-Header-%d", i), "1")
	}
	return []group{{
		title: "Metadata",
		examples: []example{{
			rule: "A name is required", shows: "no `metadata.name`",
			route: func(r *routecore.Route) { r.Name = "" }, field: "metadata.name",
		}, {
			rule: "With only `metadata.generateName`, the host generated from the name the API server makes (the prefix cut to 58 characters, 5 random ones) and the namespace fits a 63-character label", shows: "`generateName` of 55 characters in namespace `demo`",
			route: func(r *routecore.Route) { r.Name, r.GenerateName, r.Spec.Host = "", strings.Repeat("g", 55), "" }, field: "metadata.generateName",
		}, {
			rule: "The name is a DNS subdomain", shows: "`name: Shop`",
			route: func(r *routecore.Route) { r.Name = "Shop" }, field: "metadata.name",
		}, {
			rule:  "The name has at most 63 characters (it must fit the first label of a generated host); checked on create only",
			shows: "a name of 64 characters",
			route: func(r *routecore.Route) { r.Name = strings.Repeat("a", 64) }, field: "metadata.name",
		}, {
			rule: "Label keys and values follow Kubernetes' rules", shows: "label `tier: front end`",
			route: func(r *routecore.Route) { r.Labels = map[string]string{"tier": "front end"} }, field: "metadata.labels",
		}, {
			rule: "Annotation keys are qualified names", shows: "annotation key `team name`",
			route: annotate("team name", "shop"), field: "metadata.annotations",
		}, {
			rule: "All annotations together take at most 256 KiB", shows: "an annotation value of 256 KiB",
			route: annotate("example.com/blob", strings.Repeat("x", 256*1024)), field: "metadata.annotations",
		}, {
			rule: "A finalizer without `/` is one of Kubernetes' own", shows: "finalizer `cleanup`",
			route: func(r *routecore.Route) { r.Finalizers = []string{"cleanup"} }, field: "metadata.finalizers",
		}},
	}, {
		title: "Annotation values",
		intro: "Values are checked on create, and on update only when they change (see [Updates](#updates)). " +
			"The router ignores a value it cannot use instead of refusing the Route: the Router column says `admitted`. " +
			"What each annotation does: [annotations.md](annotations.md).",
		examples: annotations,
	}, {
		title: "Host and subdomain",
		examples: []example{{
			rule:  "`spec.host` is a lower-case DNS subdomain; this check stays on with `route.openshift.io/allow-non-dns-compliant-host: \"true\"`",
			shows: "`host: www_example.com` with the annotation",
			route: both(annotate(routecore.AllowNonDNSCompliantHostAnnotation, "true"), func(r *routecore.Route) { r.Spec.Host = "www_example.com" }),
			field: "spec.host",
		}, {
			rule:  "Each label of `spec.host` is a DNS label (unless the annotation above is `\"true\"`); a label that is not also fails the subdomain check",
			shows: "`host: WWW.example.com`",
			route: func(r *routecore.Route) { r.Spec.Host = "WWW.example.com" }, field: "spec.host",
		}, {
			rule:  "Each label of `spec.host` has at most 63 characters (unless the annotation above is `\"true\"`)",
			shows: "a first label of 64 characters",
			route: func(r *routecore.Route) { r.Spec.Host = label64() + ".example.com" }, field: "spec.host",
		}, {
			rule:  "A generated host is checked like a given one: `<name>-<namespace>` must fit in 63 characters",
			shows: "no host; name and namespace of 32 characters each",
			route: func(r *routecore.Route) {
				r.Spec.Host, r.Name, r.Namespace = "", strings.Repeat("n", 32), strings.Repeat("s", 32)
			},
			field: "spec.host",
		}, {
			rule:  "`spec.subdomain` has at most 253 characters",
			shows: "a subdomain of 255 characters",
			route: func(r *routecore.Route) { r.Spec.Host, r.Spec.Subdomain = "", longSubdomain }, field: "spec.subdomain", elide: longSubdomain,
		}, {
			rule:  "Each label of `spec.subdomain` is a DNS label (the message shows the label)",
			shows: "`subdomain: Shop`",
			route: func(r *routecore.Route) { r.Spec.Host, r.Spec.Subdomain = "", "Shop" }, field: "spec.subdomain",
		}},
	}, {
		title: "Path",
		examples: []example{{
			rule: "`spec.path` starts with `/`", shows: "`path: api`",
			route: func(r *routecore.Route) { r.Spec.Path = "api" }, field: "spec.path",
		}, {
			rule: "Passthrough routes have no path (the router cannot see it)", shows: "`path: /api` with `termination: passthrough`",
			route: both(func(r *routecore.Route) { r.Spec.Path = "/api" }, withTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationPassthrough})),
			field: "spec.path",
		}, {
			rule: "`spec.path` contains no `#` and no space; checked on create, and on update when the path changes", shows: "`path: /a b`",
			route: func(r *routecore.Route) { r.Spec.Path = "/a b" }, field: "spec.path",
		}, {
			rule: "`spec.path` contains no control characters (routeshift: a router cannot match them); checked like spaces", shows: "a tab in the path",
			route: func(r *routecore.Route) { r.Spec.Path = "/a\tb" }, field: "spec.path",
		}, {
			rule: "`spec.path` has at most 2048 bytes (routeshift: HAProxy refuses the rewrite of much longer paths, see [Limits](../validation.md#limits)); checked like spaces", shows: "a path of 2049 bytes",
			route: func(r *routecore.Route) { r.Spec.Path = longPath }, field: "spec.path",
		}},
	}, {
		title: "Backends",
		examples: []example{{
			rule: "`spec.to.name` is set", shows: "`to: {name: \"\"}`",
			route: func(r *routecore.Route) { r.Spec.To.Name = "" }, field: "spec.to.name",
		}, {
			rule: "`spec.to.kind` is `Service` (empty means `Service`)", shows: "`to: {kind: Deployment}`",
			route: func(r *routecore.Route) { r.Spec.To.Kind = "Deployment" }, field: "spec.to.kind",
		}, {
			rule: "`spec.to.weight` is 0 to 256 (empty means 100)", shows: "`to: {weight: 300}`",
			route: func(r *routecore.Route) { r.Spec.To.Weight = weight(300) }, field: "spec.to.weight",
		}, {
			rule: "At most 3 `spec.alternateBackends`", shows: "4 alternate backends",
			route: func(r *routecore.Route) {
				for _, n := range []string{"a", "b", "c", "d"} {
					r.Spec.AlternateBackends = append(r.Spec.AlternateBackends, routecore.RouteTargetReference{Name: n})
				}
			},
			field: "spec.alternateBackends",
		}, {
			rule: "Each alternate backend follows the rules of `spec.to`", shows: "`alternateBackends: [{name: canary, weight: -1}]`",
			route: func(r *routecore.Route) {
				r.Spec.AlternateBackends = []routecore.RouteTargetReference{{Name: "canary", Weight: weight(-1)}}
			},
			field: "spec.alternateBackends[0].weight",
		}, {
			rule: "No Service twice in `spec.alternateBackends` (the CRD's list keys, `name` and `kind`, say the same)", shows: "`alternateBackends: [{name: canary}, {name: canary}]`",
			route: func(r *routecore.Route) {
				r.Spec.AlternateBackends = []routecore.RouteTargetReference{{Name: "canary"}, {Name: "canary"}}
			},
			field: "spec.alternateBackends[1]",
		}},
	}, {
		title: "Port",
		examples: []example{{
			rule: "`spec.port.targetPort` is not `0` or `\"\"`", shows: "`port: {targetPort: 0}`",
			route: func(r *routecore.Route) { r.Spec.Port = &routecore.RoutePort{TargetPort: intstr.FromInt32(0)} }, field: "spec.port.targetPort",
		}},
	}, {
		title: "TLS",
		intro: "Termination is normalised first: `Edge`, `Passthrough`, `Reencrypt` (any case) become lower case, " +
			"and an empty termination becomes `edge` unless `destinationCACertificate` is set.",
		examples: []example{{
			rule: "`spec.tls.termination` is `edge`, `passthrough` or `reencrypt`", shows: "`termination: http`",
			route: withTLS(routecore.TLSConfig{Termination: "http"}), field: "spec.tls.termination",
		}, {
			rule: "… including when it is empty because `destinationCACertificate` is set", shows: "no termination, a `destinationCACertificate`",
			route: withTLS(routecore.TLSConfig{DestinationCACertificate: p.ca}), field: "spec.tls.termination",
		}, {
			rule: "Passthrough routes carry no certificate, key or CA (the values are redacted in messages)", shows: "`termination: passthrough` with the four fields",
			route: withTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationPassthrough,
				Certificate: p.leaf, Key: p.leafKey, CACertificate: p.ca, DestinationCACertificate: p.ca}),
			field: "spec.tls",
		}, {
			rule: "… nor an external certificate", shows: "`termination: passthrough`, `externalCertificate: {name: web-tls}`",
			route: withTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationPassthrough, ExternalCertificate: &routecore.LocalObjectReference{Name: "web-tls"}}),
			field: "spec.tls.externalCertificate",
		}, {
			rule: "Edge routes have no `destinationCACertificate`", shows: "`termination: edge` with a `destinationCACertificate`",
			route: withTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, DestinationCACertificate: p.ca}),
			field: "spec.tls.destinationCACertificate",
		}, {
			rule: "`certificate` and `externalCertificate` exclude each other", shows: "both set",
			route: withTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, Certificate: p.leaf, Key: p.leafKey,
				ExternalCertificate: &routecore.LocalObjectReference{Name: "web-tls"}}),
			field: "spec.tls.externalCertificate",
		}, {
			rule: "`insecureEdgeTerminationPolicy` is `None`, `Allow` or `Redirect` (edge, reencrypt)", shows: "`insecureEdgeTerminationPolicy: Deny`",
			route: withTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, InsecureEdgeTerminationPolicy: "Deny"}),
			field: "spec.tls.insecureEdgeTerminationPolicy",
		}, {
			rule: "… and `None` or `Redirect` for passthrough", shows: "`termination: passthrough`, `insecureEdgeTerminationPolicy: Allow`",
			route: withTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationPassthrough, InsecureEdgeTerminationPolicy: routecore.InsecureEdgeTerminationPolicyAllow}),
			field: "spec.tls.insecureEdgeTerminationPolicy",
		}},
	}, {
		title: "Wildcard policy",
		examples: []example{{
			rule: "`spec.wildcardPolicy` is `None` or `Subdomain` (empty means `None`)", shows: "`wildcardPolicy: All`",
			route: func(r *routecore.Route) { r.Spec.WildcardPolicy = "All" }, field: "spec.wildcardPolicy",
		}, {
			rule: "A `Subdomain` route names its host (none is generated for it)", shows: "`wildcardPolicy: Subdomain`, no host",
			route: func(r *routecore.Route) { r.Spec.Host, r.Spec.WildcardPolicy = "", routecore.WildcardPolicySubdomain },
			field: "spec.wildcardPolicy",
		}},
	}, {
		title: "HTTP header actions",
		examples: []example{{
			rule: "Passthrough routes have no header actions", shows: "`termination: passthrough` with a response header action",
			route: both(withTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationPassthrough}), responseHeaders(headerSet("X-Frame-Options", "DENY"))),
			field: "spec.tls.termination",
		}, {
			rule: "At most 20 actions per list", shows: "21 response header actions",
			route: responseHeaders(tooMany...), field: "spec.httpHeaders.actions.response",
		}, {
			rule: "A header name appears once per list (case-sensitive)", shows: "`X-Frame-Options` twice",
			route: responseHeaders(headerSet("X-Frame-Options", "DENY"), headerSet("X-Frame-Options", "SAMEORIGIN")),
			field: "spec.httpHeaders.actions.response[1].name",
		}, {
			rule: "A header name is set", shows: "`name: \"\"`",
			route: responseHeaders(headerSet("", "1")), field: "spec.httpHeaders.actions.response[0].name",
		}, {
			rule: "A header name has at most 255 characters", shows: "a name of 256 characters",
			route: responseHeaders(headerSet(longName, "1")), field: "spec.httpHeaders.actions.response[0].name", elide: longName,
		}, {
			rule: "`Strict-Transport-Security`, `Proxy`, `Cookie` and `Set-Cookie` may not be changed (any case)", shows: "`name: Set-Cookie`",
			route: responseHeaders(headerSet("Set-Cookie", "a=b")), field: "spec.httpHeaders.actions.response[0].name",
		}, {
			rule: "A header name is an HTTP token", shows: "`name: X Frame`",
			route: responseHeaders(headerSet("X Frame", "DENY")), field: "spec.httpHeaders.actions.response[0].name",
		}, {
			rule: "The action type is `Set` or `Delete`", shows: "`type: Replace`",
			route: responseHeaders(routecore.RouteHTTPHeader{Name: "X-A", Action: routecore.RouteHTTPHeaderActionUnion{Type: "Replace"}}),
			field: "spec.httpHeaders.actions.response[0].action.type",
		}, {
			rule: "`set` is given with `Set` and only then", shows: "`type: Set` without `set`",
			route: responseHeaders(routecore.RouteHTTPHeader{Name: "X-A", Action: routecore.RouteHTTPHeaderActionUnion{Type: routecore.Set}}),
			field: "spec.httpHeaders.actions.response[0].action.set",
		}, {
			rule: "A value is set", shows: "`set: {value: \"\"}`",
			route: responseHeaders(headerSet("X-A", "")), field: "spec.httpHeaders.actions.response[0].action.set.value",
		}, {
			rule: "A value has at most 16384 characters", shows: "a value of 16385 characters",
			route: responseHeaders(headerSet("X-A", longValue)), field: "spec.httpHeaders.actions.response[0].action.set.value", elide: longValue,
		}, {
			rule: "The values of the `Set` actions of a list add up to at most 16384 bytes (routeshift: HAProxy must fit them in its buffer, see [Limits](../validation.md#limits))", shows: "two values of 8193 bytes",
			route: responseHeaders(headerSet("X-A", longValue[:8193]), headerSet("X-B", longValue[:8193])), field: "spec.httpHeaders.actions.response",
		}, {
			rule: "A response value uses only `%[res.hdr(…)]` and `%[ssl_c_der]`, with the `lower` and `base64` converters", shows: "`%[req.hdr(Host)]` in a response header",
			route: responseHeaders(headerSet("X-Host", "%[req.hdr(Host)]")), field: "spec.httpHeaders.actions.response[0].action.set.value",
		}, {
			rule: "A request value likewise with `%[req.hdr(…)]`", shows: "`%[req.hdr(Host),upper]` in a request header",
			route: func(r *routecore.Route) {
				r.Spec.HTTPHeaders = &routecore.RouteHTTPHeaders{Actions: routecore.RouteHTTPHeaderActions{
					Request: []routecore.RouteHTTPHeader{headerSet("X-Host", "%[req.hdr(Host),upper]")}}}
			},
			field: "spec.httpHeaders.actions.request[0].action.set.value",
		}},
	}, {
		title: "Certificates",
		intro: "Certificate checks run on create, and on update when the termination or any certificate, key or CA field changes. " +
			"`routeshift webhook --skip-certificate-checks` and `routeshift validate --skip-certificate-checks` turn them off; " +
			"the router makes them itself when `EXTENDED_VALIDATION` is true (the default) and reports `ExtendedValidationFailed`. " +
			"They apply to edge and reencrypt routes (`destinationCACertificate` to reencrypt only). " +
			"Certificate and key material never appears in a message.",
		examples: []example{{
			rule: "Every PEM block is a certificate, a public key or an unencrypted private key", shows: "a `FOO` block after the certificate",
			route: edgeWith(p.leaf+p.unknownBlock, p.leafKey, ""), field: "spec.tls.certificate",
		}, {
			rule: "`certificate` holds at least one certificate", shows: "`certificate: hello`",
			route: edgeWith("hello", p.leafKey, ""), field: "spec.tls.certificate",
		}, {
			rule: "`certificate` holds certificates only (and, optionally, the key)", shows: "a `PUBLIC KEY` after the certificate",
			route: edgeWith(p.leaf+p.publicKey, p.leafKey, ""), field: "spec.tls.certificate",
		}, {
			rule: "A certificate comes with its private key (in `key`, or bundled in `certificate`)", shows: "no `key`",
			route: edgeWith(p.leaf, "", ""), field: "spec.tls.key",
		}, {
			rule: "`key` holds private keys only", shows: "the certificate in `key`",
			route: edgeWith(p.leaf, p.leaf, ""), field: "spec.tls.key",
		}, {
			rule: "The key parses", shows: "a `PRIVATE KEY` block that is not a key",
			route: edgeWith(p.leaf, p.garbageKey, ""), field: "spec.tls.key",
		}, {
			rule: "The key is the certificate's (the first key, the first certificate)", shows: "the key of another certificate",
			route: edgeWith(p.leaf, p.otherLeafKey, ""), field: "spec.tls.key",
		}, {
			rule: "… of the same type", shows: "an RSA key for an ECDSA certificate",
			route: edgeWith(p.leaf, p.rsaKey, ""), field: "spec.tls.key",
		}, {
			rule: "`caCertificate` holds at least one certificate", shows: "`caCertificate: our CA`",
			route: edgeWith(p.leaf, p.leafKey, "our CA"), field: "spec.tls.caCertificate",
		}, {
			rule: "`caCertificate` holds certificates only", shows: "a `PUBLIC KEY` in `caCertificate`",
			route: edgeWith(p.leaf, p.leafKey, p.ca+p.publicKey), field: "spec.tls.caCertificate",
		}, {
			rule: "With a `caCertificate`, the certificate verifies against it (host names and validity dates are not checked)", shows: "a `caCertificate` that did not sign the certificate",
			route: edgeWith(p.leaf, p.leafKey, p.otherCA), field: "spec.tls.certificate",
		}, {
			rule: "No CA-signed certificate (leaf, chain, CA or destination CA) is signed with SHA1, MD2 or MD5", shows: "a leaf signed with ECDSA-SHA1",
			route: edgeWith(p.sha1Leaf, p.sha1LeafKey, p.ca), field: "spec.tls.certificate",
		}, {
			rule: "`destinationCACertificate` (reencrypt) holds certificates that parse", shows: "`destinationCACertificate: internal CA`",
			route: withTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationReencrypt, DestinationCACertificate: "internal CA"}),
			field: "spec.tls.destinationCACertificate",
		}},
	}}, nil
}

// updateExamples are the rules that only exist on update, and updates that
// the ratchet lets through although the same values would be refused on
// create.
func updateExamples(p *pki) (refused, ratcheted []example) {
	invalidHost := label64() + ".example.com"
	refused = []example{{
		rule: "`spec.wildcardPolicy` cannot change", shows: "`None` changed to `Subdomain`",
		old:   func(r *routecore.Route) {},
		route: func(r *routecore.Route) { r.Spec.WildcardPolicy = routecore.WildcardPolicySubdomain }, field: "spec.wildcardPolicy",
	}, {
		rule: "A changed host is checked label by label, when the stored host passed that check", shows: "`www.example.com` changed to a host with a 64-character label",
		old:   func(r *routecore.Route) {},
		route: func(r *routecore.Route) { r.Spec.Host = invalidHost }, field: "spec.host",
	}, {
		rule: "A changed path is checked for `#` and spaces", shows: "`/a` changed to `/a b`",
		old:   func(r *routecore.Route) { r.Spec.Path = "/a" },
		route: func(r *routecore.Route) { r.Spec.Path = "/a b" }, field: "spec.path",
	}}
	ratcheted = []example{{
		rule: "A name over 63 characters, stored before the rule", shows: "a 64-character name, label added",
		old:   func(r *routecore.Route) { r.Name = strings.Repeat("a", 64) },
		route: func(r *routecore.Route) { r.Labels = map[string]string{"team": "shop"} },
	}, {
		rule: "A host whose labels fail the label check, stored before the rule", shows: "host with a 64-character label kept, label added",
		old:   func(r *routecore.Route) { r.Spec.Host = invalidHost },
		route: func(r *routecore.Route) { r.Labels = map[string]string{"team": "shop"} },
	}, {
		rule: "… and changed to another such host", shows: "64-character first label changed to another",
		old:   func(r *routecore.Route) { r.Spec.Host = invalidHost },
		route: func(r *routecore.Route) { r.Spec.Host = strings.Repeat("y", 64) + ".example.com" },
	}, {
		rule: "A path with a space, unchanged", shows: "`path: /a b` kept, weight changed",
		old:   func(r *routecore.Route) { r.Spec.Path = "/a b" },
		route: func(r *routecore.Route) { r.Spec.To.Weight = weight(50) },
	}, {
		rule: "An invalid annotation value, unchanged", shows: "`haproxy.router.openshift.io/timeout: 5 minutes` kept, label added",
		old:   annotate(routecore.AnnTimeout, "5 minutes"),
		route: func(r *routecore.Route) { r.Labels = map[string]string{"team": "shop"} },
	}, {
		rule: "A certificate that fails the checks, unchanged", shows: "key of another certificate kept, weight changed",
		old:   edgeWith(p.leaf, p.otherLeafKey, ""),
		route: func(r *routecore.Route) { r.Spec.To.Weight = weight(50) },
	}}
	return refused, ratcheted
}

// acceptedExamples are create-time cases that are accepted on purpose.
func acceptedExamples(p *pki) []example {
	return []example{{
		rule: "Expired (or not yet valid) certificates: validity dates are not checked", shows: "a certificate that expired a year ago, with its CA",
		route: edgeWith(p.expiredLeaf, p.expiredLeafKey, p.ca),
	}, {
		rule: "Certificates for other host names: names are not checked", shows: "a certificate for `shop.example.org` on `www.example.com`",
		route: edgeWith(p.wrongNameLeaf, p.wrongNameLeafKey, p.ca),
	}, {
		rule: "Certificates without `caCertificate`: any issuer (self-signed too) is accepted", shows: "a CA-signed certificate without its CA",
		route: edgeWith(p.leaf, p.leafKey, ""),
	}, {
		rule: "Only `metadata.generateName`: the API server names the Route (the mutating webhook names it first, to generate its host)", shows: "`generateName: shop-`, no name",
		route: func(r *routecore.Route) { r.Name, r.GenerateName = "", "shop-" },
	}, {
		rule: "Termination in any case", shows: "`termination: Edge` (becomes `edge`)",
		route: withTLS(routecore.TLSConfig{Termination: "Edge"}),
	}, {
		rule: "Weight 0 (the backend gets no traffic; all weights 0 means 503)", shows: "`to: {weight: 0}`",
		route: func(r *routecore.Route) { r.Spec.To.Weight = weight(0) },
	}, {
		rule: "Any host label with `route.openshift.io/allow-non-dns-compliant-host: \"true\"`", shows: "a 64-character label with the annotation",
		route: both(annotate(routecore.AllowNonDNSCompliantHostAnnotation, "true"), func(r *routecore.Route) { r.Spec.Host = label64() + ".example.com" }),
	}, {
		rule: "An alternate backend naming the same Service as `spec.to`", shows: "`to: {name: web}`, `alternateBackends: [{name: web}]`",
		route: func(r *routecore.Route) {
			r.Spec.AlternateBackends = []routecore.RouteTargetReference{{Name: r.Spec.To.Name}}
		},
	}}
}

// warningExamples are routecore.Warnings' cases; warnings never refuse.
func warningExamples() []example {
	return []example{{
		rule: "Host and subdomain both set", shows: "`host` and `subdomain: shop`",
		route: func(r *routecore.Route) { r.Spec.Subdomain = "shop" },
	}, {
		rule: "On create, a host marked generated that this cluster would not generate (exported from another cluster)", shows: "`openshift.io/host.generated: \"true\"` with `host: example-demo.apps.ocp.example.com`",
		route: both(annotate(routecore.HostGeneratedAnnotation, "true"), func(r *routecore.Route) { r.Spec.Host = "example-demo.apps.ocp.example.com" }),
	}, {
		rule: "Unknown key under `*.router.openshift.io/` or `routeshift.io/`, with the closest known key", shows: "`haproxy.router.openshift.io/timout: 5s`",
		route: annotate("haproxy.router.openshift.io/timout", "5s"),
	}, {
		rule: "… without a suggestion when none is close", shows: "`routeshift.io/owner: shop`",
		route: annotate("routeshift.io/owner", "shop"),
	}, {
		rule: "An annotation that has no effect on this termination", shows: "`router.openshift.io/cookie-same-site: Lax` on a plain-HTTP route",
		route: annotate(routecore.AnnCookieSameSite, "Lax"),
	}, {
		rule: "… on passthrough routes, which the router does not see into", shows: "`haproxy.router.openshift.io/disable_cookies: \"true\"` on passthrough",
		route: both(annotate(routecore.AnnDisableCookies, "true"), withTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationPassthrough})),
	}, {
		rule: "A rate limit without `haproxy.router.openshift.io/rate-limit-connections: \"true\"`", shows: "`…rate-limit-connections.rate-http: \"100\"` alone",
		route: annotate(routecore.AnnRateLimitRateHTTP, "100"),
	}, {
		rule: "A boolean in a spelling other than `true`, `TRUE`, `false` or `FALSE` (read as Go's strconv.ParseBool reads it, as OpenShift's router does)", shows: "`haproxy.router.openshift.io/disable_cookies: \"1\"`",
		route: annotate(routecore.AnnDisableCookies, "1"),
	}, {
		rule: "A key routeshift reads but OpenShift's router does not, with the key OpenShift reads", shows: "`haproxy.router.openshift.io/cookie_name: session`",
		route: annotate(routecore.AnnCookieNameLegacy, "session"),
	}, {
		rule: "An IP allowlist with leading, trailing or repeated spaces (OpenShift's router ignores the whole list)", shows: "`haproxy.router.openshift.io/ip_allowlist: \"10.0.0.1  10.0.0.2 \"`",
		route: annotate(routecore.AnnIPAllowlist, "10.0.0.1  10.0.0.2 "),
	}}
}

// prepare returns the example's Route, defaulted as the webhook defaults it,
// and on update the defaulted stored Route.
func (e example) prepare() (route, old *routecore.Route) {
	if e.old != nil {
		old = baseRoute()
		e.old(old)
		routecore.Default(old, nil, routecore.DefaultOptions{})
		route = old.DeepCopy()
	} else {
		route = baseRoute()
	}
	e.route(route)
	routecore.Default(route, old, routecore.DefaultOptions{})
	return route, old
}

// validate runs routecore's validation as the webhook does.
func (e example) validate() (*routecore.Route, *routecore.Route, field.ErrorList) {
	route, old := e.prepare()
	if old != nil {
		return route, old, routecore.ValidateRouteUpdate(route, old, routecore.ValidateOptions{})
	}
	return route, old, routecore.ValidateRoute(route, routecore.ValidateOptions{})
}

// refusedRow runs an example that must be refused, every error on e.field.
func refusedRow(e example) (row, error) {
	route, old, errs := e.validate()
	if len(errs) == 0 {
		return row{}, fmt.Errorf("example %q: no error", e.rule)
	}
	for _, err := range errs {
		if err.Field != e.field && !strings.HasPrefix(err.Field, e.field+".") && !strings.HasPrefix(err.Field, e.field+"[") {
			return row{}, fmt.Errorf("example %q: error %q is not on %s", e.rule, err.Error(), e.field)
		}
	}
	r := row{example: e, messages: kubectlLines(invalid.RouteMessage(route.Name, errs))}
	if old == nil {
		r.router = routerVerdict(route)
	}
	return r, nil
}

// acceptedRow runs an example that must pass.
func acceptedRow(e example) (row, error) {
	route, old, errs := e.validate()
	if len(errs) > 0 {
		return row{}, fmt.Errorf("example %q: accepted on purpose, but refused: %s", e.rule, errs.ToAggregate())
	}
	r := row{example: e}
	if old == nil {
		r.router = routerVerdict(route)
	}
	return r, nil
}

// warningRow runs an example that must be accepted with warnings.
func warningRow(e example) (row, error) {
	route, _, errs := e.validate()
	if len(errs) > 0 {
		return row{}, fmt.Errorf("warning example %q: refused: %s", e.rule, errs.ToAggregate())
	}
	warnings := routecore.Warnings(route, routecore.WarningOptions{GeneratedHostSuffix: routecore.DefaultRouteSuffix})
	if len(warnings) == 0 {
		return row{}, fmt.Errorf("warning example %q: no warning", e.rule)
	}
	r := row{example: e}
	for _, w := range warnings {
		r.messages = append(r.messages, "Warning: "+w)
	}
	return r, nil
}

// kubectlLines are the lines kubectl prints for message (one of package
// invalid's), without their trailing spaces.
func kubectlLines(message string) []string {
	lines := strings.Split(strings.TrimSuffix(message, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

// routerVerdict is what routeshift's router writes for the Route if it
// reached the router without the webhook: a fresh Store with the default
// settings, ROUTER_DOMAIN and wildcard routes allowed.
func routerVerdict(r *routecore.Route) string {
	cfg := settings.Defaults().Router.Admission
	cfg.RouterDomain = routerDomain
	cfg.AllowWildcardRoutes = true
	store := router.NewStore(cfg)
	stored := r.DeepCopy()
	stored.UID, stored.CreationTimestamp = "example-uid", metav1.Unix(0, 0)
	store.SetRoute(stored)
	d, ok := store.Commit(true).Decisions.Get(stored.Namespace + "/" + stored.Name)
	switch {
	case !ok:
		return "?"
	case d.Verdict == router.Rejected:
		return "`" + d.Reason + "`"
	}
	return d.Verdict.String()
}

// webhookExample is a check only the webhook makes, because it needs the
// cluster: who asks, and what the cluster says.
type webhookExample struct {
	example
	// allowed answers the webhook's SubjectAccessReviews.
	allowed func(user string, attrs authorizationv1.ResourceAttributes) bool
	// secret is the Secret web-tls in the Route's namespace, if any.
	secret *corev1.Secret
	// holder is an older Route, in another namespace, with the same host.
	holder *routecore.Route
}

const (
	exampleUser = "alice"
	routerSA    = webhook.DefaultRouterServiceAccount
)

func denyUser(user string, attrs authorizationv1.ResourceAttributes) bool {
	return user != exampleUser
}

func allowUser(user string, attrs authorizationv1.ResourceAttributes) bool {
	return user == exampleUser
}

func tlsSecret(typ corev1.SecretType, p *pki) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "web-tls", Namespace: exampleNamespace}, Type: typ,
		Data: map[string][]byte{corev1.TLSCertKey: []byte(p.leaf), corev1.TLSPrivateKeyKey: []byte(p.leafKey)}}
}

func webhookExamples(p *pki) (refused, warned []webhookExample) {
	external := withTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, ExternalCertificate: &routecore.LocalObjectReference{Name: "web-tls"}})
	refused = []webhookExample{{
		example: example{
			rule:  "Setting `spec.host` on create needs `create` on `routes/custom-host` (a generated host needs nothing)",
			shows: "a host, by a user without the permission",
			route: func(*routecore.Route) {}, field: "spec.host",
		},
		allowed: denyUser,
	}, {
		example: example{
			rule:  "Setting certificate fields on create needs the same permission",
			shows: "no host, an edge certificate and key",
			route: both(func(r *routecore.Route) { r.Spec.Host = "" }, edgeWith(p.leaf, p.leafKey, "")), field: "spec.tls",
		},
		allowed: denyUser,
	}, {
		example: example{
			rule:  "Changing `spec.host` needs `update` on `routes/custom-host`",
			shows: "host changed to `shop.example.com`",
			old:   func(*routecore.Route) {}, route: func(r *routecore.Route) { r.Spec.Host = "shop.example.com" }, field: "spec.host",
		},
		allowed: denyUser,
	}, {
		example: example{
			rule:  "Changing `spec.subdomain` needs `update` on `routes/custom-host`",
			shows: "subdomain changed from `shop` to `store`",
			old:   func(r *routecore.Route) { r.Spec.Host, r.Spec.Subdomain = "", "shop" },
			route: func(r *routecore.Route) { r.Spec.Subdomain = "store" }, field: "spec.subdomain",
		},
		allowed: denyUser,
	}, {
		example: example{
			rule:  "Changing certificate fields needs `update` or `create` on `routes/custom-host` (removing them needs nothing)",
			shows: "certificate and key replaced",
			old:   edgeWith(p.leaf, p.leafKey, ""), route: edgeWith(p.otherLeaf, p.otherLeafKey, ""), field: "spec.tls",
		},
		allowed: denyUser,
	}, {
		example: example{
			rule:  "The router's service account (`--router-service-account`) can get, watch and list the `externalCertificate` Secret",
			shows: "an external certificate the router may not read",
			route: external, field: "spec.tls.externalCertificate",
		},
		allowed: allowUser, secret: tlsSecret(corev1.SecretTypeTLS, p),
	}, {
		example: example{
			rule:  "The `externalCertificate` Secret exists",
			shows: "`externalCertificate: {name: web-tls}`, no such Secret",
			route: external, field: "spec.tls.externalCertificate",
		},
		allowed: func(string, authorizationv1.ResourceAttributes) bool { return true },
	}, {
		example: example{
			rule:  "… and is of type `kubernetes.io/tls`",
			shows: "an `Opaque` Secret",
			route: external, field: "spec.tls.externalCertificate",
		},
		allowed: func(string, authorizationv1.ResourceAttributes) bool { return true }, secret: tlsSecret(corev1.SecretTypeOpaque, p),
	}}
	holder := baseRoute()
	holder.Name, holder.Namespace, holder.UID = "www", "other-team", "holder-uid"
	holder.CreationTimestamp = metav1.Unix(0, 0)
	warned = []webhookExample{{
		example: example{
			rule:  "The host is held by an older Route in another namespace",
			shows: "`host: www.example.com`, taken by `other-team/www`",
			route: func(*routecore.Route) {},
		},
		allowed: allowUser, holder: holder,
	}}
	return refused, warned
}

// admit sends the example through the webhook's validating handler, as the
// API server does after mutating admission (the Route is defaulted), and
// returns the answer.
func (e webhookExample) admit() (*admissionv1.AdmissionResponse, *routecore.Route, error) {
	objects := &clusterObjects{}
	if e.secret != nil {
		objects.secrets = append(objects.secrets, *e.secret)
	}
	var routes client.Reader
	if e.holder != nil {
		objects.routes = append(objects.routes, *e.holder)
		routes = objects
	}
	srv, err := webhook.New(webhook.Options{}, authorizer(e.allowed), routes, objects, prometheus.NewRegistry())
	if err != nil {
		return nil, nil, err
	}
	mux := http.NewServeMux()
	srv.Register(handlers{mux: mux})

	route, old := e.prepare()
	req := &admissionv1.AdmissionRequest{
		UID:       "example",
		Kind:      metav1.GroupVersionKind{Group: routecore.GroupName, Version: "v1", Kind: "Route"},
		Resource:  metav1.GroupVersionResource{Group: routecore.GroupName, Version: "v1", Resource: "routes"},
		Name:      route.Name,
		Namespace: route.Namespace,
		Operation: admissionv1.Create,
		UserInfo:  authenticationv1.UserInfo{Username: exampleUser, Groups: []string{"system:authenticated"}},
		Object:    runtime.RawExtension{Raw: mustJSON(route)},
	}
	if old != nil {
		req.Operation, req.OldObject = admissionv1.Update, runtime.RawExtension{Raw: mustJSON(old)}
	}
	body := mustJSON(&admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request:  req,
	})
	rec := httptest.NewRecorder()
	httpReq := httptest.NewRequest(http.MethodPost, webhook.ValidatePath, bytes.NewReader(body))
	httpReq.Header.Set("Content-Type", "application/json")
	mux.ServeHTTP(rec, httpReq)
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &review); err != nil || review.Response == nil {
		return nil, nil, fmt.Errorf("example %q: webhook answered %d %q", e.rule, rec.Code, rec.Body.String())
	}
	return review.Response, route, nil
}

func webhookRefusedRow(e webhookExample) (row, error) {
	resp, _, err := e.admit()
	if err != nil {
		return row{}, err
	}
	if resp.Allowed || resp.Result == nil || resp.Result.Details == nil || len(resp.Result.Details.Causes) == 0 {
		return row{}, fmt.Errorf("webhook example %q: not refused with causes", e.rule)
	}
	for _, c := range resp.Result.Details.Causes {
		if c.Field != e.field && !strings.HasPrefix(c.Field, e.field+".") {
			return row{}, fmt.Errorf("webhook example %q: cause %s: %s is not on %s", e.rule, c.Field, c.Message, e.field)
		}
	}
	return row{example: e.example, messages: kubectlLines(invalid.Message(*resp.Result))}, nil
}

func webhookWarningRow(e webhookExample) (row, error) {
	resp, _, err := e.admit()
	if err != nil {
		return row{}, err
	}
	if !resp.Allowed || len(resp.Warnings) == 0 {
		return row{}, fmt.Errorf("webhook warning example %q: allowed=%t, no warning", e.rule, resp.Allowed)
	}
	r := row{example: e.example}
	for _, w := range resp.Warnings {
		r.messages = append(r.messages, "Warning: "+w)
	}
	return r, nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// authorizer answers SubjectAccessReviews with a function.
type authorizer func(user string, attrs authorizationv1.ResourceAttributes) bool

func (a authorizer) Allowed(_ context.Context, user authenticationv1.UserInfo, attrs authorizationv1.ResourceAttributes) (bool, error) {
	return a(user.Username, attrs), nil
}

// clusterObjects is the little of the cluster the webhook reads: Secrets
// by name and Routes by host.
type clusterObjects struct {
	secrets []corev1.Secret
	routes  []routecore.Route
}

func (c *clusterObjects) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	if s, ok := obj.(*corev1.Secret); ok {
		for i := range c.secrets {
			if c.secrets[i].Namespace == key.Namespace && c.secrets[i].Name == key.Name {
				c.secrets[i].DeepCopyInto(s)
				return nil
			}
		}
	}
	return apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, key.Name)
}

// List returns the Routes whatever the selector: the examples hold only
// Routes with the example host.
func (c *clusterObjects) List(_ context.Context, list client.ObjectList, _ ...client.ListOption) error {
	if l, ok := list.(*routecore.RouteList); ok {
		l.Items = append([]routecore.Route(nil), c.routes...)
		return nil
	}
	return errors.New("only Routes are listed")
}

// handlers is a webhook server that only collects the handlers.
type handlers struct {
	ctrlwebhook.Server
	mux *http.ServeMux
}

func (h handlers) Register(path string, hook http.Handler) { h.mux.Handle(path, hook) }

// section is one table of the page, under a heading (or, without a
// title, continuing the previous one).
type section struct {
	title, intro string
	header       []string
	rows         []row
	// messages and router say whether the table shows the messages and
	// the router's verdict.
	messages, router bool
}

// validationSections runs every example. It fails when an example does not
// do what its row says.
func validationSections() ([]section, error) {
	p, err := newPKI()
	if err != nil {
		return nil, err
	}
	groups, err := validationGroups(p)
	if err != nil {
		return nil, err
	}
	var out []section
	add := func(s section, examples []example, run func(example) (row, error)) error {
		rows, err := runAll(examples, run)
		s.rows = rows
		out = append(out, s)
		return err
	}
	refusedHeader := []string{"Rule", "Example", "Message", "Router"}
	for _, g := range groups {
		if err := add(section{title: g.title, intro: g.intro, header: refusedHeader, messages: true, router: true}, g.examples, refusedRow); err != nil {
			return nil, err
		}
	}
	refused, ratcheted := updateExamples(p)
	if err := add(section{title: "Updates", intro: updatesIntro, header: []string{"Rule", "Example", "Message"}, messages: true}, refused, refusedRow); err != nil {
		return nil, err
	}
	if err := add(section{intro: "Accepted on update, although refused on create:", header: []string{"Stored value", "Update"}}, ratcheted, acceptedRow); err != nil {
		return nil, err
	}
	webhookRefused, webhookWarned := webhookExamples(p)
	permissions := section{title: "Permissions and external certificates", intro: permissionsIntro, header: []string{"Rule", "Example", "Message"}, messages: true}
	if permissions.rows, err = runAll(webhookRefused, webhookRefusedRow); err != nil {
		return nil, err
	}
	out = append(out, permissions)
	if err := add(section{title: "Accepted on purpose", intro: acceptedIntro, header: []string{"Accepted", "Example", "Router"}, router: true}, acceptedExamples(p), acceptedRow); err != nil {
		return nil, err
	}
	warnings := section{title: "Warnings", intro: warningsIntro, header: []string{"Warning", "Example", "Message"}, messages: true}
	if warnings.rows, err = runAll(warningExamples(), warningRow); err != nil {
		return nil, err
	}
	claims, err := runAll(webhookWarned, webhookWarningRow)
	if err != nil {
		return nil, err
	}
	warnings.rows = append(warnings.rows, claims...)
	return append(out, warnings), nil
}

// validationPage writes docs/reference/validation.md.
func validationPage() (string, error) {
	sections, err := validationSections()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(validationIntro)
	for _, s := range sections {
		if s.title != "" {
			fmt.Fprintf(&b, "\n## %s\n", s.title)
		}
		b.WriteString("\n")
		if s.intro != "" {
			b.WriteString(s.intro + "\n\n")
		}
		writeTable(&b, s)
	}
	b.WriteString(schemaOutro)
	return b.String(), nil
}

func runAll[E any](examples []E, run func(E) (row, error)) ([]row, error) {
	rows := make([]row, 0, len(examples))
	for _, e := range examples {
		r, err := run(e)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// maxShown is the longest value printed whole; longer ones are shortened
// to their first characters and "…".
const maxShown = 100

func writeTable(b *strings.Builder, s section) {
	b.WriteString("| " + strings.Join(s.header, " | ") + " |\n")
	b.WriteString(strings.Repeat("|---", len(s.header)) + "|\n")
	for _, r := range s.rows {
		cells := []string{cell(r.rule), cell(r.shows)}
		if s.messages {
			lines := make([]string, len(r.messages))
			for i, m := range r.messages {
				if len(r.elide) > maxShown {
					m = strings.ReplaceAll(m, r.elide, r.elide[:12]+"…")
				}
				lines[i] = codeSpan(m)
			}
			cells = append(cells, strings.Join(lines, "<br>"))
		}
		if s.router {
			router := r.router
			if router == "" {
				router = "—"
			}
			cells = append(cells, router)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
}

// codeSpan is s as Markdown inline code inside a table cell.
func codeSpan(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + cell(s) + pad + fence
}

const validationIntro = `# Route validation

<!-- Generated by ` + "`make generate`" + ` (internal/docgen/validation.go); do not edit. -->

Every rule routeshift applies to a Route, with the exact message you get. The page is made by running
routeshift's own code on example Routes — ` + "`routecore.Default`" + ` then ` + "`routecore.ValidateRoute`" + `
(` + "`ValidateRouteUpdate`" + ` for updates), the webhook's handler for the checks that need the cluster —
so each message is what the code prints today (values over 100 characters are shortened here with
"…"). It reads as ` + "`kubectl apply`" + ` prints the admission webhook's refusal; ` + "`routeshift validate`" + `
prints the same lines. What the webhook does and when: [../validation.md](../validation.md).

Each example is this Route with one change (the Example column):

` + "```yaml" + `
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: example, namespace: demo}
spec:
  host: www.example.com
  to: {name: web}
` + "```" + `

The **Router** column is what routeshift's router writes in the Route's ` + "`status.ingress`" + ` (the reason of
` + "`Admitted: False`" + `) had the same Route reached it without the webhook — created before the webhook was
installed, for example. The router re-applies the rules of the tables that have this column, with
` + "`routecore.ValidateRoute`" + `, except two kinds:

* annotation values (` + "`ValidateOptions.SkipAnnotationValues`" + `): the router ignores a value it cannot use
  and serves the Route with its own default, so those rows say ` + "`admitted`" + `;
* certificates (` + "`ValidateOptions.SkipCertificateChecks`" + `): the router checks them separately when
  ` + "`EXTENDED_VALIDATION`" + ` is true (the default) and reports ` + "`ExtendedValidationFailed`" + `; such a Route
  keeps its claim on its host.

Other failures are ` + "`NoHostValue`" + ` when the Route has no host, ` + "`InvalidHost`" + ` when ` + "`spec.host`" + ` is wrong
(message ` + "`host name validation errors: …`" + `) and ` + "`RouteNotAdmitted`" + ` otherwise. The router lower-cases
` + "`spec.host`" + ` before it judges it, so a host that is wrong only by its capitals is admitted there. The
column assumes the default router settings plus ` + "`ROUTER_DOMAIN=apps.example.com`" + ` and
` + "`ROUTER_ALLOW_WILDCARD_ROUTES=true`" + `. Update rules have no router column: the router judges each Route
as it is.
`

const updatesIntro = `On update, rules that would make stored Routes uneditable ratchet: the host label check runs only
when the host changed and the stored host passed it, the path character check only when the path
changed, annotation values only when they changed, certificates only when the termination or a
certificate, key or CA field changed, and the name length not at all. ` + "`spec.wildcardPolicy`" + ` cannot
change. Every other rule applies as on create.`

const permissionsIntro = `The validating webhook asks the API server (SubjectAccessReview) whether the requesting user may use
` + "`routes/custom-host`" + ` in the Route's namespace, and whether the router's service account may read an
external certificate Secret; it also reads that Secret. ` + "`routeshift validate`" + ` cannot make these checks.
The examples run the real handler with a cluster that answers as the Example column says; the
user is ` + "`alice`" + `. The built-in ` + "`edit`" + ` and ` + "`admin`" + ` roles get ` + "`create`" + ` on
` + "`routes/custom-host`" + ` from ` + "`manifests/rbac/user-roles.yaml`" + `; ` + "`update`" + ` is for cluster admins unless you grant it.

With ` + "`EXTENDED_VALIDATION`" + ` true (the default) the router checks external certificate Secrets too: one it
cannot find (it watches only ` + "`kubernetes.io/tls`" + ` Secrets) makes it reject the Route with
` + "`ExternalCertificateValidationFailed`" + `, and the Secret's certificate and key go through the certificate
checks above.`

const acceptedIntro = "Cases that look as if they might be refused, and are not (verified like the rows above)."

const warningsIntro = `Warnings never refuse a Route: ` + "`kubectl`" + ` prints them as ` + "`Warning:`" + ` lines, and so does
` + "`routeshift validate`" + `. The last one needs the cluster, so only the webhook gives it.`

const schemaOutro = `
## The CRD schema

The API server also checks the Route CRD's OpenAPI schema, after the mutating webhook and before the
validating one. Because the mutating webhook already validates (and refuses with the messages above),
you normally see routeshift's messages, not the schema's. Every schema rule is also a routeshift
rule, so ` + "`routeshift validate`" + ` refuses offline what the API server refuses. For one of them,
` + "`spec.alternateBackends`" + ` being a list keyed by ` + "`name`" + ` and ` + "`kind`" + `
(` + "`x-kubernetes-list-type: map`" + `), routeshift uses the API server's own message
(` + "`Duplicate value`" + `, at the second appearance).
`
