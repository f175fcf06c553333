package input

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	type obj struct{ Source, Kind, Name, Namespace string }
	tests := []struct {
		name, data string
		want       []obj
	}{
		{name: "leading separator and comments",
			data: "# routes\n---\napiVersion: v1\nkind: A\nmetadata: {name: a, namespace: ns}\n---\n# nothing here\n---\napiVersion: v1\nkind: B\nmetadata: {name: b}\n",
			want: []obj{{"f, document 1 (line 3)", "A", "a", "ns"}, {"f, document 2 (line 9)", "B", "b", ""}}},
		{name: "separator with a comment", data: "apiVersion: v1\nkind: A\n--- # next\napiVersion: v1\nkind: B\n",
			want: []obj{{"f, document 1 (line 1)", "A", "", ""}, {"f, document 2 (line 4)", "B", "", ""}}},
		{name: "JSON", data: `{"apiVersion":"v1","kind":"A","metadata":{"name":"a"}}`,
			want: []obj{{"f, document 1 (line 1)", "A", "a", ""}}},
		{name: "JSON stream", data: "{\"apiVersion\":\"v1\",\"kind\":\"A\"}\n\n  {\"apiVersion\":\"v1\",\n\"kind\":\"B\"} {\"apiVersion\":\"v1\",\"kind\":\"C\"}\n",
			want: []obj{{"f, document 1 (line 1)", "A", "", ""}, {"f, document 2 (line 3)", "B", "", ""}, {"f, document 3 (line 4)", "C", "", ""}}},
		{name: "typed list", data: `{"apiVersion":"route.openshift.io/v1","kind":"RouteList","items":[{"apiVersion":"route.openshift.io/v1","kind":"Route","metadata":{"name":"x"}},{"apiVersion":"route.openshift.io/v1","kind":"Route","metadata":{"name":"y"}}]}`,
			want: []obj{{"f, document 1 (line 1), item 0", "Route", "x", ""}, {"f, document 1 (line 1), item 1", "Route", "y", ""}}},
		{name: "empty list", data: "apiVersion: v1\nkind: List\nitems: []\n", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := Parse("f", []byte(tt.data), Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []obj
			for _, o := range objs {
				got = append(got, obj{o.Source, o.Kind, o.Name, o.Namespace})
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

// TestParseErrors: input that holds no object, or more than objects, is
// an error naming the place.
func TestParseErrors(t *testing.T) {
	obj := `{"apiVersion":"v1","kind":"A"}`
	tests := []struct{ name, data, want string }{
		{"empty", "", `f: no objects: the input is empty or holds only comments and "---"`},
		{"blank", "\n \n", `f: no objects: the input is empty or holds only comments and "---"`},
		{"separators and comments", "---\n# a\n---\n---\n", `f: no objects: the input is empty or holds only comments and "---"`},
		{"null document", "apiVersion: v1\nkind: A\n---\nnull\n", "f, document 2 (line 4): the document is null, not a Kubernetes object: remove it"},
		{"tilde document", "~\n", "f, document 1 (line 1): the document is null, not a Kubernetes object: remove it"},
		{"JSON null", obj + "\nnull", "f, document 2 (line 2): the document is null, not a Kubernetes object: remove it"},
		{"garbage after JSON", obj + "\n\ngarbage", "f, line 3: not valid JSON: invalid character 'g' looking for beginning of value"},
		{"unclosed JSON", obj + "\n{\"a\":", "f, line 2: not valid JSON: unexpected EOF"},
		{"broken JSON", "{\"a\":\n1,,}", "f, line 2: not valid JSON: invalid character ',' looking for beginning of object key string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := Parse("f", []byte(tt.data), Options{})
			if err == nil || err.Error() != tt.want {
				t.Errorf("Parse = %d objects, error %v; want error %q", len(objs), err, tt.want)
			}
		})
	}
}

// TestParseKeepsJSONText: a JSON file is decoded as JSON, so every
// character reaches decoding as written; YAML turns U+0085 (a YAML line
// break) into a space, as the API server's YAML decoding does.
func TestParseKeepsJSONText(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"JSON", "{\"apiVersion\":\"v1\",\"kind\":\"A\",\"x\":\"a\u0085b\"}", "a\u0085b"},
		{"YAML", "apiVersion: v1\nkind: A\nx: \"a\u0085b\"\n", "a b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := Parse("f", []byte(tt.data), Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				X string `json:"x"`
			}
			if _, err := Decode(objs[0], &got); err != nil {
				t.Fatal(err)
			}
			if got.X != tt.want {
				t.Errorf("x = %q, want %q", got.X, tt.want)
			}
		})
	}
}
