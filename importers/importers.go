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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
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
	// Explain, when set, says why head is not this format although it
	// nearly is (an Inspect event list without its eval log): asked only
	// when no format detects a file, so the refusal names what is missing.
	Explain func(head []byte) string
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
	return detect(file, head, true, recordLimit{max: DefaultMaxRecord})
}

// detect is Detect knowing whether head holds the whole first record
// (complete), so a refusal can say what was found.
func detect(file string, head []byte, complete bool, lim recordLimit) (Format, error) {
	trimmed := bytes.TrimSpace(stripBOM(head))
	if len(trimmed) == 0 {
		return Format{}, fmt.Errorf("%s: %w", file, ErrEmpty)
	}
	for _, f := range registry {
		if f.Detect(trimmed) {
			return f, nil
		}
	}
	if lerr := firstLineCut(file, trimmed, complete); lerr != nil {
		return Format{}, lerr
	}
	if why := explainNoConversation(trimmed); why != "" { // noconv.go
		return Format{}, noConversationError(file, why)
	}
	return Format{}, fmt.Errorf("%s: not a supported trace format (supported: %s; force one with --format): %w: %s",
		file, FormatNames(), ErrUnknownFormat, describeHead(trimmed, complete, lim))
}

// firstLineCut is the error for a file whose one line is JSON cut short
// (inside a string, an object, an array): no format can be told from it,
// and what is wrong is line 1, not the format. nil for anything else.
func firstLineCut(file string, trimmed []byte, complete bool) *LineError {
	if !complete || bytes.IndexByte(trimmed, '\n') >= 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return nil
	}
	var v json.RawMessage
	if err := json.Unmarshal(trimmed, &v); err == nil || !strings.Contains(err.Error(), "unexpected end of JSON input") {
		return nil
	}
	return &LineError{File: file, Line: 1, Msg: "invalid JSON: unexpected end of input (the line is cut short: truncated file?)"}
}

// Options steer one parse.
type Options struct {
	Format string // force a format by name; "" detects it
	// MaxRecord caps the bytes of one record (a JSONL line, an element of
	// a top-level array, a whole JSON document); 0 means DefaultMaxRecord.
	MaxRecord int64
	// Room, when set, is called with the size of a big line (a JSONL
	// record of roomFrom bytes or more) before the line is decoded, and
	// as it is read each time it doubles, and returns once the caller
	// has room for that much: the caller bounds the bytes of the records
	// it holds decoded (app's byte budget), and a line read and decoded
	// while it had none would be one more on top.
	Room func(ctx context.Context, n int64) error
	// At, when set, reads the input at an offset: the file the reader
	// reads from its start. A line longer than the reader's buffer is
	// then measured there first and read into one buffer made at its
	// size (measureLine); without it the line is gathered in pieces and
	// joined.
	At io.ReaderAt
}

// roomFrom is the size from which a line waits for Room before it is
// decoded; smaller ones are not worth the wait's cost.
const roomFrom = 1 << 20

// roomKey carries Options.Room to lines, as maxRecordKey the cap.
type roomKey struct{}

// DefaultMaxRecord is the record cap: far above any real trace, far below
// what takes a machine down (a record costs a few times its size to read).
const DefaultMaxRecord int64 = 64 << 20

// maxRecordKey carries the record cap to the readers every format shares
// (lines, readValues), which the formats call with their context: passing
// it through twenty Parse signatures would say nothing more.
type maxRecordKey struct{}

// recordCap is the cap on one record for the parse running under ctx.
func recordCap(ctx context.Context) int64 { return recordLimitOf(ctx).max }

// recordLimitOf is the limit on one record for the parse running under
// ctx, with why it is what it is (memlimit.go).
func recordLimitOf(ctx context.Context) recordLimit {
	if l, ok := ctx.Value(maxRecordKey{}).(recordLimit); ok && l.max > 0 {
		return l
	}
	return recordLimit{max: DefaultMaxRecord}
}

