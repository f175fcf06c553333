package certificates

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
	"testing"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/routecerts"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// caChain makes a root CA (from a self-signed ClusterIssuer) behind the
// ClusterIssuer ca-NS, and an intermediate CA from it behind the Issuer ca
// in NS: certificates the Issuer signs verify against the root through the
// chain the router serves.
const caChain = `apiVersion: cert-manager.io/v1
kind: ClusterIssuer
metadata: {name: selfsigned-%[1]s}
spec: {selfSigned: {}}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: root-%[1]s, namespace: cert-manager}
spec:
  isCA: true
  commonName: routeshift test root %[1]s
  secretName: root-%[1]s
  privateKey: {algorithm: ECDSA, size: 256}
  issuerRef: {kind: ClusterIssuer, name: selfsigned-%[1]s}
---
apiVersion: cert-manager.io/v1
kind: ClusterIssuer
metadata: {name: ca-%[1]s}
spec: {ca: {secretName: root-%[1]s}}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: intermediate, namespace: %[1]s}
spec:
  isCA: true
  commonName: routeshift test intermediate %[1]s
  secretName: intermediate
  privateKey: {algorithm: ECDSA, size: 256}
  issuerRef: {kind: ClusterIssuer, name: ca-%[1]s}
---
apiVersion: cert-manager.io/v1
kind: Issuer
metadata: {name: ca, namespace: %[1]s}
spec: {ca: {secretName: intermediate}}
`

// env is what the subtests share: one cert-manager, one namespace with
// its CA issuers, one router.
type env struct {
	cp     *framework.ControlPlane
	c      client.Client
	ns     string
	router *framework.Router
	// roots trusts the root CA only.
	roots *x509.CertPool
}

func (e *env) host(name string) string { return name + "." + e.ns + ".example.test" }

// newEnv makes a namespace with the CA issuers of caChain and starts a
// router for the namespace's Routes.
func newEnv(t testing.TB, cp *framework.ControlPlane, prefix string) *env {
	t.Helper()
	e := &env{cp: cp, c: newClient(t, cp), ns: cp.CreateNamespace(t, prefix)}
	apply(t, cp, fmt.Sprintf(caChain, e.ns))
	t.Cleanup(func() { _, _, _ = cp.Kubectl(t, "delete", "clusterissuer", "selfsigned-"+e.ns, "ca-"+e.ns) })
	if out, errOut, err := cp.Kubectl(t, "wait", "--for=condition=Ready", "--timeout="+wait.String(), "-n", e.ns, "issuer/ca", "certificate/intermediate"); err != nil {
		t.Fatalf("CA issuers not ready: %v\n%s%s", err, out, errOut)
	}
	root := &corev1.Secret{}
	if err := e.c.Get(context.Background(), client.ObjectKey{Namespace: "cert-manager", Name: "root-" + e.ns}, root); err != nil {
		t.Fatal(err)
	}
	e.roots = pool(t, root.Data["tls.crt"])
	e.router = cp.StartRouter(t, e.ns, "--labels", testLabel+"="+e.ns)
	return e
}

// TestRouteCertificates runs one cert-manager for its subtests: two on one
// control plane would both act on every Certificate.
func TestRouteCertificates(t *testing.T) {
	cp := framework.Cluster(t)
	framework.StartCertManager(t, cp, framework.CertManagerOptions{})
	e := newEnv(t, cp, "certs")
	backend(t, e.c, e.ns, "web", nil) // for every subtest

	t.Run("edge Route", func(t *testing.T) { testEdge(t, e) })
	t.Run("reencrypt Route", func(t *testing.T) { testReencrypt(t, e) })
	t.Run("host changed", func(t *testing.T) { testHostChange(t, e) })
	t.Run("annotation removed", func(t *testing.T) { testAnnotationRemoved(t, e) })
	t.Run("missing issuer", func(t *testing.T) { testMissingIssuer(t, e) })
	t.Run("router reads exactly the Secret", func(t *testing.T) { testRouterAccess(t, e) })
	t.Run("Route deleted", func(t *testing.T) { testRouteDeleted(t, e) })
	t.Run("Ingress with cluster-issuer", func(t *testing.T) { testIngressShim(t, e) })
}

const annotatedRoute = `apiVersion: route.openshift.io/v1
kind: Route
metadata:
  name: %[1]s
  namespace: %[2]s
  labels: {routeshift.test/certificates: %[2]s}
  annotations: {%[3]s}
spec:
  host: %[4]s
  to: {kind: Service, name: %[5]s}
  tls: {termination: %[6]s%[7]s}
`

// routeYAML is an annotated Route to service svc.
func (e *env) routeYAML(name, annotations, host, svc, termination, tlsExtra string) string {
	return fmt.Sprintf(annotatedRoute, name, e.ns, annotations, host, svc, termination, tlsExtra)
}

