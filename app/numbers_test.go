package app

import (
	"context"
	"path/filepath"
	"reflect"
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
		if _, err := e.ToggleCorrect(ctx, id, "ana"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.ConfirmLabel(ctx, id, "ana", true); err != nil {
		t.Fatal(err)
	}
	reps, err := e.Report(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	row := serverRow(reps, "generic-warehouse")
	if row == nil || row.Cases != 1 {
		t.Fatalf("report: generic-warehouse row %+v, want 1 case", row)
	}
	res, err := e.Export(ctx, ExportOptions{Dir: filepath.Join(t.TempDir(), "suite")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Cases != 1 || !reflect.DeepEqual(res.Reports, reps) {
		t.Errorf("export wrote %d cases, report %+v\nwant report's %+v", res.Cases, res.Reports, reps)
	}
}
