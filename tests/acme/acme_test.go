package acme

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	cmacme "github.com/cert-manager/cert-manager/pkg/apis/acme/v1"
	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/internal/hostaddr"
	"github.com/routeshift/routeshift/tests/framework"
)

// issueWait bounds each wait for cert-manager's work: a few API round trips
// and, for ACME, pebble's validation, on a loaded 2-core machine.
const issueWait = 3 * time.Minute

// TestCertificatesThroughTheRouter runs one cert-manager for its subtests
// (two on one control plane would both act on every Certificate). pebble
// validates HTTP-01 challenges at the router's HTTP port, and cert-manager's
// self check goes there too (HTTP_PROXY), as DNS would send both to a
// router.
func TestCertificatesThroughTheRouter(t *testing.T) {
	cp := framework.Cluster(t)
	if out, errOut, err := cp.Kubectl(t, "apply", "-f", filepath.Join(cp.RepoRoot, "manifests", "webhook", "ingressclass.yaml")); err != nil {
		t.Fatalf("applying the IngressClass: %v\n%s%s", err, out, errOut)
	}
	r := cp.StartRouter(t, "acme")
	p := framework.StartPebble(t, framework.PebbleOptions{HTTPPort: r.HTTPPort})
	framework.StartCertManager(t, cp, framework.CertManagerOptions{
		ControllerArgs: []string{"--acme-http01-solver-nameservers=" + p.DNSServer},
		ControllerEnv:  []string{fmt.Sprintf("HTTP_PROXY=http://127.0.0.1:%d", r.HTTPPort)},
	})
	cm := certManagerClient(t, cp)

	t.Run("ACME HTTP-01 on a Redirect route", func(t *testing.T) { testACMERedirect(t, cp, cm, r, p) })
	t.Run("renewal without a reload", func(t *testing.T) { testRenewal(t, cp, cm) })
}

// certManagerClient is a client that knows cert-manager's types, ACME
// Orders included.
func certManagerClient(t *testing.T, cp *framework.ControlPlane) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := cmapi.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := cmacme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cp.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// testACMERedirect: an edge Route whose plain HTTP requests redirect to
// HTTPS holds the host; annotated with pebble's ACME Issuer, whose HTTP-01
// solver makes Ingresses of class routeshift, it gets a certificate
// (pebble fetched the token through the router, past the redirect) and
// serves it, and a client verifies it against pebble's root; plain HTTP
// still redirects. routeshift wrote the Certificate's spec once.
func testACMERedirect(t *testing.T, cp *framework.ControlPlane, cm client.Client, r *framework.Router, p *framework.Pebble) {
	ns := cp.CreateNamespace(t, "acme")
	host := "app." + ns + ".example.test"
	solvers := cp.RunACMESolvers(t, ns)
	webService(t, cp, ns)
	apply(t, cp, fmt.Sprintf(`apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: app, namespace: %[1]s}
spec:
  host: %[2]s
  to: {kind: Service, name: web}
  tls: {termination: edge, insecureEdgeTerminationPolicy: Redirect}
---
apiVersion: cert-manager.io/v1
kind: Issuer
metadata: {name: pebble, namespace: %[1]s}
spec:
  acme:
    server: %[3]s
    caBundle: %[4]s
    email: admin@example.test
    privateKeySecretRef: {name: pebble-account}
    solvers:
    - http01: {ingress: {ingressClassName: routeshift}}
`, ns, host, p.DirectoryURL, base64.StdEncoding.EncodeToString(p.CABundle)))
	waitAdmitted(t, cp, ns, "app", "acme")
	framework.Eventually(t, "http://"+host+"/ redirected to https", func() error {
		if code, location := plainGet(t, r, host, "/"); code != http.StatusFound || location != "https://"+host+"/" {
			return fmt.Errorf("%d to %q", code, location)
		}
		return nil
	})

	if out, errOut, err := cp.Kubectl(t, "annotate", "route", "app", "-n", ns, "cert-manager.io/issuer=pebble"); err != nil {
		t.Fatalf("annotating Route app: %v\n%s%s", err, out, errOut)
	}
	waitReady(t, cp, ns, "certificate/app-route-tls")
	if solvers.Started() == 0 {
		t.Error("the certificate is Ready, but no solver Pod ran")
	}
	// The route-certificates controller creates the Certificate complete and
	// leaves its spec alone: cert-manager acts on every change of it.
	crt := &cmapi.Certificate{}
	if err := cm.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "app-route-tls"}, crt); err != nil {
		t.Fatal(err)
	}
	if crt.Generation != 1 {
		t.Errorf("Certificate app-route-tls has generation %d, want 1: its spec changed after the route-certificates controller created it", crt.Generation)
	}
	framework.EventuallyWithin(t, issueWait, "Route app names Secret app-route-tls", func() error {
		out, errOut, err := cp.Kubectl(t, "get", "route", "app", "-n", ns, "-o", "jsonpath={.spec.tls.externalCertificate.name}")
		if err != nil || out != "app-route-tls" {
			return fmt.Errorf("%q %v %s", out, err, errOut)
		}
		return nil
	})
	root, err := p.IssuingRoot()
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(root) {
		t.Fatalf("pebble's issuing root is not PEM: %q", root)
	}
	issued := leafOf(t, secret(t, cp, ns, "app-route-tls").Data[corev1.TLSCertKey])
	waitServed(t, r.HTTPSPort, host, roots, issued)
	if code, location := plainGet(t, r, host, "/"); code != http.StatusFound || location != "https://"+host+"/" {
		t.Errorf("http://%s/ with the certificate: %d to %q, want a 302 to https", host, code, location)
	}
}

