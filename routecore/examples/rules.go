package examples

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/routeshift/routeshift/routecore"
)

// Messages that several examples share, as apimachinery and routecore
// word them.
const (
	subdomainMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	labelMsg     = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
	timeUnitMsg  = "must be a TimeUnit: a whole number from 1 up, optionally followed by us, ms, s, m, h or d (no unit means ms), for example 5500ms or 30s"
	dns952Msg    = "host must conform to DNS 952 subdomain conventions"
	passthruMsg  = "passthrough termination does not support certificates"
	headersPath  = "spec.httpHeaders.actions."
)

func headerValueMsg(fetch string) string {
	return "Either header value provided is not in correct format or the converter specified is not allowed. " +
		"The dynamic header value  may use HAProxy's %[] syntax and otherwise must be a valid HTTP header value as defined in " +
		"https://datatracker.ietf.org/doc/html/rfc7230#section-3.2 Sample fetchers allowed are " + fetch + ", ssl_c_der. " +
		"Converters allowed are lower, base64."
}

func metadata() []Example {
	generateName := strings.Repeat("g", 55)
	long := strings.Repeat("a", 64)
	return []Example{{
		Rule: "A name is required", Shows: "no `metadata.name`",
		Change: func(r *routecore.Route) { r.Name = "" },
		Errors: []string{"metadata.name: Required value: name or generateName is required"},
	}, {
		Rule:   "With only `metadata.generateName`, the host generated from the name the API server makes (the prefix cut to 58 characters, 5 random ones) and the namespace fits a 63-character label",
		Shows:  "`generateName` of 55 characters in namespace `demo`",
		Change: func(r *routecore.Route) { r.Name, r.GenerateName, r.Spec.Host = "", generateName, "" },
		Errors: []string{`metadata.generateName: Invalid value: "` + generateName + `": the host generated for this Route would start with <name>-<namespace>, 65 characters: must be no more than 63; shorten generateName or the namespace`},
	}, {
		Rule: "The name is a DNS subdomain", Shows: "`name: Shop`",
		Change: func(r *routecore.Route) { r.Name = "Shop" },
		Errors: []string{`metadata.name: Invalid value: "Shop": ` + subdomainMsg},
	}, {
		Rule:   "The name has at most 63 characters (it must fit the first label of a generated host); checked on create only",
		Shows:  "a name of 64 characters",
		Change: func(r *routecore.Route) { r.Name = long },
		Errors: []string{`metadata.name: Invalid value: "` + long + `": must be no more than 63 characters`},
	}, {
		Rule: "Label keys and values follow Kubernetes' rules", Shows: "label `tier: front end`",
		Change: func(r *routecore.Route) { r.Labels = map[string]string{"tier": "front end"} },
		Errors: []string{`metadata.labels: Invalid value: "front end": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`},
	}, {
		Rule: "Annotation keys are qualified names", Shows: "annotation key `team name`",
		Change: Annotate("team name", "shop"),
		Errors: []string{`metadata.annotations: Invalid value: "team name": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`},
	}, {
		Rule: "All annotations together take at most 256 KiB", Shows: "an annotation value of 256 KiB",
		Change: Annotate("example.com/blob", strings.Repeat("x", 256*1024)),
		Errors: []string{"metadata.annotations: Too long: may not be more than 262144 bytes"},
	}, {
		Rule: "A finalizer without `/` is one of Kubernetes' own", Shows: "finalizer `cleanup`",
		Change: func(r *routecore.Route) { r.Finalizers = []string{"cleanup"} },
		Errors: []string{`metadata.finalizers[0]: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified`},
	}}
}

