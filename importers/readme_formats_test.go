package importers

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeListsFormats: the README's format table has a row for every
// format `import --list-formats` prints.
func TestReadmeListsFormats(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, f := range Formats() {
		if !strings.Contains(readme, "| `"+f.Name+"` |") {
			t.Errorf("README's format table has no row for %s", f.Name)
		}
	}
}
