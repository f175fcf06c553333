package cluster

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeshift/routeshift/tests/framework"
	"github.com/routeshift/routeshift/tests/framework/node"
)

// TestCertManagerOverlay installs cert-manager as Pods, then the
// cert-manager overlay unmodified: cert-manager issues the webhook's
// serving certificate, its CA injector puts the CA into both webhook
// configurations, and the install works as every other does.
func TestCertManagerOverlay(t *testing.T) {
	cl := newCluster(t)
	cl.installCertManager(t)
	v := kustomizeVariant("cert-manager")
	v.install(t, cl)
	inst := &installation{cluster: cl, v: v}
	framework.EventuallyWithin(t, 3*time.Minute, "cert-manager issues Certificate routeshift-webhook", func() error {
		out, _, err := cl.query("", "kubectl", "get", "certificate", "--namespace", installNamespace, "routeshift-webhook",
			"-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
		if err != nil || out != "True" {
			return fmt.Errorf("Ready %q (%v)", out, err)
		}
		return nil
	})
	inst.waitRolledOut(t)
	t.Run("ca-injected", inst.checkCAInjected)
	inst.checkBasics(t)
	inst.uninstallAndCheck(t)
}

// checkCAInjected: both webhook configurations carry the CA of the Secret
// cert-manager wrote, which the manager serves with.
func (inst *installation) checkCAInjected(t *testing.T) {
	secret, err := inst.clients.CoreV1().Secrets(installNamespace).Get(ctx(t), "routeshift-webhook-tls", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ca := secret.Data["ca.crt"]
	if len(ca) == 0 {
		t.Fatalf("Secret routeshift-webhook-tls has no ca.crt: keys %v", keys(secret.Data))
	}
	framework.EventuallyWithin(t, 2*time.Minute, "the CA injector fills both webhook configurations", func() error {
		m, err := inst.clients.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx(t), "routeshift", metav1.GetOptions{})
		if err != nil {
			return err
		}
		v, err := inst.clients.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx(t), "routeshift", metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, w := range m.Webhooks {
			if !bytes.Equal(w.ClientConfig.CABundle, ca) {
				return fmt.Errorf("mutating webhook %s: caBundle is not the Secret's CA", w.Name)
			}
		}
		for _, w := range v.Webhooks {
			if !bytes.Equal(w.ClientConfig.CABundle, ca) {
				return fmt.Errorf("validating webhook %s: caBundle is not the Secret's CA", w.Name)
			}
		}
		return nil
	})
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// installCertManager installs cert-manager's CRDs and runs its controller
// and CA injector as Pods; t's cleanup removes them.
func (cl *cluster) installCertManager(t *testing.T) {
	t.Helper()
	crds := filepath.Join(binDir, "cert-manager-crds-"+node.CertManagerVersion)
	cl.kubectl(t, "apply", "--server-side", "-f", crds)
	cl.kubectl(t, "wait", "--for=condition=Established", "--timeout=2m", "-f", crds)
	data, err := os.ReadFile(filepath.Join(repoRoot, "tests", "cluster", "testdata", "cert-manager.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	manifest := strings.NewReplacer("IMAGE_CONTROLLER", node.CertManagerImage("controller"),
		"IMAGE_CAINJECTOR", node.CertManagerImage("cainjector")).Replace(string(data))
	cl.apply(t, manifest)
	t.Cleanup(func() {
		if _, errOut, err := cl.run(t, manifest, "kubectl", "delete", "-f", "-", "--timeout=3m"); err != nil {
			t.Errorf("removing cert-manager: %v: %s", err, errOut)
		}
		cl.kubectl(t, "delete", "-f", crds, "--timeout=3m")
	})
	for _, d := range []string{"cert-manager", "cert-manager-cainjector"} {
		cl.kubectl(t, "rollout", "status", "--namespace", "cert-manager", "deployment/"+d, "--timeout=3m")
	}
	framework.EventuallyWithin(t, time.Minute, "cert-manager's pods run", func() error {
		pods, err := cl.clients.CoreV1().Pods("cert-manager").List(ctx(t), metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, p := range pods.Items {
			for _, cs := range p.Status.ContainerStatuses {
				if cs.RestartCount > 0 || cs.State.Running == nil {
					return fmt.Errorf("pod %s: %d restarts, state %+v: %s", p.Name, cs.RestartCount, cs.State, cl.n.PodLogs("cert-manager", p.Name))
				}
			}
		}
		return nil
	})
}
