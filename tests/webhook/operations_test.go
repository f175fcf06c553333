package webhook

import (
	"context"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/internal/atomicfile"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%s", url, resp.Status, body)
	}
	return string(body)
}

// TestMetricsAndHealth: the probes answer and the admission latency
// histogram counts decisions by webhook and operation.
func TestMetricsAndHealth(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "metrics")
	if _, _, ok := apply(t, cp, routeYAML("heavy", ns, "spec:\n  host: a.example.com\n  to: {name: web, weight: 300}\n")); ok {
		t.Fatal("invalid route accepted")
	}
	if _, errOut, ok := apply(t, cp, routeYAML("fine", ns, "spec:\n  host: a.example.com\n  to: {name: web}\n")); !ok {
		t.Fatal(errOut)
	}
	w := cp.Webhook
	if body := get(t, fmt.Sprintf("http://127.0.0.1:%d/healthz", w.ProbePort)); body != "ok" {
		t.Errorf("/healthz = %q", body)
	}
	get(t, fmt.Sprintf("http://127.0.0.1:%d/readyz", w.ProbePort))
	metrics, err := w.Metrics()
	if err != nil {
		t.Fatal(err)
	}
	// Without a token, /metrics says what it needs.
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", w.MetricsPort))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := "Unauthorized: send a bearer token of a user who may get the non-resource URL /metrics (the ClusterRole routeshift:metrics-reader grants it)"; resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), want) {
		t.Errorf("/metrics without a token: %d %q; want 401 with %q", resp.StatusCode, body, want)
	}
	for _, series := range []string{
		`routeshift_admission_duration_seconds_count{decision="denied",operation="CREATE",webhook="mutate"}`,
		`routeshift_admission_duration_seconds_count{decision="allowed",operation="CREATE",webhook="mutate"}`,
		`routeshift_admission_duration_seconds_count{decision="allowed",operation="CREATE",webhook="validate"}`,
	} {
		if !strings.Contains(metrics, series) {
			t.Errorf("/metrics lacks %s", series)
		}
	}
	if logs := w.Output(); !strings.Contains(logs, `"msg":"denied"`) || !strings.Contains(logs, `"requestID":"`) || !strings.Contains(logs, `"name":"heavy"`) {
		t.Errorf("the denial is not logged with its request UID:\n%s", logs)
	}
}

