package webhook

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/routeshift/routeshift/internal/fixtures"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// TestRejections: invalid Routes are refused at `kubectl apply` with
// OpenShift's message, as kubectl prints it.
func TestRejections(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "rejections")
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("r", 64)
	spec := "spec:\n  host: www.example.com\n  to: {name: web}\n"
	tests := []struct {
		name, manifest, want string
	}{
		{name: "64-character name", manifest: routeYAML(long, ns, spec),
			want: `The Route "` + long + `" is invalid: metadata.name: Invalid value: "` + long + `": must be no more than 63 characters`},
		{name: "passthrough with a path", manifest: routeYAML("pt-path", ns, "spec:\n  host: www.example.com\n  path: /api\n  tls: {termination: passthrough}\n  to: {name: web}\n"),
			want: `The Route "pt-path" is invalid: spec.path: Invalid value: "/api": passthrough termination does not support paths`},
		{name: "passthrough with a certificate", manifest: routeYAML("pt-cert", ns, "spec:\n  host: www.example.com\n  tls:\n    termination: passthrough\n    certificate: |\n"+fixtures.Indent(string(p.Leaf.CertPEM), 6)+"\n  to: {name: web}\n"),
			want: `The Route "pt-cert" is invalid: spec.tls.certificate: Invalid value: "redacted certificate data": passthrough termination does not support certificates`},
		{name: "edge with a destination CA", manifest: routeYAML("edge-dest", ns, "spec:\n  host: www.example.com\n  tls:\n    termination: edge\n    destinationCACertificate: |\n"+fixtures.Indent(string(p.CA.CertPEM), 6)+"\n  to: {name: web}\n"),
			want: `The Route "edge-dest" is invalid: spec.tls.destinationCACertificate: Invalid value: "redacted destination ca certificate data": edge termination does not support destination certificates`},
		{name: "weight 300", manifest: routeYAML("heavy", ns, "spec:\n  host: www.example.com\n  to: {name: web, weight: 300}\n"),
			want: `The Route "heavy" is invalid: spec.to.weight: Invalid value: 300: weight must be an integer between 0 and 256`},
		{name: "four alternate backends", manifest: routeYAML("crowded", ns, "spec:\n  host: www.example.com\n  to: {name: web}\n  alternateBackends: [{name: a}, {name: b}, {name: c}, {name: d}]\n"),
			want: `The Route "crowded" is invalid: spec.alternateBackends: Required value: cannot specify more than 3 alternate backends`},
		{name: "repeated alternate backend", manifest: routeYAML("twins", ns, "spec:\n  host: www.example.com\n  to: {name: web}\n  alternateBackends: [{name: b}, {name: b, weight: 5}]\n"),
			want: `The Route "twins" is invalid: spec.alternateBackends[1]: Duplicate value: {"kind":"Service","name":"b"}`},
		{name: "bad TimeUnit", manifest: routeYAML("slow", ns, "  annotations:\n    haproxy.router.openshift.io/timeout: 5 minutes\n"+spec),
			want: `The Route "slow" is invalid: metadata.annotations[haproxy.router.openshift.io/timeout]: Invalid value: "5 minutes": must be a TimeUnit: a whole number from 1 up, optionally followed by us, ms, s, m, h or d (no unit means ms), for example 5500ms or 30s`},
		{name: "bad balance", manifest: routeYAML("balance", ns, "  annotations:\n    haproxy.router.openshift.io/balance: round-robin\n"+spec),
			want: `The Route "balance" is invalid: metadata.annotations[haproxy.router.openshift.io/balance]: Unsupported value: "round-robin": supported values: "roundrobin", "leastconn", "source", "random"`},
		{name: "bad allowlist", manifest: routeYAML("allow", ns, "  annotations:\n    haproxy.router.openshift.io/ip_allowlist: 10.0.0.1 10.0.0.300\n"+spec),
			want: `The Route "allow" is invalid: metadata.annotations[haproxy.router.openshift.io/ip_allowlist]: Invalid value: "10.0.0.300": is not an IP address or CIDR; use a space-separated list such as "192.168.1.10 10.0.0.0/8"`},
		{name: "key of another certificate", manifest: routeYAML("mismatch", ns, "spec:\n  host: www.example.com\n  tls:\n    termination: edge\n    certificate: |\n"+fixtures.Indent(string(p.Leaf.CertPEM), 6)+"\n    key: |\n"+fixtures.Indent(string(p.Other.KeyPEM), 6)+"\n  to: {name: web}\n"),
			want: `The Route "mismatch" is invalid: spec.tls.key: Invalid value: "redacted key data": tls: private key does not match public key`},
		{name: "newline in a router annotation", manifest: routeYAML("inject", ns, "  annotations:\n    haproxy.router.openshift.io/balance: \"roundrobin\\nbackend evil\"\n"+spec),
			want: `The Route "inject" is invalid: metadata.annotations[haproxy.router.openshift.io/balance]: Invalid value: "roundrobin\nbackend evil": must not contain control characters such as newlines or tabs`},
		{name: "body size of nginx's other syntax", manifest: routeYAML("body", ns, "  annotations:\n    routeshift.io/max-body-size: 8mb\n"+spec),
			want: `The Route "body" is invalid: metadata.annotations[routeshift.io/max-body-size]: Invalid value: "8mb": must be a size such as 8m, 512k or 1048576: a whole number of bytes, optionally followed by k, m or g; 0 means no limit`},
		{name: "relative redirect", manifest: routeYAML("moved", ns, "  annotations:\n    routeshift.io/redirect-to: /new\n"+spec),
			want: `The Route "moved" is invalid: metadata.annotations[routeshift.io/redirect-to]: Invalid value: "/new": must be an absolute http or https URL with a host, such as https://www.example.com/new$request_uri`},
		{name: "deny list on passthrough", manifest: routeYAML("pt-deny", ns, "  annotations:\n    routeshift.io/ip-denylist: 203.0.113.0/24\nspec:\n  host: www.example.com\n  tls: {termination: passthrough}\n  to: {name: web}\n"),
			want: `The Route "pt-deny" is invalid: metadata.annotations[routeshift.io/ip-denylist]: Invalid value: "203.0.113.0/24": has no effect on passthrough routes, whose TLS the router passes through unread: remove it, or terminate TLS at the router (edge or reencrypt)`},
		{name: "canary that is not an alternate backend", manifest: routeYAML("canary", ns, "  annotations:\n    routeshift.io/canary-backend: web-next\n    routeshift.io/canary-by-header: X-Canary\nspec:\n  host: www.example.com\n  to: {name: web}\n  alternateBackends: [{name: web-canary, weight: 0}]\n"),
			want: `The Route "canary" is invalid: metadata.annotations[routeshift.io/canary-backend]: Invalid value: "web-next": must name one of spec.alternateBackends: "web-canary"`},
		{name: "upper-case host", manifest: routeYAML("upper", ns, "spec:\n  host: WWW.example.com\n  to: {name: web}\n"),
			want: `The Route "upper" is invalid: ` + "\n" +
				`* spec.host: Invalid value: "WWW.example.com": host must conform to DNS 952 subdomain conventions` + "\n" +
				`* spec.host: Invalid value: "WWW.example.com": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, ok := apply(t, cp, tt.manifest)
			if ok || out != "" || errOut != tt.want+"\n" {
				t.Errorf("kubectl apply: ok=%v\nstdout: %q\nstderr: %q\nwant:   %q", ok, out, errOut, tt.want+"\n")
			}
		})
	}
	var routes routecore.RouteList
	if err := cp.Client.List(context.Background(), &routes); err != nil {
		t.Fatal(err)
	}
	for _, r := range routes.Items {
		if r.Namespace == ns {
			t.Errorf("route %s was stored despite its rejection", r.Name)
		}
	}
}

// TestDefaulting: a hostless Route gets <name>-<namespace>.<suffix>, applying
// the same manifest again changes nothing, and server-side dry-run works.
func TestDefaulting(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "defaulting")
	manifest := routeYAML("no-route-hostname", ns, "spec:\n  to: {name: service-name}\n  tls: {termination: edge, insecureEdgeTerminationPolicy: Redirect}\n")

	capitalised := strings.Replace(manifest, "termination: edge", "termination: Edge", 1)
	out, errOut, ok := apply(t, cp, capitalised, "--dry-run=server", "-o", "jsonpath={.spec.host} {.spec.tls.termination}")
	if want := "no-route-hostname-" + ns + ".router.default.svc.cluster.local edge"; !ok || out != want {
		t.Fatalf("dry run: ok=%v stdout=%q stderr=%q, want %q", ok, out, errOut, want)
	}
	var r routecore.Route
	if err := cp.Client.Get(context.Background(), key(ns, "no-route-hostname"), &r); err == nil {
		t.Fatal("the dry run stored the route")
	}

	if out, errOut, ok = apply(t, cp, manifest); !ok || out != "route.route.openshift.io/no-route-hostname created\n" {
		t.Fatalf("apply: ok=%v stdout=%q stderr=%q", ok, out, errOut)
	}
	if err := cp.Client.Get(context.Background(), key(ns, "no-route-hostname"), &r); err != nil {
		t.Fatal(err)
	}
	if want := "no-route-hostname-" + ns + ".router.default.svc.cluster.local"; r.Spec.Host != want ||
		r.Annotations[routecore.HostGeneratedAnnotation] != "true" || r.Spec.TLS.Termination != routecore.TLSTerminationEdge ||
		*r.Spec.To.Weight != 100 || r.Spec.To.Kind != "Service" || r.Spec.WildcardPolicy != routecore.WildcardPolicyNone {
		t.Errorf("stored route not defaulted as expected: %+v %v", r.Spec, r.Annotations)
	}

	// The manifest still has no host: the stored one is kept, so this is not a host change.
	if out, errOut, ok = apply(t, cp, manifest); !ok || out != "route.route.openshift.io/no-route-hostname unchanged\n" || errOut != "" {
		t.Errorf("re-apply: ok=%v stdout=%q stderr=%q", ok, out, errOut)
	}
	var again routecore.Route
	if err := cp.Client.Get(context.Background(), key(ns, "no-route-hostname"), &again); err != nil || again.ResourceVersion != r.ResourceVersion {
		t.Errorf("re-apply wrote the route: resourceVersion %s -> %s (%v)", r.ResourceVersion, again.ResourceVersion, err)
	}
	relabelled := strings.Replace(manifest, "metadata:\n", "metadata:\n  labels: {tier: web}\n", 1)
	if out, errOut, ok = apply(t, cp, relabelled); !ok || out != "route.route.openshift.io/no-route-hostname configured\n" {
		t.Errorf("apply with a new label: ok=%v stdout=%q stderr=%q", ok, out, errOut)
	}
	var after routecore.Route
	if err := cp.Client.Get(context.Background(), key(ns, "no-route-hostname"), &after); err != nil {
		t.Fatal(err)
	}
	if after.Spec.Host != r.Spec.Host {
		t.Errorf("host changed on update: %q -> %q", r.Spec.Host, after.Spec.Host)
	}
}

// TestWarnings: a host held by an older Route in another namespace, and a
// misspelt annotation, are reported as kubectl warnings without refusing.
func TestWarnings(t *testing.T) {
	cp := framework.Cluster(t)
	first, second := cp.CreateNamespace(t, "holder"), cp.CreateNamespace(t, "claimant")
	if _, errOut, ok := apply(t, cp, routeYAML("shop", first, "spec:\n  host: shop.example.com\n  to: {name: web}\n")); !ok {
		t.Fatal(errOut)
	}
	// Creation times have one-second resolution and ties are broken by UID:
	// make the first route unambiguously older.
	time.Sleep(1100 * time.Millisecond)
	out, errOut, ok := apply(t, cp, routeYAML("shop", second, "  annotations:\n    haproxy.router.openshift.io/timout: 5s\nspec:\n  host: shop.example.com\n  to: {name: web}\n"))
	want := `Warning: metadata.annotations[haproxy.router.openshift.io/timout]: unknown router annotation; it has no effect; did you mean "haproxy.router.openshift.io/timeout"?` + "\n" +
		"Warning: spec.host: shop.example.com is already held by an older route in another namespace; routers that check namespace ownership will not admit this route (HostAlreadyClaimed)\n"
	if !ok || out != "route.route.openshift.io/shop created\n" || errOut != want {
		t.Errorf("ok=%v\nstdout: %q\nstderr: %q\nwant:   %q", ok, out, errOut, want)
	}
	// The same host in the same namespace is not a claim conflict.
	if _, errOut, ok := apply(t, cp, routeYAML("shop-api", first, "spec:\n  host: shop.example.com\n  path: /api\n  to: {name: api}\n")); !ok || errOut != "" {
		t.Errorf("same-namespace route: ok=%v stderr=%q", ok, errOut)
	}
}

// TestWarningForeignGeneratedHost: a Route exported from another cluster
// (`oc get route -o yaml`) carries the host that cluster generated. Creating
// it here warns, with the host this cluster would generate; updating it, and
// re-applying a Route whose host was generated here, do not.
func TestWarningForeignGeneratedHost(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "moved")
	exported := routeYAML("frontend", ns, "  annotations:\n    openshift.io/host.generated: \"true\"\n"+
		"spec:\n  host: frontend-"+ns+".apps.ocp.example.com\n  to: {kind: Service, name: frontend, weight: 100}\n")
	out, errOut, ok := apply(t, cp, exported)
	want := "Warning: spec.host: frontend-" + ns + ".apps.ocp.example.com was generated by another cluster or for another route suffix " +
		`(openshift.io/host.generated is "true"); this cluster would generate ` + routecore.GenerateHost("frontend", ns, "") +
		": remove spec.host and the annotation to get it, or remove the annotation to keep the host\n"
	if !ok || out != "route.route.openshift.io/frontend created\n" || errOut != want {
		t.Errorf("create: ok=%v\nstdout: %q\nstderr: %q\nwant:   %q", ok, out, errOut, want)
	}
	// An update keeps the stored host: nothing to warn about any more.
	if _, errOut, ok := apply(t, cp, strings.Replace(exported, "weight: 100", "weight: 50", 1)); !ok || errOut != "" {
		t.Errorf("update: ok=%v stderr=%q", ok, errOut)
	}
	// A host this cluster generated, exported and created again elsewhere
	// in the same cluster (a namespace re-created from a backup).
	local := routeYAML("web", ns, "spec:\n  to: {name: web}\n")
	if _, errOut, ok := apply(t, cp, local); !ok || errOut != "" {
		t.Fatalf("hostless route: ok=%v stderr=%q", ok, errOut)
	}
	var stored routecore.Route
	if err := cp.Client.Get(context.Background(), key(ns, "web"), &stored); err != nil {
		t.Fatal(err)
	}
	if err := cp.Client.Delete(context.Background(), &stored); err != nil {
		t.Fatal(err)
	}
	again := routeYAML("web", ns, "  annotations:\n    openshift.io/host.generated: \"true\"\nspec:\n  host: "+stored.Spec.Host+"\n  to: {name: web}\n")
	if _, errOut, ok := apply(t, cp, again); !ok || errOut != "" {
		t.Errorf("re-created with its own generated host: ok=%v stderr=%q", ok, errOut)
	}
}

func key(ns, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: ns, Name: name}
}
