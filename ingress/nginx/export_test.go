package nginx

import "github.com/routeshift/routeshift/routecore"

// TranslateCase is an entry case as the Ingress translation sees it, for
// the external test that runs every case through ingress.TranslateWith.
type TranslateCase struct {
	Name        string
	Key         string
	Annotations map[string]string
	TLS         bool
	Verdict     Verdict
	// RouteAnnotations are wanted on every Route (absent: not there).
	RouteAnnotations map[string]string
	Termination      routecore.TLSTerminationType
	Insecure         routecore.InsecureEdgeTerminationPolicyType
	Canary           bool
	Absent           string
}

// TranslateCases are the per-entry cases.
func TranslateCases() []TranslateCase {
	out := make([]TranslateCase, 0, len(entryCases))
	for _, tc := range entryCases {
		out = append(out, TranslateCase{Name: tc.name(), Key: tc.key, Annotations: tc.in, TLS: tc.tls, Verdict: tc.verdict,
			RouteAnnotations: tc.ann, Termination: tc.term, Insecure: tc.insecure, Canary: tc.canary != nil, Absent: absent})
	}
	return out
}
