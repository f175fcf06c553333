package routecore

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// noPath is the Field of an error built without a path: the rules that
// leave the path to their caller return it.
var noPath = (*field.Path)(nil).String()

// TestValidateEnumRule: ValidateEnum accepts exactly the listed values of
// any string type and otherwise returns a NotSupported error with no path
// (the caller's to fill in) that lists the values in their order; with no
// values listed, every value is refused and none is listed.
func TestValidateEnumRule(t *testing.T) {
	type colour string
	colours := []colour{"red", "green"}
	tests := []struct {
		name   string
		v      colour
		values []colour
		want   string
	}{
		{"listed", "green", colours, ""},
		{"another case", "Green", colours, `Unsupported value: "Green": supported values: "red", "green"`},
		{"a prefix", "gree", colours, `Unsupported value: "gree": supported values: "red", "green"`},
		{"empty", "", colours, `Unsupported value: "": supported values: "red", "green"`},
		{"nothing listed", "red", nil, `Unsupported value: "red"`},
		{"empty, nothing listed", "", nil, `Unsupported value: ""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateEnum(tt.v, tt.values)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("ValidateEnum(%q) = %v, want nil", tt.v, err)
			case tt.want != "" && (err == nil || err.ErrorBody() != tt.want || err.Type != field.ErrorTypeNotSupported || err.Field != noPath):
				t.Errorf("ValidateEnum(%q) = %#v, want %q without a path", tt.v, err, tt.want)
			}
		})
	}
}

// TestEnumerationLists: the enumerations list their values in
// documentation order, as Strings renders them.
func TestEnumerationLists(t *testing.T) {
	if got, want := Strings(BalanceAlgorithms), []string{"roundrobin", "leastconn", "source", "random"}; !slices.Equal(got, want) {
		t.Errorf("BalanceAlgorithms = %q, want %q", got, want)
	}
	if got, want := Strings(ForwardedHeadersPolicies), []string{"append", "replace", "if-none", "never"}; !slices.Equal(got, want) {
		t.Errorf("ForwardedHeadersPolicies = %q, want %q", got, want)
	}
	if got := Strings([]BalanceAlgorithm(nil)); got == nil || len(got) != 0 {
		t.Errorf("Strings(nil) = %#v, want an empty slice", got)
	}
	// Strings copies: changing its result leaves the enumeration alone.
	s := Strings(BalanceAlgorithms)
	s[0] = "changed"
	if BalanceAlgorithms[0] != BalanceRoundRobin {
		t.Errorf("Strings shares its result with the enumeration")
	}
	for _, a := range BalanceAlgorithms {
		if err := a.Validate(); err != nil {
			t.Errorf("%s: %v", a, err)
		}
	}
	for _, p := range ForwardedHeadersPolicies {
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestValidateCookieNameRule: ASCII letters, digits, '_' and '-', from one
// byte to MaxCookieNameLength; the length is judged first; errors carry no
// path.
func TestValidateCookieNameRule(t *testing.T) {
	const chars = "must consist of letters, digits, '_' and '-'"
	tests := []struct {
		v        string
		wantType field.ErrorType
		want     string
	}{
		{"-", "", ""},
		{"_", "", ""},
		{"0", "", ""},
		{"Z9_-z", "", ""},
		{strings.Repeat("a", MaxCookieNameLength), "", ""},
		{"", field.ErrorTypeInvalid, `Invalid value: "": ` + chars},
		{"a b", field.ErrorTypeInvalid, `Invalid value: "a b": ` + chars},
		{"a+b", field.ErrorTypeInvalid, `Invalid value: "a+b": ` + chars},
		{"İ", field.ErrorTypeInvalid, `Invalid value: "İ": ` + chars},
		{"a\x00", field.ErrorTypeInvalid, `Invalid value: "a\x00": ` + chars},
		{strings.Repeat("a", MaxCookieNameLength+1), field.ErrorTypeTooLong, "Too long: may not be more than 1024 bytes"},
		{strings.Repeat(";", MaxCookieNameLength+1), field.ErrorTypeTooLong, "Too long: may not be more than 1024 bytes"},
	}
	for _, tt := range tests {
		err := ValidateCookieName(tt.v)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("ValidateCookieName(%.20q) = %v, want nil", tt.v, err)
		case tt.want != "" && (err == nil || err.Type != tt.wantType || err.ErrorBody() != tt.want || err.Field != noPath):
			t.Errorf("ValidateCookieName(%.20q) = %v, want %s %q without a path", tt.v, err, tt.wantType, tt.want)
		}
	}
}

// TestStructRulesInternalErrors: what the tag validator cannot judge (no
// struct) is an internal error on the given path, never a pass; a valid
// struct gives no list at all.
func TestStructRulesInternalErrors(t *testing.T) {
	n := 5
	sameMessages(t, structRules(&n, field.NewPath("spec")), []string{"spec: Internal error: validator: (nil *int)"})
	sameMessages(t, structRules(nil, field.NewPath("spec", "to")), []string{"spec.to: Internal error: validator: (nil)"})
	if errs := structRules(&RouteTargetReference{Kind: "Service", Name: "web", Weight: weight(256)}, field.NewPath("spec", "to")); errs != nil {
		t.Errorf("valid backend: %#v, want nil", errs)
	}
	// The tags are judged on their own: a name Kubernetes would refuse
	// passes them (it is judged with the other rules).
	if errs := structRules(&RouteTargetReference{Kind: "Service", Name: "Not A Name"}, field.NewPath("spec", "to")); errs != nil {
		t.Errorf("tag rules judged a name's format: %v", messages(errs))
	}
}
