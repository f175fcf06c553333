{{/* The labels of every object: the Kubernetes recommended labels. */}}
{{- define "routeshift.labels" -}}
app.kubernetes.io/name: routeshift
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
app.kubernetes.io/part-of: routeshift
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end }}

{{/* The labels a component's pods are selected by. */}}
{{- define "routeshift.selectorLabels" -}}
app.kubernetes.io/name: routeshift
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* The image: repository with the digest, else the tag (default appVersion). */}}
{{- define "routeshift.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end }}

{{/* The pod securityContext of both components: the image's user; fsGroup
makes mounted Secrets readable by it. */}}
{{- define "routeshift.podSecurityContext" -}}
runAsNonRoot: true
# The image's user; fsGroup makes mounted Secrets readable by it.
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile: {type: RuntimeDefault}
{{- end }}

{{/* Spread a component's replicas over nodes, then zones. */}}
{{- define "routeshift.topologySpread" -}}
{{- if .root.Values.topologySpread.enabled }}
topologySpreadConstraints:
{{- range list "kubernetes.io/hostname" "topology.kubernetes.io/zone" }}
- maxSkew: 1
  topologyKey: {{ . }}
  whenUnsatisfiable: ScheduleAnyway
  matchLabelKeys: [pod-template-hash]
  labelSelector:
    matchLabels:
      {{- include "routeshift.selectorLabels" $ | nindent 6 }}
{{- end }}
{{- end }}
{{- end }}

{{/* The webhook's Service name and the Secret of its serving certificate. */}}
{{- define "routeshift.webhookService" -}}{{ .Release.Name }}-webhook{{- end }}
{{- define "routeshift.webhookSecret" -}}{{ .Release.Name }}-webhook-tls{{- end }}

{{/* The router's service account: "router" in the release routeshift, as
in manifests/rbac/router.yaml. */}}
{{- define "routeshift.routerServiceAccount" -}}
{{- if eq .Release.Name "routeshift" }}router{{ else }}{{ .Release.Name }}-router{{ end }}
{{- end }}

{{/* One ingress rule of a NetworkPolicy: the named container ports, from
the peers listed (from anywhere when there are none). */}}
{{- define "routeshift.networkPolicyRule" -}}
- ports:
  {{- range .ports }}
  - {port: {{ . }}, protocol: TCP}
  {{- end }}
  {{- with .from }}
  from:
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}
