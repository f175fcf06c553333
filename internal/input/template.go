package input

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	kjson "sigs.k8s.io/json"
)

// isTemplate reports whether an object is an OpenShift Template: of the
// template.openshift.io group, or of OpenShift 3's legacy v1.
func isTemplate(apiVersion, kind string) bool {
	return kind == "Template" && (apiVersion == "template.openshift.io/v1" || apiVersion == "v1")
}

// template is what processing reads of a Template.
type template struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Objects    []json.RawMessage `json:"objects"`
	Parameters []parameter       `json:"parameters"`
	Labels     map[string]string `json:"labels"`
}

// parameter is one of a Template's parameters.
type parameter struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	Generate string `json:"generate"`
	From     string `json:"from"`
	Required bool   `json:"required"`
}

// References to parameters, as `oc process` finds them: ${NAME} anywhere
// in a string, ${{NAME}} as a whole string (replaced by the value as JSON).
var (
	stringReference = regexp.MustCompile(`\$\{([a-zA-Z0-9_]+?)\}`)
	valueReference  = regexp.MustCompile(`^\$\{\{([a-zA-Z0-9_]+)\}\}$`)
	// anyReference finds references in text left after substitution.
	anyReference = regexp.MustCompile(`\$\{\{?([a-zA-Z0-9_]+)\}?\}`)
)

// template processes a Template as `oc process` does and expands its
// objects. An object that refers to a parameter without a value (one `oc
// process` would generate, or a required one not given) or to a name that
// is no parameter gets an Err naming it; the others are unaffected.
func (r *reader) template(where string, js []byte, strict []string) ([]Object, error) {
	var t template
	if err := json.Unmarshal(js, &t); err != nil {
		return nil, fmt.Errorf("%s: not a Template: %v", where, err)
	}
	sub := r.substitution(&t)
	labels := map[string]string{}
	for k, v := range t.Labels {
		labels[sub.text(k)] = sub.text(v)
	}
	labelProblems := sub.take()
	var objs []Object
	for i, raw := range t.Objects {
		at := fmt.Sprintf("%s, template %s, object %d", where, t.Metadata.Name, i)
		var obj map[string]any
		strictErrs, err := kjson.UnmarshalStrict(raw, &obj)
		if err != nil || obj == nil {
			return nil, fmt.Errorf("%s: not a Kubernetes object: %v", at, cmpErr(err, "null"))
		}
		stripNamespace(obj)
		processed := sub.value(obj).(map[string]any)
		addLabels(processed, labels)
		problems := append(slices.Clone(labelProblems), sub.take()...)
		out, err := json.Marshal(processed)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", at, err)
		}
		got, err := r.expand(at, out, append(slices.Clone(strict), errorStrings(strictErrs)...))
		if err != nil {
			return nil, err
		}
		if len(problems) > 0 {
			for j := range got {
				got[j].Err = fmt.Errorf("%s: template %s: %s", at, t.Metadata.Name, strings.Join(problems, "; "))
			}
		}
		objs = append(objs, got...)
	}
	return objs, nil
}

func cmpErr(err error, otherwise string) string {
	if err != nil {
		return err.Error()
	}
	return otherwise
}

func errorStrings(errs []error) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

// substitution holds a Template's parameter values and collects the
// references it could not resolve.
type substitution struct {
	values     map[string]string
	unresolved map[string]string
	problems   map[string]bool
}

// substitution decides each parameter's value: given with --param, else
// the Template's value. Without either, a generated or required parameter
// is unresolved (`oc process` would generate a random value, or refuse),
// and any other is empty, as `oc process` makes it.
func (r *reader) substitution(t *template) *substitution {
	s := &substitution{values: map[string]string{}, unresolved: map[string]string{}, problems: map[string]bool{}}
	for _, p := range t.Parameters {
		r.known[p.Name] = true
		given, ok := r.params[p.Name]
		switch {
		case ok:
			s.values[p.Name] = given
		case p.Value != "":
			s.values[p.Name] = p.Value
		case p.Generate != "":
			s.unresolved[p.Name] = fmt.Sprintf("parameter %s has no value: oc process would generate one (generate: %s, from: %q); give it with --param %s=VALUE",
				p.Name, p.Generate, p.From, p.Name)
		case p.Required:
			s.unresolved[p.Name] = fmt.Sprintf("parameter %s is required and has no value: give it with --param %s=VALUE", p.Name, p.Name)
		default:
			s.values[p.Name] = ""
		}
	}
	return s
}

// take returns the problems collected since the last call, sorted.
func (s *substitution) take() []string {
	out := slices.Sorted(maps.Keys(s.problems))
	clear(s.problems)
	return out
}

// value substitutes parameters in every string of a decoded JSON value,
// map keys included.
func (s *substitution) value(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[s.text(k)] = s.value(x)
		}
		return out
	case []any:
		for i, x := range v {
			v[i] = s.value(x)
		}
		return v
	case string:
		return s.whole(v)
	}
	return v
}

// whole substitutes a string value: "${{NAME}}" becomes the value read as
// JSON (a string when it is not JSON), anything else is text.
func (s *substitution) whole(in string) any {
	m := valueReference.FindStringSubmatch(in)
	if m == nil {
		return s.text(in)
	}
	value, ok := s.values[m[1]]
	if !ok {
		return s.text(in) // notes the reference
	}
	var decoded any
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(value), &decoded); err != nil {
		return value
	}
	return decoded
}

// text substitutes every ${NAME} in a string and notes the references it
// leaves.
func (s *substitution) text(in string) string {
	out := stringReference.ReplaceAllStringFunc(in, func(ref string) string {
		if value, ok := s.values[ref[2:len(ref)-1]]; ok {
			return value
		}
		return ref
	})
	for _, m := range anyReference.FindAllStringSubmatch(out, -1) {
		s.note(m[0], m[1])
	}
	return out
}

// note records why a reference was left as written.
func (s *substitution) note(ref, name string) {
	switch _, known := s.values[name]; {
	case s.unresolved[name] != "":
		s.problems[s.unresolved[name]] = true
	case known:
		s.problems[fmt.Sprintf("%s is replaced only when it is the whole value; write ${%s} inside text", ref, name)] = true
	default:
		s.problems[fmt.Sprintf("%s names no parameter of the template (oc process leaves it as written)", ref)] = true
	}
}

// stripNamespace drops a namespace written into a Template's object unless
// it refers to a parameter, as `oc process` does: the object goes to the
// namespace the Template is processed for.
func stripNamespace(obj map[string]any) {
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		return
	}
	if ns, ok := meta["namespace"].(string); ok && stringReference.MatchString(ns) {
		return
	}
	delete(meta, "namespace")
}

// addLabels sets the Template's labels on an object, over its own.
func addLabels(obj map[string]any, labels map[string]string) {
	if len(labels) == 0 {
		return
	}
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	own, ok := meta["labels"].(map[string]any)
	if !ok {
		own = map[string]any{}
		meta["labels"] = own
	}
	for k, v := range labels {
		own[k] = v
	}
}
