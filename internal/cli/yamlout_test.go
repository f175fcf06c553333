package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	yamlv2 "go.yaml.in/yaml/v2"
	kjson "sigs.k8s.io/json"
)

// jsonValue decodes JSON text as printYAML's callers do.
func jsonValue(t testing.TB, js string) any {
	t.Helper()
	var v any
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(js), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestYAMLDocumentMatchesYAMLv2(t *testing.T) {
	pem := "-----BEGIN CERTIFICATE-----\nMIIB+zCCAaGgAwIBAgIU/abc=\n-----END CERTIFICATE-----\n"
	tests := []struct {
		name string
		js   string
		fast bool // written without yaml.v2
	}{
		{"route", `{"apiVersion":"route.openshift.io/v1","kind":"Route","metadata":{"name":"shop-x7k2","namespace":"web","labels":{"app":"shop"},"annotations":{"haproxy.router.openshift.io/disable_cookies":"true","haproxy.router.openshift.io/timeout":"60s"},"ownerReferences":[{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","name":"shop","uid":"f00d-1","controller":true}]},"spec":{"host":"shop.example.com","path":"/api","to":{"kind":"Service","name":"web","weight":90},"alternateBackends":[{"kind":"Service","name":"web-canary","weight":10}],"port":{"targetPort":"http"},"wildcardPolicy":"None"}}`, true},
		{"edge with certificate", fmt.Sprintf(`{"spec":{"tls":{"termination":"edge","certificate":%q,"key":%q,"insecureEdgeTerminationPolicy":"Redirect"}}}`, pem, strings.TrimSuffix(pem, "\n")), true},
		{"certificate in a list item", fmt.Sprintf(`{"items":[{"certificate":%q,"name":"a"},{"name":"b"}]}`, pem), true},
		{"empty map and list", `{"a":{},"b":[],"c":[{}],"d":null}`, true},
		{"scalars in a list", `{"hosts":["a.example.com","b.example.com"],"m":[1,2,-3],"t":[true,false,null]}`, true},
		{"lists of maps with lists", `{"rules":[{"host":"a","paths":[{"path":"/","backend":{"name":"x"}}]}]}`, true},
		{"key order: punctuation before letters", `{"a.b":1,"a_b":2,"a-b":3,"ab":4,"a":5,"A":6,"a/b":7,"Ab":8}`, true},
		{"words read as booleans or numbers are quoted", `{"y":"n","on":"off","yes":"No","true":"TRUE","null":"Null","a":"80","b":"-1","c":"0"}`, true},
		{"words that are not quite booleans", `{"a":"tRUE","b":"0080","c":"+1"}`, false},
		{"numbers and timestamps are quoted", `{"b":"1.5","c":"2001-12-14","d":"0x1F","e":".inf","g":"1e3","h":"0b1"}`, false},
		{"durations and sizes are plain", `{"a":"60s","b":"1h30m","c":"512Mi","d":"8m"}`, true},
		{"text with spaces and punctuation", `{"a":"10.0.0.0/8 192.168.0.0/16","b":"GET, PUT, POST","c":"max-age=31536000;includeSubDomains","d":"http://x.example.com/a(b)*c","e":"a+b=c;d","f":"/$2","g":"a@b%c?d&e!f~g^h<i>j|k\"l'm[n]o{p}q#s"}`, true},
		{"single-quoted", `{"a":"*","b":"more_set_headers \"X-Frame-Options: DENY\";","c":"#x","d":"it's: here","e":"[a]","f":"{b}","g":"a #b","h":"%x","i":"@y","j":"!z","k":"|p","l":">q"}`, true},
		{"text yaml.v2 writes otherwise", `{"a":" lead","b":"trail ","c":"é","d":"-","e":"a:","f":"a  b","g":"?x","h":"-x y","i":"2001-12-14 21:59:43.10"}`, false},
		{"long text folds", fmt.Sprintf(`{"a":%q}`, strings.TrimSpace(strings.Repeat("word ", 40))), false},
		{"long single-quoted text folds", fmt.Sprintf(`{"a":%q}`, "x: "+strings.TrimSpace(strings.Repeat("word ", 40))), false},
		{"text just under the width", fmt.Sprintf(`{"metadata":{"annotations":{"key":%q}}}`, strings.Repeat("ab ", 22)+"abcde"), true},
		{"long string without spaces", fmt.Sprintf(`{"a":%q}`, strings.Repeat("x", 300)), true},
		{"keys with digits", `{"a10":1,"a9":2,"a09":3}`, false},
		{"multi-line strings that are not literal blocks", `{"a":"x\n\n","b":"x \ny","c":" x\ny","d":"x\n\ny","e":"\n","f":"a\tb\nc"}`, false},
		{"floats", `{"a":1.5,"b":1e300}`, false},
		{"nested sequences", `{"a":[["x"]]}`, false},
		{"top-level list", `[{"a":1}]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := jsonValue(t, tt.js)
			want, err := yamlv2.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			got, err := yamlDocument(v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("yamlDocument differs from yaml.v2:\n--- got\n%s--- yaml.v2\n%s", got, want)
			}
			if _, fast := fastYAML(v); fast != tt.fast {
				t.Errorf("written without yaml.v2: %v, want %v", fast, tt.fast)
			}
		})
	}
}

// FuzzYAMLDocument checks that what yamlDocument writes itself is exactly
// yaml.v2's output, for maps of maps, lists and scalars built from the
// fuzzer's strings.
func FuzzYAMLDocument(f *testing.F) {
	f.Add("metadata", "name", "shop-1", "/api", "a.b")
	f.Add("a", "b", "-----BEGIN X-----\nAB+/=\n-----END X-----\n", "x y", "n")
	f.Add("Ab", "a_b", "2001-12-14", "x\n", "on")
	f.Fuzz(func(t *testing.T, k1, k2, s1, s2, s3 string) {
		v := map[string]any{
			k1:  map[string]any{k2: s1, "list": []any{s2, map[string]any{k1: s3, k2: []any{s1}}}},
			k2:  s3,
			"n": []any{map[string]any{"x": s2}, int64(len(s1))},
		}
		js, err := json.Marshal(v)
		if err != nil {
			return
		}
		var decoded any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(js, &decoded); err != nil {
			return
		}
		want, err := yamlv2.Marshal(decoded)
		if err != nil {
			return
		}
		got, ok := fastYAML(decoded)
		if ok && string(got) != string(want) {
			t.Errorf("fastYAML differs from yaml.v2 for %s:\n--- got\n%s--- yaml.v2\n%s", js, got, want)
		}
	})
}
