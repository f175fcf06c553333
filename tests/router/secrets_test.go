package router

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// certificateSecret is a kubernetes.io/tls Secret holding kp.
func certificateSecret(ns, name string, kp *certs.KeyPair) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{corev1.TLSCertKey: kp.CertPEM, corev1.TLSPrivateKeyKey: kp.KeyPEM}}
}

// externalEdge is an edge Route of the test's router to service web with
// spec.tls.externalCertificate secret.
func externalEdge(ns, name, host, secret string) *routecore.Route {
	return labelled(ns, name, host, "web", &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge,
		ExternalCertificate: &routecore.LocalObjectReference{Name: secret}})
}

// servedLeaf makes a TLS handshake with the router's HTTPS port for host,
// verifying the chain against roots, and returns the leaf certificate.
func servedLeaf(r *framework.Router, host string, roots *x509.CertPool) (*x509.Certificate, error) {
	d := &net.Dialer{Timeout: 5 * time.Second}
	conn, err := tls.DialWithDialer(d, "tcp", fmt.Sprintf("127.0.0.1:%d", r.HTTPSPort), &tls.Config{ServerName: host, RootCAs: roots})
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0], nil
}

// waitServedLeaf waits until the router serves kp's certificate for host.
func waitServedLeaf(t *testing.T, r *framework.Router, host string, roots *x509.CertPool, kp *certs.KeyPair) {
	t.Helper()
	framework.EventuallyWithin(t, 2*time.Minute, fmt.Sprintf("%s served with the certificate of serial %s", host, kp.Cert.SerialNumber), func() error {
		leaf, err := servedLeaf(r, host, roots)
		if err != nil {
			return err
		}
		if !bytes.Equal(leaf.Raw, kp.Cert.Raw) {
			return fmt.Errorf("served serial %s", leaf.SerialNumber)
		}
		return nil
	})
}

// routerLines are the lines of the router's log that contain every part.
func routerLines(r *framework.Router, parts ...string) []string {
	var out []string
	for line := range strings.SplitSeq(r.Output(), "\n") {
		match := true
		for _, p := range parts {
			match = match && strings.Contains(line, p)
		}
		if match {
			out = append(out, line)
		}
	}
	return out
}

// TestRouterReadsOnlyGrantedSecrets: the router, with the manifests' RBAC
// (no grant on Secrets), serves a Route whose externalCertificate Secret a
// Role grants it by name; rejects, with the reason and the way to grant
// it, a Route naming a Secret it may not read, retrying at doubling
// intervals rather than in a loop, and serves it once the grant comes;
// stops reading a Secret when no Route names it.
func TestRouterReadsOnlyGrantedSecrets(t *testing.T) {
	cp := framework.Cluster(t)
	ctx := context.Background()
	ns := cp.CreateNamespace(t, "secrets")
	host := func(name string) string { return name + "." + ns + ".example.com" }
	ca := newCA(t, "secrets CA")
	roots := x509.NewCertPool()
	roots.AddCert(ca.Cert)
	grantedLeaf, deniedLeaf := issue(t, ca, host("granted")), issue(t, ca, host("denied"))
	ip, port := tlsBackend(t, answer("web"), nil)
	service(t, cp, ns, "web", ip, port)
	create(t, cp, certificateSecret(ns, "granted", grantedLeaf), certificateSecret(ns, "denied", deniedLeaf),
		externalEdge(ns, "granted", host("granted"), "granted"), externalEdge(ns, "denied", host("denied"), "denied"))
	cp.GrantRouterSecret(t, ns, "granted")

	r := cp.StartRouter(t, "secrets", "--labels", testLabel+"="+ns)
	for _, c := range []struct{ verb, ns, name string }{{"list", "", ""}, {"get", ns, "denied"}, {"watch", ns, ""}} {
		if ok, err := cp.RouterMayRead(ctx, c.verb, c.ns, c.name); err != nil || ok {
			t.Errorf("the router may %s secrets %q in namespace %q: %v %v; want no grant beyond the Role of secret granted", c.verb, c.name, c.ns, ok, err)
		}
	}
	waitStatus(t, cp, ns, "granted", "secrets: True")
	waitServedLeaf(t, r, host("granted"), roots, grantedLeaf)
	denied := waitStatus(t, cp, ns, "denied", "secrets: False ExternalCertificateValidationFailed")
	in, _ := entryOf(denied, "secrets")
	const want = "spec.tls.externalCertificate: Forbidden: router serviceaccount does not have permission to list this secret: " +
		"grant it get, list and watch on the secret with a Role and a RoleBinding (docs/router.md)"
	if got := in.Conditions[0].Message; got != want {
		t.Errorf("message of route denied:\n  %q\nwant\n  %q", got, want)
	}
	if _, err := servedLeaf(r, host("denied"), roots); err == nil {
		t.Error("host denied is served with a certificate the CA verifies, though the router may not read its Secret")
	}

	// Wait for a few retries, then check they came at doubling intervals.
	framework.EventuallyWithin(t, 2*time.Minute, "three retries of secret denied logged", func() error {
		if n := len(routerLines(r, "reading the secret failed", ns+"/denied")); n < 3 {
			return fmt.Errorf("%d", n)
		}
		return nil
	})
	cp.GrantRouterSecret(t, ns, "denied")
	waitStatus(t, cp, ns, "denied", "secrets: True")
	waitServedLeaf(t, r, host("denied"), roots, deniedLeaf)
	retryIn := regexp.MustCompile(`"retryIn"[=:]"([^"]+)"`)
	var delays []string
	for _, line := range routerLines(r, "reading the secret failed", ns+"/denied") {
		if m := retryIn.FindStringSubmatch(line); m != nil {
			delays = append(delays, m[1])
		}
	}
	doubling := []string{"1s", "2s", "4s", "8s", "16s", "32s", "1m0s", "1m0s", "1m0s"}
	if len(delays) < 3 || len(delays) > len(doubling) || !slices.Equal(delays, doubling[:len(delays)]) {
		t.Errorf("retries of secret denied waited %v; want each wait twice the last, from 1s up to 1m", delays)
	}

	// No Route names secret granted any more: the router stops reading it.
	if err := cp.Client.Delete(ctx, &routecore.Route{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "granted"}}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, "the router stops reading secret granted", func() error {
		if len(routerLines(r, "stopped reading it", ns+"/granted")) != 1 {
			return errors.New("not logged")
		}
		return nil
	})
}