func host() []Example {
	longSubdomain := strings.Repeat("abc.", 63) + "abc"
	hostLabel64 := label64 + ".example.com"
	generated := strings.Repeat("n", 32) + "-" + strings.Repeat("s", 32) + "." + routecore.DefaultRouteSuffix
	return []Example{{
		Rule:   "`spec.host` is a lower-case DNS subdomain; this check stays on with `route.openshift.io/allow-non-dns-compliant-host: \"true\"`",
		Shows:  "`host: www_example.com` with the annotation",
		Change: Both(Annotate(routecore.AllowNonDNSCompliantHostAnnotation, "true"), func(r *routecore.Route) { r.Spec.Host = "www_example.com" }),
		Errors: []string{`spec.host: Invalid value: "www_example.com": ` + dns952Msg},
	}, {
		Rule:   "Each label of `spec.host` is a DNS label (unless the annotation above is `\"true\"`); a label that is not also fails the subdomain check",
		Shows:  "`host: WWW.example.com`",
		Change: func(r *routecore.Route) { r.Spec.Host = "WWW.example.com" },
		Errors: []string{`spec.host: Invalid value: "WWW.example.com": ` + dns952Msg, `spec.host: Invalid value: "WWW.example.com": ` + labelMsg},
	}, {
		Rule:   "Each label of `spec.host` has at most 63 characters (unless the annotation above is `\"true\"`)",
		Shows:  "a first label of 64 characters",
		Change: func(r *routecore.Route) { r.Spec.Host = hostLabel64 },
		Errors: []string{`spec.host: Invalid value: "` + hostLabel64 + `": must be no more than 63 characters`},
	}, {
		Rule:  "A generated host is checked like a given one: `<name>-<namespace>` must fit in 63 characters",
		Shows: "no host; name and namespace of 32 characters each",
		Change: func(r *routecore.Route) {
			r.Spec.Host, r.Name, r.Namespace = "", strings.Repeat("n", 32), strings.Repeat("s", 32)
		},
		Errors: []string{`spec.host: Invalid value: "` + generated + `": must be no more than 63 characters`},
	}, {
		Rule: "`spec.subdomain` has at most 253 characters", Shows: "a subdomain of 255 characters",
		Change: func(r *routecore.Route) { r.Spec.Host, r.Spec.Subdomain = "", longSubdomain },
		Errors: []string{`spec.subdomain: Invalid value: "` + longSubdomain + `": must be no more than 253 characters`},
		Elide:  longSubdomain,
	}, {
		Rule: "Each label of `spec.subdomain` is a DNS label (the message shows the label)", Shows: "`subdomain: Shop`",
		Change: func(r *routecore.Route) { r.Spec.Host, r.Spec.Subdomain = "", "Shop" },
		Errors: []string{`spec.subdomain: Invalid value: "Shop": ` + labelMsg},
	}}
}

func path() []Example {
	withPath := func(p string) func(*routecore.Route) { return func(r *routecore.Route) { r.Spec.Path = p } }
	return []Example{{
		Rule: "`spec.path` starts with `/`", Shows: "`path: api`",
		Change: withPath("api"),
		Errors: []string{`spec.path: Invalid value: "api": path must begin with /`},
	}, {
		Rule: "Passthrough routes have no path (the router cannot see it)", Shows: "`path: /api` with `termination: passthrough`",
		Change: Both(withPath("/api"), WithTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationPassthrough})),
		Errors: []string{`spec.path: Invalid value: "/api": passthrough termination does not support paths`},
	}, {
		Rule: "`spec.path` contains no `#` and no space; checked on create, and on update when the path changes", Shows: "`path: /a b`",
		Change: withPath("/a b"),
		Errors: []string{`spec.path: Invalid value: "/a b": cannot contain # or spaces`},
	}, {
		Rule: "`spec.path` contains no control characters (routeshift: a router cannot match them); checked like spaces", Shows: "a tab in the path",
		Change: withPath("/a\tb"),
		Errors: []string{`spec.path: Invalid value: "/a\tb": cannot contain control characters such as tabs or newlines`},
	}, {
		Rule: "`spec.path` has at most 2048 bytes (routeshift: HAProxy refuses the rewrite of much longer paths, see [Limits](../validation.md#limits)); checked like spaces", Shows: "a path of 2049 bytes",
		Change: withPath("/" + strings.Repeat("p", routecore.MaxPathLength)),
		Errors: []string{"spec.path: Too long: may not be more than 2048 bytes"},
	}}
}

