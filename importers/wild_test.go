package importers

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"text/tabwriter"
)

// wildDir holds real files from public repositories that nobody here wrote
// (see its SOURCES.md).
var wildDir = filepath.Join(samplesDir, "wild")

// wildRow is what importing one wild file gave.
type wildRow struct {
	file, format string
	traces       int
	questions    int // traces with a question
	calls        int
	tokens       int64
	refusal      string // why the file or a record of it was refused
}

func importWild(t *testing.T, path string) wildRow {
	rel, _ := filepath.Rel(wildDir, path)
	row := wildRow{file: filepath.ToSlash(rel)}
	f, recs, err := parseFile(t, path, "")
	row.format = f.Name
	if err != nil {
		row.refusal = err.Error()
	}
	for _, r := range recs {
		if r.Err != nil {
			if row.refusal == "" {
				row.refusal = r.Err.Error()
			}
			continue
		}
		if r.Trace == nil {
			continue
		}
		row.traces++
		if r.Trace.Question != "" {
			row.questions++
		}
		for _, s := range r.Trace.Steps {
			if s.Kind == "tool_call" {
				row.calls++
			}
		}
		row.tokens += r.Trace.Usage.InputTokens + r.Trace.Usage.OutputTokens
	}
	if row.traces == 0 && row.refusal == "" {
		row.refusal = "no trace"
	}
	return row
}

// wildPending lists the folders of formats being added in another branch
// (issue 13, "Add what is missing"): their files may still be refused.
// Delete a folder here once its importer is merged, and give its files
// expectations in wildWant.
var wildPending = map[string]bool{
	"claude_agent_sdk": true,
	"claude_code":      true,
	"codex_cli":        true,
	"gemini":           true,
	"langsmith":        true,
	"litellm":          true,
	"vercel_ai":        true,
	"mcp":              true, // mcp-recorder sessions
	"openinference":    true, // Phoenix span exports
}

// wildExpect is what a wild file must give: its format, how many traces,
// whether every trace has a question, at least how many tool calls, and
// whether it carries tokens; refused names a file that holds no
// conversation, with a substring of the reason it must be given.
type wildExpect struct {
	format  string
	traces  int
	noQ     bool // a trace may lack the question
	calls   int
	tokens  bool
	refused string
}

// TestWild imports every file of ../shared/samples/wild with no flags and
// prints file × format × traces × question × calls × tokens, with the
// reason for any refusal (go test ./importers -run Wild -v).
func TestWild(t *testing.T) {
	if _, err := os.Stat(wildDir); err != nil {
		t.Skipf("wild samples not found at %s (they live beside the repository): %v", wildDir, err)
	}
	var rows []wildRow
	err := filepath.WalkDir(wildDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && d.Name() == "oracle" {
				return filepath.SkipDir // Langfuse's own normalisation, a reference
			}
			return err
		}
		if n := d.Name(); n == "SOURCES.md" || n == "SHA256SUMS" {
			return nil
		}
		rows = append(rows, importWild(t, path))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].file < rows[j].file })
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 1, ' ', 0)
	fmt.Fprintln(tw, "file\tformat\ttraces\tquestion\tcalls\ttokens\trefusal")
	imported := 0
	for _, r := range rows {
		q := fmt.Sprintf("%d/%d", r.questions, r.traces)
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%d\t%s\n", r.file, orDash(r.format), r.traces, q, r.calls, r.tokens, oneLine(r.refusal))
		if r.refusal == "" {
			imported++
		}
	}
	tw.Flush()
	t.Logf("%d of %d wild files imported\n%s", imported, len(rows), b.String())
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r.file] = true
		folder, _, _ := strings.Cut(r.file, "/")
		w, ok := wildWant[r.file]
		if !ok {
			if !wildPending[folder] {
				t.Errorf("%s: no expectation in wildWant", r.file)
			}
			continue
		}
		checkWild(t, r, w)
	}
	for f := range wildWant {
		if !seen[f] {
			t.Errorf("%s: in wildWant but not in %s", f, wildDir)
		}
	}
}

func checkWild(t *testing.T, r wildRow, w wildExpect) {
	t.Helper()
	if r.format != w.format {
		t.Errorf("%s: detected as %q, want %q", r.file, r.format, w.format)
	}
	if w.refused != "" {
		if !strings.Contains(r.refusal, w.refused) {
			t.Errorf("%s: refusal %q, want one saying %q", r.file, r.refusal, w.refused)
		}
		return
	}
	if r.refusal != "" {
		t.Errorf("%s: refused: %s", r.file, r.refusal)
	}
	if r.traces != w.traces {
		t.Errorf("%s: %d traces, want %d", r.file, r.traces, w.traces)
	}
	if !w.noQ && r.questions != r.traces {
		t.Errorf("%s: %d of %d traces have a question", r.file, r.questions, r.traces)
	}
	if r.calls < w.calls {
		t.Errorf("%s: %d tool calls, want at least %d", r.file, r.calls, w.calls)
	}
	if w.tokens && r.tokens == 0 {
		t.Errorf("%s: no token usage", r.file)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 140 {
		s = s[:140] + "…"
	}
	return s
}

// wildWant: the expectations the fixes of issue 13 establish, per file.
var wildWant = map[string]wildExpect{}
