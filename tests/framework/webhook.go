package framework

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// Webhook is `routeshift webhook` (or `routeshift manager`, which adds the
// Ingress-to-Route controller), built from the repository, running against
// the control plane as the service account of manifests/rbac/manager.yaml
// with only the permissions the manifests grant it, with its self-signed
// serving certificate, and registered through the webhook configurations in
// manifests/webhook with their clientConfig pointed at 127.0.0.1 (the API
// server cannot resolve cluster services here).
type Webhook struct {
	// Port serves the webhooks; MetricsPort /metrics; ProbePort /healthz and /readyz.
	Port, MetricsPort, ProbePort int
	// MetricsToken reads /metrics (see MetricsScraper).
	MetricsToken string

	cp      *ControlPlane
	args    []string
	certDir string
	process *Process
}

// ServiceAccount is the user name the manager runs as.
const ServiceAccount = "system:serviceaccount:routeshift:routeshift"

func (cp *ControlPlane) startWebhook(opts Options) (*Webhook, error) {
	ctx := context.Background()
	bin, err := cp.Routeshift()
	if err != nil {
		return nil, err
	}
	w := &Webhook{cp: cp}
	for _, p := range []*int{&w.Port, &w.MetricsPort, &w.ProbePort} {
		if *p, err = FreePort(); err != nil {
			return nil, err
		}
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "routeshift"}}
	if err := cp.Client.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	if err := cp.installWebhookConfigurations(ctx, w.Port, nil); err != nil {
		return nil, err
	}
	for _, rbac := range []string{"manifests/rbac/manager.yaml", "manifests/overlays/self-signed/rbac.yaml"} {
		if out, err := cp.kubectl("apply", "-f", filepath.Join(cp.RepoRoot, rbac)); err != nil {
			return nil, fmt.Errorf("applying %s: %v\n%s", rbac, err, out)
		}
	}
	if w.MetricsToken, err = cp.metricsScraperToken(); err != nil {
		return nil, err
	}
	kubeconfig, err := cp.KubeconfigAs(ServiceAccount, "system:serviceaccounts", "system:serviceaccounts:routeshift", "system:authenticated")
	if err != nil {
		return nil, err
	}
	command := "webhook"
	if opts.Controller {
		command = "manager"
	}
	w.certDir = filepath.Join(cp.tempDir, "webhook-certs")
	w.args = []string{bin, command, "--kubeconfig", kubeconfig,
		"--host", "127.0.0.1", "--port", fmt.Sprint(w.Port), "--cert-dir", w.certDir,
		"--self-signed", "--self-signed-ip", "127.0.0.1", "--self-signed-dns-name", "localhost",
		"--metrics-bind-address", fmt.Sprintf("127.0.0.1:%d", w.MetricsPort),
		"--health-probe-bind-address", fmt.Sprintf("127.0.0.1:%d", w.ProbePort),
		"--log-level", cmp.Or(opts.LogLevel, "debug")}
	if opts.Controller {
		w.args = append(w.args, "--leader-election-namespace", "routeshift")
		w.args = append(w.args, opts.ControllerArgs...)
	}
	if addr := os.Getenv("ROUTESHIFT_PPROF"); addr != "" {
		w.args = append(w.args, "--pprof-bind-address", addr) // profiling a benchmark by hand
	}
	return w, w.Start()
}

// Start starts the webhook process and waits until it is ready.
func (w *Webhook) Start() error {
	p, err := startProcess("routeshift webhook", w.args[0], w.args[1:]...)
	if err != nil {
		return err
	}
	w.process = p
	return WaitHTTP(context.Background(), fmt.Sprintf("http://127.0.0.1:%d/readyz", w.ProbePort), 60*time.Second, p)
}

// Stop stops the webhook process with SIGTERM; it returns an error unless
// the process shut down gracefully with exit status 0.
func (w *Webhook) Stop() error {
	if w.process == nil {
		return nil
	}
	return w.process.Stop()
}

// Metrics returns the process's /metrics page, read with MetricsToken.
func (w *Webhook) Metrics() (string, error) {
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/metrics", w.MetricsPort), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+w.MetricsToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	return string(body), err
}

// CertDir is the directory the webhook reads its serving certificate from.
func (w *Webhook) CertDir() string { return w.certDir }

// Output is what the webhook process logged.
func (w *Webhook) Output() string {
	if w.process == nil {
		return ""
	}
	return w.process.Output()
}

// Unregister deletes the webhook configurations, so Route writes no longer
// go through the webhook.
func (w *Webhook) Unregister(ctx context.Context) error {
	for _, obj := range []client.Object{
		&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "routeshift"}},
		&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "routeshift"}},
	} {
		if err := w.cp.Client.Delete(ctx, obj); err != nil {
			return err
		}
	}
	return nil
}

// Register installs the webhook configurations again, with the CA the
// running webhook wrote to its certificate directory.
func (w *Webhook) Register(ctx context.Context) error {
	ca, err := os.ReadFile(filepath.Join(w.certDir, "ca.crt"))
	if err != nil {
		return err
	}
	return w.cp.installWebhookConfigurations(ctx, w.Port, ca)
}

// installWebhookConfigurations creates the configurations of
// manifests/webhook/webhooks.yaml with each service reference replaced by
// https://127.0.0.1:PORT/PATH, and caBundle set to ca when not nil.
func (cp *ControlPlane) installWebhookConfigurations(ctx context.Context, port int, ca []byte) error {
	raw, err := os.ReadFile(filepath.Join(cp.RepoRoot, "manifests", "webhook", "webhooks.yaml"))
	if err != nil {
		return err
	}
	local := func(cc *admissionregistrationv1.WebhookClientConfig) {
		url := fmt.Sprintf("https://127.0.0.1:%d%s", port, *cc.Service.Path)
		cc.URL, cc.Service, cc.CABundle = &url, nil, ca
	}
	for _, doc := range strings.Split(string(raw), "\n---\n") {
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			return err
		}
		var obj client.Object
		switch meta.Kind {
		case "MutatingWebhookConfiguration":
			cfg := &admissionregistrationv1.MutatingWebhookConfiguration{}
			if err := yaml.UnmarshalStrict([]byte(doc), cfg); err != nil {
				return err
			}
			for i := range cfg.Webhooks {
				local(&cfg.Webhooks[i].ClientConfig)
			}
			obj = cfg
		case "ValidatingWebhookConfiguration":
			cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{}
			if err := yaml.UnmarshalStrict([]byte(doc), cfg); err != nil {
				return err
			}
			for i := range cfg.Webhooks {
				local(&cfg.Webhooks[i].ClientConfig)
			}
			obj = cfg
		default:
			return fmt.Errorf("webhooks.yaml: unexpected kind %q", meta.Kind)
		}
		if err := cp.Client.Create(ctx, obj); err != nil {
			return fmt.Errorf("installing %s %s: %w", meta.Kind, obj.GetName(), err)
		}
	}
	return nil
}
