package tui

import (
	"context"
	"encoding/json"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/tracelab-dev/tracelab/app"
)

// A gold edit rescores the trace, so the scoring panel follows the gold:
// making every field the seed's Server A used required turns its
// precision from 0 to 1 on screen.
func TestGoldEditRescoresTheTrace(t *testing.T) {
	st, _ := openUnlabeledStore(t)
	ctx := context.Background()
	m := New(st, Options{Labeler: "tester", Theme: "dark", StatusTTL: -1})
	d := &driver{t: t, m: m}
	d.send(tea.WindowSizeMsg{Width: 160, Height: 48})
	d.run(m.Init())
	const id = "trace_9f31c2"
	d.run(d.m.env.openTrace(id))
	if d.m.trace.id != id || d.m.trace.score == nil {
		t.Fatalf("trace not open with a score")
	}
	var used []string
	for _, f := range d.m.trace.score.FieldsUsed {
		used = append(used, f.Field)
	}
	if len(used) == 0 {
		t.Fatal("the score lists no fields used")
	}
	raw, _ := json.Marshal(used)
	d.run(d.m.trace.enqueue(d.m, editFields(id, []app.FieldEdit{{Field: "gold.required_fields", Value: raw},
		{Field: "gold.forbidden_fields", Value: json.RawMessage(`[]`)}})))
	p := d.m.trace.score.GroundingPrecision
	if p == nil || *p != 1 {
		t.Fatalf("precision after the gold edit = %v, want 1", p)
	}
	stored, err := st.Scores.Of(ctx, id)
	if err != nil || stored == nil || stored.GroundingPrecision == nil || *stored.GroundingPrecision != 1 {
		t.Fatalf("stored score not refreshed: %+v, %v", stored, err)
	}
	// Undoing the save (one action, both fields) rescores too.
	d.run(d.m.trace.enqueue(d.m, undoAction(id)))
	if p := d.m.trace.score.GroundingPrecision; p != nil && *p == 1 {
		t.Errorf("undo left the rescored precision in place")
	}
}