func backends() []Example {
	alternates := func(refs ...routecore.RouteTargetReference) func(*routecore.Route) {
		return func(r *routecore.Route) { r.Spec.AlternateBackends = refs }
	}
	return []Example{{
		Rule: "`spec.to.name` is set", Shows: "`to: {name: \"\"}`",
		Change: func(r *routecore.Route) { r.Spec.To.Name = "" },
		Errors: []string{"spec.to.name: Required value"},
	}, {
		Rule: "`spec.to.kind` is `Service` (empty means `Service`)", Shows: "`to: {kind: Deployment}`",
		Change: func(r *routecore.Route) { r.Spec.To.Kind = "Deployment" },
		Errors: []string{`spec.to.kind: Invalid value: "Deployment": must reference a Service`},
	}, {
		Rule: "`spec.to.weight` is 0 to 256 (empty means 100)", Shows: "`to: {weight: 300}`",
		Change: withWeight(300),
		Errors: []string{"spec.to.weight: Invalid value: 300: weight must be an integer between 0 and 256"},
	}, {
		Rule: "At most 3 `spec.alternateBackends`", Shows: "4 alternate backends",
		Change: alternates(routecore.RouteTargetReference{Name: "a"}, routecore.RouteTargetReference{Name: "b"},
			routecore.RouteTargetReference{Name: "c"}, routecore.RouteTargetReference{Name: "d"}),
		Errors: []string{"spec.alternateBackends: Required value: cannot specify more than 3 alternate backends"},
	}, {
		Rule: "Each alternate backend follows the rules of `spec.to`", Shows: "`alternateBackends: [{name: canary, weight: -1}]`",
		Change: alternates(routecore.RouteTargetReference{Name: "canary", Weight: weight(-1)}),
		Errors: []string{"spec.alternateBackends[0].weight: Invalid value: -1: weight must be an integer between 0 and 256"},
	}, {
		Rule: "No Service twice in `spec.alternateBackends` (the CRD's list keys, `name` and `kind`, say the same)", Shows: "`alternateBackends: [{name: canary}, {name: canary}]`",
		Change: alternates(routecore.RouteTargetReference{Name: "canary"}, routecore.RouteTargetReference{Name: "canary"}),
		Errors: []string{`spec.alternateBackends[1]: Duplicate value: {"kind":"Service","name":"canary"}`},
	}}
}

func port() []Example {
	return []Example{{
		Rule: "`spec.port.targetPort` is not `0` or `\"\"`", Shows: "`port: {targetPort: 0}`",
		Change: func(r *routecore.Route) { r.Spec.Port = &routecore.RoutePort{TargetPort: intstr.FromInt32(0)} },
		Errors: []string{"spec.port.targetPort: Required value"},
	}}
}

func tls(p *pki) []Example {
	const (
		edge        = routecore.TLSTerminationEdge
		passthrough = routecore.TLSTerminationPassthrough
	)
	webTLS := &routecore.LocalObjectReference{Name: "web-tls"}
	return []Example{{
		Rule: "`spec.tls.termination` is `edge`, `passthrough` or `reencrypt`", Shows: "`termination: http`",
		Change: WithTLS(routecore.TLSConfig{Termination: "http"}),
		Errors: []string{`spec.tls.termination: Unsupported value: "http": supported values: "edge", "passthrough", "reencrypt"`},
	}, {
		Rule: "… including when it is empty because `destinationCACertificate` is set", Shows: "no termination, a `destinationCACertificate`",
		Change: WithTLS(routecore.TLSConfig{DestinationCACertificate: p.ca}),
		Errors: []string{`spec.tls.termination: Unsupported value: "": supported values: "edge", "passthrough", "reencrypt"`},
	}, {
		Rule: "Passthrough routes carry no certificate, key or CA (the values are redacted in messages)", Shows: "`termination: passthrough` with the four fields",
		Change: WithTLS(routecore.TLSConfig{Termination: passthrough, Certificate: p.leaf, Key: p.leafKey, CACertificate: p.ca, DestinationCACertificate: p.ca}),
		Errors: []string{
			`spec.tls.certificate: Invalid value: "redacted certificate data": ` + passthruMsg,
			`spec.tls.key: Invalid value: "redacted key data": ` + passthruMsg,
			`spec.tls.caCertificate: Invalid value: "redacted ca certificate data": ` + passthruMsg,
			`spec.tls.destinationCACertificate: Invalid value: "redacted destination ca certificate data": ` + passthruMsg,
		},
	}, {
		Rule: "… nor an external certificate", Shows: "`termination: passthrough`, `externalCertificate: {name: web-tls}`",
		Change: WithTLS(routecore.TLSConfig{Termination: passthrough, ExternalCertificate: webTLS}),
		Errors: []string{`spec.tls.externalCertificate: Invalid value: "web-tls": ` + passthruMsg},
	}, {
		Rule: "Edge routes have no `destinationCACertificate`", Shows: "`termination: edge` with a `destinationCACertificate`",
		Change: WithTLS(routecore.TLSConfig{Termination: edge, DestinationCACertificate: p.ca}),
		Errors: []string{`spec.tls.destinationCACertificate: Invalid value: "redacted destination ca certificate data": edge termination does not support destination certificates`},
	}, {
		Rule: "`certificate` and `externalCertificate` exclude each other", Shows: "both set",
		Change: WithTLS(routecore.TLSConfig{Termination: edge, Certificate: p.leaf, Key: p.leafKey, ExternalCertificate: webTLS}),
		Errors: []string{`spec.tls.externalCertificate: Invalid value: "web-tls": cannot specify both tls.certificate and tls.externalCertificate`},
	}, {
		Rule: "`insecureEdgeTerminationPolicy` is `None`, `Allow` or `Redirect` (edge, reencrypt)", Shows: "`insecureEdgeTerminationPolicy: Deny`",
		Change: WithTLS(routecore.TLSConfig{Termination: edge, InsecureEdgeTerminationPolicy: "Deny"}),
		Errors: []string{`spec.tls.insecureEdgeTerminationPolicy: Invalid value: "Deny": invalid value for InsecureEdgeTerminationPolicy option, acceptable values are None, Allow, Redirect, or empty`},
	}, {
		Rule: "… and `None` or `Redirect` for passthrough", Shows: "`termination: passthrough`, `insecureEdgeTerminationPolicy: Allow`",
		Change: WithTLS(routecore.TLSConfig{Termination: passthrough, InsecureEdgeTerminationPolicy: routecore.InsecureEdgeTerminationPolicyAllow}),
		Errors: []string{`spec.tls.insecureEdgeTerminationPolicy: Invalid value: "Allow": invalid value for InsecureEdgeTerminationPolicy option, acceptable values are None, Redirect, or empty`},
	}}
}

