package ingress

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/ingress"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// indent prefixes every line of s with n spaces.
func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+pad)
}

// TestStringDataSecret: a TLS Secret written with stringData, applied with
// kubectl, serves the Ingress's Route through the live controller (the API
// server stored it under data), and `routeshift translate` of the same file
// makes the same Route offline.
func TestStringDataSecret(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "stringdata")
	pair, err := certs.Generate(certs.Options{CommonName: "www.example.com", DNSNames: []string{"www.example.com"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	manifest := `apiVersion: v1
kind: Service
metadata: {name: web}
spec: {ports: [{name: http, port: 80}]}
---
apiVersion: v1
kind: Secret
metadata: {name: www-tls}
type: kubernetes.io/tls
stringData:
  tls.crt: |
` + indent(string(pair.CertPEM), 4) + `
  tls.key: |
` + indent(string(pair.KeyPEM), 4) + `
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: www}
spec:
  tls: [{hosts: [www.example.com], secretName: www-tls}]
  rules:
  - host: www.example.com
    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}]}
`
	file := filepath.Join(t.TempDir(), "www.yaml")
	if err := os.WriteFile(file, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, errOut, err := cp.Kubectl(t, "apply", "-n", ns, "-f", file); err != nil {
		t.Fatalf("kubectl apply: %v\n%s%s", err, out, errOut)
	}
	name := ingress.RouteName("www", "www.example.com", "/")
	live := wantRoutes(t, cp, ns, name)[name]
	if live.Spec.TLS == nil || live.Spec.TLS.Certificate != string(pair.CertPEM) || live.Spec.TLS.Key != string(pair.KeyPEM) {
		t.Fatalf("the controller's Route does not carry the Secret's certificate and key: %+v", live.Spec.TLS)
	}

	bin, err := cp.Routeshift()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "translate", "-f", file, "-n", ns)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("translate: %v\n%s", err, stderr.String())
	}
	offline := &routecore.Route{}
	if err := yaml.UnmarshalStrict(out, offline); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if offline.Name != name || !equality.Semantic.DeepEqual(offline.Spec, live.Spec) {
		t.Errorf("translate's Route differs from the controller's:\n%+v\n%+v\nstderr:\n%s", offline.Spec, live.Spec, stderr.String())
	}
}
