package routecore

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestEnumerations: each enumeration accepts its listed values, exactly,
// and names them all when it refuses one.
func TestEnumerations(t *testing.T) {
	cases := []struct {
		name string
		err  func(string) *field.Error
		good []string
		bad  string
		want string
	}{
		{"balance", func(v string) *field.Error { return BalanceAlgorithm(v).Validate() }, []string{"roundrobin", "leastconn", "source", "random"},
			"first", `Unsupported value: "first": supported values: "roundrobin", "leastconn", "source", "random"`},
		{"forwarded headers", func(v string) *field.Error { return ForwardedHeadersPolicy(v).Validate() }, []string{"append", "replace", "if-none", "never"},
			"Append", `Unsupported value: "Append": supported values: "append", "replace", "if-none", "never"`},
		{"cookie name", func(v string) *field.Error { return ValidateCookieName(v) }, []string{"SERVERID", "a_b-1"},
			"a b", `Invalid value: "a b": must consist of letters, digits, '_' and '-'`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, v := range c.good {
				if err := c.err(v); err != nil {
					t.Errorf("%q: %v", v, err)
				}
			}
			if err := c.err(c.bad); err == nil || err.ErrorBody() != c.want {
				t.Errorf("%q: error %v, want %q", c.bad, err, c.want)
			}
		})
	}
}
