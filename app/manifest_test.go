package app

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tracelab/scoring"
)

// exportSuite exports the bundled cases with the given scoring files and
// returns the suite's folder.
func exportSuite(t *testing.T, files Files) string {
	t.Helper()
	st := openTestdata(t, true)
	ctx := context.Background()
	eng, err := New(ctx, st, files)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "suite")
	ex, err := eng.Export(ctx, ExportOptions{Dir: dir})
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
	// An edited cases.jsonl warns: report.json may not describe it.
	os.WriteFile(suite, []byte("\n"), 0o644)
	if _, warns, _ := SuiteFiles(suite, Files{Policy: "../testdata/policy.json"}); len(warns) == 0 || !strings.Contains(warns[0], "changed since it was exported") {
		t.Errorf("edited cases.jsonl: %q", warns)
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
