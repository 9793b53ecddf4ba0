package app

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/scoring"
	"github.com/tracelab-dev/tracelab/store"
)

// exportSuite exports the bundled cases with the given scoring files and
// returns the suite's folder.
func exportSuite(t *testing.T, files Files) string {
	t.Helper()
	st := openTestdata(t, true)
	ctx := context.Background()
	eng, err := newEngine(ctx, st, files)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "suite")
	ex, err := eng.Suite.Export(ctx, ExportOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Manifest != filepath.Join(dir, ManifestName) {
		t.Fatalf("Export.Manifest = %q", ex.Manifest)
	}
	return dir
}

func TestExportWritesSuiteManifest(t *testing.T) {
	gloss := filepath.Join(t.TempDir(), "glossary.json")
	os.WriteFile(gloss, []byte(`[{"term":"churned","definition":"churned = no active subscription at period end","required_fields":["subscriptions.period_end"]}]`), 0o644)
	files := Files{Policy: "../testdata/policy.json", Lineage: "../testdata/lineage.json", Glossary: gloss}
	dir := exportSuite(t, files)
	m, err := ReadSuiteManifest(dir)
	if err != nil || m == nil {
		t.Fatalf("ReadSuiteManifest: %v %v", m, err)
	}
	for _, c := range []struct {
		mf   *ManifestFile
		name string
		src  string // the file it must be a byte copy of ("" for the glossary, which is built)
	}{
		{&m.Cases, "cases.jsonl", ""},
		{&m.Report, "report.json", ""},
		{m.Policy, "policy.json", "../testdata/policy.json"},
		{m.Lineage, "lineage.json", "../testdata/lineage.json"},
		{m.Glossary, "glossary.json", ""},
	} {
		if c.mf == nil || c.mf.File != c.name {
			t.Fatalf("manifest entry %s: %+v", c.name, c.mf)
		}
		got, err := os.ReadFile(filepath.Join(dir, c.name))
		if err != nil {
			t.Fatal(err)
		}
		if sha256Hex(got) != c.mf.SHA256 {
			t.Errorf("%s: sha256 in suite.json does not match the file", c.name)
		}
		if c.src != "" {
			want, _ := os.ReadFile(c.src)
			if string(got) != string(want) || c.mf.From != c.src {
				t.Errorf("%s is not a copy of %s (from %q)", c.name, c.src, c.mf.From)
			}
		}
	}
	if m.Lexicon != nil || m.PolicyOracle != "" {
		t.Errorf("lexicon or oracle named without one given: %+v", m)
	}
	// The glossary copy is what the export scored with and parses back.
	g, _ := os.ReadFile(filepath.Join(dir, "glossary.json"))
	entries, err := scoring.ParseGlossary(g)
	if err != nil || len(entries) != 1 || entries[0].Term != "churned" {
		t.Errorf("glossary.json: %v %+v", err, entries)
	}
	// Export is byte-stable: a second export writes the same manifest.
	first, _ := os.ReadFile(filepath.Join(dir, ManifestName))
	var raw map[string]any
	if err := json.Unmarshal(first, &raw); err != nil || raw["version"] != float64(1) {
		t.Errorf("suite.json: %v %s", err, first)
	}
	again, _ := os.ReadFile(filepath.Join(exportSuite(t, files), ManifestName))
	if string(again) != string(first) {
		t.Errorf("a second export wrote another suite.json:\n%s\n%s", first, again)
	}
}

func TestSuiteFiles(t *testing.T) {
	dir := exportSuite(t, Files{Policy: "../testdata/policy.json", Lineage: "../testdata/lineage.json"})
	suite := filepath.Join(dir, "cases.jsonl")
	other := filepath.Join(t.TempDir(), "lineage.json")
	os.WriteFile(other, []byte(`{}`), 0o644)

	for _, tt := range []struct {
		name  string
		given Files
		want  Files
		warn  string // "" for none
	}{
		{"suite's files", Files{}, Files{Policy: filepath.Join(dir, "policy.json"), Lineage: filepath.Join(dir, "lineage.json")}, ""},
		{"same file by flag", Files{Lineage: "../testdata/lineage.json"}, Files{Policy: filepath.Join(dir, "policy.json"), Lineage: "../testdata/lineage.json"}, ""},
		{"override", Files{Lineage: other}, Files{Policy: filepath.Join(dir, "policy.json"), Lineage: other}, "--lineage " + other + " overrides the suite's lineage.json"},
		{"addition", Files{Lexicon: other}, Files{Policy: filepath.Join(dir, "policy.json"), Lineage: filepath.Join(dir, "lineage.json"), Lexicon: other}, "the suite was exported without one"},
		{"oracle instead of policy", Files{PolicyOracle: "./oracle"}, Files{PolicyOracle: "./oracle", Lineage: filepath.Join(dir, "lineage.json")}, "--policy-oracle overrides the suite's policy.json"},
	} {
		got, warns, err := SuiteFiles(suite, tt.given)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got != tt.want {
			t.Errorf("%s: files %+v, want %+v", tt.name, got, tt.want)
		}
		if joined := strings.Join(warns, "\n"); (tt.warn == "") != (joined == "") || !strings.Contains(joined, tt.warn) {
			t.Errorf("%s: warnings %q, want %q", tt.name, warns, tt.warn)
		}
	}

	// A suite without a manifest is checked with the flags alone.
	bare := filepath.Join(t.TempDir(), "cases.jsonl")
	if got, warns, err := SuiteFiles(bare, Files{Lexicon: "x"}); err != nil || got != (Files{Lexicon: "x"}) || warns != nil {
		t.Errorf("no manifest: %+v %v %v", got, warns, err)
	}

	// A scoring file edited after export is bad input naming it, unless a flag replaces it.
	os.WriteFile(filepath.Join(dir, "policy.json"), []byte(`{"scopes":{},"users":{}}`), 0o644)
	if _, _, err := SuiteFiles(suite, Files{}); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "policy.json: sha256") || !strings.Contains(err.Error(), "changed since export") {
		t.Errorf("tampered policy: %v", err)
	}
	if _, _, err := SuiteFiles(suite, Files{Policy: "../testdata/policy.json"}); err != nil {
		t.Errorf("tampered policy overridden by flag: %v", err)
	}
	// An edited cases.jsonl is not the pair of report.json any more.
	os.WriteFile(suite, []byte("\n"), 0o644)
	if _, _, err := SuiteFiles(suite, Files{Policy: "../testdata/policy.json"}); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "are not the pair one export wrote") {
		t.Errorf("edited cases.jsonl: %v", err)
	}
}

