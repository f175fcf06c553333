package input

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/storage/names"
	kjson "sigs.k8s.io/json"

	"github.com/routeshift/routeshift/routecore"
)

// Decode decodes a built-in object (a Service, Secret, Ingress…) into out
// as the API server decodes a request body, and leaves it as the API server
// would store it (a Secret's stringData merged into data). It returns what
// the API server's strict decoding reports: unknown fields, which are
// dropped, and fields given twice, of which the last wins. The API server
// warns about these by default and refuses the object with
// fieldValidation=Strict (kubectl --validate=strict).
func Decode(o Object, out any) ([]string, error) {
	if o.Err != nil {
		return nil, o.Err
	}
	strictErrs, err := kjson.UnmarshalStrict(o.JSON, out, kjson.DisallowUnknownFields, kjson.DisallowDuplicateFields)
	if err != nil {
		return nil, fmt.Errorf("%s: %s %s: %v", o.Source, o.APIVersion, o.Kind, err)
	}
	if s, ok := out.(*corev1.Secret); ok {
		mergeStringData(s)
	}
	return append(slices.Clone(o.Strict), errorStrings(strictErrs)...), nil
}

// mergeStringData does what the API server does with a Secret's
// stringData: each key is written into data, over the same key there, and
// stringData is not stored.
func mergeStringData(s *corev1.Secret) {
	if len(s.StringData) == 0 {
		return
	}
	if s.Data == nil {
		s.Data = make(map[string][]byte, len(s.StringData))
	}
	for k, v := range s.StringData {
		s.Data[k] = []byte(v)
	}
	s.StringData = nil
}

// DecodeRoute decodes a Route as the API server decodes a custom resource:
// by the Route CRD's schema, which drops the fields it does not know and
// fills in its defaults. It returns what strict decoding reports, as
// Decode does. The object's apiVersion is not checked here.
func DecodeRoute(o Object, out *routecore.Route) ([]string, error) {
	if o.Err != nil {
		return nil, o.Err
	}
	s, err := routeSchema()
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	strictErrs, err := kjson.UnmarshalStrict(o.JSON, &obj)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", o.Source, err)
	}
	obj["apiVersion"], obj["kind"] = routecore.GroupVersion.String(), "Route"
	unknown, err := s.coerce(obj)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", o.Source, err)
	}
	js, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(js, out); err != nil {
		return nil, fmt.Errorf("%s: %v", o.Source, err)
	}
	strict := append(slices.Clone(o.Strict), errorStrings(strictErrs)...)
	for _, path := range unknown {
		strict = append(strict, fmt.Sprintf("unknown field %q", path))
	}
	return strict, nil
}

// ValidateRoute makes the checks the API server makes on a Route after the
// mutating webhooks and before storing it: object metadata and the CRD's
// schema (types, patterns, enums, lengths, rules). Errors are in the API
// server's words. A Route with only metadata.generateName is checked under
// a name generated as the API server would.
func ValidateRoute(ctx context.Context, r *routecore.Route) (field.ErrorList, error) {
	obj, err := RouteObject(r)
	if err != nil {
		return nil, err
	}
	return ValidateRouteObject(ctx, r, obj)
}

// RouteObject is r as the JSON object the API server receives. It is
// what encoding r as JSON and decoding it gives (integers as int64), made
// without the encoding: certificates and keys made most of its cost.
func RouteObject(r *routecore.Route) (map[string]any, error) {
	return runtime.DefaultUnstructuredConverter.ToUnstructured(r)
}

// ValidateRouteObject is ValidateRoute of r with obj, r as RouteObject
// returns it, which it leaves as it was.
func ValidateRouteObject(ctx context.Context, r *routecore.Route, obj map[string]any) (field.ErrorList, error) {
	s, err := routeSchema()
	if err != nil {
		return nil, err
	}
	obj = maps.Clone(obj) // validate drops status, as the API server does
	meta := &r.ObjectMeta
	if r.Name == "" && r.GenerateName != "" {
		meta = meta.DeepCopy()
		meta.Name = names.SimpleNameGenerator.GenerateName(r.GenerateName)
		m, _ := obj["metadata"].(map[string]any)
		m = maps.Clone(m)
		m["name"] = meta.Name
		obj["metadata"] = m
	}
	return s.validate(ctx, obj, meta), nil
}
