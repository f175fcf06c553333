package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/routeshift/routeshift/ingress"
	"github.com/routeshift/routeshift/ingress/nginx"
)

// Outcomes of an adopted Ingress's conversion, from the best to the worst.
const (
	outcomeExact       = "exact"
	outcomeApproximate = "approximate"
	outcomeLossy       = "with losses"
	outcomeRefused     = "refused"
)

// migrationReport is what translate found, per Ingress and in total.
type migrationReport struct {
	summary
	// Nginx is true when ingress-nginx Ingresses were converted.
	Nginx bool `json:"ingressNginx"`
	// ConfigMap names ingress-nginx's ConfigMap when it was read, and
	// ConfigMapFindings say what became of its keys.
	ConfigMap         string          `json:"configMap,omitempty"`
	ConfigMapFindings []nginx.Finding `json:"configMapFindings,omitempty"`
	// Assumed are ingress-nginx's defaults assumed without its ConfigMap.
	Assumed   []string         `json:"assumedDefaults,omitempty"`
	Ingresses []ingressReport  `json:"ingresses"`
	Outcomes  map[string]int   `json:"outcomes,omitempty"`
	Verdicts  map[string]int   `json:"annotationsByVerdict,omitempty"`
	Defaults  map[string]int   `json:"defaultsByVerdict,omitempty"`
	Totals    reportTotals     `json:"totals"`
	byOutcome map[string][]int // indexes into Ingresses
}

// reportTotals are the summary's counts.
type reportTotals struct {
	Ingresses    int `json:"ingresses"`
	Ignored      int `json:"ignored"`
	MissingClass int `json:"missingClass"`
	Routes       int `json:"routes"`
	Problems     int `json:"rulesOrPathsWithoutRoute"`
}

// ingressReport is one Ingress's part of the report.
type ingressReport struct {
	Namespace string   `json:"namespace"`
	Name      string   `json:"name"`
	Managed   bool     `json:"managed"`
	Adopted   bool     `json:"adopted"`
	Canary    bool     `json:"canary,omitempty"`
	Outcome   string   `json:"outcome,omitempty"`
	Routes    []string `json:"routes"`
	// Notes are the rules and paths without a Route and other warnings;
	// Problems counts the former.
	Notes    []string        `json:"notes,omitempty"`
	Problems int             `json:"rulesOrPathsWithoutRoute,omitempty"`
	Findings []nginx.Finding `json:"findings,omitempty"`
}

// add records one Ingress's translation.
func (r *migrationReport) add(ing *networkingv1.Ingress, res ingress.Result, notes []string) {
	r.summary.add(ing, res)
	ir := ingressReport{Namespace: ing.Namespace, Name: ing.Name, Managed: res.Managed, Adopted: res.Adopted, Canary: res.Canary,
		Routes: []string{}, Notes: notes, Problems: len(res.Problems)}
	for _, rt := range res.Routes {
		ir.Routes = append(ir.Routes, rt.Name)
	}
	if res.Adopted {
		ir.Findings = res.Conversion.Findings
		ir.Outcome = outcome(res)
		if r.Outcomes == nil {
			r.Outcomes, r.Verdicts, r.Defaults, r.byOutcome = map[string]int{}, map[string]int{}, map[string]int{}, map[string][]int{}
		}
		r.Outcomes[ir.Outcome]++
		r.byOutcome[ir.Outcome] = append(r.byOutcome[ir.Outcome], len(r.Ingresses))
		for _, f := range ir.Findings {
			if f.Default {
				r.Defaults[string(f.Verdict)]++
			} else {
				r.Verdicts[string(f.Verdict)]++
			}
		}
	}
	r.Ingresses = append(r.Ingresses, ir)
	r.Totals = reportTotals{Ingresses: r.ingresses, Ignored: r.ignored, MissingClass: r.missingClass, Routes: r.routes, Problems: r.problems}
}

// outcome sums up an adopted Ingress's conversion: refused when a snippet
// was refused, with losses when an annotation is not supported or a rule or
// path produced no Route, approximate when anything is approximated or
// router-wide, else exact.
func outcome(res ingress.Result) string {
	worst := res.Conversion.Worst()
	switch {
	case worst == nginx.Refused:
		return outcomeRefused
	case worst == nginx.NotSupported || len(res.Problems) > 0:
		return outcomeLossy
	case worst == nginx.Approximate || worst == nginx.RouterWide:
		return outcomeApproximate
	}
	return outcomeExact
}

// inexact counts the Ingresses not converted exactly: adopted ones with
// another outcome, and managed ones with rules or paths without a Route.
func (r *migrationReport) inexact() int {
	n := 0
	for _, ir := range r.Ingresses {
		switch {
		case ir.Adopted && ir.Outcome != outcomeExact:
			n++
		case ir.Managed && ir.Problems > 0:
			n++
		}
	}
	return n
}

// verdictOrder lists verdicts from the best to the worst, as strings.
func verdictOrder() []string {
	var out []string
	for _, v := range nginx.Verdicts() {
		out = append(out, string(v))
	}
	return out
}

