package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/app"
)

// searchTraces are two traces, one whose reasoning carries a terminal
// escape sequence next to the identifier it guesses.
const searchTraces = `{"trace_id":"s1","server":"a","question":"How many active customers?","outcome":"pass","steps":[{"kind":"reasoning","text":"\u001b[2J\u001b]0;pwned\u0007is_active sounds like the flag"},{"kind":"tool_call","id":"c1","tool":"run_sql","args":{"sql":"SELECT count(*) FROM customers WHERE is_active"}},{"kind":"answer","text":"12"}]}
{"trace_id":"s2","server":"b","question":"Which regions?","outcome":"pass","steps":[{"kind":"tool_call","id":"c1","tool":"run_sql","args":{"sql":"SELECT DISTINCT region_code FROM customers"}},{"kind":"answer","text":"EMEA"}]}
`

func TestCLISearch(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	if _, errs, code := run(t, "import", "--db", db, "--no-score", writeIn(t, dir, "s.jsonl", searchTraces)); code != 0 {
		t.Fatal(errs)
	}
	out, errs, code := run(t, "search", "--db", db, "is_active")
	if code != 0 || !strings.Contains(out, "s1     0     reasoning  is_active sounds like the flag") ||
		!strings.Contains(out, "s1     1     tool_call") || !strings.Contains(out, "2 hits") {
		t.Fatalf("search: %d %q %q", code, out, errs)
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("an escape sequence reached the terminal: %q", out)
	}
	out, _, code = run(t, "search", "--db", db, "--format", "json", "customers")
	var hits []map[string]any
	if err := json.Unmarshal([]byte(out), &hits); code != 0 || err != nil {
		t.Fatalf("json: %d %v %q", code, err, out)
	}
	var got []string
	for _, h := range hits {
		got = append(got, h["trace_id"].(string)+" "+h["kind"].(string)+" "+jsonStep(h["step"]))
	}
	if want := []string{"s1 question -", "s1 tool_call 1", "s2 tool_call 0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("json hits %v, want %v", got, want)
	}
	out, _, _ = run(t, "search", "--db", db, "--server", "b", "customers")
	if !strings.Contains(out, "s2") || strings.Contains(out, "s1") {
		t.Errorf("--server b: %q", out)
	}
	out, _, _ = run(t, "search", "--db", db, `"count(*) FROM customers"`)
	if !strings.Contains(out, "1 hits") {
		t.Errorf("phrase: %q", out)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "--db", db, "--class", "colour", "x"}, `--class "colour" is not one of`},
		{[]string{"search", "--db", db, "--format", "xml", "x"}, `--format "xml"`},
		{[]string{"search", "--db", db, "--", "--"}, "has no word"},
		{[]string{"ls", "--db", db, "--view", "nope"}, `--view "nope": no view of that name`},
	} {
		if _, errs, code := run(t, tt.args...); code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d %q", tt.args, code, errs)
		}
	}
}

func jsonStep(v any) string {
	if f, ok := v.(float64); ok {
		return fmt.Sprint(int(f))
	}
	return "-"
}

// ls --view lists a view saved in the workbench: its filter and its
// search, narrowed further by the other flags.
func TestCLILsView(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	if _, errs, code := run(t, "import", "--db", db, "--no-score", writeIn(t, dir, "s.jsonl", searchTraces)); code != 0 {
		t.Fatal(errs)
	}
	eng, err := app.Open(context.Background(), db, app.Files{})
	if err != nil {
		t.Fatal(err)
	}
	err = eng.Traces.SaveView(context.Background(), "sql on customers", app.Filter{Search: "customers"}, "ana")
	eng.Close()
	if err != nil {
		t.Fatal(err)
	}
	out, errs, code := run(t, "ls", "--db", db, "--view", "sql on customers")
	if code != 0 || !strings.Contains(out, "s1") || !strings.Contains(out, "s2") || !strings.Contains(out, "2 traces") {
		t.Fatalf("ls --view: %d %q %q", code, out, errs)
	}
	out, _, _ = run(t, "ls", "--db", db, "--view", "sql on customers", "--server", "b")
	if strings.Contains(out, "s1") || !strings.Contains(out, "1 traces") {
		t.Errorf("ls --view --server b: %q", out)
	}
}
