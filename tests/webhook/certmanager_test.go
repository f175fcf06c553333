package webhook

import (
	"fmt"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/tests/framework"
)

// edgeRoute is a Route manifest with the given annotation lines (each
// "key: value") and spec lines after host and to.
func edgeRoute(name, ns string, annotations []string, spec string) string {
	meta := ""
	if len(annotations) > 0 {
		meta = "  annotations:\n    " + strings.Join(annotations, "\n    ") + "\n"
	}
	return routeYAML(name, ns, meta+"spec:\n  host: "+name+".example.com\n  to: {name: web}\n"+spec)
}

const edgeTLS = "  tls: {termination: edge}\n"

// TestCertManagerAnnotationsRefused: each cert-manager annotation's invalid
// value, and each rule across them and the Route, refused at kubectl apply
// with the message kubectl prints; a Route with every annotation valid is
// created.
func TestCertManagerAnnotationsRefused(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "cert-refused")
	issuer := `cert-manager.io/issuer: ca`
	key := func(k string) string { return "metadata.annotations[cert-manager.io/" + k + "]" }
	tests := []struct {
		name        string
		annotations []string
		spec, want  string
	}{
		{"issuer", []string{`cert-manager.io/issuer: Bad_Issuer`}, edgeTLS,
			key("issuer") + `: Invalid value: "Bad_Issuer": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{"cluster-issuer", []string{`cert-manager.io/cluster-issuer: "le!"`}, edgeTLS,
			key("cluster-issuer") + `: Invalid value: "le!": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{"two issuers", []string{issuer, `cert-manager.io/cluster-issuer: le`}, edgeTLS,
			key("cluster-issuer") + `: Invalid value: "le": cannot be set with cert-manager.io/issuer: name one issuer`},
		{"issuer-kind", []string{issuer, `cert-manager.io/issuer-kind: AWSPCAIssuer`}, edgeTLS,
			key("issuer-kind") + `: Invalid value: "AWSPCAIssuer": must be one of Issuer or ClusterIssuer (did you forget to set cert-manager.io/issuer-group?)`},
		{"issuer-group", []string{issuer, `cert-manager.io/issuer-group: AWS`}, edgeTLS,
			key("issuer-group") + `: Invalid value: "AWS": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{"common-name", []string{issuer, `cert-manager.io/common-name: ` + strings.Repeat("c", 65)}, edgeTLS,
			key("common-name") + `: Too long: may not be more than 64 bytes`},
		{"alt-names", []string{issuer, `cert-manager.io/alt-names: "a.example.com, b.example.com"`}, edgeTLS,
			key("alt-names") + `: Invalid value: " b.example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*') (separate names with commas only)`},
		{"ip-sans", []string{issuer, `cert-manager.io/ip-sans: 10.0.0.300`}, edgeTLS, key("ip-sans") + `: Invalid value: "10.0.0.300": invalid IP address`},
		{"uri-sans", []string{issuer, `cert-manager.io/uri-sans: shop/web`}, edgeTLS,
			key("uri-sans") + `: Invalid value: "shop/web": must be an absolute URI such as spiffe://cluster.local/ns/shop/sa/web`},
		{"email-sans", []string{issuer, `cert-manager.io/email-sans: ops`}, edgeTLS,
			key("email-sans") + `: Invalid value: "ops": invalid email address: mail: missing '@' or angle-addr`},
		{"duration", []string{issuer, `cert-manager.io/duration: 90d`}, edgeTLS,
			key("duration") + `: Invalid value: "90d": must be a duration such as 2160h or 90m (cert-manager reads it with Go's time.ParseDuration: time: unknown unit "d" in duration "90d")`},
		{"renew-before", []string{issuer, `cert-manager.io/duration: 24h`, `cert-manager.io/renew-before: 48h`}, edgeTLS,
			key("renew-before") + `: Invalid value: "48h": certificate duration 24h0m0s must be greater than renewBefore 48h0m0s`},
		{"private-key-algorithm", []string{issuer, `cert-manager.io/private-key-algorithm: DSA`}, edgeTLS,
			key("private-key-algorithm") + `: Unsupported value: "DSA": supported values: "RSA", "ECDSA", "Ed25519"`},
		{"private-key-size", []string{issuer, `cert-manager.io/private-key-algorithm: ECDSA`, `cert-manager.io/private-key-size: "512"`}, edgeTLS,
			key("private-key-size") + `: Unsupported value: "512": supported values: "256", "384", "521"`},
		{"private-key-rotation-policy", []string{issuer, `cert-manager.io/private-key-rotation-policy: Sometimes`}, edgeTLS,
			key("private-key-rotation-policy") + `: Unsupported value: "Sometimes": supported values: "Always", "Never"`},
		{"revision-history-limit", []string{issuer, `cert-manager.io/revision-history-limit: "0"`}, edgeTLS,
			key("revision-history-limit") + `: Invalid value: "0": must not be less than 1`},
		{"subject-organizations", []string{issuer, `cert-manager.io/subject-organizations: '"Example'`}, edgeTLS,
			key("subject-organizations") + `: Invalid value: "\"Example": failed to parse "\"Example" as CSV: parse error on line 1, column 9: extraneous or missing " in quoted-field`},
		{"settings without an issuer", []string{`cert-manager.io/duration: 24h`}, edgeTLS,
			key("issuer") + `: Required value: cert-manager.io/duration needs an issuer: set cert-manager.io/issuer (or cert-manager.io/cluster-issuer)`},
		{"no TLS", []string{issuer}, "",
			`spec.tls: Required value: cert-manager.io/issuer asks for a certificate, which only a TLS route serves: add tls: {termination: edge} (or reencrypt)`},
		{"passthrough", []string{issuer}, "  tls: {termination: passthrough}\n",
			`spec.tls.termination: Invalid value: "passthrough": cert-manager.io/issuer asks for a certificate, which the router serves only on edge and reencrypt routes: it does not terminate TLS of passthrough routes`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "refused-" + strings.ToLower(strings.ReplaceAll(tt.name, " ", "-"))
			out, errOut, ok := apply(t, cp, edgeRoute(name, ns, tt.annotations, tt.spec))
			want := fmt.Sprintf("The Route %q is invalid: %s\n", name, tt.want)
			if ok || out != "" || errOut != want {
				t.Errorf("kubectl apply: ok=%v\nstdout: %q\nstderr: %q\nwant:   %q", ok, out, errOut, want)
			}
		})
	}
	valid := []string{`cert-manager.io/issuer: pca`, `cert-manager.io/issuer-kind: AWSPCAIssuer`, `cert-manager.io/issuer-group: awspca.cert-manager.io`,
		`cert-manager.io/common-name: every.example.com`, `cert-manager.io/alt-names: "*.every.example.com,www.example.com"`,
		`cert-manager.io/ip-sans: 10.0.0.1`, `cert-manager.io/uri-sans: spiffe://cluster.local/ns/shop/sa/web`, `cert-manager.io/email-sans: ops@example.com`,
		`cert-manager.io/duration: 720h`, `cert-manager.io/renew-before: 240h`, `cert-manager.io/private-key-algorithm: ECDSA`,
		`cert-manager.io/private-key-size: "384"`, `cert-manager.io/private-key-rotation-policy: Never`, `cert-manager.io/revision-history-limit: "3"`,
		`cert-manager.io/subject-organizations: 'Example Inc,"Example, Ltd"'`, `cert-manager.io/subject-organizationalunits: Web`,
		`cert-manager.io/subject-countries: DE`, `cert-manager.io/subject-provinces: Bavaria`, `cert-manager.io/subject-localities: Munich`,
		`cert-manager.io/subject-streetaddresses: Main Street 1`, `cert-manager.io/subject-postalcodes: "80331"`, `cert-manager.io/subject-serialnumber: "42"`}
	if out, errOut, ok := apply(t, cp, edgeRoute("every", ns, valid, edgeTLS)); !ok || out != "route.route.openshift.io/every created\n" || errOut != "" {
		t.Errorf("every annotation valid (an external issuer, not looked up): ok=%v\nstdout: %q\nstderr: %q", ok, out, errOut)
	}
}

