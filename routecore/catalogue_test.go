package routecore

import (
	"reflect"
	"slices"
	"testing"
)

// TestCatalogueIsConsistent: what each entry says about itself holds: keys
// are unique and in their group (router or cert-manager), each entry sets
// either router Overrides or the Certificate, OnlyFor names terminations,
// Requires names a boolean entry, OpenShiftKey names an entry that sets
// the same, and only allowlists fail closed.
func TestCatalogueIsConsistent(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range AnnotationCatalogue {
		if seen[a.Key] {
			t.Errorf("%s: listed twice", a.Key)
		}
		seen[a.Key] = true
		if (a.apply == nil) == (a.certificate == nil) {
			t.Errorf("%s: sets router overrides (%v) and a Certificate (%v); want one", a.Key, a.apply != nil, a.certificate != nil)
		}
		if a.certificate != nil && !IsCertManagerAnnotation(a.Key) || a.apply != nil && !RouterAnnotationScope(a.Key) {
			t.Errorf("%s: not in the group of what it sets", a.Key)
		}
		for _, term := range a.OnlyFor {
			if !slices.Contains([]TLSTerminationType{"", TLSTerminationEdge, TLSTerminationReencrypt, TLSTerminationPassthrough}, term) {
				t.Errorf("%s: OnlyFor names %q", a.Key, term)
			}
		}
		if a.Requires != "" {
			if r, ok := LookupAnnotation(a.Requires); !ok || r.Validate(nil, "true") != nil || r.Validate(nil, "maybe") == nil {
				t.Errorf("%s: Requires %s, which is no boolean entry", a.Key, a.Requires)
			}
		}
		if a.OpenShiftKey != "" {
			o, ok := LookupAnnotation(a.OpenShiftKey)
			var mine, theirs Overrides
			if ok {
				a.apply("x", &mine)
				o.apply("x", &theirs)
			}
			if !ok || o.OpenShiftKey != "" || !reflect.DeepEqual(mine, theirs) {
				t.Errorf("%s: OpenShiftKey %s does not set the same", a.Key, a.OpenShiftKey)
			}
		}
		if a.FailClosed != (a.Key == AnnIPWhitelist || a.Key == AnnIPAllowlist || a.Key == AnnIPDenylist) {
			t.Errorf("%s: FailClosed %v", a.Key, a.FailClosed)
		}
	}
	if parts := len(routerCatalogue) + len(extensionCatalogue) + len(certificateCatalogue); len(AnnotationCatalogue) != parts {
		t.Errorf("the catalogue has %d entries, its parts %d", len(AnnotationCatalogue), parts)
	}
	for _, a := range extensionCatalogue {
		if !IsRouteshiftAnnotation(a.Key) || a.OpenShiftKey != "" {
			t.Errorf("%s: routeshift's own annotations are named routeshift.io/... and have no OpenShift key", a.Key)
		}
		if a.RefusedOutside && len(a.OnlyFor) == 0 {
			t.Errorf("%s: refused outside no termination", a.Key)
		}
	}
}

// TestValidateRouteSuffixes: a route suffix is a lower-case DNS subdomain;
// the error says which and why.
func TestValidateRouteSuffixes(t *testing.T) {
	tests := []struct {
		suffix, want string
	}{
		{"local", ""},
		{"apps.example.com", ""},
		{"Apps.example.com", "invalid DNS suffix: Apps.example.com (a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'))"},
		{"", "invalid DNS suffix:  (a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'))"},
		{"apps.example.com.", "invalid DNS suffix: apps.example.com. (a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'))"},
	}
	for _, tt := range tests {
		got := ""
		if err := ValidateRouteSuffix(tt.suffix); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("ValidateRouteSuffix(%q) = %q, want %q", tt.suffix, got, tt.want)
		}
	}
}
