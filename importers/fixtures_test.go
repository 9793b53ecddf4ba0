package importers

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/model"
)

// One fixture harness for every format: testdata/formats/<format>/ holds
// small files shaped after each format's documentation, each with the
// records it must give in <file>.golden.json beside it.
// `go test ./importers -run TestFormatFixtures -update` (or
// TRACELAB_UPDATE=1) rewrites the goldens; review the diff.

var updateGolden = flag.Bool("update", false, "rewrite the golden files under testdata/formats")

// formatsDir holds the fixtures of every format but native and cases
// (whose samples live in the repository's testdata/).
const formatsDir = "testdata/formats"

// goldenRecord is one parsed record as the golden files show it: the trace
// with what json:"-" hides (the tool contracts' raw bytes), or the error.
type goldenRecord struct {
	Line     int               `json:"line"`
	Trace    *model.Trace      `json:"trace,omitempty"`
	ToolsRaw []json.RawMessage `json:"tools_raw,omitempty"`
	Err      string            `json:"error,omitempty"`
	Skip     string            `json:"skipped,omitempty"`
}

func goldenOf(recs []Record) []goldenRecord {
	var out []goldenRecord
	for _, r := range recs {
		g := goldenRecord{Line: r.Line, Trace: r.Trace}
		if r.Err != nil {
			g.Err = r.Err.Error()
		}
		if r.Skip != nil {
			g.Skip = r.Skip.Path + ": " + r.Skip.Reason
		}
		if r.Trace != nil {
			for _, tc := range r.Trace.Tools {
				g.ToolsRaw = append(g.ToolsRaw, tc.Raw)
			}
		}
		out = append(out, g)
	}
	return out
}

// fixtureFormats are the formats that must have a fixture folder.
func fixtureFormats() []string {
	var out []string
	for _, f := range Formats() {
		if f.Name != "native" && f.Name != "cases" {
			out = append(out, f.Name)
		}
	}
	return out
}

// TestFormatFixtures parses every fixture of every format: it must be
// detected as its folder's format and by no other, give valid traces, and
// match its golden file.
func TestFormatFixtures(t *testing.T) {
	for _, format := range fixtureFormats() {
		files := fixtureFiles(t, filepath.Join(formatsDir, format))
		if len(files) == 0 {
			t.Errorf("no fixtures for %s in %s", format, formatsDir)
		}
		for _, path := range files {
			t.Run(format+"/"+filepath.Base(path), func(t *testing.T) {
				checkFixture(t, format, path)
			})
		}
	}
}

func checkFixture(t *testing.T, format, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head := bytes.TrimSpace(stripBOM(data[:min(len(data), HeadSize)]))
	for _, other := range Formats() {
		if other.Name != format && other.Detect(head) {
			t.Errorf("also claimed by format %s", other.Name)
		}
	}
	got, recs, err := parseFile(t, path, "")
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if got.Name != format {
		t.Fatalf("detected as %q, want %q", got.Name, format)
	}
	for _, r := range recs {
		if r.Trace == nil {
			continue
		}
		if msg := checkTrace(r.Trace); msg != "" {
			t.Errorf("line %d: %s", r.Line, msg)
		}
		// A cassette that mixes providers imports each call with its own
		// importer.
		mixed := bytes.HasPrefix(head, []byte("interactions:"))
		if r.Trace.Source.Format != format && !(mixed && slices.Contains(fixtureFormats(), r.Trace.Source.Format)) {
			t.Errorf("line %d: source format %q", r.Line, r.Trace.Source.Format)
		}
		if lerr := validTrace(r.Trace); lerr != nil {
			t.Errorf("line %d: trace %s is not a valid native trace: %v", r.Line, r.Trace.TraceID, lerr)
		}
	}
	b, err := json.MarshalIndent(goldenOf(recs), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	golden := path + ".golden.json"
	if *updateGolden || os.Getenv("TRACELAB_UPDATE") != "" {
		if err := os.WriteFile(golden, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(b, want) {
		t.Errorf("records differ from %s (rerun with -update and review the diff):\n%s", golden, firstDiff(string(want), string(b)))
	}
}

// fixtureFiles lists the fixtures of a testdata dir (not goldens, not
// READMEs); a missing dir has none.
func fixtureFiles(t testing.TB, dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || strings.HasSuffix(n, ".golden.json") || n == "README.md" {
			continue
		}
		out = append(out, filepath.Join(dir, n))
	}
	sort.Strings(out)
	return out
}