// waitIssued waits until the Route names its Secret in
// spec.tls.externalCertificate, recorded by the controller's annotation.
func (e *env) waitIssued(t *testing.T, name string) *routecore.Route {
	t.Helper()
	secret := routecore.CertificateSecretName(name)
	var r *routecore.Route
	framework.EventuallyWithin(t, wait, "Route "+name+" names Secret "+secret, func() error {
		r = getRoute(t, e.c, e.ns, name)
		if ext := r.Spec.TLS.ExternalCertificate; ext == nil || ext.Name != secret || r.Annotations[routecerts.ExternalCertificateAnnotation] != secret {
			return fmt.Errorf("spec.tls %+v, annotations %v", r.Spec.TLS, r.Annotations)
		}
		return nil
	})
	return r
}

// testEdge: an annotated edge Route gets a Certificate owned by it for its
// host, the router may read exactly its Secret, the Route names the Secret
// and holds no key, the router serves a certificate that verifies against
// the root CA, and kubectl describe tells the story.
func testEdge(t *testing.T, e *env) {
	host := e.host("edge")
	apply(t, e.cp, e.routeYAML("edge", "cert-manager.io/issuer: ca", host, "web", "edge", ", insecureEdgeTerminationPolicy: Redirect"))
	r := e.waitIssued(t, "edge")
	if r.Spec.TLS.Key != "" || r.Spec.TLS.Certificate != "" {
		t.Errorf("the Route holds certificate data: %+v", r.Spec.TLS)
	}
	cert := &cmapi.Certificate{}
	if err := e.c.Get(context.Background(), client.ObjectKey{Namespace: e.ns, Name: "edge-route-tls"}, cert); err != nil {
		t.Fatal(err)
	}
	if ref := metav1.GetControllerOf(cert); ref == nil || ref.UID != r.UID || ref.Kind != "Route" {
		t.Errorf("Certificate edge-route-tls controller %+v, want Route %s", ref, r.UID)
	}
	if got := strings.Join(cert.Spec.DNSNames, ","); got != host || cert.Spec.SecretName != "edge-route-tls" || cert.Spec.IssuerRef.Name != "ca" {
		t.Errorf("Certificate spec %+v", cert.Spec)
	}
	s := waitServed(t, e.router, host, "web", e.roots)
	if got := s.chain[0].DNSNames; len(got) != 1 || got[0] != host {
		t.Errorf("served certificate names %v, want [%s]", got, host)
	}
	out := waitEvents(t, e.cp, e.ns, "edge", routecerts.ReasonRequested, routecerts.ReasonIssued)
	if !strings.Contains(out, "Created Certificate edge-route-tls for ["+host+"] from Issuer ca") {
		t.Errorf("kubectl describe route edge lacks the request:\n%s", out)
	}
}

// testReencrypt: a reencrypt Route with a cluster-issuer annotation serves
// the issued certificate to clients and verifies its backend with its
// destinationCACertificate.
func testReencrypt(t *testing.T, e *env) {
	backendCA, err := certs.NewCA("backend CA")
	if err != nil {
		t.Fatal(err)
	}
	kp, err := backendCA.Issue(certs.Options{CommonName: "secure", DNSNames: []string{"secure." + e.ns + ".svc"}})
	if err != nil {
		t.Fatal(err)
	}
	backend(t, e.c, e.ns, "secure", kp)
	host := e.host("reencrypt")
	dest := ", destinationCACertificate: " + fmt.Sprintf("%q", string(backendCA.CertPEM))
	apply(t, e.cp, e.routeYAML("reencrypt", "cert-manager.io/cluster-issuer: ca-"+e.ns, host, "secure", "reencrypt", dest))
	e.waitIssued(t, "reencrypt")
	s := waitServed(t, e.router, host, "secure", e.roots)
	if s.chain[0].Issuer.CommonName != "routeshift test root "+e.ns {
		t.Errorf("served chain %v, want a leaf of the root CA", s.chain)
	}
}

// testHostChange: a new host updates the Certificate, cert-manager fills
// the Secret with a certificate for the new host, and the router serves it
// (the Route itself changed before the Secret did).
func testHostChange(t *testing.T, e *env) {
	backend(t, e.c, e.ns, "moving", nil)
	apply(t, e.cp, e.routeYAML("moving", "cert-manager.io/issuer: ca", e.host("before"), "moving", "edge", ""))
	e.waitIssued(t, "moving")
	waitServed(t, e.router, e.host("before"), "moving", e.roots)
	apply(t, e.cp, e.routeYAML("moving", "cert-manager.io/issuer: ca", e.host("after"), "moving", "edge", ""))
	framework.EventuallyWithin(t, wait, "Secret moving-route-tls holds a certificate for "+e.host("after"), func() error {
		s := &corev1.Secret{}
		if err := e.c.Get(context.Background(), client.ObjectKey{Namespace: e.ns, Name: "moving-route-tls"}, s); err != nil {
			return err
		}
		if got := parseCert(t, s.Data["tls.crt"]).DNSNames; len(got) != 1 || got[0] != e.host("after") {
			return fmt.Errorf("certificate for %v", got)
		}
		return nil
	})
	waitServed(t, e.router, e.host("after"), "moving", e.roots)
	out := waitEvents(t, e.cp, e.ns, "moving", routecerts.ReasonUpdated)
	if !strings.Contains(out, "Updated Certificate moving-route-tls for ["+e.host("after")+"]") {
		t.Errorf("kubectl describe route moving lacks the update:\n%s", out)
	}
}

