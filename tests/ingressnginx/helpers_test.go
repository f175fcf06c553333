package ingressnginx

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/ingress"
	"github.com/routeshift/routeshift/ingress/nginx"
	"github.com/routeshift/routeshift/internal/hostaddr"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// nginxClass is the class of the Ingresses: ingress-nginx's usual one,
// adopted by the translation.
const nginxClass = "nginx"

// slowPath is the path at which a backend started with a delay answers
// only after it; every other path answers at once, so that a test can see
// that a Route is served before it asks for the slow answer.
const slowPath = "/slow"

// echo is what a backend answers: its id and the request as it received it.
type echo struct {
	ID     string `json:"id"`
	Host   string `json:"host"`
	Path   string `json:"path"`
	Method string `json:"method"`
}

// backend is an HTTP server on this machine's own address (Kubernetes
// refuses loopback endpoints) that accepts connections from this machine
// only and answers every request with an echo in JSON.
type backend struct {
	id   string
	ip   string
	port int32
}

// startBackend starts a backend; with delay > 0 it answers slowPath only
// after delay (or when the client goes).
func startBackend(t *testing.T, id string, delay time.Duration) *backend {
	t.Helper()
	ip, err := hostaddr.IPv4()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if delay > 0 && r.URL.Path == slowPath {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(echo{ID: id, Host: r.Host, Path: r.URL.Path, Method: r.Method})
	})}
	go func() { _ = srv.Serve(hostaddr.LocalOnly(l)) }()
	t.Cleanup(func() { _ = srv.Close() })
	return &backend{id: id, ip: ip, port: int32(l.Addr().(*net.TCPAddr).Port)}
}

// env is what the package's tests share: the control plane and the router.
type env struct {
	cp     *framework.ControlPlane
	router *framework.Router
}

// create creates objects in the API server; each is updated in place with
// what the API server stored (UID, defaults).
func (e *env) create(t *testing.T, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := e.cp.Client.Create(context.Background(), o); err != nil {
			t.Fatalf("creating %T %s/%s: %v", o, o.GetNamespace(), o.GetName(), err)
		}
	}
}

// service creates Service ns/name with one port "http" and its endpoints:
// one EndpointSlice per backend (each backend listens on a port of its
// own, and a slice has one set of ports), every endpoint ready.
func (e *env) service(t *testing.T, ns, name string, backends ...*backend) *corev1.Service {
	t.Helper()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.ServiceSpec{
		Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}}}}
	e.create(t, svc)
	ready := true
	portName := "http"
	for i, b := range backends {
		port := b.port
		e.create(t, &discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s-%d", name, i),
				Labels: map[string]string{discoveryv1.LabelServiceName: name}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{b.ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
			Ports:       []discoveryv1.EndpointPort{{Name: &portName, Port: &port}},
		})
	}
	return svc
}

// nginxIngress is an Ingress of class nginx with ingress-nginx annotations
// (keys without nginx.Prefix) and one rule: host and path to service's
// port "http". An empty pathType is ImplementationSpecific (what
// ingress-nginx's regular-expression paths use); TLS, when secret is not
// empty, names a Secret for host.
func nginxIngress(ns, name, host, path string, pathType networkingv1.PathType, service, secret string, annotations map[string]string) *networkingv1.Ingress {
	if pathType == "" {
		pathType = networkingv1.PathTypeImplementationSpecific
	}
	class := nginxClass
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: networkingv1.IngressSpec{
		IngressClassName: &class,
		Rules: []networkingv1.IngressRule{{Host: host, IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
			Paths: []networkingv1.HTTPIngressPath{{Path: path, PathType: &pathType, Backend: networkingv1.IngressBackend{
				Service: &networkingv1.IngressServiceBackend{Name: service, Port: networkingv1.ServiceBackendPort{Name: "http"}}}}}}}}},
	}}
	if len(annotations) > 0 {
		ing.Annotations = map[string]string{}
		for k, v := range annotations {
			ing.Annotations[nginx.Prefix+k] = v
		}
	}
	if secret != "" {
		ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{host}, SecretName: secret}}
	}
	return ing
}

// translateOptions adopt class nginx with ingress-nginx's default
// ConfigMap settings, as `routeshift translate --from ingress-nginx` does
// for a cluster whose ingress-nginx ConfigMap is not given.
func translateOptions() ingress.Options {
	return ingress.Options{AdoptClasses: []string{nginxClass}, Nginx: nginx.DefaultGlobals()}
}

