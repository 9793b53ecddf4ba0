package tui

import (
	"context"
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
)

// TestGoldenScreens snapshots the layout of every main screen at the
// smallest supported size and a wide one, without colour codes so a diff
// reads as the screen (TestGoldenThemes keeps one coloured frame per
// theme). go test ./tui -run TestGoldenScreens -update regenerates
// testdata/TestGoldenScreens/*.golden.
func TestGoldenScreens(t *testing.T) {
	screens := []struct {
		name      string
		keys      []string
		unlabeled bool // on the traces alone, without the gold cases
	}{
		{"queue", nil, false},
		{"queue_filter_dialog", []string{"f", "j", "space"}, false},
		{"queue_filtered", []string{"f", "j", "space", "enter"}, false},
		{"trace", []string{"enter"}, false},
		{"trace_marker", []string{"enter", "]"}, false},
		{"trace_scoring", []string{"enter", "tab", "tab", "j", "j", "j"}, false},
		{"trace_unlabeled", []string{"enter"}, true},
		// trace_e7c3b5 on the traces alone: suggested gold from the
		// task-specific trace of its question, whose tool's contract
		// encodes the definition (issue 26: it showed "suggested none").
		{"trace_contract_peer", []string{"/", "e", "7", "c", "3", "b", "5", "enter", "enter"}, true},
		{"trace_accepted", []string{"enter", "a"}, true},
		{"trace_suggested_gold", []string{"/", "2", "d", "8", "f", "6", "1", "enter", "enter"}, false},
		{"trace_sql_step", []string{"enter", "j", "j", "j", "j", "j", "j"}, false},
		{"trace_result_step", []string{"enter", "j", "j", "j", "j", "j", "j", "j"}, false},
		{"report_scrolled", []string{"R", "j", "j", "j", "j"}, false},
		{"gold_editor", []string{"enter", "e"}, false},
		{"gold_editor_discard", []string{"enter", "e", "tab", "0", "esc"}, false},
		{"trace_confirm_ask", []string{"enter", "enter"}, true},
		{"report", []string{"R"}, false},
		{"help", []string{"enter", "?"}, false},
	}
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		for _, sc := range screens {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				// Each screen starts from a fresh database.
				st, _ := openStore(t, !sc.unlabeled)
				d := newDriver(t, st, size[0], size[1])
				d.keys(sc.keys...)
				golden.RequireEqual(t, d.plain())
			})
		}
	}
}

// TestGoldenThemes snapshots the trace screen with a marker in colour, in
// every theme: each palette's styles, the marker and the selection.
func TestGoldenThemes(t *testing.T) {
	for _, theme := range []string{"dark", "light", "high-contrast", "no-color"} {
		t.Run(theme, func(t *testing.T) {
			st, _ := openFixtureStore(t)
			m := New(st, Options{Labeler: "tester", Theme: theme, StatusTTL: -1})
			d := &driver{t: t, m: m}
			d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
			d.run(m.Init())
			d.keys("enter", "]")
			golden.RequireEqual(t, d.view())
		})
	}
}

// disagree has two colleagues label a trace apart, as two labelers of a
// team would: both say correct, ana says the class is semantic and ben
// temporal, and ana confirms hers. The trace then awaits adjudication.
func disagree(t testing.TB, eng *app.Engine, id string) {
	t.Helper()
	ctx := context.Background()
	for _, r := range []struct {
		who   string
		class model.FailureClass
	}{{"ana", model.ClassSemantic}, {"ben", model.ClassTemporal}} {
		if _, err := eng.Labels.ToggleCorrect(ctx, id, r.who); err != nil {
			t.Fatal(err)
		}
		c := r.class
		if _, err := eng.Labels.SetClass(ctx, id, r.who, &c); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := eng.Labels.ConfirmLabel(ctx, id, "ana", true); err != nil {
		t.Fatal(err)
	}
}

// TestGoldenRaters snapshots adjudication at both sizes: the queue of
// disagreements, the trace with each rater's label side by side, the
// adjudication dialog, the label editor, and the report's progress per
// labeler.
func TestGoldenRaters(t *testing.T) {
	screens := []struct {
		name string
		keys []string
	}{
		{"queue_disagreements", []string{"d"}},
		{"trace_raters", []string{"d", "enter"}},
		{"adjudicate_dialog", []string{"d", "enter", "A"}},
		{"label_editor", []string{"d", "enter", "A", "e"}},
		{"trace_adjudicated", []string{"d", "enter", "A", "2"}},
		{"report_progress", []string{"R"}},
	}
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		for _, sc := range screens {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				st, _ := openStore(t, false)
				disagree(t, st, "trace_9f31c2")
				d := newDriver(t, st, size[0], size[1])
				d.keys(sc.keys...)
				golden.RequireEqual(t, d.plain())
			})
		}
	}
}
