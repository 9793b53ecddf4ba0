package app

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// serverRow returns the report row of server, nil when there is none.
func serverRow(reps []model.Report, server string) *model.Report {
	for i := range reps {
		if reps[i].Server == server {
			return &reps[i]
		}
	}
	return nil
}

// The repro: the second generic-warehouse trace confirmed
// without touching its suggested gold (`c c enter`) is a confirmed case,
// counted by report as export counts it.
func TestConfirmedMachineGoldIsCounted(t *testing.T) {
	ctx := context.Background()
	e := labelEngine(t)
	const id = "trace_5c0d91"
	for range 2 {
		if _, err := e.Labels.ToggleCorrect(ctx, id, "ana"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Labels.ConfirmLabel(ctx, id, "ana", true); err != nil {
		t.Fatal(err)
	}
	reps, err := e.Suite.Report(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	row := serverRow(reps, "generic-warehouse")
	if row == nil || row.Cases != 1 {
		t.Fatalf("report: generic-warehouse row %+v, want 1 case", row)
	}
	res, err := e.Suite.Export(ctx, ExportOptions{Dir: filepath.Join(t.TempDir(), "suite")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Cases != 1 || !reflect.DeepEqual(res.Reports, reps) {
		t.Errorf("export wrote %d cases, report %+v\nwant report's %+v", res.Cases, res.Reports, reps)
	}
}

// The repro of a relative window: in the demo (the bundled cases
// but the generic-warehouse server's), trace_27f6e9 asks "closing this
// month" on 2026-09-03 and was offered trace_41d7b8's August window; the
// window is now its own September, and the peer with September gold
// (trace_90a4c6) is the one reused.
func TestSuggestedWindowIsTheTracesOwn(t *testing.T) {
	ctx := context.Background()
	e := labelEngine(t)
	data, err := os.ReadFile("../testdata/cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if !strings.Contains(l, `"server":"generic-warehouse"`) {
			keep = append(keep, l)
		}
	}
	res, err := e.Imports.Reader(ctx, strings.NewReader(strings.Join(keep, "\n")+"\n"), "cases.jsonl", ImportOptions{})
	if err == nil {
		_, err = e.Imports.AfterImport(ctx, res.ToScore, false)
	}
	if err != nil {
		t.Fatal(err)
	}
	_, _, sugg, err := e.evaluateOne(ctx, "trace_27f6e9", nil)
	if err != nil {
		t.Fatal(err)
	}
	w := sugg.Gold.Window
	if w == nil || w.Start != "2026-09-01" || w.End != "2026-09-30" {
		t.Errorf("trace_27f6e9 is offered the window %+v, want 2026-09-01..2026-09-30", w)
	}
	for _, s := range sugg.Sources {
		if strings.Contains(s, "trace_41d7b8") {
			t.Errorf("the August peer's gold is reused: %s", s)
		}
	}
}
