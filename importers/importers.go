// Package importers reads trace files in every supported format and turns
// them into model types. Each format lives in its own file and registers a
// Format; the format of a file is detected from its content, never its name.
// Parsers stream: they never hold a whole file in memory unless the format
// itself is a single JSON document.
package importers

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"tracelab/model"
)

// Record is one thing a parser read: a trace, a case, or a bad line.
type Record struct {
	Line  int // 1-based line (or record start line) in the file
	Trace *model.Trace
	Case  *model.Case
	Err   *LineError // set when the record could not be read
	Skip  *Skip      // set for a part of the file that holds no trace, read past
}

// Skip is a part of a file an importer read past on purpose (a cassette's
// telemetry call): not bad input, listed so a verbose import can say what
// was left out.
type Skip struct {
	Path   string // where in the file, such as interactions[2]
	Reason string
}

// Emit receives records in file order. Returning an error stops the parse.
type Emit func(Record) error

// Format is one supported input format.
type Format struct {
	Name string // stable name used by --format
	Doc  string // one line for --list-formats
	// Priority orders detection: lower is tried first (ties by name), so
	// a format whose marker keys are a subset of another's goes later.
	Priority int
	// Detect reports whether head (the first bytes of a file, at most
	// HeadSize) looks like this format.
	Detect func(head []byte) bool
	// Parse reads the whole file and emits its records. A parser reports a
	// malformed record as Record.Err and goes on with the next one where the
	// format allows it (line-oriented formats); it returns an error only when
	// it cannot continue.
	Parse func(ctx context.Context, r io.Reader, file string, emit Emit) error
}

// HeadSize is how much of a file Detect sees.
const HeadSize = 1 << 20

var registry []Format

// register adds a format; Detect tries them by Priority, then name.
func register(f Format) {
	registry = append(registry, f)
	sort.SliceStable(registry, func(i, j int) bool {
		if registry[i].Priority != registry[j].Priority {
			return registry[i].Priority < registry[j].Priority
		}
		return registry[i].Name < registry[j].Name
	})
}

// Formats lists the supported formats sorted by name.
func Formats() []Format {
	out := append([]Format(nil), registry...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup finds a format by name.
func Lookup(name string) (Format, bool) {
	for _, f := range registry {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}

// FormatNames is a comma-separated list of the supported format names.
func FormatNames() string {
	var names []string
	for _, f := range Formats() {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

// ErrUnknownFormat is returned by Detect when no format claims a file.
var ErrUnknownFormat = errors.New("unknown format")

// ErrEmpty is returned by Detect for a file with nothing but white space:
// not bad input (an export with no confirmed case is empty), just nothing to read.
var ErrEmpty = errors.New("file is empty")

// Detect picks the format of a file from its first bytes.
func Detect(file string, head []byte) (Format, error) {
	trimmed := bytes.TrimSpace(stripBOM(head))
	if len(trimmed) == 0 {
		return Format{}, fmt.Errorf("%s: %w", file, ErrEmpty)
	}
	for _, f := range registry {
		if f.Detect(trimmed) {
			return f, nil
		}
	}
	return Format{}, fmt.Errorf("%s: not a supported trace format (supported: %s; force one with --format): %w",
		file, FormatNames(), ErrUnknownFormat)
}

// Parse detects the format of r (unless forced is non-empty) and parses it.
// It returns the format used.
func Parse(ctx context.Context, r io.Reader, file, forced string, emit Emit) (Format, error) {
	br := bufio.NewReaderSize(r, HeadSize)
	head, err := br.Peek(HeadSize)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return Format{}, fmt.Errorf("%s: %w", file, err)
	}
	var f Format
	if forced != "" {
		var ok bool
		if f, ok = Lookup(forced); !ok {
			return Format{}, fmt.Errorf("unknown format %q (supported: %s)", forced, FormatNames())
		}
	} else if f, err = Detect(file, head); err != nil {
		return Format{}, err
	}
	return f, f.Parse(ctx, br, file, func(r Record) error {
		if r.Trace != nil {
			estimateCost(r.Trace)
		}
		return emit(r)
	})
}

func stripBOM(b []byte) []byte { return bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) }

// LineError is a precise complaint about one record of a file: which file,
// which line, which JSON path, and what was expected there.
type LineError = model.RecordError

// firstJSONLine returns the first non-blank line of head, for the detectors
// of line-oriented formats.
func firstJSONLine(head []byte) []byte {
	for len(head) > 0 {
		i := bytes.IndexByte(head, '\n')
		var line []byte
		if i < 0 {
			line, head = head, nil
		} else {
			line, head = head[:i], head[i+1:]
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			return line
		}
	}
	return nil
}

// lines calls fn for every non-blank line of r with its 1-based number.
// Lines may be of any length; the reader never holds more than one line.
func lines(ctx context.Context, r io.Reader, fn func(n int, line []byte) error) error {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	n := 0
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, chunk...)
			continue
		}
		line := chunk
		if long != nil {
			line = append(long, chunk...)
			long = nil
		}
		if len(line) > 0 || err == nil {
			n++
			if n%1024 == 0 {
				if cerr := ctx.Err(); cerr != nil {
					return cerr
				}
			}
			if n == 1 {
				line = stripBOM(line)
			}
			if t := bytes.TrimSpace(line); len(t) > 0 {
				if ferr := fn(n, t); ferr != nil {
					return ferr
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}
