// Package modeltest holds what tests of several packages need to know
// about the model's types.
package modeltest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
)

// StepField is one field of model.Step: its Go name, its JSON name, and a
// step with only that field set to a value of its own.
type StepField struct {
	Name, JSON string
	Step       model.Step
}

// StepFields lists every field of model.Step, found by reflection, each
// set to a distinct non-zero value, and a step with all of them set. The
// store's step body, the trace hash, the NUL check and the fast native
// decoder each write Step's fields out by hand: their tests run over this
// list, so a field added to Step that one of them ignores fails a test
// instead of being dropped or left out of the hash. A field of a type
// this function does not know is an error: teach it here, and the
// encoders.
func StepFields() (fields []StepField, all model.Step, err error) {
	typ := reflect.TypeFor[model.Step]()
	allV := reflect.ValueOf(&all).Elem()
	for i := range typ.NumField() {
		f := typ.Field(i)
		var st model.Step
		v := reflect.ValueOf(&st).Elem().Field(i)
		switch {
		case f.Type == reflect.TypeFor[json.RawMessage]():
			v.SetBytes([]byte(fmt.Sprintf(`{"field":%d,"s":"v\"%d"}`, i, i)))
		case f.Type.Kind() == reflect.String:
			// A quote and a control byte make each escaper work.
			v.SetString(fmt.Sprintf("%s-%d \"\t√", strings.ToLower(f.Name), i))
		case f.Type.Kind() == reflect.Bool:
			v.SetBool(true)
		default:
			return nil, model.Step{}, fmt.Errorf("model.Step.%s is a %s, which modeltest.StepFields does not know: teach it, and every hand-written step encoder", f.Name, f.Type)
		}
		allV.Field(i).Set(v)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		fields = append(fields, StepField{Name: f.Name, JSON: name, Step: st})
	}
	return fields, all, nil
}