// TestExportStoppedBetweenTheRenames: an export that stops after renaming
// cases.jsonl, or after both files but before suite.json, leaves a suite
// check and report refuse, naming the files; the next export mends it.
func TestExportStoppedBetweenTheRenames(t *testing.T) {
	st := openTestdata(t, true)
	ctx := context.Background()
	eng, err := newEngine(ctx, st, Files{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "suite")
	if _, err := eng.Suite.Export(ctx, ExportOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	casesPath, reportPath := filepath.Join(dir, "cases.jsonl"), filepath.Join(dir, "report.json")
	oldCases, _ := os.ReadFile(casesPath)
	for _, tt := range []struct {
		name    string
		renamed int    // how many of the pair's files were renamed into place
		want    string // the file the refusal names
	}{
		{"after cases.jsonl", 1, casesPath + " has sha256"},
		{"after both, before suite.json", 2, reportPath + " has sha256"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := eng.Suite.Export(ctx, ExportOptions{Dir: dir}); err != nil { // the old, whole suite
				t.Fatal(err)
			}
			writeFiles = func(files []store.AtomicFile) error {
				if err := store.WriteFilesAtomic(files[:tt.renamed]); err != nil {
					return err
				}
				return errors.New("injected: the export stops here")
			}
			defer func() { writeFiles = store.WriteFilesAtomic }()
			// --all exports the suggested cases too: other files than before.
			if _, err := eng.Suite.Export(ctx, ExportOptions{Dir: dir, All: true}); err == nil || !strings.Contains(err.Error(), "injected") {
				t.Fatalf("export: %v", err)
			}
			if now, _ := os.ReadFile(casesPath); string(now) == string(oldCases) {
				t.Fatal("the stopped export wrote the same cases.jsonl: the test tests nothing")
			}
			_, _, err := SuiteFiles(casesPath, Files{})
			if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "are not the pair one export wrote") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("check's suite: %v, want a refusal naming %s", err, tt.want)
			}
			if _, err := ReadReport(reportPath); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "are not the pair") {
				t.Errorf("report.json read alone: %v", err)
			}
			writeFiles = store.WriteFilesAtomic
			if _, err := eng.Suite.Export(ctx, ExportOptions{Dir: dir, All: true}); err != nil {
				t.Fatal(err)
			}
			if _, _, err := SuiteFiles(casesPath, Files{}); err != nil {
				t.Errorf("after a whole export: %v", err)
			}
			if _, err := ReadReport(reportPath); err != nil {
				t.Errorf("report.json after a whole export: %v", err)
			}
		})
	}
}

func TestReadSuiteManifestRejects(t *testing.T) {
	for _, tt := range []struct{ name, body, want string }{
		{"not json", `{`, "expected a suite manifest"},
		{"unknown key", `{"version":1,"cases":{"file":"cases.jsonl","sha256":"x"},"report":{"file":"report.json","sha256":"x"},"polcy":{}}`, `unknown field "polcy"`},
		{"future version", `{"version":2,"cases":{"file":"cases.jsonl","sha256":"x"},"report":{"file":"report.json","sha256":"x"}}`, "version 2"},
		{"path outside", `{"version":1,"cases":{"file":"cases.jsonl","sha256":"x"},"report":{"file":"report.json","sha256":"x"},"policy":{"file":"../../etc/policy.json","sha256":"x"}}`, "a file name inside the suite's folder"},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, ManifestName), []byte(tt.body), 0o644)
		_, err := ReadSuiteManifest(dir)
		if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}
