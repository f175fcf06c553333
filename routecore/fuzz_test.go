package routecore

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/routeshift/routeshift/internal/fixtures"
)

// addSeedCorpus adds the example Routes of internal/fixtures, as JSON, to a
// fuzz corpus.
func addSeedCorpus(f *testing.F) {
	for _, doc := range strings.Split(fixtures.DocRoutesTemplate, "\n---\n") {
		j, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(j)
	}
	f.Add([]byte(`{"metadata":{"name":"a.b","namespace":"n","annotations":{"haproxy.router.openshift.io/timeout":"5s\n"}},"spec":{"to":{"name":"s","weight":300},"tls":{"termination":"Passthrough","key":"-----BEGIN X-----\nAA==\n-----END X-----"},"httpHeaders":{"actions":{"request":[{"name":"X","action":{"type":"Set","set":{"value":"%[req.hdr(a),lower]"}}}]}}}}`))
}

// checkDefaultValidate asserts the properties every route must have: Default
// and validation never panic, Default is idempotent, and validating the
// defaulted route twice gives the same answer.
func checkDefaultValidate(t *testing.T, r *Route) {
	old := r.DeepCopy()
	Default(r, nil, DefaultOptions{})
	once := r.DeepCopy()
	Default(r, nil, DefaultOptions{})
	if !reflect.DeepEqual(once, r) {
		t.Fatalf("Default is not idempotent:\n%+v\n%+v", once, r)
	}
	first := messages(ValidateRoute(r, ValidateOptions{}))
	second := messages(ValidateRoute(r, ValidateOptions{}))
	if !reflect.DeepEqual(first, second) {
		t.Fatalf("validation is not deterministic:\n%q\n%q", first, second)
	}
	Default(old, r, DefaultOptions{})
	_ = ValidateRouteUpdate(old, r, ValidateOptions{})
	_ = Warnings(r, WarningOptions{GeneratedHostSuffix: DefaultRouteSuffix})
}

func FuzzDefaultValidateJSON(f *testing.F) {
	addSeedCorpus(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Route
		if json.Unmarshal(data, &r) != nil {
			return
		}
		checkDefaultValidate(t, &r)
	})
}

func FuzzDefaultValidateFields(f *testing.F) {
	f.Add("r", "ns", "www.example.com", "", "/test", "edge", "None", AnnTimeout, "5s", int32(100), uint8(1))
	f.Add("a.b", "n", "", "sub", "", "Passthrough", "Subdomain", AnnIPAllowlist, "10.0.0.0/8 ::1", int32(-1), uint8(5))
	f.Fuzz(func(t *testing.T, name, ns, host, sub, path, term, policy, annKey, annVal string, w int32, alternates uint8) {
		r := &Route{}
		r.Name, r.Namespace = name, ns
		r.Annotations = map[string]string{annKey: annVal}
		r.Spec = RouteSpec{Host: host, Subdomain: sub, Path: path, WildcardPolicy: WildcardPolicyType(policy),
			To: RouteTargetReference{Name: "s", Weight: &w}}
		for range alternates % 6 {
			r.Spec.AlternateBackends = append(r.Spec.AlternateBackends, RouteTargetReference{Name: name, Weight: &w})
		}
		if term != "" {
			r.Spec.TLS = &TLSConfig{Termination: TLSTerminationType(term), Certificate: annVal, Key: annVal}
		}
		checkDefaultValidate(t, r)
	})
}