// TestCertManagerIssuerWarnings: the webhook warns, and never refuses,
// when cert-manager is not installed, then (with cert-manager's CRDs) when
// the named Issuer or ClusterIssuer does not exist yet; once it exists
// there is nothing to say.
func TestCertManagerIssuerWarnings(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "cert-issuers")
	if out, _, err := cp.Kubectl(t, "get", "crd", "issuers.cert-manager.io", "--ignore-not-found", "-o", "name"); err != nil || out != "" {
		t.Fatalf("cert-manager's CRDs are installed before this test (%q, %v): it checks the warning without them first", out, err)
	}
	clusterIssuer := []string{`cert-manager.io/cluster-issuer: letsencrypt`}
	out, errOut, ok := apply(t, cp, edgeRoute("before", ns, clusterIssuer, edgeTLS))
	want := "Warning: metadata.annotations[cert-manager.io/cluster-issuer]: cert-manager is not installed (the API server serves no cert-manager.io/v1 ClusterIssuer); the Route gets no certificate until it is\n"
	if !ok || out != "route.route.openshift.io/before created\n" || errOut != want {
		t.Errorf("without cert-manager: ok=%v\nstdout: %q\nstderr: %q\nwant:   %q", ok, out, errOut, want)
	}

	cp.InstallCertManagerCRDs(t)
	t.Cleanup(func() { cp.DeleteCertManagerCRDs(t) })
	// The webhook finds the new API when it next looks: wait for the
	// warning about the missing Issuer (dry runs store nothing).
	issuer := []string{`cert-manager.io/issuer: ca`}
	want = "Warning: metadata.annotations[cert-manager.io/issuer]: Issuer ca does not exist in namespace " + ns + " (yet); cert-manager issues the Route's certificate once it does\n"
	framework.Eventually(t, "the warning about the missing Issuer", func() error {
		if _, errOut, ok := apply(t, cp, edgeRoute("issued", ns, issuer, edgeTLS), "--dry-run=server"); !ok || errOut != want {
			return fmt.Errorf("ok=%v stderr %q, want %q", ok, errOut, want)
		}
		return nil
	})
	want = "Warning: metadata.annotations[cert-manager.io/cluster-issuer]: ClusterIssuer letsencrypt does not exist (yet); cert-manager issues the Route's certificate once it does\n"
	if _, errOut, ok := apply(t, cp, edgeRoute("cluster-issued", ns, clusterIssuer, edgeTLS)); !ok || errOut != want {
		t.Errorf("missing ClusterIssuer: ok=%v\nstderr: %q\nwant:   %q", ok, errOut, want)
	}

	issuers := "apiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata: {name: ca, namespace: " + ns + "}\nspec: {selfSigned: {}}\n---\n" +
		"apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata: {name: letsencrypt}\nspec: {selfSigned: {}}\n"
	if out, errOut, ok := apply(t, cp, issuers); !ok {
		t.Fatalf("creating the issuers: %s%s", out, errOut)
	}
	t.Cleanup(func() { _, _, _ = cp.Kubectl(t, "delete", "clusterissuer", "letsencrypt", "--ignore-not-found") })
	for name, annotations := range map[string][]string{"issued": issuer, "cluster-issued-again": clusterIssuer} {
		if out, errOut, ok := apply(t, cp, edgeRoute(name, ns, annotations, edgeTLS)); !ok || errOut != "" {
			t.Errorf("%s with its issuer present: ok=%v\nstdout: %q\nstderr: %q", name, ok, out, errOut)
		}
	}
}
