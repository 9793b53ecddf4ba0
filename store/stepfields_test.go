package store

import (
	"reflect"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/model/modeltest"
)

// The step body, the trace hash and the NUL check write model.Step's
// fields out by hand. Each field of Step, found by reflection and set on
// its own, must come back from the body, move the hash as json.Marshal
// would, and be looked at by the NUL check: a field added to Step and
// forgotten in one of them fails here.
func TestEveryStepFieldIsStored(t *testing.T) {
	fields, all, err := modeltest.StepFields()
	if err != nil {
		t.Fatal(err)
	}
	if len(stepBodyFields) != len(fields) {
		t.Errorf("stepBodyFields names %d fields, model.Step has %d", len(stepBodyFields), len(fields))
	}
	steps := []model.Step{all}
	for _, f := range fields {
		steps = append(steps, f.Step)
	}
	empty := traceSHA(&model.Trace{TraceID: "t", Steps: []model.Step{{}}})
	for i, st := range steps {
		name := "all fields"
		if i > 0 {
			name = fields[i-1].Name
		}
		body := stepsBody([]model.Step{st})
		if n := stepsBodyLen([]model.Step{st}); n != len(body) {
			t.Errorf("%s: stepsBodyLen %d, body is %d bytes", name, n, len(body))
		}
		back, err := decodeStepsBody(body, nil)
		if err != nil || len(back) != 1 || !reflect.DeepEqual(back[0], st) {
			t.Errorf("%s: the step body lost it: %s\ngave %#v (%v)\nwant %#v", name, body, back, err, st)
		}
		tr := &model.Trace{TraceID: "t", Steps: []model.Step{st}}
		if got, want := traceSHA(tr), contentSHA(tr); got != want {
			t.Errorf("%s: traceSHA %s, json.Marshal's hash %s: sha.go's step encoder ignores it", name, got, want)
		} else if got == empty {
			t.Errorf("%s: the trace hash does not change with it", name)
		}
	}
	// Stored hashes never change: this trace's hash is pinned.
	if got, want := traceSHA(&model.Trace{TraceID: "t", Steps: []model.Step{all}}), pinnedAllStepSHA; got != want {
		t.Errorf("the hash of a step with every field set moved: %s, was %s; every stored trace would rescore", got, want)
	}
	for _, f := range fields {
		if reflect.ValueOf(f.Step).FieldByName(f.Name).Kind() != reflect.String {
			continue
		}
		st := f.Step
		reflect.ValueOf(&st).Elem().FieldByName(f.Name).SetString("a\x00b")
		if got, want := nulPath(&model.Trace{TraceID: "t", Steps: []model.Step{{}, st}}), "steps[1]."+f.JSON; got != want {
			t.Errorf("%s: nulPath %q, want %q: ingest.go's NUL check ignores it", f.Name, got, want)
		}
	}
}

const pinnedAllStepSHA = "e0374da9f5d7e93f526acae42fab493977c81a0f28d01421b9323f57fec91b8f"
