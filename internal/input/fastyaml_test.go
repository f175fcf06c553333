package input

import (
	"testing"

	"sigs.k8s.io/yaml"
)

// fastYAMLCases are documents the fast conversion takes (true) or leaves
// to the YAML library (false).
var fastYAMLCases = []struct {
	name string
	doc  string
	fast bool
}{
	{"kubectl block style", `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  annotations:
    kubernetes.io/ingress.class: nginx
    nginx.ingress.kubernetes.io/rewrite-target: /$2
    nginx.ingress.kubernetes.io/use-regex: "true"
  creationTimestamp: null
  generation: 3
  labels:
    app: web
  name: shop
  namespace: web
spec:
  rules:
  - host: shop.example.com
    http:
      paths:
      - backend:
          service:
            name: web
            port:
              number: 8080
        path: /api(/|$)(.*)
        pathType: ImplementationSpecific
  tls:
  - hosts:
    - shop.example.com
    secretName: shop-tls
status:
  loadBalancer: {}
`, true},
	{"flow style and quotes", `# a comment
kind: Service
metadata: {name: svc1, namespace: 'ns''1'}
spec: {ports: [{name: http, port: 80}], selector: {app: "a<b>&\"c\"\\d\/e\tf"}, clusterIP: None, flag: true, off: ~}
data: []
`, false},
	{"flow style", `kind: Service
metadata: {name: svc1, namespace: 'ns''1'}
spec: {ports: [{name: http, port: 80}], selector: {app: "a<b>&\"c\"\\d/e\tf"}, empty: {}, flag: True, none: ~}
data: []
`, true},
	{"literal blocks", `kind: Secret
stringData:
  tls.crt: |
    -----BEGIN CERTIFICATE-----
    MIIB

      indented
    -----END CERTIFICATE-----


  tls.key: |-
    key
  # a comment between keys
  last:
`, true},
	{"nested sequences", `items:
- - a
  - b
`, false},
	{"sequence of scalars and blocks", `items:
  - a
  -
    b: c
  - 0
  - 12345
  - null
  - FALSE
x: z
`, true},
	{"yes is a boolean in YAML 1.1", "a: yes\n", false},
	{"octal", "a: 0755\n", false},
	{"float", "a: 1.5\n", false},
	{"negative", "a: -1\n", false},
	{"timestamp", "a: 2024-01-01\n", false},
	{"anchor", "a: &x b\nc: *x\n", false},
	{"tag", "a: !!str 1\n", false},
	{"duplicate key", "a: b\na: c\n", false},
	{"duplicate flow key", "a: {b: 1, b: 2}\n", false},
	{"multi-line plain", "a: b\n  c\n", false},
	{"folded", "a: >\n  b\n", false},
	{"inline comment", "a: b # c\n", false},
	{"non-ASCII", "a: é\n", false},
	{"tab", "a:\tb\n", false},
	{"top-level sequence", "- a\n", false},
	{"numeric key", "1: a\n", false},
	{"url", "a: http://x/y?z=1\n", true},
	{"sizes and CIDRs", "a: [8m, 512Ki, 1Gi, 10.0.0.0/8, 30s]\nb: 100m\n", true},
	{"hexadecimal", "a: 0x1F\n", false},
	{"exponent", "a: 1e3\n", false},
	{"timestamp with a time", "a: 2001-12-14t21:59:43.10-05:00\n", false},
	{"colon in flow", "a: {b: http://x}\n", false},
	{"unclosed flow", "a: {b: c\n", false},
	{"keep chomping", "a: |+\n  b\n", false},
	{"spaces-only line in a literal", "a: |\n  b\n   \n  c\n", false},
	{"too big an integer", "a: 99999999999999999999\n", false},
	{"CRLF", "a: b\r\n", false},
}

// TestFastYAMLMatchesTheLibrary: what the fast conversion takes, it
// converts to the very bytes the YAML library gives; the rest it leaves.
func TestFastYAMLMatchesTheLibrary(t *testing.T) {
	for _, tc := range fastYAMLCases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := fastYAMLToJSON([]byte(tc.doc))
			if ok != tc.fast {
				t.Fatalf("fast conversion took it: %v, want %v (%s)", ok, tc.fast, got)
			}
			if !ok {
				return
			}
			want, err := yaml.YAMLToJSONStrict([]byte(tc.doc))
			if err != nil {
				t.Fatalf("the library refuses what the fast conversion takes: %v", err)
			}
			if string(got) != string(want) {
				t.Errorf("fast conversion\n%s\nthe library\n%s", got, want)
			}
		})
	}
}

// FuzzFastYAML: whatever the fast conversion takes, the YAML library
// converts to the same bytes.
func FuzzFastYAML(f *testing.F) {
	for _, tc := range fastYAMLCases {
		f.Add(tc.doc)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		got, ok := fastYAMLToJSON([]byte(doc))
		if !ok {
			return
		}
		want, err := yaml.YAMLToJSONStrict([]byte(doc))
		if err != nil {
			t.Fatalf("the library refuses what the fast conversion takes (%v):\n%q", err, doc)
		}
		if string(got) != string(want) {
			t.Errorf("%q:\nfast conversion\n%s\nthe library\n%s", doc, got, want)
		}
	})
}
