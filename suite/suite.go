// Package suite holds the regression suite's rules that are not the
// engine: the verdict of a case against its new trace, coverage gates,
// report.json diffs, stratified sampling and the expose-only selection.
// They are plain functions over model, scoring and store row types; the
// only I/O is reading the suite and report files a caller names. The
// engine (package app) loads, scores and stores, and calls them.
package suite

import (
	"errors"
	"fmt"
)

// ErrBadInput marks a check that could not run on its input (unreadable or
// malformed suite or trace files): the CLI exits 2 on it.
var ErrBadInput = errors.New("bad input")

// BadInput is an ErrBadInput saying what was wrong.
func BadInput(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadInput, fmt.Sprintf(format, args...))
}