// TestRouterWritesStatusOfRejectedRoute: status is not intercepted, so the
// router's service account (with the manifests' role) can write the status
// of a Route the webhook would refuse today; it cannot write the spec, and
// a user with edit cannot write status. The same holds through the real
// kubectl, as an admin checks it: the router replaces status (an update of
// the status subresource, what its status writer does), and that is all
// the manifests grant it there: no patch (so no server-side apply), no
// read of routes/status; an editor and a user without roles may not
// replace it.
func TestRouterWritesStatusOfRejectedRoute(t *testing.T) {
	cp := framework.Cluster(t)
	ctx := context.Background()
	ns := cp.CreateNamespace(t, "status")
	if _, errOut, err := cp.Kubectl(t, "apply", "-f", filepath.Join(cp.RepoRoot, "manifests", "rbac", "router.yaml")); err != nil {
		t.Fatal(errOut)
	}
	installUserRoles(t, cp)
	bind(t, cp, ns, "carol", "ClusterRole", "edit")

	// A Route stored while the webhook was not registered.
	if err := cp.Webhook.Unregister(ctx); err != nil {
		t.Fatal(err)
	}
	stale := routeYAML("stale", ns, "  annotations:\n    haproxy.router.openshift.io/timeout: 5 minutes\nspec:\n  host: stale.example.com\n  to: {name: web}\n")
	_, errOut, ok := apply(t, cp, stale)
	if err := cp.Webhook.Register(ctx); err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Fatalf("storing the route without the webhook: %s", errOut)
	}
	if _, _, ok := apply(t, cp, strings.Replace(stale, "name: stale", "name: stale-twin", 1)); ok {
		t.Fatal("the webhook accepts the stale route's spec; the test proves nothing")
	}

	var r routecore.Route
	if err := cp.Client.Get(ctx, key(ns, "stale"), &r); err != nil {
		t.Fatal(err)
	}
	r.Status.Ingress = []routecore.RouteIngress{{Host: r.Spec.Host, RouterName: "default", WildcardPolicy: routecore.WildcardPolicyNone,
		Conditions: []routecore.RouteIngressCondition{{Type: routecore.RouteAdmitted, Status: corev1.ConditionFalse, Reason: "RouteNotAdmitted", LastTransitionTime: &metav1.Time{Time: time.Now()}}}}}

	router := as(t, cp, "system:serviceaccount:routeshift:router", "system:serviceaccounts", "system:serviceaccounts:routeshift", "system:authenticated")
	if err := router.Status().Update(ctx, r.DeepCopy()); err != nil {
		t.Fatalf("the router cannot write status: %v", err)
	}
	spec := r.DeepCopy()
	spec.Spec.Path = "/x"
	if err := router.Update(ctx, spec); err == nil || !strings.Contains(err.Error(), "forbidden") {
		t.Errorf("the router may write the spec: %v", err)
	}
	carol := as(t, cp, "carol")
	if err := carol.Status().Update(ctx, r.DeepCopy()); err == nil || !strings.Contains(err.Error(), "forbidden") {
		t.Errorf("an editor may write status: %v", err)
	}

	// The same through the real kubectl.
	asRouter := "--as=" + framework.RouterServiceAccount
	status := func(routerName string) string {
		return `"status":{"ingress":[{"host":"stale.example.com","routerName":"` + routerName +
			`","wildcardPolicy":"None","conditions":[{"type":"Admitted","status":"False","reason":"RouteNotAdmitted"}]}]}`
	}
	// withStatus is the stored Route, at its current resourceVersion (a
	// custom resource refuses an unconditional update), with the status of
	// routerName.
	withStatus := func(routerName string) string {
		rv, errOut, err := cp.Kubectl(t, "get", "route", "stale", "-n", ns, "-o", "jsonpath={.metadata.resourceVersion}")
		if err != nil {
			t.Fatal(errOut)
		}
		return `{"apiVersion":"route.openshift.io/v1","kind":"Route","metadata":{"name":"stale","namespace":"` + ns +
			`","resourceVersion":"` + rv + `"},"spec":{"host":"stale.example.com","to":{"name":"web"}},` + status(routerName) + "}"
	}
	refusal := func(user, verb, resource string) string {
		return fmt.Sprintf(`routes.route.openshift.io "stale" is forbidden: User %q cannot %s resource %q in API group "route.openshift.io" in the namespace %q`+"\n", user, verb, resource, ns)
	}
	forbidden := func(user, verb, resource string) string {
		return "Error from server (Forbidden): " + refusal(user, verb, resource)
	}
	// kubectl replace names its input.
	forbiddenReplacing := func(user string) string {
		return `Error from server (Forbidden): error when replacing "STDIN": ` + refusal(user, "update", "routes/status")
	}
	replace := []string{"replace", "--subresource=status", "-f", "-"}
	steps := []struct {
		name           string
		stdin          func() string
		args           []string
		wantOut        string
		wantErr        string
		wantRouterName string // status.ingress[0].routerName afterwards
	}{
		{name: "the router replaces status", stdin: func() string { return withStatus("kubectl-replace") }, args: append(replace, asRouter),
			wantOut: "route.route.openshift.io/stale replaced\n", wantRouterName: "kubectl-replace"},
		// kubectl reads the status subresource before patching it.
		{name: "the router cannot patch status", args: []string{"patch", "route", "stale", "--subresource=status", "--type=merge", "-p", "{" + status("kubectl-patch") + "}", asRouter},
			wantErr: forbidden(framework.RouterServiceAccount, "get", "routes/status"), wantRouterName: "kubectl-replace"},
		{name: "the router cannot apply status server-side", stdin: func() string { return withStatus("kubectl-apply") },
			args:    []string{"apply", "--server-side", "--force-conflicts", "--subresource=status", "-f", "-", asRouter},
			wantErr: forbidden(framework.RouterServiceAccount, "patch", "routes/status"), wantRouterName: "kubectl-replace"},
		{name: "the router cannot patch the spec", args: []string{"patch", "route", "stale", "--type=merge", "-p", `{"spec":{"path":"/x"}}`, asRouter},
			wantErr: forbidden(framework.RouterServiceAccount, "patch", "routes"), wantRouterName: "kubectl-replace"},
		{name: "an editor cannot replace status", stdin: func() string { return withStatus("carol") }, args: append(replace, "--as=carol"),
			wantErr: forbiddenReplacing("carol"), wantRouterName: "kubectl-replace"},
		{name: "a user without roles cannot replace status", stdin: func() string { return withStatus("dave") }, args: append(replace, "--as=dave"),
			wantErr: forbiddenReplacing("dave"), wantRouterName: "kubectl-replace"},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			stdin := ""
			if step.stdin != nil {
				stdin = step.stdin()
			}
			out, errOut, err := cp.KubectlStdin(t, stdin, append([]string{"-n", ns}, step.args...)...)
			if (err == nil) != (step.wantErr == "") || out != step.wantOut || errOut != step.wantErr {
				t.Errorf("kubectl %s: err=%v\nstdout %q\nstderr %q\nwant   %q / %q", strings.Join(step.args, " "), err, out, errOut, step.wantOut, step.wantErr)
			}
			got, errOut, err := cp.Kubectl(t, "get", "route", "stale", "-n", ns, "-o", "jsonpath={.status.ingress[0].routerName}")
			if err != nil || got != step.wantRouterName {
				t.Errorf("status.ingress[0].routerName = %q (%v %s), want %q", got, err, errOut, step.wantRouterName)
			}
		})
	}

	// Unchanged invalid values do not block other edits (ratcheting).
	if _, errOut, ok := apply(t, cp, strings.Replace(stale, "metadata:\n", "metadata:\n  labels: {tier: web}\n", 1)); !ok {
		t.Errorf("relabelling the stored route: %s", errOut)
	}
}

