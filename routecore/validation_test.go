package routecore

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
)

const (
	labelMsg     = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
	dns952Msg    = "host must conform to DNS 952 subdomain conventions"
	passthruCert = "passthrough termination does not support certificates"
)

// TestValidateRoute pins every create-time rule, accepted and rejected side,
// to the exact message a user reads.
func TestValidateRoute(t *testing.T) {
	long64 := strings.Repeat("a", 64)
	long63 := strings.Repeat("a", 63)
	longHost := strings.Repeat("abcdefghi.", 25) + "com1" // 254 characters, every label fine
	tests := []struct {
		name  string
		route *Route
		want  []string
	}{
		{name: "valid plain route", route: route()},

		// metadata, and the 63-character name rule
		{name: "name missing", route: route(func(r *Route) { r.Name = "" }),
			want: []string{"metadata.name: Required value: name or generateName is required"}},
		{name: "generateName only (the API server names the Route)", route: route(func(r *Route) { r.Name, r.GenerateName, r.Spec.Host = "", "web-", "" })},
		{name: "generateName only, with a host", route: route(func(r *Route) { r.Name, r.GenerateName = "", "web-" })},
		{name: "generateName not a DNS subdomain prefix", route: route(func(r *Route) { r.Name, r.GenerateName = "", "Web_" }),
			want: []string{`metadata.generateName: Invalid value: "Web_": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{name: "generateName whose generated host label fits", route: route(func(r *Route) {
			r.Name, r.GenerateName, r.Spec.Host = "", strings.Repeat("g", 63-len("xxxxx-ns")), ""
		})},
		{name: "generateName whose generated host label is too long", route: route(func(r *Route) {
			r.Name, r.GenerateName, r.Spec.Host = "", strings.Repeat("g", 64-len("xxxxx-ns")), ""
		}), want: []string{`metadata.generateName: Invalid value: "` + strings.Repeat("g", 64-len("xxxxx-ns")) + `": the host generated for this Route would start with <name>-<namespace>, 64 characters: must be no more than 63; shorten generateName or the namespace`}},
		{name: "generateName of 63 characters is cut to 58 by the API server", route: route(func(r *Route) { r.Name, r.GenerateName = "", long63 })},
		{name: "name of 63 characters", route: route(func(r *Route) { r.Name = long63 })},
		{name: "name not a DNS subdomain", route: route(func(r *Route) { r.Name = "Bad_Name" }),
			want: []string{`metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{name: "namespace missing", route: route(func(r *Route) { r.Namespace = "" }),
			want: []string{"metadata.namespace: Required value"}},
		{name: "standard and qualified finalizers", route: route(func(r *Route) { r.Finalizers = []string{"kubernetes", "example.com/cleanup"} })},

		// host
		{name: "host **", route: route(func(r *Route) { r.Spec.Host = "**" }),
			want: []string{`spec.host: Invalid value: "**": ` + dns952Msg, `spec.host: Invalid value: "**": ` + labelMsg}},
		{name: "host with trailing dot", route: route(func(r *Route) { r.Spec.Host = "abc.test.com." }),
			want: []string{`spec.host: Invalid value: "abc.test.com.": ` + dns952Msg, `spec.host: Invalid value: "abc.test.com.": ` + labelMsg}},
		{name: "host label of 64 characters allowed by annotation", route: route(
			func(r *Route) { r.Spec.Host = long64 + ".test.com" }, withAnnotation(AllowNonDNSCompliantHostAnnotation, "true"))},
		{name: "upper-case host with the annotation still fails the subdomain rule", route: route(
			func(r *Route) { r.Spec.Host = "A.test.com" }, withAnnotation(AllowNonDNSCompliantHostAnnotation, "true")),
			want: []string{`spec.host: Invalid value: "A.test.com": ` + dns952Msg}},
		{name: "host over 253 characters", route: route(func(r *Route) { r.Spec.Host = longHost }),
			want: []string{`spec.host: Invalid value: "` + longHost + `": ` + dns952Msg}},

		// subdomain
		{name: "subdomain", route: route(func(r *Route) { r.Spec.Host = ""; r.Spec.Subdomain = "frontend" })},
		{name: "subdomain label invalid", route: route(func(r *Route) { r.Spec.Host = ""; r.Spec.Subdomain = "front_end.apps" }),
			want: []string{`spec.subdomain: Invalid value: "front_end": ` + labelMsg}},

		// wildcard policy
		{name: "wildcard Subdomain with host", route: route(func(r *Route) { r.Spec.Host = "wildcard.example.com"; r.Spec.WildcardPolicy = WildcardPolicySubdomain })},

		// path
		{name: "path", route: route(func(r *Route) { r.Spec.Path = "/test" })},
		{name: "path with #", route: route(func(r *Route) { r.Spec.Path = "/a#b" }),
			want: []string{`spec.path: Invalid value: "/a#b": cannot contain # or spaces`}},
		{name: "path with a NUL", route: route(func(r *Route) { r.Spec.Path = "/\x00" }),
			want: []string{`spec.path: Invalid value: "/\x00": cannot contain control characters such as tabs or newlines`}},
		{name: "path that is not UTF-8", route: route(func(r *Route) { r.Spec.Path = "/\xe2" }),
			want: []string{`spec.path: Invalid value: "/\xe2": must be valid UTF-8`}},

		// backends
		{name: "weights 0 and 256", route: route(func(r *Route) {
			r.Spec.To.Weight = weight(0)
			r.Spec.AlternateBackends = []RouteTargetReference{{Kind: "Service", Name: "b", Weight: weight(256)}}
		})},
		{name: "weight -1", route: route(func(r *Route) { r.Spec.To.Weight = weight(-1) }),
			want: []string{"spec.to.weight: Invalid value: -1: weight must be an integer between 0 and 256"}},
		{name: "three alternate backends", route: route(func(r *Route) {
			r.Spec.AlternateBackends = []RouteTargetReference{{Kind: "Service", Name: "a"}, {Kind: "Service", Name: "b"}, {Kind: "Service", Name: "c"}}
		})},
		{name: "alternate backend errors", route: route(func(r *Route) {
			r.Spec.AlternateBackends = []RouteTargetReference{{Kind: "Service", Name: "ok"}, {Kind: "Deployment", Name: "", Weight: weight(257)}}
		}), want: []string{
			`spec.alternateBackends[1].kind: Invalid value: "Deployment": must reference a Service`,
			"spec.alternateBackends[1].name: Required value",
			"spec.alternateBackends[1].weight: Invalid value: 257: weight must be an integer between 0 and 256",
		}},

		{name: "repeated alternate backend", route: route(func(r *Route) {
			r.Spec.AlternateBackends = []RouteTargetReference{{Kind: "Service", Name: "b"}, {Kind: "Service", Name: "b", Weight: weight(5)}, {Kind: "Service", Name: "b"}}
		}), want: []string{`spec.alternateBackends[1]: Duplicate value: {"kind":"Service","name":"b"}`}},
		{name: "alternate backend may repeat spec.to", route: route(func(r *Route) {
			r.Spec.AlternateBackends = []RouteTargetReference{{Kind: "Service", Name: r.Spec.To.Name}}
		})},

		// port
		{name: "target port by name", route: route(func(r *Route) { r.Spec.Port = &RoutePort{TargetPort: intstr.FromString("http")} })},
		{name: "target port by number", route: route(func(r *Route) { r.Spec.Port = &RoutePort{TargetPort: intstr.FromInt32(8080)} })},
		{name: `target port "0" as a string`, route: route(func(r *Route) { r.Spec.Port = &RoutePort{TargetPort: intstr.FromString("0")} })},
		{name: "target port empty", route: route(func(r *Route) { r.Spec.Port = &RoutePort{TargetPort: intstr.FromString("")} }),
			want: []string{"spec.port.targetPort: Required value"}},

		// TLS structure
		{name: "edge without certificates", route: route(withTLS(TLSConfig{Termination: TLSTerminationEdge, InsecureEdgeTerminationPolicy: InsecureEdgeTerminationPolicyAllow}))},
		{name: "reencrypt without destination CA", route: route(withTLS(TLSConfig{Termination: TLSTerminationReencrypt, InsecureEdgeTerminationPolicy: InsecureEdgeTerminationPolicyRedirect}))},
		{name: "passthrough redirect", route: route(withTLS(TLSConfig{Termination: TLSTerminationPassthrough, InsecureEdgeTerminationPolicy: InsecureEdgeTerminationPolicyRedirect}))},
		{name: "passthrough with certificate fields", route: route(withTLS(TLSConfig{Termination: TLSTerminationPassthrough,
			Certificate: "c", Key: "k", CACertificate: "ca", DestinationCACertificate: "d", ExternalCertificate: &LocalObjectReference{Name: "s"}})),
			want: []string{
				`spec.tls.certificate: Invalid value: "redacted certificate data": ` + passthruCert,
				`spec.tls.key: Invalid value: "redacted key data": ` + passthruCert,
				`spec.tls.caCertificate: Invalid value: "redacted ca certificate data": ` + passthruCert,
				`spec.tls.destinationCACertificate: Invalid value: "redacted destination ca certificate data": ` + passthruCert,
				`spec.tls.externalCertificate: Invalid value: "s": ` + passthruCert,
			}},
		{name: "edge with external certificate", route: route(withTLS(TLSConfig{Termination: TLSTerminationEdge, ExternalCertificate: &LocalObjectReference{Name: "s"}}))},
		{name: "certificate and external certificate", route: route(withTLS(TLSConfig{Termination: TLSTerminationReencrypt, Certificate: "c", ExternalCertificate: &LocalObjectReference{Name: "s"}})),
			want: []string{`spec.tls.externalCertificate: Invalid value: "s": cannot specify both tls.certificate and tls.externalCertificate`}},
		{name: "insecure policy Allow on reencrypt", route: route(withTLS(TLSConfig{Termination: TLSTerminationReencrypt, InsecureEdgeTerminationPolicy: InsecureEdgeTerminationPolicyAllow}))},
		{name: "insecure policy None on passthrough", route: route(withTLS(TLSConfig{Termination: TLSTerminationPassthrough, InsecureEdgeTerminationPolicy: InsecureEdgeTerminationPolicyNone}))},
		{name: "insecure policy unknown on passthrough", route: route(withTLS(TLSConfig{Termination: TLSTerminationPassthrough, InsecureEdgeTerminationPolicy: "x"})),
			want: []string{`spec.tls.insecureEdgeTerminationPolicy: Invalid value: "x": invalid value for InsecureEdgeTerminationPolicy option, acceptable values are None, Redirect, or empty`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(tt.route, ValidateOptions{SkipCertificateChecks: true}), tt.want)
		})
	}
}