// readWhole reads a file that a format parses whole (a YAML cassette, a
// JSON recording): the file is its one record, so the record cap of ctx
// (--max-record) is its cap, as for every other reader.
func readWhole(ctx context.Context, r io.Reader, file, what string) ([]byte, error) {
	lim := recordLimitOf(ctx)
	data, err := io.ReadAll(io.LimitReader(r, lim.max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if int64(len(data)) > lim.max {
		return nil, &LineError{File: file, Line: 1, Msg: what + ": " + lim.over(0)}
	}
	return data, nil
}

// sizeString says a byte count the way --max-record takes it.
func sizeString(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1e6:
		return mbString(n)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Parse detects the format of r (unless forced is non-empty) and parses it.
// It returns the format used.
func Parse(ctx context.Context, r io.Reader, file, forced string, emit Emit) (Format, error) {
	return ParseWith(ctx, r, file, Options{Format: forced}, emit)
}

// ParseWith is Parse with options.
func ParseWith(ctx context.Context, r io.Reader, file string, opts Options, emit Emit) (Format, error) {
	maxRecord := opts.MaxRecord
	if maxRecord <= 0 {
		maxRecord = DefaultMaxRecord
	}
	lim := limitFor(maxRecord, ProcessMemoryLimit())
	ctx = context.WithValue(ctx, maxRecordKey{}, lim)
	if opts.Room != nil {
		ctx = context.WithValue(ctx, roomKey{}, opts.Room)
	}
	br := bufio.NewReaderSize(r, HeadSize)
	head, err := br.Peek(HeadSize)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return Format{}, fmt.Errorf("%s: %w", file, err)
	}
	var f Format
	if opts.Format != "" {
		var ok bool
		if f, ok = Lookup(opts.Format); !ok {
			return Format{}, fmt.Errorf("unknown format %q (supported: %s)", opts.Format, FormatNames())
		}
	} else if f, err = detect(file, head, !firstRecordCut(head), lim); err != nil {
		if !errors.Is(err, ErrUnknownFormat) || !firstRecordCut(head) && !documentCut(head) {
			return Format{}, err
		}
		// The first record runs past the head (a JSONL line or a
		// one-line document over 1 MiB, or a pretty-printed document,
		// readon.go): read it whole, up to the record cap, and look again.
		read := readFirstRecord
		if !firstRecordCut(head) {
			read = readDocument
		}
		first, complete, rerr := read(br, lim.max)
		if rerr != nil {
			return Format{}, fmt.Errorf("%s: %w", file, rerr)
		}
		if f, err = detect(file, first, complete, lim); err != nil {
			return Format{}, err
		}
		br = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(first), br), HeadSize)
	}
	if opts.At != nil {
		ctx = context.WithValue(ctx, inputAtKey{}, inputAt{r: opts.At, br: br})
	}
	perr := f.Parse(ctx, br, file, func(r Record) error {
		return emit(finishRecord(file, r))
	})
	var lerr *LineError
	if errors.As(perr, &lerr) && lerr.File == "" {
		lerr.File = file // the shared readers know the line, not the file
	}
	return f, perr
}

// finishRecord is what every format's trace goes through before it is
// stored (file imports and live intake alike): a cost estimate where the
// source gave none, id checks, valid text.
func finishRecord(file string, r Record) Record {
	if r.Trace != nil {
		estimateCost(r.Trace)
		if lerr := checkIDs(r.Trace); lerr != nil {
			lerr.File, lerr.Line = file, r.Line
			return Record{Line: r.Line, Err: lerr}
		}
		validText(r.Trace)
	}
	return r
}

// firstRecordCut reports whether head is a full head whose first line does
// not end in it: the first record may be longer than what detection saw.
func firstRecordCut(head []byte) bool {
	return len(head) == HeadSize && !bytes.Contains(bytes.TrimLeft(head, " \t\r\n"), []byte{'\n'})
}

// readFirstRecord reads from br through the end of the first line, at
// most maxRecord bytes; complete is false when it stopped at the cap.
func readFirstRecord(br *bufio.Reader, maxRecord int64) (first []byte, complete bool, err error) {
	var buf bytes.Buffer
	for int64(buf.Len()) <= maxRecord {
		chunk, err := br.ReadSlice('\n')
		buf.Write(chunk)
		switch {
		case int64(buf.Len()) > maxRecord:
			return buf.Bytes(), false, nil
		case err == nil, errors.Is(err, io.EOF):
			return buf.Bytes(), true, nil
		case !errors.Is(err, bufio.ErrBufferFull):
			return nil, false, err
		}
	}
	return buf.Bytes(), false, nil
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

// skipLine reads br through the end of the line it is in, keeping none
// of it, and says how many bytes that was (the line end not counted): an
// over-long record is reported with its size at no cost in memory.
func skipLine(br *bufio.Reader) int64 {
	var n int64
	for {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(chunk))
		if !errors.Is(err, bufio.ErrBufferFull) {
			return n - eolLen(chunk)
		}
	}
}

// eolLen is the length of the line end that closes b ("\n", "\r\n" or none).
func eolLen(b []byte) int64 {
	switch {
	case bytes.HasSuffix(b, []byte("\r\n")):
		return 2
	case bytes.HasSuffix(b, []byte("\n")):
		return 1
	}
	return 0
}

