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
		{name: "typed list", data: `{"apiVersion":"route.openshift.io/v1","kind":"RouteList","items":[{"apiVersion":"route.openshift.io/v1","kind":"Route","metadata":{"name":"x"}},{"apiVersion":"route.openshift.io/v1","kind":"Route","metadata":{"name":"y"}}]}`,
			want: []obj{{"f, document 1 (line 1), item 0", "Route", "x", ""}, {"f, document 1 (line 1), item 1", "Route", "y", ""}}},
		{name: "empty", data: "\n---\n\n", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := Parse("f", []byte(tt.data))
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