// testRenewal: a Route annotated with a CA Issuer serves the certificate
// issued for it; renewals of its Certificate, triggered as `cmctl renew`
// does (the Issuing condition), swap the certificate served while clients
// make TLS handshakes, with no failed handshake and no reload of HAProxy:
// each renewal is counted as a certificate update through the runtime API.
// A router of its own serves the Route, so that no other test's change
// reloads it meanwhile.
func testRenewal(t *testing.T, cp *framework.ControlPlane, cm client.Client) {
	ns := cp.CreateNamespace(t, "renewal")
	host := "renewed." + ns + ".example.test"
	webService(t, cp, ns)
	apply(t, cp, fmt.Sprintf(`apiVersion: cert-manager.io/v1
kind: Issuer
metadata: {name: selfsigned, namespace: %[1]s}
spec: {selfSigned: {}}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: ca, namespace: %[1]s}
spec:
  isCA: true
  commonName: renewal test CA
  secretName: ca
  privateKey: {algorithm: ECDSA, size: 256}
  issuerRef: {kind: Issuer, name: selfsigned}
---
apiVersion: cert-manager.io/v1
kind: Issuer
metadata: {name: ca, namespace: %[1]s}
spec: {ca: {secretName: ca}}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata:
  name: renewed
  namespace: %[1]s
  labels: {routeshift.test/router: %[1]s}
  annotations: {cert-manager.io/issuer: ca}
spec:
  host: %[2]s
  to: {kind: Service, name: web}
  tls: {termination: edge}
`, ns, host))
	waitReady(t, cp, ns, "certificate/ca", "issuer/ca", "certificate/renewed-route-tls")
	r := cp.StartRouter(t, "renewal", "--labels", "routeshift.test/router="+ns)
	roots := x509.NewCertPool()
	roots.AddCert(leafOf(t, secret(t, cp, ns, "ca").Data[corev1.TLSCertKey]))
	leaf := leafOf(t, secret(t, cp, ns, "renewed-route-tls").Data[corev1.TLSCertKey])
	waitServed(t, r.HTTPSPort, host, roots, leaf)
	before := series(t, r)

	load := startHandshakes(r.HTTPSPort, host, roots)
	const renewals = 2
	for range renewals {
		renew(t, cm, ns, "renewed-route-tls")
		framework.EventuallyWithin(t, issueWait, "cert-manager renews Secret renewed-route-tls", func() error {
			next := leafOf(t, secret(t, cp, ns, "renewed-route-tls").Data[corev1.TLSCertKey])
			if next.SerialNumber.Cmp(leaf.SerialNumber) == 0 {
				return errors.New("the Secret holds the same certificate")
			}
			leaf = next
			return nil
		})
		waitServed(t, r.HTTPSPort, host, roots, leaf)
	}
	ok, failed, firstErr := load.stop()
	if failed != 0 {
		t.Errorf("%d of %d TLS handshakes failed during the renewals; first: %v", failed, ok+failed, firstErr)
	}
	if ok == 0 {
		t.Error("no TLS handshake succeeded during the renewals")
	}
	t.Logf("%d TLS handshakes during %d renewals", ok, renewals)
	framework.Eventually(t, "the renewals counted as runtime certificate updates, without a reload", func() error {
		after := series(t, r)
		const runtime = `routeshift_router_certificate_updates_total{method="runtime"}`
		if got := after[runtime] - before[runtime]; got != renewals {
			return fmt.Errorf("%s went up by %v, want %d", runtime, got, renewals)
		}
		if got := sumOf(after, "routeshift_router_reloads_total{") - sumOf(before, "routeshift_router_reloads_total{"); got != 0 {
			return fmt.Errorf("HAProxy reloaded %v times, want 0", got)
		}
		return nil
	})
}

