package haproxy

import (
	"fmt"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/routeshift/routeshift/routecore"
)

// FuzzStoreIncremental: whatever sequence of route events arrives, judging
// incrementally gives the same decisions as judging the final set of routes
// from scratch. The input bytes drive the events.
func FuzzStoreIncremental(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 200, 3, 4})
	f.Add([]byte{0, 0, 0, 255, 128, 64, 32, 16, 8, 4, 2, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		for _, cfg := range []AdmissionConfig{
			{AllowWildcardRoutes: true},
			{AllowWildcardRoutes: true, DisableNamespaceOwnershipCheck: true},
			{RouteSelector: labels.SelectorFromSet(labels.Set{"s": "1"})},
		} {
			incremental := NewStore(cfg)
			final := map[string]*routecore.Route{}
			for i := 0; i+2 < len(ops); i += 3 {
				ns := fmt.Sprintf("ns%d", ops[i]%3)
				name := fmt.Sprintf("r%d", ops[i+1]%6)
				k := ns + "/" + name
				if ops[i+2]%7 == 0 {
					incremental.DeleteRoute(ns, name)
					delete(final, k)
				} else {
					hosts := []string{"a.x.com", "b.x.com", "wild.x.com", "a.y.com"}
					r := rt(ns, name, hosts[int(ops[i+2])%len(hosts)], int(ops[i+2]%5))
					r.ResourceVersion = fmt.Sprint(i)
					if ops[i+2]%3 == 0 {
						wildcard(r)
					}
					if ops[i+2]%4 == 1 {
						r.Spec.Path = "/p"
					}
					if ops[i+2]%2 == 0 {
						r.Labels = map[string]string{"s": "1"}
					}
					incremental.SetRoute(r)
					final[k] = r
				}
				if ops[i]%2 == 0 {
					incremental.Commit(true)
				}
			}
			got := verdicts(incremental.Commit(true))
			fresh := NewStore(cfg)
			for _, r := range final {
				fresh.SetRoute(r)
			}
			want := verdicts(fresh.Commit(true))
			if !slices.Equal(got, want) {
				t.Fatalf("incremental:\n%v\nfrom scratch:\n%v", got, want)
			}
			served := incremental.snapshot.Routes.Len()
			admitted := 0
			for _, line := range got {
				if slices.Contains([]byte(line), ' ') && len(line) > 9 && line[len(line)-8:] == "admitted" {
					admitted++
				}
			}
			if served != admitted {
				t.Fatalf("%d routes served, %d admitted", served, admitted)
			}
		}
	})
}