func wildcard() []Example {
	return []Example{{
		Rule: "`spec.wildcardPolicy` is `None` or `Subdomain` (empty means `None`)", Shows: "`wildcardPolicy: All`",
		Change: func(r *routecore.Route) { r.Spec.WildcardPolicy = "All" },
		Errors: []string{`spec.wildcardPolicy: Unsupported value: "All": supported values: "None", "Subdomain"`},
	}, {
		Rule: "A `Subdomain` route names its host (none is generated for it)", Shows: "`wildcardPolicy: Subdomain`, no host",
		Change: func(r *routecore.Route) { r.Spec.Host, r.Spec.WildcardPolicy = "", routecore.WildcardPolicySubdomain },
		Errors: []string{`spec.wildcardPolicy: Invalid value: "Subdomain": host name not specified for wildcard policy`},
	}}
}

func headers() []Example {
	longValue := strings.Repeat("x", routecore.MaxHeaderValueLength+1)
	longName := "X-" + strings.Repeat("x", routecore.MaxHeaderNameLength-1)
	tooMany := make([]routecore.RouteHTTPHeader, routecore.MaxHeaderActions+1)
	for i := range tooMany {
		tooMany[i] = headerSet(fmt.Sprintf("X-Header-%d", i), "1")
	}
	response := headersPath + "response"
	return []Example{{
		Rule: "Passthrough routes have no header actions", Shows: "`termination: passthrough` with a response header action",
		Change: Both(WithTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationPassthrough}), responseHeaders(headerSet("X-Frame-Options", "DENY"))),
		Errors: []string{`spec.tls.termination: Invalid value: "passthrough": only edge and re-encrypt routes are supported for providing customized headers.`},
	}, {
		Rule: "At most 20 actions per list", Shows: "21 response header actions",
		Change: responseHeaders(tooMany...),
		Errors: []string{response + ": Invalid value: 21: response headers list can't exceed 20 items"},
	}, {
		Rule: "A header name appears once per list (case-sensitive)", Shows: "`X-Frame-Options` twice",
		Change: responseHeaders(headerSet("X-Frame-Options", "DENY"), headerSet("X-Frame-Options", "SAMEORIGIN")),
		Errors: []string{response + `[1].name: Duplicate value: "X-Frame-Options"`},
	}, {
		Rule: "A header name is set", Shows: "`name: \"\"`",
		Change: responseHeaders(headerSet("", "1")),
		Errors: []string{response + "[0].name: Required value"},
	}, {
		Rule: "A header name has at most 255 characters", Shows: "a name of 256 characters",
		Change: responseHeaders(headerSet(longName, "1")),
		Errors: []string{response + `[0].name: Invalid value: "` + longName + `": name exceeds the maximum length, which is 255`},
		Elide:  longName,
	}, {
		Rule: "`Strict-Transport-Security`, `Proxy`, `Cookie` and `Set-Cookie` may not be changed (any case)", Shows: "`name: Set-Cookie`",
		Change: responseHeaders(headerSet("Set-Cookie", "a=b")),
		Errors: []string{response + "[0].name: Forbidden: the following headers may not be modified using this API: strict-transport-security, proxy, cookie, set-cookie"},
	}, {
		Rule: "A header name is an HTTP token", Shows: "`name: X Frame`",
		Change: responseHeaders(headerSet("X Frame", "DENY")),
		Errors: []string{response + `[0].name: Invalid value: "X Frame": name must be a valid HTTP header name as defined in RFC 2616 section 4.2`},
	}, {
		Rule: "The action type is `Set` or `Delete`", Shows: "`type: Replace`",
		Change: responseHeaders(routecore.RouteHTTPHeader{Name: "X-A", Action: routecore.RouteHTTPHeaderActionUnion{Type: "Replace"}}),
		Errors: []string{response + `[0].action.type: Invalid value: "Replace": type must be "Set" or "Delete"`},
	}, {
		Rule: "`set` is given with `Set` and only then", Shows: "`type: Set` without `set`",
		Change: responseHeaders(routecore.RouteHTTPHeader{Name: "X-A", Action: routecore.RouteHTTPHeaderActionUnion{Type: routecore.Set}}),
		Errors: []string{response + "[0].action.set: Required value: set is required when type is Set, and forbidden otherwise"},
	}, {
		Rule: "A value is set", Shows: "`set: {value: \"\"}`",
		Change: responseHeaders(headerSet("X-A", "")),
		Errors: []string{response + "[0].action.set.value: Required value"},
	}, {
		Rule: "A value has at most 16384 characters", Shows: "a value of 16385 characters",
		Change: responseHeaders(headerSet("X-A", longValue)),
		Errors: []string{response + `[0].action.set.value: Invalid value: "` + longValue + `": value exceeds the maximum length, which is 16384`},
		Elide:  longValue,
	}, {
		Rule: "The values of the `Set` actions of a list add up to at most 16384 bytes (routeshift: HAProxy must fit them in its buffer, see [Limits](../validation.md#limits))", Shows: "two values of 8193 bytes",
		Change: responseHeaders(headerSet("X-A", longValue[:8193]), headerSet("X-B", longValue[:8193])),
		Errors: []string{response + ": Invalid value: 16386: the values of the headers to set may add up to at most 16384 bytes, so that they fit in HAProxy's buffer with the message"},
	}, {
		Rule: "A response value uses only `%[res.hdr(…)]` and `%[ssl_c_der]`, with the `lower` and `base64` converters", Shows: "`%[req.hdr(Host)]` in a response header",
		Change: responseHeaders(headerSet("X-Host", "%[req.hdr(Host)]")),
		Errors: []string{response + `[0].action.set.value: Invalid value: "%[req.hdr(Host)]": ` + headerValueMsg("res.hdr")},
	}, {
		Rule: "A request value likewise with `%[req.hdr(…)]`", Shows: "`%[req.hdr(Host),upper]` in a request header",
		Change: func(r *routecore.Route) {
			r.Spec.HTTPHeaders = &routecore.RouteHTTPHeaders{Actions: routecore.RouteHTTPHeaderActions{
				Request: []routecore.RouteHTTPHeader{headerSet("X-Host", "%[req.hdr(Host),upper]")}}}
		},
		Errors: []string{headersPath + `request[0].action.set.value: Invalid value: "%[req.hdr(Host),upper]": ` + headerValueMsg("req.hdr")},
	}}
}

