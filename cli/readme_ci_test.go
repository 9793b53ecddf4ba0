package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// ciStep is one step of a GitHub Actions job, as far as the README's job uses them.
type ciStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	If   string            `yaml:"if"`
	With map[string]string `yaml:"with"`
	Env  map[string]string `yaml:"env"`
}

// readmeCIJob extracts the GitHub Actions job from README.md's "GitHub
// Actions" section: the steps as the runner would read them.
func readmeCIJob(t *testing.T) []ciStep {
	t.Helper()
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	at := strings.Index(text, "\n### GitHub Actions\n")
	if at < 0 {
		t.Fatal(`README.md has no "### GitHub Actions" section`)
	}
	text = text[at:]
	start := strings.Index(text, "```yaml\n")
	end := strings.Index(text[start+8:], "\n```")
	if start < 0 || end < 0 {
		t.Fatal("the GitHub Actions section has no ```yaml block")
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []ciStep `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(text[start+8:start+8+end]), &wf); err != nil {
		t.Fatalf("README's workflow is not YAML: %v", err)
	}
	if len(wf.Jobs) != 1 {
		t.Fatalf("README's workflow has %d jobs, want 1", len(wf.Jobs))
	}
	for _, j := range wf.Jobs {
		return j.Steps
	}
	return nil
}

// ciExpr is a ${{ ... }} expression; the stub runner has no vars or secrets.
var ciExpr = regexp.MustCompile(`\$\{\{[^}]*\}\}`)

// ciWorkspace is a fresh clone of a team's repository: the suite exported
// from the bundled testdata (without the cases in leave, to make a suite
// a clean rerun passes) and a stub replay script that prints replay.
func ciWorkspace(t *testing.T, leave map[string]bool, replay string) string {
	t.Helper()
	ws := t.TempDir()
	db := filepath.Join(t.TempDir(), "team.db")
	var kept bytes.Buffer
	data, _ := os.ReadFile("testdata/cases.jsonl")
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		var c struct {
			CaseID string `json:"case_id"`
		}
		if json.Unmarshal(line, &c) == nil && !leave[c.CaseID] {
			kept.Write(line)
		}
	}
	cases := writeIn(t, t.TempDir(), "cases.jsonl", kept.String())
	traces, _ := filepath.Glob("testdata/traces/*.jsonl")
	if _, errs, code := run(t, append(append([]string{"import", "--db", db, "--no-score"}, traces...), cases)...); code != 0 {
		t.Fatalf("import: %s", errs)
	}
	if _, errs, code := run(t, "export", "--db", db, "--out", filepath.Join(ws, "suite"),
		"--policy", "testdata/policy.json", "--lineage", "testdata/lineage.json"); code != 0 {
		t.Fatalf("export: %s", errs)
	}
	writeIn(t, ws, "replay.jsonl", replay)
	os.MkdirAll(filepath.Join(ws, "scripts"), 0o755)
	script := "#!/bin/sh\n# stub harness: the suite's replay, recorded\nset -eu\ntest -f \"$1\"\ncat replay.jsonl\n"
	if err := os.WriteFile(filepath.Join(ws, "scripts", "replay-suite.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return ws
}

// runCIJob runs the steps as a GitHub runner would: run steps with bash
// -eo pipefail in the workspace, a failed step skipping the rest except
// those with if: always(), $GITHUB_PATH and $GITHUB_STEP_SUMMARY honoured.
// checkout of another repository links the tracelab source being tested,
// setup-go checks the Go version against go.mod, upload-artifact checks
// its files exist. It returns each step's exit status by name (-1 skipped).
// runner is $RUNNER_TEMP. built, when set, is the $RUNNER_TEMP of an
// earlier run whose build step succeeded: its binary is reused and the
// step named build is not rerun (linking tracelab takes most of the
// test's time).
func runCIJob(t *testing.T, steps []ciStep, ws, runner, build, built string) (map[string]int, string) {
	t.Helper()
	repo, _ := os.Getwd()
	ghPath, summary := filepath.Join(runner, "github_path"), filepath.Join(runner, "step_summary")
	os.WriteFile(ghPath, nil, 0o644)
	os.WriteFile(summary, nil, 0o644)
	path := os.Getenv("PATH")
	if built != "" {
		path = built + string(os.PathListSeparator) + path
	}
	status := map[string]int{}
	failed := false
	for i, s := range steps {
		name := s.Name
		if name == "" {
			name = s.Uses
		}
		if name == "" {
			name = fmt.Sprintf("step %d", i+1)
		}
		if failed && !strings.Contains(s.If, "always()") {
			status[name] = -1
			continue
		}
		code := 0
		switch {
		case strings.HasPrefix(s.Uses, "actions/checkout@"):
			if p := s.With["path"]; p != "" {
				if err := os.Symlink(repo, filepath.Join(ws, p)); err != nil {
					t.Fatal(err)
				}
			}
		case strings.HasPrefix(s.Uses, "actions/setup-go@"):
			gomod, _ := os.ReadFile("go.mod")
			if v := s.With["go-version"]; !regexp.MustCompile(`(?m)^go ` + regexp.QuoteMeta(v) + `(\.|$)`).Match(gomod) {
				t.Errorf("setup-go go-version %q does not match go.mod", v)
			}
		case strings.HasPrefix(s.Uses, "actions/upload-artifact@"):
			for _, f := range strings.Fields(s.With["path"]) {
				if _, err := os.Stat(filepath.Join(ws, f)); err != nil {
					t.Errorf("upload-artifact: %v", err)
					code = 1
				}
			}
		case s.Uses != "":
			t.Fatalf("step %q uses %s, which the stub runner does not know", name, s.Uses)
		case name == build && built != "":
			t.Logf("step %q: reusing the tracelab built in %s", name, built)
		default:
			cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s.Run)
			cmd.Dir = ws
			cmd.Env = append(os.Environ(), "PATH="+path, "RUNNER_TEMP="+runner, "GITHUB_PATH="+ghPath,
				"GITHUB_STEP_SUMMARY="+summary, "GITHUB_WORKSPACE="+ws, "GITHUB_ACTIONS=true")
			for k, v := range s.Env {
				cmd.Env = append(cmd.Env, k+"="+ciExpr.ReplaceAllString(v, ""))
			}
			out, err := cmd.CombinedOutput()
			if err != nil {
				code = -2
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				}
			}
			t.Logf("step %q: exit %d\n%s", name, code, out)
		}
		status[name] = code
		failed = failed || code != 0
		// Folders added to $GITHUB_PATH are on PATH for the later steps.
		if f, err := os.Open(ghPath); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if d := strings.TrimSpace(sc.Text()); d != "" && !strings.Contains(path, d+string(os.PathListSeparator)) {
					path = d + string(os.PathListSeparator) + path
				}
			}
			f.Close()
		}
	}
	sum, _ := os.ReadFile(summary)
	return status, string(sum)
}

// replayOf is what a harness records when it replays every case of
// testdata/cases.jsonl exactly as its source trace ran, tagged with the
// case id.
func replayOf(t *testing.T) string {
	t.Helper()
	byID := map[string]map[string]any{}
	files, _ := filepath.Glob("testdata/traces/*.jsonl")
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var tr map[string]any
			if err := json.Unmarshal(line, &tr); err != nil {
				t.Fatal(err)
			}
			byID[tr["trace_id"].(string)] = tr
		}
	}
	var b bytes.Buffer
	data, _ := os.ReadFile("testdata/cases.jsonl")
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var c struct {
			CaseID      string `json:"case_id"`
			SourceTrace string `json:"source_trace"`
		}
		json.Unmarshal(line, &c)
		tr := byID[c.SourceTrace]
		md, _ := tr["metadata"].(map[string]any)
		copied := map[string]any{"case_id": c.CaseID}
		for k, v := range md {
			copied[k] = v
		}
		copied["case_id"] = c.CaseID
		tr["metadata"] = copied
		tr["trace_id"] = "replay_" + c.CaseID
		out, _ := json.Marshal(tr)
		b.Write(append(out, '\n'))
	}
	return b.String()
}

// TestReadmeCIJob runs README.md's GitHub Actions job as written, on a
// fresh workspace holding a suite exported from the bundled testdata and
// a stub replay script: it builds tracelab from source with go build, as
// the job does.
func TestReadmeCIJob(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tracelab from source, as the job does")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash to run the job's steps")
	}
	steps := readmeCIJob(t)
	tmp := t // subtests' runners outlive them: the first one's binary is reused
	const build, replay, check, diff = "Build tracelab", "Replay the suite against the server under test", "Check the suite", "Report diff in the job summary"
	// The three cases whose source traces leak rows: policy violations
	// block a release even on known failures, so a clean suite leaves them out.
	leaks := map[string]bool{"deals-closing-aug-emea-013": true, "deals-closing-sep-emea-014": true, "emea-billing-contacts-009": true}

	built := "" // the first job's $RUNNER_TEMP, once its build step passed
	for _, tt := range []struct {
		name   string
		leave  map[string]bool
		replay string
		want   map[string]int // exit status per step; -1 skipped
		out    string         // in check.xml's system-out
	}{
		// Every case replayed as it ran: green, and the report diff finds no change.
		{"clean rerun", leaks, replayOf(t), map[string]int{build: 0, replay: 0, check: 0, diff: 0}, "OK: nothing regressed"},
		// The bundled new run regresses four cases and leaks: the check fails; the summary still comes.
		{"regressed run", nil, mustRead(t, "testdata/check/new-run.jsonl"), map[string]int{build: 0, replay: 0, check: 1, diff: 1}, "FAIL: regressions; policy violations"},
		// A harness that recorded nothing must not pass.
		{"empty replay", leaks, "", map[string]int{build: 0, replay: 0, check: 1}, "FAIL: coverage: no suite case was matched"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws, runner := ciWorkspace(t, tt.leave, tt.replay), tmp.TempDir()
			status, summary := runCIJob(t, steps, ws, runner, build, built)
			if built == "" && status[build] == 0 {
				built = runner
			}
			for step, want := range tt.want {
				got, ok := status[step]
				if !ok {
					t.Fatalf("README's job has no step %q (steps: %v)", step, status)
				}
				if got != want {
					t.Errorf("step %q: exit %d, want %d", step, got, want)
				}
			}
			for step, code := range status {
				if code == 2 {
					t.Errorf("step %q exits 2: bad input, the job does not run as written", step)
				}
			}
			var doc struct {
				Suites []struct {
					SystemOut string `xml:"system-out"`
				} `xml:"testsuite"`
			}
			data, err := os.ReadFile(filepath.Join(ws, "check.xml"))
			if err == nil {
				err = xml.Unmarshal(data, &doc)
			}
			if err != nil || len(doc.Suites) != 1 || !strings.Contains(doc.Suites[0].SystemOut, tt.out) {
				t.Errorf("check.xml: %v, want %q in system-out:\n%s", err, tt.out, data)
			}
			if _, ran := tt.want[diff]; ran && !strings.Contains(summary, "## tracelab report diff") {
				t.Errorf("job summary has no report diff:\n%s", summary)
			}
		})
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
