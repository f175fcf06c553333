package routecore

import (
	"errors"
	"reflect"
	"strings"

	"github.com/go-playground/validator/v10"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// fieldRules evaluates the declarative single-field rules written as
// `validate` struct tags on the API types (kind, name and weight of a
// backend). Cross-field rules are written in Go in validation.go.
var fieldRules = func() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		return name
	})
	return v
}()

// ruleError is the field error, in OpenShift's words, for a failed tag.
type ruleError func(path *field.Path, value any) *field.Error

// ruleErrors maps "<json field>/<tag>" to its error. Every tag used on the
// API types must be listed; a missing entry is a programming error reported
// as an internal error so it cannot pass silently.
var ruleErrors = map[string]ruleError{
	"name/required": func(p *field.Path, _ any) *field.Error { return field.Required(p, "") },
	"kind/eq":       func(p *field.Path, v any) *field.Error { return field.Invalid(p, v, "must reference a Service") },
	"weight/min":    weightError,
	"weight/max":    weightError,
}

func weightError(p *field.Path, v any) *field.Error {
	return field.Invalid(p, v, "weight must be an integer between 0 and 256")
}

// structRules runs the tag rules of obj (a pointer to an API struct) and
// returns their errors under fldPath, in field order.
func structRules(obj any, fldPath *field.Path) field.ErrorList {
	err := fieldRules.Struct(obj)
	if err == nil {
		return nil
	}
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return field.ErrorList{field.InternalError(fldPath, err)}
	}
	errs := make(field.ErrorList, 0, len(verrs))
	for _, fe := range verrs {
		path := fldPath.Child(fe.Field())
		if mk, ok := ruleErrors[fe.Field()+"/"+fe.Tag()]; ok {
			errs = append(errs, mk(path, fe.Value()))
		} else {
			errs = append(errs, field.InternalError(path, errors.New("no message for rule "+fe.Tag())))
		}
	}
	return errs
}
