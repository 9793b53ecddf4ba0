package importers

import (
	"encoding/json"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/model/modeltest"
)

// Each field of model.Step, found by reflection and written by
// json.Marshal, is read by the native decoder (go-json-experiment/json in
// encoding/json's semantics) as json.Unmarshal reads it.
func TestDecodeNativeReadsEveryStepField(t *testing.T) {
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
		if !assertDecodeAsUnmarshal(t, line) {
			name := "all fields"
			if i > 0 {
				name = fields[i-1].Name
			}
			t.Errorf("%s: decodeNative does not read %s", name, line)
		}
	}
}