// renew triggers a renewal of Certificate ns/name as `cmctl renew` does:
// the condition Issuing=True, reason ManuallyTriggered, in its status.
func renew(t *testing.T, cm client.Client, ns, name string) {
	t.Helper()
	// cert-manager updates the Certificate's status itself (its readiness,
	// its next renewal, and the Issuing condition of an issuance, which it
	// removes a moment after the Secret holds the new certificate): re-read
	// and try again on a conflict, as cmctl renew does, and while the last
	// issuance's condition is still there (a second one is refused as a
	// duplicate).
	framework.EventuallyWithin(t, issueWait, "triggering the renewal of Certificate "+ns+"/"+name, func() error {
		crt := &cmapi.Certificate{}
		if err := cm.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, crt); err != nil {
			return err
		}
		for _, c := range crt.Status.Conditions {
			if c.Type == cmapi.CertificateConditionIssuing {
				return fmt.Errorf("an issuance is still in progress: %s", c.Message)
			}
		}
		now := metav1.Now()
		crt.Status.Conditions = append(crt.Status.Conditions, cmapi.CertificateCondition{Type: cmapi.CertificateConditionIssuing,
			Status: cmmeta.ConditionTrue, Reason: "ManuallyTriggered", Message: "Certificate re-issuance manually triggered",
			LastTransitionTime: &now, ObservedGeneration: crt.Generation})
		return cm.Status().Update(context.Background(), crt)
	})
}

// webService is Service web in ns with one endpoint on this machine's own
// address answering "web".
func webService(t *testing.T, cp *framework.ControlPlane, ns string) {
	t.Helper()
	ip, err := hostaddr.IPv4()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "web")
	})}
	go func() { _ = srv.Serve(hostaddr.LocalOnly(l)) }()
	t.Cleanup(func() { _ = srv.Close() })
	port := int32(l.Addr().(*net.TCPAddr).Port)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
	es := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-1",
		Labels: map[string]string{discoveryv1.LabelServiceName: "web"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To(port)}}}
	for _, obj := range []client.Object{svc, es} {
		if err := cp.Client.Create(context.Background(), obj); err != nil {
			t.Fatal(err)
		}
	}
}

// apply runs kubectl apply with manifest, as a user would.
func apply(t *testing.T, cp *framework.ControlPlane, manifest string) {
	t.Helper()
	if out, errOut, err := cp.KubectlStdin(t, manifest, "apply", "-f", "-"); err != nil {
		t.Fatalf("kubectl apply: %v\n%s%s\nmanifest:\n%s", err, out, errOut, manifest)
	}
}

// waitReady waits with kubectl until each object exists and has condition
// Ready=True (kubectl wait fails at once on an object that does not exist
// yet, such as a Certificate the route-certificates controller is about to
// make).
func waitReady(t *testing.T, cp *framework.ControlPlane, ns string, objects ...string) {
	t.Helper()
	args := append([]string{"wait", "-n", ns, "--for=condition=Ready", "--timeout=30s"}, objects...)
	framework.EventuallyWithin(t, issueWait, strings.Join(objects, ", ")+" Ready", func() error {
		if out, errOut, err := cp.Kubectl(t, args...); err != nil {
			return fmt.Errorf("%v\n%s%s", err, out, errOut)
		}
		return nil
	})
}

