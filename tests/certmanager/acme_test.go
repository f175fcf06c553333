package certmanager

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/tests/framework"
)

// testACMEIssuance: a Certificate from the ACME Issuer of testACMEAccount
// goes through an Order and an HTTP-01 Challenge; the solver Pod
// cert-manager creates runs here as its container would (its arguments,
// its port moved to where pebble validates); pebble validates it and
// issues a certificate for the name that verifies against pebble's root.
func testACMEIssuance(t *testing.T, cp *framework.ControlPlane, p *framework.Pebble, ns string) {
	waitReady(t, cp, ns, "issuer/pebble")
	apply(t, cp, fmt.Sprintf(`apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: acme-app, namespace: %s}
spec:
  secretName: acme-app-tls
  dnsNames: [acme.example.test]
  issuerRef: {kind: Issuer, name: pebble}
`, ns))
	pod := solverPod(t, cp, ns)
	runSolver(t, cp, pod, p.HTTPPort)
	waitReady(t, cp, ns, "certificate/acme-app")

	s := secret(t, cp, ns, "acme-app-tls")
	pair, err := tls.X509KeyPair(s.Data["tls.crt"], s.Data["tls.key"])
	if err != nil {
		t.Fatalf("acme-app-tls tls.crt and tls.key do not form a key pair: %v", err)
	}
	root, err := p.IssuingRoot()
	if err != nil {
		t.Fatal(err)
	}
	roots, intermediates := x509.NewCertPool(), x509.NewCertPool()
	if !roots.AppendCertsFromPEM(root) {
		t.Fatalf("pebble's issuing root is not PEM: %q", root)
	}
	for _, der := range pair.Certificate[1:] {
		c, err := x509.ParseCertificate(der)
		if err != nil {
			t.Fatal(err)
		}
		intermediates.AddCert(c)
	}
	opts := x509.VerifyOptions{Roots: roots, Intermediates: intermediates, DNSName: "acme.example.test"}
	if _, err := pair.Leaf.Verify(opts); err != nil {
		t.Fatalf("certificate pebble issued does not verify against pebble's root for acme.example.test: %v", err)
	}
}

// solverPod waits for the HTTP-01 solver Pod cert-manager creates.
func solverPod(t *testing.T, cp *framework.ControlPlane, ns string) *corev1.Pod {
	t.Helper()
	var pod *corev1.Pod
	framework.EventuallyWithin(t, issueWait, "cert-manager creates an HTTP-01 solver Pod", func() error {
		var pods corev1.PodList
		err := cp.Client.List(context.Background(), &pods, client.InNamespace(ns),
			client.MatchingLabels{"acme.cert-manager.io/http01-solver": "true"})
		if err != nil {
			return err
		}
		if len(pods.Items) != 1 {
			return fmt.Errorf("%d solver Pods", len(pods.Items))
		}
		pod = &pods.Items[0]
		return nil
	})
	return pod
}

// runSolver runs the solver Pod's container with bin/cert-manager-acmesolver
// and its arguments, listening on port instead of the Pod's port.
func runSolver(t *testing.T, cp *framework.ControlPlane, pod *corev1.Pod, port int) {
	t.Helper()
	if len(pod.Spec.Containers) != 1 || !strings.Contains(pod.Spec.Containers[0].Image, "cert-manager-acmesolver") {
		t.Fatalf("solver Pod %s: containers %+v, want one cert-manager-acmesolver", pod.Name, pod.Spec.Containers)
	}
	var args []string
	for _, a := range pod.Spec.Containers[0].Args {
		if strings.HasPrefix(a, "--listen-port=") {
			a = "--listen-port=" + strconv.Itoa(port)
		}
		args = append(args, a)
	}
	cmd := exec.Command(filepath.Join(cp.BinDir, framework.CertManagerACMESolver), args...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		var exit *exec.ExitError
		if err := cmd.Wait(); err != nil && !errors.As(err, &exit) || t.Failed() {
			t.Logf("acmesolver (%v) output:\n%s", err, out.String())
		}
	})
}
