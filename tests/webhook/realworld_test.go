package webhook

import (
	"context"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// TestGenerateName: a Route with only metadata.generateName, as templates
// and operators write them, is created through kubectl create: the API
// server keeps the name the mutating webhook gave it, and the host is
// generated from that name.
func TestGenerateName(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "generate")
	manifest := "apiVersion: route.openshift.io/v1\nkind: Route\nmetadata:\n  generateName: shop-\n  namespace: " + ns + "\nspec:\n  to: {name: web}\n"
	out, errOut, err := cp.KubectlStdin(t, manifest, "create", "-f", "-", "-o", "name")
	if err != nil || !strings.HasPrefix(out, "route.route.openshift.io/shop-") || errOut != "" {
		t.Fatalf("kubectl create: %v\nstdout: %q\nstderr: %q", err, out, errOut)
	}
	name := strings.TrimPrefix(strings.TrimSpace(out), "route.route.openshift.io/")
	var r routecore.Route
	if err := cp.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &r); err != nil {
		t.Fatal(err)
	}
	if want := name + "-" + ns + "." + routecore.DefaultRouteSuffix; r.Spec.Host != want {
		t.Errorf("host %q, want %q", r.Spec.Host, want)
	}
}

// TestBooleanSpellings: boolean router annotations in every spelling
// OpenShift's router reads are accepted; those other than true/false/
// TRUE/FALSE with a warning naming the documented spelling; others are
// refused.
func TestBooleanSpellings(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "booleans")
	for i, v := range []string{"true", "TRUE", "True", "t", "1", "false", "FALSE", "False", "f", "0", "yes"} {
		name := "b" + string(rune('a'+i))
		manifest := routeYAML(name, ns, "  annotations:\n    haproxy.router.openshift.io/disable_cookies: \""+v+"\"\nspec:\n  host: "+name+".example.com\n  to: {name: web}\n")
		out, errOut, ok := apply(t, cp, manifest)
		key := "metadata.annotations[haproxy.router.openshift.io/disable_cookies]"
		switch v {
		case "true", "TRUE", "false", "FALSE":
			if !ok || errOut != "" {
				t.Errorf("%q: ok=%v stderr %q", v, ok, errOut)
			}
		case "yes":
			if want := `The Route "` + name + `" is invalid: ` + key + `: Invalid value: "yes": must be true or false` + "\n"; ok || errOut != want {
				t.Errorf("%q: ok=%v\nstderr %q\nwant   %q", v, ok, errOut, want)
			}
		default:
			canonical := "false"
			if strings.ContainsAny(v[:1], "tT1") {
				canonical = "true"
			}
			want := "Warning: " + key + `: "` + v + `" is read as ` + canonical + `; "` + canonical + `" is the documented spelling` + "\n"
			if !ok || errOut != want || out != "route.route.openshift.io/"+name+" created\n" {
				t.Errorf("%q: ok=%v\nstdout %q\nstderr %q\nwant   %q", v, ok, out, errOut, want)
			}
		}
	}
}