// TestRouterSecretRenewedWithoutReload: a renewed Secret (its tls.crt and
// tls.key replaced, as cert-manager renews) reaches the clients of its
// Route without a reload of HAProxy and without a failed handshake while
// clients keep making them, and so does a certificate edited in a Route
// (spec.tls.certificate and key); each is counted as a runtime
// certificate update.
func TestRouterSecretRenewedWithoutReload(t *testing.T) {
	cp := framework.Cluster(t)
	ctx := context.Background()
	ns := cp.CreateNamespace(t, "renewal")
	host := "renewed." + ns + ".example.com"
	ca := newCA(t, "renewal CA")
	roots := x509.NewCertPool()
	roots.AddCert(ca.Cert)
	leaf := issue(t, ca, host)
	inlineHost := "inline." + ns + ".example.com"
	inlineLeaf := issue(t, ca, inlineHost)
	ip, port := tlsBackend(t, answer("web"), nil)
	service(t, cp, ns, "web", ip, port)
	inline := labelled(ns, "inline", inlineHost, "web", &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge,
		Certificate: string(inlineLeaf.CertPEM), Key: string(inlineLeaf.KeyPEM)})
	create(t, cp, certificateSecret(ns, "renewed", leaf), externalEdge(ns, "renewed", host, "renewed"), inline)
	cp.GrantRouterSecret(t, ns, "renewed")
	r := cp.StartRouter(t, "renewal", "--labels", testLabel+"="+ns)
	waitStatus(t, cp, ns, "renewed", "renewal: True")
	waitServedLeaf(t, r, host, roots, leaf)
	waitServedLeaf(t, r, inlineHost, roots, inlineLeaf)
	before := routerSeries(t, r)

	var ok, failed atomic.Int64
	var firstErr atomic.Value
	loadCtx, stopLoad := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for loadCtx.Err() == nil {
				if _, err := servedLeaf(r, host, roots); err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err)
				} else {
					ok.Add(1)
				}
			}
		})
	}
	const renewals = 3
	for range renewals {
		leaf = issue(t, ca, host)
		secret := &corev1.Secret{}
		if err := cp.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "renewed"}, secret); err != nil {
			t.Fatal(err)
		}
		secret.Data[corev1.TLSCertKey], secret.Data[corev1.TLSPrivateKeyKey] = leaf.CertPEM, leaf.KeyPEM
		if err := cp.Client.Update(ctx, secret); err != nil {
			t.Fatal(err)
		}
		waitServedLeaf(t, r, host, roots, leaf)
	}
	inlineLeaf = issue(t, ca, inlineHost)
	if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(inline), inline); err != nil {
		t.Fatal(err)
	}
	inline.Spec.TLS.Certificate, inline.Spec.TLS.Key = string(inlineLeaf.CertPEM), string(inlineLeaf.KeyPEM)
	if err := cp.Client.Update(ctx, inline); err != nil {
		t.Fatal(err)
	}
	waitServedLeaf(t, r, inlineHost, roots, inlineLeaf)
	stopLoad()
	wg.Wait()
	if n := failed.Load(); n != 0 {
		t.Errorf("%d of %d TLS handshakes failed during the renewals; first: %v", n, n+ok.Load(), firstErr.Load())
	}
	if ok.Load() == 0 {
		t.Error("no handshake succeeded during the renewals")
	}
	t.Logf("%d TLS handshakes during %d renewals and an edit", ok.Load(), renewals)
	framework.Eventually(t, "the renewals counted as runtime certificate updates", func() error {
		after := routerSeries(t, r)
		runtime := `routeshift_router_certificate_updates_total{method="runtime"}`
		if got := after[runtime] - before[runtime]; got != renewals+1 {
			return fmt.Errorf("%s went up by %v, want %d", runtime, got, renewals+1)
		}
		if got := reloadCount(after) - reloadCount(before); got != 0 {
			return fmt.Errorf("HAProxy reloaded %v times, want 0", got)
		}
		return nil
	})
}

// routerSeries scrapes the router's /metrics.
func routerSeries(t *testing.T, r *framework.Router) map[string]float64 {
	t.Helper()
	series, err := scrape(r)
	if err != nil {
		t.Fatal(err)
	}
	return series
}

// reloadCount sums routeshift_router_reloads_total over its reasons.
func reloadCount(series map[string]float64) float64 {
	var n float64
	for k, v := range series {
		if strings.HasPrefix(k, "routeshift_router_reloads_total{") {
			n += v
		}
	}
	return n
}
