package main

import (
	"fmt"

	"github.com/routeshift/routeshift/ingress/nginx"
)

// nginxRow is a row of ingress-nginx.md: an annotation or ConfigMap key,
// its verdict and what the Routes get.
type nginxRow struct {
	Key     string
	Verdict nginx.Verdict
	Caveat  string
}

// nginxCount is how many annotations or keys have a verdict.
type nginxCount struct {
	Verdict                nginx.Verdict
	Annotations, ConfigMap int
}

// ingressNginxData is the conversion table of ingress/nginx: its
// annotations and ConfigMap keys, and the defaults Convert makes explicit
// for an Ingress with TLS and no annotations (run, not restated).
func ingressNginxData() (any, error) {
	var annotations, configMap, defaults []nginxRow
	counts := map[nginx.Verdict]*nginxCount{}
	for _, v := range nginx.Verdicts() {
		counts[v] = &nginxCount{Verdict: v}
	}
	for _, e := range nginx.Table() {
		c, ok := counts[e.Verdict]
		if !ok || e.Caveat == "" {
			return nil, fmt.Errorf("ingress-nginx annotation %s has verdict %q and caveat %q: fix its entry in ingress/nginx", e.Annotation, e.Verdict, e.Caveat)
		}
		c.Annotations++
		annotations = append(annotations, nginxRow{nginx.Prefix + e.Annotation, e.Verdict, e.Caveat})
	}
	for _, s := range nginx.ConfigMapTable() {
		c, ok := counts[s.Verdict]
		if !ok || s.Caveat == "" {
			return nil, fmt.Errorf("ingress-nginx ConfigMap key %s has verdict %q and caveat %q: fix its entry in ingress/nginx", s.Key, s.Verdict, s.Caveat)
		}
		c.ConfigMap++
		configMap = append(configMap, nginxRow{s.Key, s.Verdict, s.Caveat})
	}
	for _, f := range nginx.Convert(nginx.Input{TLS: true, Globals: nginx.DefaultGlobals()}).Findings {
		defaults = append(defaults, nginxRow{f.Key, f.Verdict, f.Caveat})
	}
	var totals []nginxCount
	for _, v := range nginx.Verdicts() {
		totals = append(totals, *counts[v])
	}
	return map[string]any{"Annotations": annotations, "ConfigMap": configMap, "Defaults": defaults, "Counts": totals,
		"Assumed": nginx.DefaultGlobals().Assumed()}, nil
}
