package importers

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewDetectorsClaimOnlyTheirOwn runs every detector added for issue 13
// over every fixture of every format and every real sample: a detector
// claims the files of its own format and nothing else, whatever the
// priorities, so detection is unambiguous and does not depend on order.
func TestNewDetectorsClaimOnlyTheirOwn(t *testing.T) {
	owner := map[string]string{} // file -> format whose detector must claim it ("" for none of the new ones)
	add := func(glob string, folderFormat func(dir string) string) {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			if strings.HasSuffix(f, ".golden.json") || strings.HasSuffix(f, ".md") {
				continue
			}
			if fi, err := os.Stat(f); err != nil || fi.IsDir() {
				continue
			}
			owner[f] = folderFormat(filepath.Base(filepath.Dir(f)))
		}
	}
	isNew := map[string]bool{}
	for _, f := range newFormats {
		if f != "openinference" { // an older format that learned Phoenix exports
			isNew[f] = true
		}
	}
	mine := func(dir string) string {
		if isNew[dir] {
			return dir
		}
		return ""
	}
	add(filepath.Join(newFormatsDir, "*", "*"), mine)
	add(filepath.Join(formatsDir, "*", "*"), func(string) string { return "" })
	add(filepath.Join(wildNewDir, "*", "*"), func(dir string) string {
		if dir == "mcp" {
			return "mcp_recorder"
		}
		return mine(dir)
	})
	if len(owner) == 0 {
		t.Fatal("no files found")
	}
	for file, want := range owner {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		head := bytes.TrimSpace(stripBOM(b[:min(len(b), HeadSize)]))
		for name := range isNew {
			f, _ := Lookup(name)
			if got := f.Detect(head); got != (name == want) {
				t.Errorf("%s: %s detector says %v", file, name, got)
			}
		}
	}
}
