package cli

import (
	"bytes"
	"errors"
	"testing"

	"charm.land/fang/v2"
)

// TestPrintErrorKeepsTheSpelling: an error prints as written (fang's
// default title-cases the first word: /Tmp/…, --Out), control characters
// from file names are escaped, and a usage error points at --help.
func TestPrintErrorKeepsTheSpelling(t *testing.T) {
	var b bytes.Buffer
	printError(&b, fang.Styles{}, errors.New("/tmp/eval-ci/x.jsonl: --out is required\x1b]0;owned\x07"))
	if got, want := b.String(), "Error: /tmp/eval-ci/x.jsonl: --out is required\\u001b]0;owned\\u0007\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
	b.Reset()
	printError(&b, fang.Styles{}, &usageError{errors.New("unknown flag: --nosuch")})
	if got, want := b.String(), "Error: unknown flag: --nosuch\nTry --help for usage.\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}