// outcomeLine is "N exactly, N approximately, N with losses, N refused".
func (r *migrationReport) outcomeLine() string {
	return fmt.Sprintf("%d exactly, %d approximately, %d with losses, %d refused",
		r.Outcomes[outcomeExact], r.Outcomes[outcomeApproximate], r.Outcomes[outcomeLossy], r.Outcomes[outcomeRefused])
}

// histogramLine is "exact N, approximate N, …" of a count by verdict.
func histogramLine(counts map[string]int) string {
	parts := make([]string, 0, 5)
	for _, v := range verdictOrder() {
		parts = append(parts, fmt.Sprintf("%s %d", v, counts[v]))
	}
	return strings.Join(parts, ", ")
}

// writeText writes the report's end for -o yaml and -o name (the
// per-Ingress lines were written as each Ingress was translated).
func (r *migrationReport) writeText(w io.Writer) {
	if r.Nginx {
		if len(r.Assumed) > 0 {
			fmt.Fprintf(w, "note: ingress-nginx's ConfigMap was not given (--ingress-nginx-configmap): assumed its defaults %s\n", strings.Join(r.Assumed, ", "))
		}
		for _, f := range r.ConfigMapFindings {
			if f.Verdict != nginx.Exact {
				fmt.Fprintf(w, "warning: configmap %s: %s: %s: %s\n", r.ConfigMap, f.Key, f.Verdict, f.Caveat)
			}
		}
		adopted := 0
		for _, n := range r.Outcomes {
			adopted += n
		}
		fmt.Fprintf(w, "summary: %s converted from ingress-nginx: %s\n", plural(adopted, "ingress", "ingresses"), r.outcomeLine())
		fmt.Fprintf(w, "summary: annotations by verdict: %s; defaults made explicit: %s\n", histogramLine(r.Verdicts), histogramLine(r.Defaults))
	}
	fmt.Fprintln(w, r.summary.String())
}

// writeJSON writes the report as one JSON document.
func (r *migrationReport) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// writeMarkdown writes the report as a Markdown page: the summary, the
// histogram, then every Ingress not converted exactly with each of its
// findings, and the exact ones by name.
func (r *migrationReport) writeMarkdown(w io.Writer) {
	fmt.Fprintln(w, "# Migration report")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%s; %s.\n\n", strings.TrimPrefix(r.summary.String(), "summary: "), plural(r.inexact(), "Ingress not converted exactly", "Ingresses not converted exactly"))
	if r.Nginx {
		switch {
		case r.ConfigMap != "":
			fmt.Fprintf(w, "ingress-nginx's ConfigMap %s was read.\n\n", r.ConfigMap)
		default:
			fmt.Fprintln(w, "ingress-nginx's ConfigMap was not given; assumed its defaults:")
			fmt.Fprintln(w)
			for _, a := range r.Assumed {
				fmt.Fprintf(w, "* %s\n", a)
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "## Summary")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| Ingresses converted | count |")
		fmt.Fprintln(w, "|---|---:|")
		for _, o := range []string{outcomeExact, outcomeApproximate, outcomeLossy, outcomeRefused} {
			fmt.Fprintf(w, "| %s | %d |\n", o, r.Outcomes[o])
		}
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| Verdict | annotations | defaults made explicit |")
		fmt.Fprintln(w, "|---|---:|---:|")
		for _, v := range verdictOrder() {
			fmt.Fprintf(w, "| %s | %d | %d |\n", v, r.Verdicts[v], r.Defaults[v])
		}
		fmt.Fprintln(w)
		if len(r.ConfigMapFindings) > 0 {
			fmt.Fprintf(w, "## ConfigMap %s\n\n| key | value | verdict | caveat |\n|---|---|---|---|\n", r.ConfigMap)
			for _, f := range r.ConfigMapFindings {
				fmt.Fprintf(w, "| %s | %s | %s | %s |\n", mdCell(f.Key), mdCell(f.Value), f.Verdict, mdCell(f.Caveat))
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintln(w, "## Ingresses")
	fmt.Fprintln(w)
	for _, ir := range r.Ingresses {
		status := "not managed (another controller's class)"
		switch {
		case ir.Adopted && ir.Canary:
			status = "canary, " + ir.Outcome
		case ir.Adopted:
			status = ir.Outcome
		case ir.Managed:
			status = "managed (routeshift's own class)"
		}
		fmt.Fprintf(w, "### %s/%s: %s\n\n", ir.Namespace, ir.Name, status)
		if len(ir.Routes) > 0 {
			fmt.Fprintf(w, "Routes: %s\n\n", strings.Join(ir.Routes, ", "))
		}
		for _, n := range ir.Notes {
			fmt.Fprintf(w, "* %s\n", mdCell(n))
		}
		if len(ir.Notes) > 0 {
			fmt.Fprintln(w)
		}
		if len(ir.Findings) > 0 {
			fmt.Fprintln(w, "| annotation | value | verdict | caveat |")
			fmt.Fprintln(w, "|---|---|---|---|")
			for _, f := range ir.Findings {
				key := nginx.Prefix + f.Key
				if f.Default {
					key = "(default) " + f.Key
				}
				fmt.Fprintf(w, "| %s | %s | %s | %s |\n", mdCell(key), mdCell(f.Value), f.Verdict, mdCell(f.Caveat))
			}
			fmt.Fprintln(w)
		}
	}
}

// mdCell makes text safe in a Markdown table cell.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
