package input

import (
	"math"
	"reflect"
	"regexp"
	"unicode/utf8"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// quickNode is one node of a structural schema, prepared to say quickly
// that a value certainly satisfies the schema's OpenAPI value rules (types,
// required fields, lengths, patterns, enums, item counts, bounds). It
// answers only "certainly valid" or "not known to be": a value it does not
// vouch for goes through the OpenAPI validator, which finds the errors and
// words them as the API server does. So it may be stricter than the
// validator, never more lenient; a schema construct it does not know makes
// it vouch for nothing below that node.
type quickNode struct {
	known       bool // false: a construct this check does not know
	typ         string
	intOrString bool
	properties  map[string]*quickNode
	items       *quickNode
	required    []string
	enum        []string
	pattern     *regexp.Regexp
	minLength   int64 // -1: none
	maxLength   int64 // -1: none
	minItems    int64 // -1: none
	maxItems    int64 // -1: none
	minimum     *float64
	maximum     *float64
	exclMin     bool
	exclMax     bool
	int32       bool
}

// newQuickNode prepares s for quick checks.
func newQuickNode(s *structuralschema.Structural) *quickNode {
	n := &quickNode{typ: s.Type, intOrString: s.XIntOrString, minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, known: true}
	switch {
	case s.XEmbeddedResource, s.AdditionalProperties != nil, s.Nullable:
		n.known = false
	case s.Type == "" && !s.XIntOrString:
		n.known = false
	case s.Type != "" && s.Type != "object" && s.Type != "array" && s.Type != "string" && s.Type != "integer" && s.Type != "boolean":
		n.known = false
	}
	if s.Properties != nil {
		n.properties = make(map[string]*quickNode, len(s.Properties))
		for name, p := range s.Properties {
			n.properties[name] = newQuickNode(&p)
		}
	}
	if s.Items != nil {
		n.items = newQuickNode(s.Items)
	}
	if v := s.ValueValidation; v != nil && n.known {
		n.known = n.prepareValues(v)
	}
	return n
}

// prepareValues takes the value rules of v, and says whether it knows them
// all.
func (n *quickNode) prepareValues(v *structuralschema.ValueValidation) bool {
	if v.MultipleOf != nil || v.UniqueItems || v.MaxProperties != nil || v.MinProperties != nil ||
		len(v.AllOf) > 0 || len(v.OneOf) > 0 || v.Not != nil {
		return false
	}
	if len(v.AnyOf) > 0 && !n.intOrStringAnyOf(v.AnyOf) {
		return false
	}
	switch {
	case v.Format == "":
	case n.typ == "integer" && v.Format == "int32":
		n.int32 = true
	case n.typ == "integer" && v.Format == "int64":
	default:
		return false
	}
	if v.Pattern != "" {
		re, err := regexp.Compile(v.Pattern)
		if err != nil {
			return false
		}
		n.pattern = re
	}
	for _, e := range v.Enum {
		s, ok := e.Object.(string)
		if !ok {
			return false
		}
		n.enum = append(n.enum, s)
	}
	if len(v.Enum) > 0 && n.typ != "string" {
		return false
	}
	n.required = v.Required
	for _, lim := range []struct {
		from *int64
		to   *int64
	}{{v.MinLength, &n.minLength}, {v.MaxLength, &n.maxLength}, {v.MinItems, &n.minItems}, {v.MaxItems, &n.maxItems}} {
		if lim.from != nil {
			*lim.to = *lim.from
		}
	}
	n.minimum, n.maximum, n.exclMin, n.exclMax = v.Minimum, v.Maximum, v.ExclusiveMinimum, v.ExclusiveMaximum
	return true
}

// intOrStringAnyOf is true for the anyOf an int-or-string field carries:
// an integer or a string, nothing else.
func (n *quickNode) intOrStringAnyOf(anyOf []structuralschema.NestedValueValidation) bool {
	if !n.intOrString {
		return false
	}
	for _, a := range anyOf {
		t := a.ForbiddenGenerics.Type
		a.ForbiddenGenerics.Type = ""
		if t != "integer" && t != "string" || !reflect.ValueOf(a).IsZero() {
			return false
		}
	}
	return true
}

// valid is true when v certainly satisfies the node's rules.
func (n *quickNode) valid(v any) bool {
	if !n.known || v == nil {
		return false
	}
	if n.intOrString {
		switch v.(type) {
		case int64, string:
		default:
			return false
		}
	}
	switch n.typ {
	case "object":
		m, ok := v.(map[string]any)
		return ok && n.validObject(m)
	case "array":
		a, ok := v.([]any)
		return ok && n.validArray(a)
	case "string":
		s, ok := v.(string)
		return ok && n.validString(s)
	case "integer":
		i, ok := v.(int64)
		return ok && n.validInteger(i)
	case "boolean":
		_, ok := v.(bool)
		return ok
	}
	if s, ok := v.(string); ok {
		return n.validString(s)
	}
	return n.validInteger(v.(int64))
}

func (n *quickNode) validObject(m map[string]any) bool {
	for _, r := range n.required {
		if _, ok := m[r]; !ok {
			return false
		}
	}
	for name, p := range n.properties {
		if v, ok := m[name]; ok && !p.valid(v) {
			return false
		}
	}
	return true
}

func (n *quickNode) validArray(a []any) bool {
	if n.minItems >= 0 && int64(len(a)) < n.minItems || n.maxItems >= 0 && int64(len(a)) > n.maxItems {
		return false
	}
	if n.items == nil {
		return len(a) == 0
	}
	for _, v := range a {
		if !n.items.valid(v) {
			return false
		}
	}
	return true
}

func (n *quickNode) validString(s string) bool {
	if n.minLength >= 0 || n.maxLength >= 0 {
		l := int64(utf8.RuneCountInString(s))
		if n.minLength >= 0 && l < n.minLength || n.maxLength >= 0 && l > n.maxLength {
			return false
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		return false
	}
	if len(n.enum) > 0 {
		for _, e := range n.enum {
			if s == e {
				return true
			}
		}
		return false
	}
	return true
}

func (n *quickNode) validInteger(i int64) bool {
	if n.int32 && (i < math.MinInt32 || i > math.MaxInt32) {
		return false
	}
	f := float64(i)
	if n.minimum != nil && (f < *n.minimum || n.exclMin && f == *n.minimum) {
		return false
	}
	if n.maximum != nil && (f > *n.maximum || n.exclMax && f == *n.maximum) {
		return false
	}
	return true
}
