package certificates

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/internal/hostaddr"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// wait bounds each wait for cert-manager and the controllers: a few API
// round trips, on a machine that may be slow.
const wait = 3 * time.Minute

// testLabel keeps the test's router on the test's Routes.
const testLabel = "routeshift.test/certificates"

// newClient is an admin client that knows cert-manager's types.
func newClient(t testing.TB, cp *framework.ControlPlane) client.Client {
	t.Helper()
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, routecore.AddToScheme, cmapi.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	c, err := client.New(cp.Config, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// apply runs kubectl apply with manifest, as a user would, and returns
// what kubectl printed on standard error (the webhook's warnings).
func apply(t testing.TB, cp *framework.ControlPlane, manifest string) string {
	t.Helper()
	out, errOut, err := cp.KubectlStdin(t, manifest, "apply", "-f", "-")
	if err != nil {
		t.Fatalf("kubectl apply: %v\n%s%s\nmanifest:\n%s", err, out, errOut, manifest)
	}
	return errOut
}

// backend is a server on the machine's own address (Kubernetes refuses
// loopback endpoints) answering name, over TLS with kp when not nil,
// exposed as Service ns/name with an EndpointSlice.
func backend(t testing.TB, c client.Client, ns, name string, kp *certs.KeyPair) {
	t.Helper()
	ip, err := hostaddr.IPv4()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	port := int32(l.Addr().(*net.TCPAddr).Port)
	if kp != nil {
		pair, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
		if err != nil {
			t.Fatal(err)
		}
		l = tls.NewListener(l, &tls.Config{Certificates: []tls.Certificate{pair}})
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, name) })}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	portName, ready := "http", true
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(port)}}}}
	es := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-1",
		Labels: map[string]string{discoveryv1.LabelServiceName: name}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
		Ports:       []discoveryv1.EndpointPort{{Name: &portName, Port: &port}}}
	for _, o := range []client.Object{svc, es} {
		if err := c.Create(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
}

// served is what the router's HTTPS port answered for a host.
type served struct {
	// chain is the certificate chain the router presented.
	chain []*x509.Certificate
	body  string
}

// fetch asks the router's HTTPS port for https://host/ with SNI, without
// verifying (the caller verifies the chain it gets).
func fetch(r *framework.Router, host string) (served, error) {
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "tcp", fmt.Sprintf("127.0.0.1:%d", r.HTTPSPort))
		},
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // verified below against the CA
		DisableKeepAlives: true,
	}}
	resp, err := c.Get("https://" + host + "/")
	if err != nil {
		return served{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return served{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return served{}, fmt.Errorf("https://%s/: %s: %s", host, resp.Status, body)
	}
	return served{chain: resp.TLS.PeerCertificates, body: string(body)}, nil
}

// verify checks the served chain for host against the roots, as a client
// that trusts only them does.
func (s served) verify(host string, roots *x509.CertPool) error {
	inter := x509.NewCertPool()
	for _, c := range s.chain[1:] {
		inter.AddCert(c)
	}
	_, err := s.chain[0].Verify(x509.VerifyOptions{DNSName: host, Roots: roots, Intermediates: inter})
	return err
}

// waitServed waits until the router serves host with body and a
// certificate that verifies for host against roots, and returns it.
func waitServed(t *testing.T, r *framework.Router, host, body string, roots *x509.CertPool) served {
	t.Helper()
	var s served
	framework.EventuallyWithin(t, wait, "https://"+host+"/ served with a certificate the CA issued", func() error {
		var err error
		if s, err = fetch(r, host); err != nil {
			return err
		}
		if s.body != body {
			return fmt.Errorf("body %q, want %q", s.body, body)
		}
		return s.verify(host, roots)
	})
	return s
}

func pool(t testing.TB, pemData []byte) *x509.CertPool {
	t.Helper()
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(pemData) {
		t.Fatalf("no certificate in %q", pemData)
	}
	return p
}

func parseCert(t testing.TB, data []byte) *x509.Certificate {
	t.Helper()
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatalf("no PEM block in %q", data)
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func getRoute(t *testing.T, c client.Client, ns, name string) *routecore.Route {
	t.Helper()
	r := &routecore.Route{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, r); err != nil {
		t.Fatal(err)
	}
	return r
}

// waitEvents waits until kubectl describe route shows every reason (or
// any other text).
func waitEvents(t *testing.T, cp *framework.ControlPlane, ns, name string, reasons ...string) string {
	t.Helper()
	var out string
	framework.EventuallyWithin(t, wait, "kubectl describe route "+name+" shows "+strings.Join(reasons, ", "), func() error {
		var errOut string
		var err error
		if out, errOut, err = cp.Kubectl(t, "describe", "route", "-n", ns, name); err != nil {
			return fmt.Errorf("%v: %s", err, errOut)
		}
		for _, r := range reasons {
			if !strings.Contains(out, r) {
				return fmt.Errorf("no %s in\n%s", r, out)
			}
		}
		return nil
	})
	return out
}