// translate translates every Ingress among objs with the other objects
// (Services, Secrets, Ingresses) as what they refer to, and returns the
// results by Ingress name. Every Ingress must be taken and adopted, with
// no problem: the tests' Ingresses are all convertible.
func translate(t *testing.T, objs ...client.Object) map[string]ingress.Result {
	t.Helper()
	set := ingress.NewObjectSet()
	var ings []*networkingv1.Ingress
	for _, o := range objs {
		set.Add(o)
		if ing, ok := o.(*networkingv1.Ingress); ok {
			ings = append(ings, ing)
		}
	}
	results := map[string]ingress.Result{}
	for _, ing := range ings {
		res := ingress.TranslateWith(ing, set, translateOptions())
		if !res.Managed || !res.Adopted || len(res.Problems) > 0 {
			t.Fatalf("Ingress %s: managed %t, adopted %t, problems %q; want it managed and adopted, with no problem",
				ing.Name, res.Managed, res.Adopted, res.Problems)
		}
		if res.Conversion != nil {
			for _, f := range res.Conversion.Findings {
				t.Logf("Ingress %s: %s", ing.Name, f.Describe())
			}
		}
		results[ing.Name] = res
	}
	return results
}

// createRoutes creates the Routes of a translation in the API server, as
// the controller (or kubectl apply of `routeshift translate`'s output)
// would, and returns them.
func (e *env) createRoutes(t *testing.T, res ingress.Result) []*routecore.Route {
	t.Helper()
	for _, r := range res.Routes {
		e.create(t, r)
	}
	return res.Routes
}

// convert stores those of objs (Services, Secrets, Ingresses) that are
// not stored yet (have no UID) in the API server, translates the Ingress
// named ing among them and creates its Routes; it fails unless the
// Ingress makes exactly one Route, which it returns.
func (e *env) convert(t *testing.T, ing string, objs ...client.Object) *routecore.Route {
	t.Helper()
	for _, o := range objs {
		if o.GetUID() == "" {
			e.create(t, o)
		}
	}
	routes := e.createRoutes(t, translate(t, objs...)[ing])
	if len(routes) != 1 {
		t.Fatalf("Ingress %s made %d Routes, want 1: %+v", ing, len(routes), routes)
	}
	return routes[0]
}

// reply is what a request through the router got.
type reply struct {
	code    int
	header  http.Header
	cookies []*http.Cookie
	body    string
	// echo is the backend's answer; ok is false when the body was not one
	// (the router answered by itself).
	echo echo
	ok   bool
	tls  *tls.ConnectionState
}

func (r reply) String() string {
	return fmt.Sprintf("%d %q", r.code, r.body)
}

// newClient is an HTTP client that opens a connection per request (so
// that each is balanced on its own, as a fresh client's would be), does
// not follow redirects, and keeps cookies only when jar is true; tlsConf
// is its TLS configuration for https.
func newClient(jar bool, tlsConf *tls.Config) *http.Client {
	c := &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{DisableKeepAlives: true, TLSClientConfig: tlsConf},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}}
	if jar {
		c.Jar, _ = cookiejar.New(nil)
	}
	return c
}

// request sends method path to the router's HTTP port (or its HTTPS port
// when https) for host, with extra headers, and reads the reply.
func (e *env) request(c *http.Client, https bool, method, host, path string, header http.Header) (reply, error) {
	url := fmt.Sprintf("http://127.0.0.1:%d%s", e.router.HTTPPort, path)
	if https {
		url = fmt.Sprintf("https://127.0.0.1:%d%s", e.router.HTTPSPort, path)
	}
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		return reply{}, err
	}
	req.Host = host
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := c.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	out := reply{code: resp.StatusCode, header: resp.Header, cookies: resp.Cookies(), body: string(body), tls: resp.TLS}
	if err != nil {
		return out, err
	}
	out.ok = json.Unmarshal(body, &out.echo) == nil && out.echo.ID != ""
	return out, nil
}

// get is request GET over plain HTTP.
func (e *env) get(c *http.Client, host, path string) (reply, error) {
	return e.request(c, false, http.MethodGet, host, path, nil)
}

// waitServed waits until a GET of host and path over plain HTTP (or TLS)
// answers 200 from one of backends, and returns that reply.
func (e *env) waitServed(t *testing.T, c *http.Client, https bool, host, path string) reply {
	t.Helper()
	var got reply
	framework.Eventually(t, fmt.Sprintf("%s%s served by a backend", host, path), func() error {
		var err error
		got, err = e.request(c, https, http.MethodGet, host, path, nil)
		switch {
		case err != nil:
			return err
		case got.code != http.StatusOK || !got.ok:
			return fmt.Errorf("reply %v", got)
		}
		return nil
	})
	return got
}

// tlsSecret is a kubernetes.io/tls Secret for host whose certificate a
// new CA signed; the CA's pool verifies it.
func tlsSecret(t *testing.T, ns, name, host string) (*corev1.Secret, *x509.CertPool, *x509.Certificate) {
	t.Helper()
	ca, err := certs.NewCA("ingressnginx test CA")
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Issue(certs.Options{CommonName: host, DNSNames: []string{host}})
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{corev1.TLSCertKey: leaf.CertPEM, corev1.TLSPrivateKeyKey: leaf.KeyPEM}}
	return secret, pool, leaf.Cert
}

// objectName makes a test case's name an object name: lower case, with
// dashes for spaces.
func objectName(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, " ", "-"))
}

// refused reports whether a request got no HTTP reply because the router
// closed the connection (HAProxy's tcp-request content reject).
func refused(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}