// as returns a client impersonating user with groups.
func as(t *testing.T, cp *framework.ControlPlane, user string, groups ...string) client.Client {
	t.Helper()
	cfg := rest.CopyConfig(cp.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
	c, err := client.New(cfg, client.Options{Scheme: cp.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestWebhookDown: with the webhook stopped (gracefully, exit status 0),
// Route writes fail with a message naming the webhook, while other objects
// and Routes in kube-system are unaffected. It restarts the webhook.
func TestWebhookDown(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "down")
	if err := cp.Webhook.Stop(); err != nil {
		t.Fatalf("the webhook did not shut down gracefully: %v\n%s", err, cp.Webhook.Output())
	}
	t.Cleanup(func() {
		if err := cp.Webhook.Start(); err != nil {
			t.Fatalf("restarting the webhook: %v", err)
		}
	})

	_, errOut, ok := apply(t, cp, routeYAML("blocked", ns, "spec:\n  host: a.example.com\n  to: {name: web}\n"))
	want := fmt.Sprintf(`Internal error occurred: failed calling webhook "mutate.routes.routeshift.io": failed to call webhook: Post "https://127.0.0.1:%d/mutate-route?timeout=5s": dial tcp 127.0.0.1:%d: connect: connection refused`, cp.Webhook.Port, cp.Webhook.Port)
	if ok || !strings.Contains(errOut, want) {
		t.Errorf("route write with the webhook down: ok=%v stderr=%q\nwant it to contain %q", ok, errOut, want)
	}
	if _, errOut, ok := apply(t, cp, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: unaffected, namespace: "+ns+"}\ndata: {a: b}\n"); !ok {
		t.Errorf("configmap write with the webhook down: %s", errOut)
	}
	if _, errOut, ok := apply(t, cp, routeYAML("system", "kube-system", "spec:\n  host: system.example.com\n  to: {name: web}\n")); !ok {
		t.Errorf("kube-system route write with the webhook down: %s", errOut)
	}
}

// TestServingCertificateReload: a new serving certificate written to the
// certificate directory is served without a restart.
func TestServingCertificateReload(t *testing.T) {
	cp := framework.Cluster(t)
	dir := cp.Webhook.CertDir()
	ca, err := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	var secret corev1.Secret
	if err := cp.Client.Get(context.Background(), key("routeshift", "routeshift-webhook-tls"), &secret); err != nil {
		t.Fatal(err)
	}
	caPair, err := tls.X509KeyPair(ca, secret.Data["ca.key"])
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caPair.Certificate[0])
	issuer := &certs.KeyPair{Cert: caCert, Key: caPair.PrivateKey.(crypto.Signer)}
	next, err := issuer.Issue(certs.Options{CommonName: "rotated", IPs: []net.IP{net.ParseIP("127.0.0.1")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(filepath.Join(dir, "tls.key"), next.KeyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(filepath.Join(dir, "tls.crt"), next.CertPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", cp.Webhook.Port), &tls.Config{RootCAs: pool})
		if err == nil {
			served := conn.ConnectionState().PeerCertificates[0].Subject.CommonName
			conn.Close()
			if served == "rotated" {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the rotated certificate is not served after 30s (last error %v)", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// Admission still works with the new certificate.
	ns := cp.CreateNamespace(t, "rotated")
	if _, errOut, ok := apply(t, cp, routeYAML("after-rotation", ns, "spec:\n  to: {name: web}\n")); !ok {
		t.Errorf("admission after rotation: %s", errOut)
	}
}
