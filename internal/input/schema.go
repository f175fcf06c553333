package input

import (
	"context"
	"fmt"
	"sync"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"sigs.k8s.io/yaml"

	"github.com/routeshift/routeshift/manifests"
)

// crdFile is the generated Route CRD, embedded in the binary.
const crdFile = "crd/route.openshift.io_routes.yaml"

// schema is what the API server makes of a CRD version to decode and
// validate its objects: the structural schema (pruning, defaulting, list
// types, CEL rules) and the OpenAPI validator (types, patterns, enums,
// lengths).
type schema struct {
	structural *structuralschema.Structural
	validator  apiextensionsvalidation.SchemaValidator
	// quick vouches for most objects without the validator, whose cost is
	// most of a translation's.
	quick *quickNode
	cel   *cel.Validator
	// status is true when the CRD has a status subresource: the API server
	// then drops status on create.
	status bool
}

// routeSchema is the Route CRD's v1 schema, built once.
var routeSchema = sync.OnceValues(func() (*schema, error) {
	data, err := manifests.FS.ReadFile(crdFile)
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		return nil, fmt.Errorf("manifests/%s: %w", crdFile, err)
	}
	return newSchema(crd, "v1")
})

// newSchema prepares version of crd as the API server's CRD handler does.
func newSchema(crd *apiextensionsv1.CustomResourceDefinition, version string) (*schema, error) {
	for _, v := range crd.Spec.Versions {
		if v.Name != version || v.Schema == nil {
			continue
		}
		internal := &apiextensionsinternal.CustomResourceValidation{}
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, internal, nil); err != nil {
			return nil, err
		}
		s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
		if err != nil {
			return nil, fmt.Errorf("CRD %s %s: %w", crd.Name, version, err)
		}
		if err := structuraldefaulting.PruneDefaults(s); err != nil {
			return nil, err
		}
		validator, _, err := apiextensionsvalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
		if err != nil {
			return nil, err
		}
		return &schema{structural: s, validator: validator, quick: newQuickNode(s), cel: cel.NewValidator(s, true, celconfig.PerCallLimit),
			status: v.Subresources != nil && v.Subresources.Status != nil}, nil
	}
	return nil, fmt.Errorf("CRD %s has no schema for version %s", crd.Name, version)
}

// coerce does to a decoded object what the API server does before anyone
// else sees it: metadata is read as ObjectMeta, fields the schema does not
// know are dropped (their paths are returned, in the API server's order),
// non-nullable nulls are dropped and defaults applied.
func (s *schema) coerce(obj map[string]any) ([]string, error) {
	meta, found, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(obj, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return nil, err
	}
	apiVersion, kind := obj["apiVersion"], obj["kind"]
	unknown = append(unknown, structuralpruning.PruneWithOptions(obj, s.structural, true,
		structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, s.structural)
	ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, obj, s.structural, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	if ferr != nil {
		return nil, ferr
	}
	unknown = append(unknown, paths...)
	obj["apiVersion"], obj["kind"] = apiVersion, kind
	if found {
		if err := schemaobjectmeta.SetObjectMeta(obj, meta); err != nil {
			return nil, err
		}
	}
	structuraldefaulting.Default(obj, s.structural)
	return unknown, nil
}

// validate makes the checks the API server makes on create after the
// mutating webhooks: object metadata, the OpenAPI schema, embedded
// resources, list types and CEL rules. A status is dropped first when the
// CRD has a status subresource, as the API server drops it. meta is obj's
// metadata, decoded.
func (s *schema) validate(ctx context.Context, obj map[string]any, meta *metav1.ObjectMeta) field.ErrorList {
	if s.status {
		delete(obj, "status")
	}
	errs := validateMetadata(ctx, meta)
	if !s.quick.valid(obj) {
		errs = append(errs, apiextensionsvalidation.ValidateCustomResource(nil, obj, s.validator)...)
	}
	errs = append(errs, schemaobjectmeta.Validate(ctx, nil, obj, s.structural, false)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, s.structural, obj)...)
	if s.cel == nil {
		return errs
	}
	if blocking := blockingError(errs); blocking != nil {
		return append(errs, blocking)
	}
	celErrs, _ := s.cel.Validate(ctx, nil, s.structural, obj, nil, celconfig.RuntimeCELCostBudget)
	return append(errs, celErrs...)
}

// validateMetadata checks metadata as the API server checks that of a
// namespaced custom resource.
func validateMetadata(ctx context.Context, meta *metav1.ObjectMeta) field.ErrorList {
	path := field.NewPath("metadata")
	return validation.ValidateObjectMetaDeclaratively(ctx, operation.Create, meta, nil, true, validation.NameIsDNSSubdomain, path,
		utilfeature.DefaultFeatureGate.Enabled(features.DeclarativeValidationBeta))
}

// blockingError is the error the API server adds instead of running CEL
// rules on an object that already fails a type, length, count, enum or
// required check.
func blockingError(errs field.ErrorList) *field.Error {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")
		}
	}
	return nil
}