// testAnnotationRemoved: without the annotation the Certificate, Role and
// RoleBinding are deleted, the Route no longer names the Secret, and the
// router serves its default certificate, which the CA did not issue.
func testAnnotationRemoved(t *testing.T, e *env) {
	backend(t, e.c, e.ns, "plain", nil)
	host := e.host("plain")
	apply(t, e.cp, e.routeYAML("plain", "cert-manager.io/issuer: ca", host, "plain", "edge", ""))
	e.waitIssued(t, "plain")
	waitServed(t, e.router, host, "plain", e.roots)
	if out, errOut, err := e.cp.Kubectl(t, "annotate", "route", "-n", e.ns, "plain", "cert-manager.io/issuer-"); err != nil {
		t.Fatalf("kubectl annotate: %v\n%s%s", err, out, errOut)
	}
	framework.EventuallyWithin(t, wait, "Certificate, Role and RoleBinding of Route plain deleted", func() error {
		for _, o := range []client.Object{&cmapi.Certificate{}, &rbacv1.Role{}, &rbacv1.RoleBinding{}} {
			name := routecerts.RoleName("plain-route-tls")
			if _, ok := o.(*cmapi.Certificate); ok {
				name = "plain-route-tls"
			}
			if err := e.c.Get(context.Background(), client.ObjectKey{Namespace: e.ns, Name: name}, o); !apierrors.IsNotFound(err) {
				return fmt.Errorf("%T %s: %v", o, name, err)
			}
		}
		return nil
	})
	r := getRoute(t, e.c, e.ns, "plain")
	if r.Spec.TLS.ExternalCertificate != nil || r.Annotations[routecerts.ExternalCertificateAnnotation] != "" {
		t.Errorf("the Route still names the Secret: %+v %v", r.Spec.TLS, r.Annotations)
	}
	framework.EventuallyWithin(t, wait, "https://"+host+"/ served with the router's default certificate", func() error {
		s, err := fetch(e.router, host)
		if err != nil {
			return err
		}
		if err := s.verify(host, e.roots); err == nil {
			return errors.New("still served with the certificate the CA issued")
		}
		return nil
	})
	waitEvents(t, e.cp, e.ns, "plain", routecerts.ReasonRemoved)
}

// testMissingIssuer: kubectl warns about an issuer that does not exist, the
// Route gets no reference, and kubectl describe shows cert-manager's reason.
func testMissingIssuer(t *testing.T, e *env) {
	warnings := apply(t, e.cp, e.routeYAML("orphan", "cert-manager.io/issuer: nope", e.host("orphan"), "web", "edge", ""))
	if !strings.Contains(warnings, "nope") {
		t.Errorf("kubectl apply printed no warning about Issuer nope: %q", warnings)
	}
	// cert-manager's reason comes from the CertificateRequest, a moment
	// after the Certificate's own "Issuing certificate as Secret does not
	// exist".
	waitEvents(t, e.cp, e.ns, "orphan", routecerts.ReasonRequested, routecerts.ReasonPending,
		`CertificateRequest orphan-route-tls-1: Pending: Referenced "Issuer" not found: issuer.cert-manager.io "nope" not found`)
	if r := getRoute(t, e.c, e.ns, "orphan"); r.Spec.TLS.ExternalCertificate != nil {
		t.Errorf("a Route without a certificate names a Secret: %+v", r.Spec.TLS)
	}
}

// testRouteDeleted: garbage collection removes what the controller made
// for a deleted Route.
func testRouteDeleted(t *testing.T, e *env) {
	apply(t, e.cp, e.routeYAML("gone", "cert-manager.io/issuer: ca", e.host("gone"), "web", "edge", ""))
	e.waitIssued(t, "gone")
	if out, errOut, err := e.cp.Kubectl(t, "delete", "route", "-n", e.ns, "gone", "--wait"); err != nil {
		t.Fatalf("kubectl delete: %v\n%s%s", err, out, errOut)
	}
	framework.EventuallyWithin(t, wait, "Certificate, Role and RoleBinding of Route gone collected", func() error {
		var certs cmapi.CertificateList
		var roles rbacv1.RoleList
		var bindings rbacv1.RoleBindingList
		for _, l := range []client.ObjectList{&certs, &roles, &bindings} {
			if err := e.c.List(context.Background(), l, client.InNamespace(e.ns), client.MatchingLabels{routecerts.RouteLabel: "gone"}); err != nil {
				return err
			}
		}
		if n := len(certs.Items) + len(roles.Items) + len(bindings.Items); n > 0 {
			return fmt.Errorf("%d objects left", n)
		}
		return nil
	})
}