// lines calls fn for every non-blank line of r with its 1-based number.
// A line may be as long as the record cap of ctx; one past it stops the
// read with a LineError naming its line. The reader holds one line at a
// time. A line longer than the reader's buffer is read into one buffer
// made at its size, measured in the file first when the parse has the
// file (Options.At, measureLine); otherwise it is gathered in pieces and
// joined once, which costs twice its size at the join, not the four or
// five a doubling buffer costs.
func lines(ctx context.Context, r io.Reader, fn func(n int, line []byte) error) error {
	return linesOwned(ctx, r, func(n int, line []byte, _ bool) error { return fn(n, line) })
}

// linesOwned is lines telling fn whether the line is in a buffer made for
// it, which lines neither keeps nor reuses (owned): a long line. A short
// one is in the reader's buffer, overwritten by the next read.
func linesOwned(ctx context.Context, r io.Reader, fn func(n int, line []byte, owned bool) error) error {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	lim := recordLimitOf(ctx)
	room, _ := ctx.Value(roomKey{}).(func(context.Context, int64) error)
	// The file under br, when br reads it from its start: pos is where
	// br is in it.
	at, _ := ctx.Value(inputAtKey{}).(inputAt)
	if at.br != br {
		at = inputAt{}
	}
	var pos int64
	n := 0
	var pieces [][]byte
	var long []byte // a long line, in the one buffer measureLine sized
	size := int64(0)
	nextRoom := int64(roomFrom) // the size of a long line at which it next waits for room
	for {
		chunk, err := br.ReadSlice('\n')
		start := pos
		pos += int64(len(chunk))
		if errors.Is(err, bufio.ErrBufferFull) {
			if size += int64(len(chunk)); size > lim.max {
				return &LineError{Line: n + 1, Msg: lim.over(size + skipLine(br))}
			}
			if room != nil && size >= nextRoom {
				// A long line waits for room as it grows, each time
				// it doubles: what is read of it is held too.
				if rerr := room(ctx, size); rerr != nil {
					return rerr
				}
				nextRoom = 2 * size
			}
			switch {
			case long != nil:
				long = append(long, chunk...)
			case pieces == nil && at.r != nil:
				if m := measureLine(at.r, start, chunk, lim.max); m > 0 {
					if room != nil && m >= nextRoom {
						// The whole line is taken at once: it waits
						// for room for all of it, once.
						if rerr := room(ctx, m); rerr != nil {
							return rerr
						}
						nextRoom = 2 * m
					}
					long = append(make([]byte, 0, m), chunk...)
					break
				}
				fallthrough
			default:
				pieces = append(pieces, bytes.Clone(chunk))
			}
			continue
		}
		line, owned := chunk, pieces != nil || long != nil
		if !owned && int64(len(line)) > lim.max {
			return &LineError{Line: n + 1, Msg: lim.over(int64(len(line)) - eolLen(line))}
		}
		if pieces != nil || long != nil {
			if size += int64(len(chunk)); size > lim.max {
				return &LineError{Line: n + 1, Msg: lim.over(size - eolLen(chunk))}
			}
			if long != nil {
				line = append(long, chunk...)
			} else {
				line = make([]byte, 0, size)
				for _, p := range pieces {
					line = append(line, p...)
				}
				line = append(line, chunk...)
			}
			pieces, long, size, nextRoom = nil, nil, 0, roomFrom
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
				if room != nil && len(t) >= roomFrom {
					if rerr := room(ctx, int64(len(t))); rerr != nil {
						return rerr
					}
				}
				if ferr := fn(n, t, owned); ferr != nil {
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

// inputAtKey carries Options.At to lines, with the reader that reads it
// from its start: lines measures a line in the file only when it reads
// that reader.
type inputAtKey struct{}

type inputAt struct {
	r  io.ReaderAt
	br *bufio.Reader
}

// measureLine is the length of the line that starts at offset start of
// r, line end included, read there in blocks, never held; head is what
// the reader read of the line so far. 0 when r does not hold head at
// start (r is not the file the reader reads, or not from its start), when
// it cannot be read at an offset (a pipe), or when the line is over max:
// the caller then reads the line as if r were not there.
func measureLine(r io.ReaderAt, start int64, head []byte, max int64) int64 {
	block := make([]byte, 64<<10)
	for off := 0; off < len(head); {
		n, err := r.ReadAt(block[:min(len(block), len(head)-off)], start+int64(off))
		if n == 0 || !bytes.Equal(block[:n], head[off:off+n]) {
			return 0
		}
		off += n
		if err != nil && off < len(head) {
			return 0
		}
	}
	size := int64(len(head))
	for size <= max+2 { // a line end of two bytes is not in the cap
		n, err := r.ReadAt(block, start+size)
		if i := bytes.IndexByte(block[:n], '\n'); i >= 0 {
			return size + int64(i) + 1
		}
		size += int64(n)
		if errors.Is(err, io.EOF) {
			return size
		}
		if err != nil {
			return 0
		}
	}
	return 0
}
