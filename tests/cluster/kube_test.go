package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework/node"
)

// cluster is the node as the tests use it: kubectl and helm from the
// client namespace, and API clients for what the tests read.
type cluster struct {
	n       *node.Node
	c       client.Client
	clients *kubernetes.Clientset
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	n := requireNode(t)
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := routecore.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(n.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	clients, err := kubernetes.NewForConfig(n.Config)
	if err != nil {
		t.Fatal(err)
	}
	return &cluster{n: n, c: c, clients: clients}
}

// run runs a program of bin/ (kubectl, helm) from the client namespace in
// the repository's root, and logs the command and how it ended.
func (cl *cluster) run(t testing.TB, stdin, name string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	stdout, stderr, err = cl.query(stdin, name, args...)
	t.Logf("%s %s (%v)", name, strings.Join(args, " "), exitStatus(err))
	return stdout, stderr, err
}

// query is run without the log line, for what a check polls.
func (cl *cluster) query(stdin, name string, args ...string) (stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := cl.n.Command(ctx, name, args...)
	cmd.Dir = repoRoot
	var out, errOut strings.Builder
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// must runs like run and fails t unless the program succeeds.
func (cl *cluster) must(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, errOut, err := cl.run(t, "", name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// kubectl runs kubectl and fails t unless it succeeds.
func (cl *cluster) kubectl(t testing.TB, args ...string) string {
	t.Helper()
	return cl.must(t, "kubectl", args...)
}

// apply applies YAML with kubectl and fails t unless it succeeds.
func (cl *cluster) apply(t testing.TB, yaml string) {
	t.Helper()
	if out, errOut, err := cl.run(t, yaml, "kubectl", "apply", "-f", "-"); err != nil {
		t.Fatalf("kubectl apply: %v\n%s%s", err, out, errOut)
	}
}

func exitStatus(err error) string {
	if err == nil {
		return "exit 0"
	}
	return err.Error()
}

// ctx is a context for one API call.
func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}
