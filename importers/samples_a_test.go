package importers

import (
	"bytes"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// samplesDir is the shared folder of real-world files (see its README.md);
// it sits beside the repository, not inside it.
const samplesDir = "../../shared/samples"

// TestSamplesA imports every real-world file of the formats this file's
// importers read. A file either imports (its format detected, parsed
// without error, at least one trace with steps) or is listed in refusedA
// with the reason.
func TestSamplesA(t *testing.T) {
	if _, err := os.Stat(samplesDir); err != nil {
		t.Skipf("real-world samples not found at %s (they live beside the repository): %v", samplesDir, err)
	}
	want := map[string]string{ // folder -> format its files must be detected as
		"openai_chat_completions": "openai_chat",
		"openai_responses":        "openai_responses",
		"anthropic_messages":      "anthropic",
		"inspect_ai":              "inspect",
		"tau_bench":               "openai_chat", // OpenAI-style messages in traj[]
		"agent_sql_trajectories":  "openai_chat", // conversation[] with flat tool_calls
	}
	imported, refused := map[string]int{}, map[string]int{}
	for _, dir := range slices.Sorted(maps.Keys(want)) {
		format := want[dir]
		files, err := filepath.Glob(filepath.Join(samplesDir, dir, "*"))
		if err != nil || len(files) == 0 {
			t.Errorf("%s: no files (%v)", dir, err)
			continue
		}
		for _, path := range files {
			rel := dir + "/" + filepath.Base(path)
			if reason := refusedA(rel); reason != "" {
				refused[format]++
				t.Logf("refused %s: %s", rel, reason)
				continue
			}
			got, recs, err := parseFile(t, path, "")
			if err != nil {
				t.Errorf("%s: %v", rel, err)
				continue
			}
			if got.Name != format {
				t.Errorf("%s: detected as %s, want %s", rel, got.Name, format)
				continue
			}
			traces, steps := 0, 0
			for _, r := range recs {
				if r.Err != nil {
					t.Errorf("%s: %v", rel, r.Err)
					continue
				}
				if r.Trace != nil {
					if msg := checkTrace(r.Trace); msg != "" {
						t.Errorf("%s line %d: %s", rel, r.Line, msg)
					}
					traces++
					steps += len(r.Trace.Steps)
				}
			}
			if traces == 0 || steps == 0 {
				t.Errorf("%s: no trace with steps", rel)
				continue
			}
			imported[format]++
			t.Logf("imported %s as %s: %d traces, %d steps", rel, format, traces, steps)
		}
	}
	for _, f := range []string{"openai_chat", "openai_responses", "anthropic", "inspect"} {
		t.Logf("%s: %d files imported, %d refused", f, imported[f], refused[f])
	}
}

// refusedA gives the reason a sample file is not imported, or "". Every
// file of these folders imports today, VCR cassettes included.
func refusedA(rel string) string {
	return ""
}

// TestSamplesNotClaimedA: no real-world file of another format's folder is
// claimed by these importers' detectors, so detection stays unambiguous.
func TestSamplesNotClaimedA(t *testing.T) {
	if _, err := os.Stat(samplesDir); err != nil {
		t.Skipf("real-world samples not found at %s (they live beside the repository): %v", samplesDir, err)
	}
	// wild/ and mcp_tool_history/ are judged by their own tests.
	mineDirs := map[string]bool{"wild": true, "mcp_tool_history": true, "openai_chat_completions": true, "openai_responses": true, "anthropic_messages": true,
		"inspect_ai": true, "tau_bench": true, "agent_sql_trajectories": true}
	// Folders of wild2 named for another tool whose files are, by content,
	// one of these formats: CrewAI's cassettes record Azure OpenAI chat
	// completions, an Inspect .eval is an Inspect log, and the bare Codex
	// stream is Responses API events. Their reader must claim them, and
	// only it.
	ownedWild2 := map[string]string{
		"wild2/crewai":                  "openai_chat",
		"wild2/inspect":                 "inspect",
		"wild2/openai_responses_stream": "openai_responses",
	}
	checked := 0
	err := filepath.WalkDir(samplesDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(samplesDir, path)
		if mineDirs[strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]] {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		head := make([]byte, HeadSize)
		n, _ := io.ReadFull(f, head)
		head = bytes.TrimSpace(stripBOM(head[:n]))
		checked++
		owner := ownedWild2[filepath.ToSlash(filepath.Dir(rel))]
		for _, name := range []string{"openai_chat", "openai_responses", "anthropic", "inspect"} {
			fm, _ := Lookup(name)
			claims := len(head) > 0 && fm.Detect(head)
			switch {
			case claims && name != owner:
				t.Errorf("%s claims %s", name, rel)
			case !claims && name == owner:
				t.Errorf("%s does not claim %s, which is its format", name, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files of other formats checked", checked)
}
