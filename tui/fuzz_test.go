package tui

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracelab-dev/tracelab/app"
	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/scoring"
)

// FuzzMarkedText feeds untrusted step text and marker offsets (as a
// scorer might report them, right or wrong) through the marker renderer
// and the wrapper: no panic, valid UTF-8 out, and nothing reaches the
// terminal but the styles the workbench itself draws.
func FuzzMarkedText(f *testing.F) {
	f.Add("is_active sounds like the right flag", 13, 24, 30)
	f.Add("\x1b]0;owned\x07 probably \x1b[2J", 14, 22, 12)
	f.Add("bad utf8 \xff\xfe probably", 15, 23, 8)
	f.Add("顧客 📊 I will assume", 12, 25, 5)
	f.Add("\x9b31m C1 CSI \r\n overwrite", -3, 400, 1)
	sty := newTestStyles()
	f.Fuzz(func(t *testing.T, text string, start, end, width int) {
		marks := []scoring.Marker{{Step: 0, Start: start, End: end}}
		out := markedText(&sty, text, marks, 0)
		if width < 1 || width > 500 {
			width = 40
		}
		lines := wrapLines(strings.Split(out, "\n"), width)
		for _, l := range lines {
			if !utf8.ValidString(l) {
				t.Fatalf("invalid UTF-8: %q", l)
			}
			rest := sgr.ReplaceAllString(l, "")
			if i := strings.IndexFunc(rest, func(r rune) bool {
				return r < 0x20 && r != '\t' || r == 0x7f || (r >= 0x80 && r <= 0x9f)
			}); i >= 0 {
				t.Fatalf("control character %q left in %q", rest[i], l)
			}
		}
	})
}

// FuzzDecodeScore: a stored score is data too; a corrupt one is an error,
// never a panic, and the panel draws whatever decodes.
func FuzzDecodeScore(f *testing.F) {
	f.Add(`{"markers":[{"step":0,"start":1,"end":3}],"fields_used":[{"field":"a.b","status":"forbidden"}]}`)
	f.Add(`{"classes":[{"class":"semantic","evidence":[{"step":-1,"reason":"\u001b[2J"}]}]}`)
	f.Add(`not json`)
	sty := newTestStyles()
	f.Fuzz(func(t *testing.T, raw string) {
		sv, err := app.DecodeScore([]byte(raw))
		if err != nil || sv == nil {
			return
		}
		ts := newTraceScreen(&env{})
		ts.t = sampleTrace()
		ts.score = sv
		ts.buildItems()
		_ = ts.view(&sty, 120, 30)
		for _, dir := range []int{1, -1} {
			ts.jumpMarker(dir, 60, &sty)
			_ = ts.view(&sty, 80, 24)
		}
	})
}

// FuzzLayoutSQL: laying out a statement from a trace only moves white
// space; every word and quoted string stays as written.
func FuzzLayoutSQL(f *testing.F) {
	f.Add("SELECT count(*) FROM customers c WHERE c.a = 1 AND c.b LIKE 'EU%'")
	f.Add("select 'it''s FROM' from t where (a or b) and c")
	f.Add("WITH x AS (SELECT 1) SELECT * FROM x UNION ALL SELECT 2 ORDER BY 1 LIMIT 3")
	f.Add("SELECT \"FROM\" FROM `t` WHERE x = 'unterminated")
	f.Fuzz(func(t *testing.T, sql string) {
		got := layoutSQL(sql)
		if strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(sql), " ") {
			t.Fatalf("layoutSQL changed more than white space:\n%q\n%q", sql, got)
		}
	})
}

// FuzzRatersBlock: rater names, notes, judge rationales and timestamps come
// from other labelers' files and judges' output. The raters block and the
// adjudication dialog draw them with no control character left, every
// line exactly as wide as asked.
func FuzzRatersBlock(f *testing.F) {
	f.Add("ana", "\x1b]0;owned\x07 note", "2026-08-20T09:00:00Z", 80)
	f.Add("judge:\x9b31m", "\r\n overwrite \x1b[2J", "not a time", 160)
	f.Add("顧客 📊", "bad utf8 \xff\xfe", "", 41)
	sty := newTestStyles()
	f.Fuzz(func(t *testing.T, name, note, at string, width int) {
		if width < minWidth || width > 400 {
			width = 80
		}
		yes := true
		ts := newTraceScreen(&env{})
		ts.raters = &app.TraceRaters{TraceID: "t1", CaseID: name, Labels: []app.RaterLabel{
			{Rater: name, Kind: model.RaterHuman, Label: model.Label{Correct: &yes, Note: note}, UpdatedAt: at},
			{Rater: "ben", Kind: model.RaterJudge, Rationale: note, UpdatedAt: at},
		}, Adjudication: &model.Adjudication{By: name, Note: note, At: at, Picked: name}}
		block := ts.ratersLines(&sty, width, true)
		for i, l := range block {
			if ansi.StringWidth(l) != width {
				t.Fatalf("line %d is %d wide, want %d: %q", i, ansi.StringWidth(l), width, l)
			}
		}
		dialog := strings.Split(newAdjudicateDialog(*ts.raters).view(&sty, width, 24), "\n")
		for _, l := range append(block, dialog...) {
			rest := sgr.ReplaceAllString(l, "")
			if !utf8.ValidString(l) {
				t.Fatalf("invalid UTF-8: %q", l)
			}
			if j := strings.IndexFunc(rest, func(r rune) bool {
				return r < 0x20 && r != '\t' || r == 0x7f || (r >= 0x80 && r <= 0x9f)
			}); j >= 0 {
				t.Fatalf("control character %q left in %q", rest[j], l)
			}
		}
	})
}
