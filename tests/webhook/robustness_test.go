package webhook

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/routeshift/routeshift/tests/framework"
)

// TestHeaderActionsOfOneDirection: a Route with request header actions only
// (or response ones only) is created through kubectl: the mutating
// webhook's patch adds no null list the CRD schema would refuse.
func TestHeaderActionsOfOneDirection(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "headers")
	for name, actions := range map[string]string{
		"request-only":  "request: [{name: X-Forwarded-Client, action: {type: Set, set: {value: routeshift}}}]",
		"response-only": "response: [{name: Server, action: {type: Delete}}]",
	} {
		t.Run(name, func(t *testing.T) {
			manifest := routeYAML(name, ns, "spec:\n  host: "+name+".example.com\n  to: {name: web}\n  tls: {termination: edge}\n  httpHeaders:\n    actions: {"+actions+"}\n")
			out, errOut, ok := apply(t, cp, manifest)
			if !ok || out != "route.route.openshift.io/"+name+" created\n" {
				t.Fatalf("kubectl apply: ok=%v\nstdout: %q\nstderr: %q", ok, out, errOut)
			}
			got, _, err := cp.Kubectl(t, "get", "route", name, "-n", ns, "-o", "jsonpath={.spec.httpHeaders.actions}")
			if err != nil || !strings.Contains(got, `"name":"`) || strings.Contains(got, "null") {
				t.Errorf("stored actions %q (%v)", got, err)
			}
		})
	}
}

// TestLimitsRefusedByKubectl: a Route over a limit of values that reach
// HAProxy's configuration is refused at kubectl apply, with the field and
// the limit, and one at the limit is created.
func TestLimitsRefusedByKubectl(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "limits")
	path := func(n int) string { return "/" + strings.Repeat("p", n-1) }
	spec := func(p string) string {
		return "  annotations:\n    haproxy.router.openshift.io/rewrite-target: /\nspec:\n  host: www.example.com\n  path: " + p + "\n  to: {name: web}\n"
	}
	if out, errOut, ok := apply(t, cp, routeYAML("at-limit", ns, spec(path(2048)))); !ok {
		t.Errorf("a path of 2048 bytes: %s%s", out, errOut)
	}
	out, errOut, ok := apply(t, cp, routeYAML("long-path", ns, spec(path(32760))))
	want := `The Route "long-path" is invalid: spec.path: Too long: may not be more than 2048 bytes` + "\n"
	if ok || out != "" || errOut != want {
		t.Errorf("a path of 32760 bytes: ok=%v\nstdout: %q\nstderr: %.300q\nwant:   %q", ok, out, errOut, want)
	}
}

// TestSlowBodyCutOff: a client that connects to the running webhook, sends
// the headers of an AdmissionReview and only part of its body is answered
// with 400 once the webhook stops waiting for the rest (webhook
// BodyReadTimeout), rather than holding the connection open.
func TestSlowBodyCutOff(t *testing.T) {
	cp := framework.Cluster(t)
	conn, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", cp.Webhook.Port), &tls.Config{InsecureSkipVerify: true}) // the body's timing is tested, not the certificate
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A deadline to wait, not a margin: the answer is due after the webhook's read timeout.
	_ = conn.SetDeadline(time.Now().Add(2 * time.Minute))
	fmt.Fprintf(conn, "POST /validate-route HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n{\"apiVersion\":")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a request whose body stopped: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), `"code":400`) || !strings.Contains(string(body), "timeout") {
		t.Errorf("answer %d %s; want an AdmissionReview refusing the request with 400 for the read timeout", resp.StatusCode, body)
	}
}
