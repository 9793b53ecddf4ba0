package importers

import "github.com/tracelab-dev/tracelab/model"

// perRecord is the callback of a record reader (lines, genRecords) for a
// format whose records each parse on their own: each is emitted as what
// parse made of it, or as its error, and the parse goes on.
func perRecord[T any](file string, emit Emit, parse func(file string, line int, raw []byte) (T, *LineError), set func(*Record, T)) func(int, []byte) error {
	return func(n int, raw []byte) error {
		v, lerr := parse(file, n, raw)
		if lerr != nil {
			return emit(Record{Line: n, Err: lerr})
		}
		rec := Record{Line: n}
		set(&rec, v)
		return emit(rec)
	}
}

func setTrace(r *Record, t *model.Trace) { r.Trace = t }
func setCase(r *Record, c *model.Case)   { r.Case = c }
