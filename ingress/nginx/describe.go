package nginx

import "fmt"

// Describe is the finding in one line, for reports and events:
// "nginx.ingress.kubernetes.io/KEY=VALUE: VERDICT: CAVEAT", or
// "ingress-nginx default KEY: VERDICT: CAVEAT" for a default made explicit.
func (f Finding) Describe() string {
	if f.Default {
		return fmt.Sprintf("ingress-nginx default %s: %s: %s", f.Key, f.Verdict, f.Caveat)
	}
	return fmt.Sprintf("%s%s=%q: %s: %s", Prefix, f.Key, f.Value, f.Verdict, f.Caveat)
}
