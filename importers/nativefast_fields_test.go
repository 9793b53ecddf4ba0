package importers

import (
	"encoding/json"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/model/modeltest"
)

// The fast native decoder names model.Step's fields by hand. Each field of
// Step, found by reflection and written by json.Marshal, must be read
// fast and as json.Unmarshal reads it: a field added to Step and
// forgotten in nativefast.go would send every line to the slow path.
func TestDecodeNativeFastReadsEveryStepField(t *testing.T) {
	fields, all, err := modeltest.StepFields()
	if err != nil {
		t.Fatal(err)
	}
	steps := []model.Step{all}
	for _, f := range fields {
		steps = append(steps, f.Step)
	}
	for i, st := range steps {
		line, err := json.Marshal(model.Trace{TraceID: "t", Question: "q", Steps: []model.Step{st}})
		if err != nil {
			t.Fatal(err)
		}
		if !assertFastAsUnmarshal(t, line) {
			name := "all fields"
			if i > 0 {
				name = fields[i-1].Name
			}
			t.Errorf("%s: nativefast.go does not read %s", name, line)
		}
	}
}