func certificates(p *pki) []Example {
	const (
		cert = `spec.tls.certificate: Invalid value: "redacted certificate data": `
		key  = `spec.tls.key: Invalid value: "redacted key data": `
		ca   = `spec.tls.caCertificate: Invalid value: "redacted ca certificate data": `
	)
	return []Example{{
		Rule: "Every PEM block is a certificate, a public key or an unencrypted private key", Shows: "a `FOO` block after the certificate",
		Change: EdgeWith(p.leaf+p.unknownBlock, p.leafKey, ""),
		Errors: []string{cert + "unrecognized PEM block FOO"},
	}, {
		Rule: "`certificate` holds at least one certificate", Shows: "`certificate: hello`",
		Change: EdgeWith("hello", p.leafKey, ""),
		Errors: []string{cert + "invalid/empty certificate data: data does not contain any valid RSA or ECDSA certificates"},
	}, {
		Rule: "`certificate` holds certificates only (and, optionally, the key)", Shows: "a `PUBLIC KEY` after the certificate",
		Change: EdgeWith(p.leaf+p.publicKey, p.leafKey, ""),
		Errors: []string{cert + "field contains invalid types PUBLIC KEY, expecting only CERTIFICATE"},
	}, {
		Rule: "A certificate comes with its private key (in `key`, or bundled in `certificate`)", Shows: "no `key`",
		Change: EdgeWith(p.leaf, "", ""),
		Errors: []string{`spec.tls.key: Invalid value: "": no key specified`},
	}, {
		Rule: "`key` holds private keys only", Shows: "the certificate in `key`",
		Change: EdgeWith(p.leaf, p.leaf, ""),
		Errors: []string{key + "field contains invalid types CERTIFICATE, expecting only PRIVATE KEY"},
	}, {
		Rule: "The key parses", Shows: "a `PRIVATE KEY` block that is not a key",
		Change: EdgeWith(p.leaf, p.garbageKey, ""),
		Errors: []string{key + "tls: failed to parse private key"},
	}, {
		Rule: "The key is the certificate's (the first key, the first certificate)", Shows: "the key of another certificate",
		Change: EdgeWith(p.leaf, p.otherLeafKey, ""),
		Errors: []string{key + "tls: private key does not match public key"},
	}, {
		Rule: "… of the same type", Shows: "an RSA key for an ECDSA certificate",
		Change: EdgeWith(p.leaf, p.rsaKey, ""),
		Errors: []string{key + "tls: private key type does not match public key type"},
	}, {
		Rule: "`caCertificate` holds at least one certificate", Shows: "`caCertificate: our CA`",
		Change: EdgeWith(p.leaf, p.leafKey, "our CA"),
		Errors: []string{ca + "failed to parse CA certificate: data does not contain any valid RSA or ECDSA certificates"},
	}, {
		Rule: "`caCertificate` holds certificates only", Shows: "a `PUBLIC KEY` in `caCertificate`",
		Change: EdgeWith(p.leaf, p.leafKey, p.ca+p.publicKey),
		Errors: []string{ca + "field contains invalid types PUBLIC KEY, expecting only CERTIFICATE"},
	}, {
		Rule: "With a `caCertificate`, the certificate verifies against it (host names and validity dates are not checked)", Shows: "a `caCertificate` that did not sign the certificate",
		Change: EdgeWith(p.leaf, p.leafKey, p.otherCA),
		Errors: []string{cert + "error verifying certificate: x509: certificate signed by unknown authority"},
	}, {
		Rule: "No CA-signed certificate (leaf, chain, CA or destination CA) is signed with SHA1, MD2 or MD5", Shows: "a leaf signed with ECDSA-SHA1",
		Change: EdgeWith(p.sha1Leaf, p.sha1LeafKey, p.ca),
		Errors: []string{cert + "router does not support CA-signed certs using SHA1"},
	}, {
		Rule: "`destinationCACertificate` (reencrypt) holds certificates that parse", Shows: "`destinationCACertificate: internal CA`",
		Change: WithTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationReencrypt, DestinationCACertificate: "internal CA"}),
		Errors: []string{`spec.tls.destinationCACertificate: Invalid value: "redacted destination ca certificate data": failed to parse destination CA certificate: data does not contain any valid RSA or ECDSA certificates`},
	}}
}

