package framework

import (
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

const routerUser = "system:serviceaccount:routeshift:router"

// TestForbiddenLines: the lines that count as the component being refused
// by the API server, from the logs routeshift's components and client-go
// write (JSON with escaped quotes, klog text, a command's error), and the
// refusals about other users that do not count.
func TestForbiddenLines(t *testing.T) {
	tests := []struct {
		name string
		line string
		want bool
	}{
		{"reflector, controller-runtime JSON", `{"level":"error","logger":"controller-runtime.cache.UnhandledError","msg":"Failed to watch","type":"*v1.Secret","error":"failed to list *v1.Secret: secrets is forbidden: User \"system:serviceaccount:routeshift:router\" cannot list resource \"secrets\" in API group \"\" at the cluster scope"}`, true},
		{"reflector, klog text", `E0101 10:00:00.000000   123 reflector.go:200] "Unhandled Error" err="failed to watch *v1.Namespace: namespaces is forbidden: User \"system:serviceaccount:routeshift:router\" cannot watch resource \"namespaces\" in API group \"\" at the cluster scope"`, true},
		{"command error", `error: self-signed serving certificate: secrets "routeshift-webhook-tls" is forbidden: User "system:serviceaccount:routeshift:router" cannot get resource "secrets" in API group "" in the namespace "routeshift"`, true},
		{"leader election", `{"msg":"error retrieving resource lock routeshift/router","error":"leases.coordination.k8s.io \"router\" is forbidden: User \"system:serviceaccount:routeshift:router\" cannot get resource \"leases\" in API group \"coordination.k8s.io\" in the namespace \"routeshift\""}`, true},
		{"non-resource URL", `{"error":"forbidden: User \"system:serviceaccount:routeshift:router\" cannot get path \"/version\""}`, true},
		{"403 without a status", `{"error":"the server does not allow access to the requested resource (get routes.route.openshift.io)"}`, true},
		{"another user refused", `{"msg":"denied","error":"routes.route.openshift.io \"x\" is forbidden: User \"carol\" cannot patch resource \"routes/status\""}`, false},
		{"a service account whose name starts alike", `{"error":"secrets is forbidden: User \"system:serviceaccount:routeshift:router-canary\" cannot list resource \"secrets\""}`, false},
		{"admission denial", `{"level":"info","msg":"denied","requestID":"6d1c","reason":"spec.host: Forbidden: you do not have permission to set the host field of the route"}`, false},
		{"the router's /metrics refusing a scraper", `{"msg":"metrics","status":403,"error":"Forbidden: user \"system:serviceaccount:routeshift:nobody\" may not get routers/metrics public in route.openshift.io"}`, false},
		{"the webhook's check of the router's secret access", `{"reason":"spec.tls.externalCertificate: Forbidden: router serviceaccount does not have permission to get this secret"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			output := "{\"msg\":\"starting\"}\n" + tt.line + "\n{\"msg\":\"ready\"}\n"
			got := ForbiddenLines(output, routerUser)
			if want := map[bool]int{true: 1, false: 0}[tt.want]; len(got) != want || (tt.want && got[0] != tt.line) {
				t.Errorf("ForbiddenLines = %q, want the line: %v", got, tt.want)
			}
		})
	}
}

// TestCheckForbidden: a process impersonating a user fails the check when
// its output reports that user refused, lists at most ten lines, and a
// process running as the admin is not checked.
func TestCheckForbidden(t *testing.T) {
	refused := `{"error":"secrets is forbidden: User \"system:serviceaccount:routeshift:router\" cannot list resource \"secrets\""}` + "\n"
	tests := []struct {
		name   string
		user   string
		output string
		want   []string // substrings of the error; nil: no error
	}{
		{"clean", routerUser, "{\"msg\":\"ready\"}\n", nil},
		{"refused once", routerUser, refused, []string{"routeshift router, running as " + routerUser + ", was refused by the API server: the manifests' RBAC for it lacks a permission its work needs; log lines reporting it (1):", `cannot list resource \"secrets\"`}},
		{"refused often", routerUser, strings.Repeat(refused, 12), []string{"reporting it (12):", "(and 2 more)"}},
		{"the admin is not checked", "", refused, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Process{name: "routeshift router", user: tt.user, out: &syncBuffer{}}
			p.out.buf.WriteString(tt.output)
			err := p.CheckForbidden()
			if (err != nil) != (tt.want != nil) {
				t.Fatalf("CheckForbidden = %v, want an error: %v", err, tt.want != nil)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("CheckForbidden = %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

// TestImpersonatedUser: the user comes from the current context of the
// kubeconfig a process is given, in either flag form.
func TestImpersonatedUser(t *testing.T) {
	dir := t.TempDir()
	write := func(name, impersonate string) string {
		cfg := clientcmdapi.NewConfig()
		cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:6443"}
		cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: "t", Impersonate: impersonate}
		cfg.Contexts["ctx"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "admin"}
		cfg.CurrentContext = "ctx"
		path := filepath.Join(dir, name)
		if err := clientcmd.WriteToFile(*cfg, path); err != nil {
			t.Fatal(err)
		}
		return path
	}
	as, admin := write("as", routerUser), write("admin", "")
	tests := []struct {
		name    string
		args    []string
		want    string
		wantErr bool
	}{
		{"--kubeconfig PATH", []string{"router", "--kubeconfig", as, "--name", "x"}, routerUser, false},
		{"--kubeconfig=PATH", []string{"router", "--kubeconfig=" + as}, routerUser, false},
		{"admin kubeconfig", []string{"router", "--kubeconfig", admin}, "", false},
		{"no kubeconfig", []string{"--secure-port=0"}, "", false},
		{"missing file", []string{"--kubeconfig", filepath.Join(dir, "missing")}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := impersonatedUser(tt.args)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("impersonatedUser = %q, %v; want %q, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
