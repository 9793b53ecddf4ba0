package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// suiteCasesPath is the cases.jsonl a --suite flag names: the file itself,
// or, given the folder tracelab export wrote, the cases.jsonl in it.
func suiteCasesPath(path string) (string, error) {
	if path == "" || path == "-" {
		return path, nil
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.IsDir() {
		return path, nil // the reader says what is wrong with a file
	}
	cases := filepath.Join(path, "cases.jsonl")
	if _, err := os.Stat(cases); errors.Is(err, fs.ErrNotExist) {
		return "", withCode(2, fmt.Errorf("--suite %s: a folder without cases.jsonl; give the folder tracelab export --out wrote, or its cases.jsonl", path))
	}
	return cases, nil
}