// updates are the rules that apply on update only.
func updates() []Example {
	hostLabel64 := label64 + ".example.com"
	return []Example{{
		Rule: "`spec.wildcardPolicy` cannot change", Shows: "`None` changed to `Subdomain`",
		Old:    Unchanged,
		Change: func(r *routecore.Route) { r.Spec.WildcardPolicy = routecore.WildcardPolicySubdomain },
		Errors: []string{`spec.wildcardPolicy: Invalid value: "Subdomain": field is immutable`},
	}, {
		Rule: "A changed host is checked label by label, when the stored host passed that check", Shows: "`www.example.com` changed to a host with a 64-character label",
		Old:    Unchanged,
		Change: func(r *routecore.Route) { r.Spec.Host = hostLabel64 },
		Errors: []string{`spec.host: Invalid value: "` + hostLabel64 + `": must be no more than 63 characters`},
	}, {
		Rule: "A changed path is checked for `#` and spaces", Shows: "`/a` changed to `/a b`",
		Old:    func(r *routecore.Route) { r.Spec.Path = "/a" },
		Change: func(r *routecore.Route) { r.Spec.Path = "/a b" },
		Errors: []string{`spec.path: Invalid value: "/a b": cannot contain # or spaces`},
	}}
}

// ratchets are updates that the ratchets let through, although the same
// values are refused on create.
func ratchets(p *pki) []Example {
	hostLabel64 := label64 + ".example.com"
	return []Example{{
		Rule: "A name over 63 characters, stored before the rule", Shows: "a 64-character name, label added",
		Old:    func(r *routecore.Route) { r.Name = strings.Repeat("a", 64) },
		Change: labelled,
	}, {
		Rule: "A host whose labels fail the label check, stored before the rule", Shows: "host with a 64-character label kept, label added",
		Old:    func(r *routecore.Route) { r.Spec.Host = hostLabel64 },
		Change: labelled,
	}, {
		Rule: "… and changed to another such host", Shows: "64-character first label changed to another",
		Old:    func(r *routecore.Route) { r.Spec.Host = hostLabel64 },
		Change: func(r *routecore.Route) { r.Spec.Host = strings.Repeat("y", 64) + ".example.com" },
	}, {
		Rule: "A path with a space, unchanged", Shows: "`path: /a b` kept, weight changed",
		Old:    func(r *routecore.Route) { r.Spec.Path = "/a b" },
		Change: withWeight(50),
	}, {
		Rule: "An invalid annotation value, unchanged", Shows: "`haproxy.router.openshift.io/timeout: 5 minutes` kept, label added",
		Old:    Annotate(routecore.AnnTimeout, "5 minutes"),
		Change: labelled,
	}, {
		Rule: "A certificate that fails the checks, unchanged", Shows: "key of another certificate kept, weight changed",
		Old:    EdgeWith(p.leaf, p.otherLeafKey, ""),
		Change: withWeight(50),
	}}
}