// waitAdmitted waits until router admits Route ns/name.
func waitAdmitted(t *testing.T, cp *framework.ControlPlane, ns, name, router string) {
	t.Helper()
	framework.Eventually(t, fmt.Sprintf("route %s/%s admitted by %s", ns, name, router), func() error {
		out, errOut, err := cp.Kubectl(t, "get", "route", name, "-n", ns, "-o",
			fmt.Sprintf(`jsonpath={.status.ingress[?(@.routerName=="%s")].conditions[?(@.type=="Admitted")].status}`, router))
		if err != nil {
			return fmt.Errorf("%v: %s", err, errOut)
		}
		if out != "True" {
			return fmt.Errorf("Admitted %q", out)
		}
		return nil
	})
}

func secret(t *testing.T, cp *framework.ControlPlane, ns, name string) *corev1.Secret {
	t.Helper()
	s := &corev1.Secret{}
	if err := cp.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, s); err != nil {
		t.Fatal(err)
	}
	return s
}

// leafOf is the first certificate of a PEM chain.
func leafOf(t *testing.T, chain []byte) *x509.Certificate {
	t.Helper()
	block, _ := pem.Decode(chain)
	if block == nil {
		t.Fatalf("no PEM certificate in %q", chain)
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// handshake makes a TLS handshake with 127.0.0.1:port for host, verifying
// the chain the router sends against roots for host, and returns the leaf.
func handshake(port int, host string, roots *x509.CertPool) (*x509.Certificate, error) {
	d := &net.Dialer{Timeout: 5 * time.Second}
	conn, err := tls.DialWithDialer(d, "tcp", fmt.Sprintf("127.0.0.1:%d", port), &tls.Config{ServerName: host, RootCAs: roots})
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0], nil
}

// waitServed waits until the router serves want for host.
func waitServed(t *testing.T, port int, host string, roots *x509.CertPool, want *x509.Certificate) {
	t.Helper()
	framework.EventuallyWithin(t, issueWait, fmt.Sprintf("%s serves the certificate of serial %s", host, want.SerialNumber), func() error {
		leaf, err := handshake(port, host, roots)
		if err != nil {
			return err
		}
		if !bytes.Equal(leaf.Raw, want.Raw) {
			return fmt.Errorf("served serial %s", leaf.SerialNumber)
		}
		return nil
	})
}

// plainGet sends GET http://host/path to the router's HTTP port and
// returns the status and the Location header.
func plainGet(t *testing.T, r *framework.Router, host, path string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d%s", r.HTTPPort, path), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	c := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Location")
}

// handshakes are clients making TLS handshakes until stopped.
type handshakes struct {
	ok, failed atomic.Int64
	// firstErr is the first failure's text (errors of different types
	// cannot share an atomic.Value).
	firstErr atomic.Pointer[string]
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// startHandshakes starts four clients making verified TLS handshakes with
// 127.0.0.1:port for host, one after another, each on a new connection.
func startHandshakes(port int, host string, roots *x509.CertPool) *handshakes {
	h := &handshakes{}
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	for range 4 {
		h.wg.Go(func() {
			for ctx.Err() == nil {
				if _, err := handshake(port, host, roots); err != nil {
					h.failed.Add(1)
					msg := err.Error()
					h.firstErr.CompareAndSwap(nil, &msg)
				} else {
					h.ok.Add(1)
				}
			}
		})
	}
	return h
}

// stop stops the clients and returns how many handshakes succeeded and
// failed, and the first failure.
func (h *handshakes) stop() (ok, failed int64, firstErr string) {
	h.cancel()
	h.wg.Wait()
	if p := h.firstErr.Load(); p != nil {
		firstErr = *p
	}
	return h.ok.Load(), h.failed.Load(), firstErr
}

// series scrapes the router's /metrics into series -> value.
func series(t *testing.T, r *framework.Router) map[string]float64 {
	t.Helper()
	status, body, err := r.Metrics()
	if err != nil || status != http.StatusOK {
		t.Fatalf("GET /metrics: %d %v\n%s", status, err, body)
	}
	out := map[string]float64{}
	for line := range strings.SplitSeq(body, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		var v float64
		if _, err := fmt.Sscan(line[i+1:], &v); err == nil {
			out[line[:i]] = v
		}
	}
	return out
}

// sumOf sums the series whose name starts with prefix.
func sumOf(series map[string]float64, prefix string) float64 {
	var n float64
	for k, v := range series {
		if strings.HasPrefix(k, prefix) {
			n += v
		}
	}
	return n
}
