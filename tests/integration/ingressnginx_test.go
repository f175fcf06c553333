package integration

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/tests/framework"
)

// TestTranslateIngressNginxFromCluster runs `routeshift translate --from
// ingress-nginx --from-cluster -A -o json` against a real API server
// holding the GitLab-style Ingresses of the guide and ingress-nginx's
// ConfigMap: the ConfigMap is found and read (its proxy-read-timeout
// replaces the default), the canary is merged, and the cluster is only
// read.
func TestTranslateIngressNginxFromCluster(t *testing.T) {
	cp := framework.NewCluster(t, framework.Options{})
	binary, err := framework.BuildRouteshift(t)
	if err != nil {
		t.Fatal(err)
	}
	fixture := filepath.Join(cp.RepoRoot, "internal", "fixtures", "ingress-nginx", "gitlab.yaml")
	configMap := filepath.Join(t.TempDir(), "configmap.yaml")
	if err := os.WriteFile(configMap, []byte(`apiVersion: v1
kind: Namespace
metadata: {name: ingress-nginx}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ingress-nginx-controller, namespace: ingress-nginx}
data: {proxy-read-timeout: "300", proxy-body-size: "0"}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, errOut, err := cp.Kubectl(t, "create", "namespace", "gitlab"); err != nil {
		t.Fatalf("creating namespace gitlab: %v\n%s%s", err, out, errOut)
	}
	for _, f := range []string{configMap, fixture} {
		if out, errOut, err := cp.Kubectl(t, "apply", "-f", f); err != nil {
			t.Fatalf("applying %s: %v\n%s%s", f, err, out, errOut)
		}
	}
	before, _, err := cp.Kubectl(t, "get", "ingress,configmap,routes", "-A", "-o", "jsonpath={range .items[*]}{.metadata.resourceVersion} {end}")
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string, error) {
		cmd := exec.Command(binary, args...)
		var out, errOut bytes.Buffer
		cmd.Env, cmd.Stdout, cmd.Stderr = append(os.Environ(), "KUBECONFIG="+cp.Kubeconfig), &out, &errOut
		err := cmd.Run()
		return out.String(), errOut.String(), err
	}
	out, errOut, err := run("translate", "--from", "ingress-nginx", "--from-cluster", "-A", "-o", "json")
	if err != nil {
		t.Fatalf("translate: %v\n%s", err, errOut)
	}
	var rep struct {
		ConfigMap         string   `json:"configMap"`
		Assumed           []string `json:"assumedDefaults"`
		ConfigMapFindings []struct {
			Key, Value string
		} `json:"configMapFindings"`
		Ingresses []struct {
			Name     string   `json:"name"`
			Canary   bool     `json:"canary"`
			Routes   []string `json:"routes"`
			Findings []struct {
				Key     string `json:"key"`
				Caveat  string `json:"caveat"`
				Default bool   `json:"default"`
			} `json:"findings"`
		} `json:"ingresses"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if rep.ConfigMap != "ingress-nginx/ingress-nginx-controller" || len(rep.Assumed) != 0 || len(rep.Ingresses) != 2 ||
		len(rep.ConfigMapFindings) != 2 || rep.ConfigMapFindings[0].Key != "proxy-body-size" || rep.ConfigMapFindings[1].Value != "300" {
		t.Fatalf("report: %s", out)
	}
	for _, ing := range rep.Ingresses {
		switch ing.Name {
		case "gitlab-webservice-canary":
			if !ing.Canary || len(ing.Routes) != 0 {
				t.Errorf("canary: %+v", ing)
			}
		case "gitlab-webservice-default":
			if len(ing.Routes) != 1 {
				t.Errorf("primary: %+v", ing)
			}
		}
	}
	routes, errOut, err := run("translate", "--from", "ingress-nginx", "--from-cluster", "-n", "gitlab")
	if err != nil {
		t.Fatalf("translate: %v\n%s", err, errOut)
	}
	for _, want := range []string{"haproxy.router.openshift.io/timeout: 900s", "name: gitlab-webservice-canary", "weight: 10", "weight: 90"} {
		if !strings.Contains(routes, want) {
			t.Errorf("the Routes lack %q:\n%s", want, routes)
		}
	}
	after, _, err := cp.Kubectl(t, "get", "ingress,configmap,routes", "-A", "-o", "jsonpath={range .items[*]}{.metadata.resourceVersion} {end}")
	if err != nil {
		t.Fatal(err)
	}
	if before != after {
		t.Errorf("translate --from-cluster changed the cluster: resource versions %q, then %q", before, after)
	}
}