// accepted are create-time cases that look as if they might be refused.
func accepted(p *pki) []Example {
	return []Example{{
		Rule: "Expired (or not yet valid) certificates: validity dates are not checked", Shows: "a certificate that expired a year ago, with its CA",
		Change: EdgeWith(p.expiredLeaf, p.expiredLeafKey, p.ca),
	}, {
		Rule: "Certificates for other host names: names are not checked", Shows: "a certificate for `shop.example.org` on `www.example.com`",
		Change: EdgeWith(p.wrongNameLeaf, p.wrongNameLeafKey, p.ca),
	}, {
		Rule: "Certificates without `caCertificate`: any issuer (self-signed too) is accepted", Shows: "a CA-signed certificate without its CA",
		Change: EdgeWith(p.leaf, p.leafKey, ""),
	}, {
		Rule: "Only `metadata.generateName`: the API server names the Route (the mutating webhook names it first, to generate its host)", Shows: "`generateName: shop-`, no name",
		Change: func(r *routecore.Route) { r.Name, r.GenerateName = "", "shop-" },
	}, {
		Rule: "Termination in any case", Shows: "`termination: Edge` (becomes `edge`)",
		Change: WithTLS(routecore.TLSConfig{Termination: "Edge"}),
	}, {
		Rule: "Weight 0 (the backend gets no traffic; all weights 0 means 503)", Shows: "`to: {weight: 0}`",
		Change: withWeight(0),
	}, {
		Rule: "Any host label with `route.openshift.io/allow-non-dns-compliant-host: \"true\"`", Shows: "a 64-character label with the annotation",
		Change: Both(Annotate(routecore.AllowNonDNSCompliantHostAnnotation, "true"), func(r *routecore.Route) { r.Spec.Host = label64 + ".example.com" }),
	}, {
		Rule: "An alternate backend naming the same Service as `spec.to`", Shows: "`to: {name: web}`, `alternateBackends: [{name: web}]`",
		Change: func(r *routecore.Route) {
			r.Spec.AlternateBackends = []routecore.RouteTargetReference{{Name: r.Spec.To.Name}}
		},
	}}
}

