package tui

import (
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

// TestProgramConfirmUntouchedGoldThenReport is the issue 26 repro in the
// real program: on the demo's data, open trace_5c0d91 (generic warehouse,
// whose cases the demo leaves out), press c c enter without touching its
// suggested gold, and open the Report screen: the generic-warehouse
// column is there and counts that one case. Before, a case confirmed with
// the machine's gold was not counted and the column was missing.
func TestProgramConfirmUntouchedGoldThenReport(t *testing.T) {
	eng := openDemoLikeStore(t)
	const id = "trace_5c0d91"
	p := newProgram(t, eng, Options{}, 160, 48)
	p.waitFor("33 traces")
	p.openByID(id)
	before := p.eventually(id, "the suggested case", func(r *app.CaseRecord) bool { return r.Status == model.StatusSuggested })
	p.send("c", "c", "enter")
	p.eventually(id, "confirmed", func(r *app.CaseRecord) bool { return r.Status == model.StatusConfirmed })
	p.send("R")
	frame := p.waitScreen("the Report screen with the generic warehouse", func(f string) bool {
		return strings.Contains(f, "generic-warehouse") && lineWith(f, "cases") != ""
	})
	header, cases := lineWith(frame, "generic-warehouse"), lineWith(frame, " cases")
	col := strings.Index(header, "generic-warehouse")
	if col >= 0 {
		col = len([]rune(header[:col])) // in cells: the frame has one rune per cell
	}
	if col < 0 || cases == "" {
		t.Fatalf("no generic-warehouse column or cases row on the Report screen:\n%s", frame)
	}
	// The cases row's figure under the generic-warehouse header.
	if got := strings.Fields(cutColumns(cases, col, col+len("generic-warehouse"))); len(got) != 1 || got[0] != "1" {
		t.Errorf("generic-warehouse cases %q, want 1:\n%s", got, frame)
	}
	fm := p.quit()
	if fm.screen != screenReport {
		t.Errorf("final screen %d, want the Report", fm.screen)
	}
	after, err := eng.Traces.CaseForTrace(t.Context(), id)
	if err != nil || after.GoldOrigin != before.GoldOrigin {
		t.Errorf("the gold was touched: origin %q, was %q (%v)", after.GoldOrigin, before.GoldOrigin, err)
	}
}

// cutColumns is line's text between the display columns from and to (runes,
// as the plain frame has one rune per cell).
func cutColumns(line string, from, to int) string {
	r := []rune(line)
	if from > len(r) {
		return ""
	}
	return string(r[from:min(to, len(r))])
}
