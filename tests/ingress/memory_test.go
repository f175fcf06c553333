package ingress

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/ingress"
	"github.com/routeshift/routeshift/tests/framework"
)

// TestControllerForgetsDeletedIngresses: what the controller remembers of
// an Ingress between syncs (Route creations the cache has not shown yet, the
// last message of each event reason) goes when the Ingress is deleted, is
// handed to another controller, or has nothing left to remember. Many
// Ingresses with problems are created and then deleted; the controller's
// routeshift_ingress_remembered_ingresses, the number of Ingresses it holds
// something of, follows them and ends at zero.
//
// A second `routeshift controller` serves an IngressClass of its own, so
// that its memory holds only this test's Ingresses.
func TestControllerForgetsDeletedIngresses(t *testing.T) {
	cp := framework.Cluster(t)
	ctx := context.Background()
	ns := cp.CreateNamespace(t, "memory")
	const controllerName = "routeshift.test/memory"
	class := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: ns}, Spec: networkingv1.IngressClassSpec{Controller: controllerName}}
	other := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: ns + "-other"}, Spec: networkingv1.IngressClassSpec{Controller: "example.com/other"}}
	create(t, cp, class, other, service(ns, "web", corev1.ServicePort{Name: "http", Port: 80}))
	t.Cleanup(func() { _ = cp.Client.Delete(ctx, class); _ = cp.Client.Delete(ctx, other) })
	controller := startController(t, cp, controllerName)

	// Each Ingress has a Route and two problems to remember: a rule
	// without a host and an ingress-nginx annotation.
	const n = 40
	web := networkingv1.ServiceBackendPort{Name: "http"}
	var ings []*networkingv1.Ingress
	var routes []string
	for i := range n {
		name := fmt.Sprintf("ing-%02d", i)
		host := name + ".example.com"
		ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
			Annotations: map[string]string{"nginx.ingress.kubernetes.io/proxy-read-timeout": "60"}},
			Spec: networkingv1.IngressSpec{IngressClassName: &class.Name, Rules: []networkingv1.IngressRule{
				rule(host, path("/", "web", web)), rule("", path("/", "web", web))}}}
		create(t, cp, ing)
		ings = append(ings, ing)
		routes = append(routes, ingress.RouteName(name, host, "/"))
	}
	wantRoutes(t, cp, ns, routes...)
	wantRemembered(t, controller, n)

	t.Run("deleted Ingresses are forgotten", func(t *testing.T) {
		for _, ing := range ings[:10] {
			if err := cp.Client.Delete(ctx, ing); err != nil {
				t.Fatal(err)
			}
		}
		wantRemembered(t, controller, n-10)
	})
	t.Run("Ingresses handed to another controller are forgotten", func(t *testing.T) {
		for _, ing := range ings[10:20] {
			update(t, cp, ing, func(i *networkingv1.Ingress) { i.Spec.IngressClassName = &other.Name })
		}
		wantRemembered(t, controller, n-20)
	})
	t.Run("Ingresses without problems take no memory", func(t *testing.T) {
		for _, ing := range ings[20:30] {
			update(t, cp, ing, func(i *networkingv1.Ingress) {
				i.Annotations = nil
				i.Spec.Rules = i.Spec.Rules[:1]
			})
		}
		wantRemembered(t, controller, n-30)
	})
	t.Run("every Ingress deleted, nothing is left", func(t *testing.T) {
		if err := cp.Client.DeleteAllOf(ctx, &networkingv1.Ingress{}, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		framework.Eventually(t, "no Ingress left", func() error {
			var list networkingv1.IngressList
			if err := cp.Client.List(ctx, &list, client.InNamespace(ns)); err != nil {
				return err
			}
			if len(list.Items) != 0 {
				return fmt.Errorf("%d Ingresses left", len(list.Items))
			}
			return nil
		})
		wantRemembered(t, controller, 0)
	})
}

// wantRemembered waits until the controller remembers something of exactly
// want Ingresses.
func wantRemembered(t *testing.T, c *controllerProcess, want int) {
	t.Helper()
	framework.Eventually(t, fmt.Sprintf("%d Ingresses remembered", want), func() error {
		got, err := c.gauge("routeshift_ingress_remembered_ingresses ")
		if err != nil {
			return err
		}
		if got != float64(want) {
			return fmt.Errorf("routeshift_ingress_remembered_ingresses %v", got)
		}
		return nil
	})
}

// controllerProcess is a `routeshift controller` run by a test.
type controllerProcess struct {
	metricsURL string
	// log holds what the process printed.
	log string
}

func (c *controllerProcess) output() string {
	out, err := os.ReadFile(c.log)
	if err != nil {
		return err.Error()
	}
	return string(out)
}

// metrics reads the controller's /metrics page.
func (c *controllerProcess) metrics() (string, error) {
	resp, err := http.Get(c.metricsURL)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s", c.metricsURL, resp.Status)
	}
	return string(body), nil
}

// gauge reads the value of the sample whose line starts with prefix.
func (c *controllerProcess) gauge(prefix string) (float64, error) {
	body, err := c.metrics()
	if err != nil {
		return 0, err
	}
	if !strings.Contains(body, "\n"+prefix) {
		return 0, fmt.Errorf("no sample %q on %s", prefix, c.metricsURL)
	}
	return sumSamples(body, prefix)
}

// startController runs `routeshift controller` for the IngressClass
// controller name, as the manager's service account with the manifests'
// RBAC, without leader election (the package's manager holds the lease) and
// with /metrics open on loopback, and flags. It stops when the test ends.
func startController(t *testing.T, cp *framework.ControlPlane, controllerName string, flags ...string) *controllerProcess {
	t.Helper()
	bin, err := cp.Routeshift()
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := cp.KubeconfigAs(framework.ServiceAccount, "system:serviceaccounts", "system:serviceaccounts:routeshift", "system:authenticated")
	if err != nil {
		t.Fatal(err)
	}
	metricsPort, err := framework.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	probePort, err := framework.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	c := &controllerProcess{metricsURL: fmt.Sprintf("http://127.0.0.1:%d/metrics", metricsPort), log: filepath.Join(t.TempDir(), "controller.log")}
	log, err := os.Create(c.log)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close() // the process has its own copy
	cmd := exec.Command(bin, append([]string{"controller", "--kubeconfig", kubeconfig, "--ingress-controller-name", controllerName,
		"--leader-elect=false", "--metrics-auth", "none", "--metrics-bind-address", fmt.Sprintf("127.0.0.1:%d", metricsPort),
		"--health-probe-bind-address", fmt.Sprintf("127.0.0.1:%d", probePort)}, flags...)...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("routeshift controller did not stop within 20s of SIGTERM")
		}
		if lines := framework.ForbiddenLines(c.output(), framework.ServiceAccount); len(lines) > 0 {
			t.Errorf("the API server refused routeshift controller, running as %s, requests the manifests' RBAC should allow:\n%s", framework.ServiceAccount, strings.Join(lines, "\n"))
		}
		if t.Failed() {
			t.Logf("routeshift controller %v output:\n%s", flags, c.output())
		}
	})
	if err := framework.WaitHTTP(context.Background(), fmt.Sprintf("http://127.0.0.1:%d/readyz", probePort), 60*time.Second, nil); err != nil {
		t.Fatalf("routeshift controller: %v\n%s", err, c.output())
	}
	return c
}