// warnings are routecore.Warnings' cases; warnings never refuse.
func warnings() []Example {
	ann := func(key string) string { return "metadata.annotations[" + key + "]: " }
	return []Example{{
		Rule: "Host and subdomain both set", Shows: "`host` and `subdomain: shop`",
		Change:   func(r *routecore.Route) { r.Spec.Subdomain = "shop" },
		Warnings: []string{"spec.host is set; spec.subdomain may be ignored"},
	}, {
		Rule:   "On create, a host marked generated that this cluster would not generate (exported from another cluster)",
		Shows:  "`openshift.io/host.generated: \"true\"` with `host: example-demo.apps.ocp.example.com`",
		Change: Both(Annotate(routecore.HostGeneratedAnnotation, "true"), func(r *routecore.Route) { r.Spec.Host = "example-demo.apps.ocp.example.com" }),
		Warnings: []string{`spec.host: example-demo.apps.ocp.example.com was generated by another cluster or for another route suffix (openshift.io/host.generated is "true"); ` +
			"this cluster would generate example-demo.router.default.svc.cluster.local: remove spec.host and the annotation to get it, or remove the annotation to keep the host"},
	}, {
		Rule: "Unknown key under `*.router.openshift.io/` or `routeshift.io/`, with the closest known key", Shows: "`haproxy.router.openshift.io/timout: 5s`",
		Change:   Annotate("haproxy.router.openshift.io/timout", "5s"),
		Warnings: []string{ann("haproxy.router.openshift.io/timout") + `unknown router annotation; it has no effect; did you mean "haproxy.router.openshift.io/timeout"?`},
	}, {
		Rule: "… without a suggestion when none is close", Shows: "`routeshift.io/billing-team: shop`",
		Change:   Annotate("routeshift.io/billing-team", "shop"),
		Warnings: []string{ann("routeshift.io/billing-team") + "unknown router annotation; it has no effect"},
	}, {
		Rule: "An annotation that has no effect on this termination", Shows: "`router.openshift.io/cookie-same-site: Lax` on a plain-HTTP route",
		Change:   Annotate(routecore.AnnCookieSameSite, "Lax"),
		Warnings: []string{ann(routecore.AnnCookieSameSite) + "has no effect on routes without TLS"},
	}, {
		Rule: "… on passthrough routes, which the router does not see into", Shows: "`haproxy.router.openshift.io/disable_cookies: \"true\"` on passthrough",
		Change:   Both(Annotate(routecore.AnnDisableCookies, "true"), WithTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationPassthrough})),
		Warnings: []string{ann(routecore.AnnDisableCookies) + "has no effect on passthrough routes"},
	}, {
		Rule: "A rate limit without `haproxy.router.openshift.io/rate-limit-connections: \"true\"`", Shows: "`…rate-limit-connections.rate-http: \"100\"` alone",
		Change:   Annotate(routecore.AnnRateLimitRateHTTP, "100"),
		Warnings: []string{ann(routecore.AnnRateLimitRateHTTP) + `has no effect unless haproxy.router.openshift.io/rate-limit-connections is "true"`},
	}, {
		Rule:     "A boolean in a spelling other than `true`, `TRUE`, `false` or `FALSE` (read as Go's strconv.ParseBool reads it, as OpenShift's router does)",
		Shows:    "`haproxy.router.openshift.io/disable_cookies: \"1\"`",
		Change:   Annotate(routecore.AnnDisableCookies, "1"),
		Warnings: []string{ann(routecore.AnnDisableCookies) + `"1" is read as true; "true" is the documented spelling`},
	}, {
		Rule: "A key routeshift reads but OpenShift's router does not, with the key OpenShift reads", Shows: "`haproxy.router.openshift.io/cookie_name: session`",
		Change:   Annotate(routecore.AnnCookieNameLegacy, "session"),
		Warnings: []string{ann(routecore.AnnCookieNameLegacy) + "OpenShift's router does not read this key; write router.openshift.io/cookie_name, which routeshift reads too"},
	}, {
		Rule: "An IP allowlist with leading, trailing or repeated spaces (OpenShift's router ignores the whole list)", Shows: "`haproxy.router.openshift.io/ip_allowlist: \"10.0.0.1  10.0.0.2 \"`",
		Change: Annotate(routecore.AnnIPAllowlist, "10.0.0.1  10.0.0.2 "),
		Warnings: []string{ann(routecore.AnnIPAllowlist) + "has leading, trailing or repeated spaces; routeshift reads the 2 entries between them, " +
			"but OpenShift's router ignores such a list and lets every source in: separate the entries with single spaces"},
	}}
}
