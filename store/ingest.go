package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"tracelab/importers"
	"tracelab/model"
)

// Defaults fill in what a trace format does not carry.
type Defaults struct {
	Server, AsUser, UserRole, RunID string
}

// ImportOptions steer one import.
type ImportOptions struct {
	Format   string // force a format; "" detects it
	Replace  bool   // a trace or case seen again with other content replaces the old one
	SkipBad  bool   // import the good records and report the bad ones
	Defaults Defaults
	// Progress, when set, is called now and then with bytes read so far and
	// records seen so far.
	Progress func(bytes int64, records int)
}

// ImportResult says what one file did to the database.
type ImportResult struct {
	File      string
	Format    string
	SHA256    string
	New       int // new traces and cases
	Unchanged int // already present with identical content
	Replaced  int
	Steps     int
	Traces    []string // trace ids written (new or replaced)
	Bad       []*importers.LineError
}

// Summary is the one-line report the CLI prints.
func (r ImportResult) Summary() string {
	s := fmt.Sprintf("%s: %s, %d new, %d unchanged", r.File, r.Format, r.New, r.Unchanged)
	if r.Replaced > 0 {
		s += fmt.Sprintf(", %d replaced", r.Replaced)
	}
	if len(r.Bad) > 0 {
		s += fmt.Sprintf(", %d rejected", len(r.Bad))
	}
	return s
}

// ErrRejected wraps an import that failed because of bad records; the
// database is unchanged for that file.
var ErrRejected = errors.New("rejected")

// ImportFile imports one file in one transaction: either every good record
// lands (and, without SkipBad, only when there are no bad ones) or nothing does.
func (s *Store) ImportFile(ctx context.Context, path string, opts ImportOptions) (ImportResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return ImportResult{File: path}, err
	}
	defer f.Close()
	return s.Import(ctx, f, path, opts)
}

// countingReader counts bytes and hashes them as the parser reads.
type countingReader struct {
	r     io.Reader
	n     int64
	h     io.Writer
	onAdv func(int64)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	c.h.Write(p[:n])
	if c.onAdv != nil {
		c.onAdv(c.n)
	}
	return n, err
}

// Import reads r (named name in messages) in one transaction.
func (s *Store) Import(ctx context.Context, r io.Reader, name string, opts ImportOptions) (ImportResult, error) {
	res := ImportResult{File: name}
	h := sha256.New()
	var records atomic.Int64 // written by the writer, read by the parser's progress callback
	cr := &countingReader{r: r, h: h}
	if opts.Progress != nil {
		cr.onAdv = func(n int64) { opts.Progress(n, int(records.Load())) }
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return res, err
	}
	defer tx.Rollback() // no-op after Commit
	w, err := newWriter(ctx, tx, s.stamp())
	if err != nil {
		return res, err
	}
	defer w.close()
	// Parsing runs in its own goroutine, a few records ahead of the writer,
	// so JSON decoding overlaps with SQLite's work.
	recs := make(chan importers.Record, 256)
	type parsed struct {
		format importers.Format
		err    error
	}
	done := make(chan parsed, 1)
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		f, err := importers.Parse(pctx, cr, name, opts.Format, func(rec importers.Record) error {
			select {
			case recs <- rec:
				return nil
			case <-pctx.Done():
				return pctx.Err()
			}
		})
		close(recs)
		done <- parsed{f, err}
	}()
	var fatal error
	for rec := range recs {
		if fatal != nil {
			continue // drain so the parser can finish
		}
		records.Add(1)
		if rec.Err != nil {
			res.Bad = append(res.Bad, rec.Err)
			continue
		}
		var lerr *importers.LineError
		var err error
		switch {
		case rec.Trace != nil:
			rec.Trace.Source = model.Source{File: name, Line: rec.Line}
			applyDefaults(rec.Trace, opts.Defaults)
			lerr, err = w.putTrace(rec.Trace, opts.Replace, &res)
		case rec.Case != nil:
			lerr, err = w.putCase(rec.Case, name, rec.Line, opts.Replace, &res)
		}
		if err != nil {
			fatal = err
			cancel()
		}
		if lerr != nil {
			res.Bad = append(res.Bad, lerr)
		}
	}
	p := <-done
	res.Format = p.format.Name
	if errors.Is(p.err, importers.ErrEmpty) {
		res.Format, p.err = "empty", nil
	}
	if err := ctx.Err(); err != nil {
		// database/sql rolls the transaction back on cancel, so the writer's
		// own error ("statement is closed") would hide the real cause.
		return res, err
	}
	if fatal != nil {
		return res, fatal
	}
	if p.err != nil {
		return res, p.err
	}
	for i := range res.Bad {
		res.Bad[i].File = name
	}
	if len(res.Bad) > 0 && !opts.SkipBad {
		return res, fmt.Errorf("%w: %d bad record(s) in %s, nothing imported from it", ErrRejected, len(res.Bad), name)
	}
	if err := w.flush(); err != nil {
		return res, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE traces SET source_format = ? WHERE source_file = ? AND source_format = ''`,
		res.Format, name); err != nil {
		return res, err
	}
	res.SHA256 = hex.EncodeToString(h.Sum(nil))
	if err := recordImport(ctx, tx, res, s.stamp()); err != nil {
		return res, err
	}
	w.close()
	if err := tx.Commit(); err != nil {
		return res, err
	}
	return res, nil
}

func applyDefaults(t *model.Trace, d Defaults) {
	if t.Server == "" {
		t.Server = d.Server
	}
	if t.AsUser == "" {
		t.AsUser = d.AsUser
	}
	if t.UserRole == "" {
		t.UserRole = d.UserRole
	}
	if t.RunID == "" {
		t.RunID = d.RunID
	}
}

// writer holds the prepared statements of one import transaction.
type writer struct {
	ctx                 context.Context
	tx                  *sql.Tx
	at                  string
	findTrace, insTrace *sql.Stmt
	insContract, link   *sql.Stmt
	closed              bool
	// steps and traceContracts are written in multi-row statements that
	// span traces: fewer, larger executions are what the pure-Go SQLite
	// spends its time on.
	steps, traceContracts *batch
	// contracts caches canonical body and fingerprint by wire bytes: the
	// same tool list repeats on every trace of a run.
	contracts map[string][2]string
	stored    map[string]bool // fingerprints already inserted in this transaction
	// unlinked says some case may wait for its trace (source_trace set,
	// no trace yet); while none does, new traces skip the link update.
	unlinked bool
}

// contract returns the canonical body and wire fingerprint of a contract.
func (w *writer) contract(tc model.ToolContract) (body, fp string, err error) {
	wire := tc.WireJSON()
	if c, ok := w.contracts[string(wire)]; ok {
		return c[0], c[1], nil
	}
	canon, err := model.CanonicalJSON(wire)
	if err != nil {
		return "", "", err
	}
	sum := sha256.Sum256(canon)
	body, fp = string(canon), hex.EncodeToString(sum[:])
	w.contracts[string(wire)] = [2]string{body, fp}
	return body, fp, nil
}

func newWriter(ctx context.Context, tx *sql.Tx, at string) (*writer, error) {
	w := &writer{ctx: ctx, tx: tx, at: at, contracts: map[string][2]string{}, stored: map[string]bool{},
		steps: newBatch(ctx, tx, `INSERT INTO steps (trace_pk, idx, kind, step_id, call_id, text, tool, args,
			result, as_of, is_error, credential, next_cursor, has_more) VALUES`, 14, ""),
		traceContracts: newBatch(ctx, tx, `INSERT INTO trace_contracts (trace_pk, name, fingerprint) VALUES`, 3,
			`ON CONFLICT (trace_pk, name) DO UPDATE SET fingerprint = excluded.fingerprint`)}
	prep := []struct {
		dst **sql.Stmt
		q   string
	}{
		{&w.findTrace, `SELECT id, content_sha, source_file, source_line FROM traces WHERE trace_id = ?`},
		{&w.insTrace, `INSERT INTO traces (trace_id, server, run_id, user_role, as_user, question, started_at,
			outcome, answer, input_tokens, output_tokens, usd, metadata, step_count, tool_calls, turns,
			content_sha, source_file, source_format, source_line, imported_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?)`},
		{&w.insContract, `INSERT INTO contracts (fingerprint, name, body) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`},
		{&w.link, `UPDATE cases SET trace_pk = ? WHERE source_trace = ? AND trace_pk IS NULL`},
	}
	for _, p := range prep {
		st, err := tx.PrepareContext(ctx, p.q)
		if err != nil {
			w.close()
			return nil, err
		}
		*p.dst = st
	}
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM cases WHERE trace_pk IS NULL AND source_trace <> '')`).
		Scan(&w.unlinked); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

// flush writes every buffered row.
func (w *writer) flush() error {
	if err := w.steps.flush(); err != nil {
		return err
	}
	return w.traceContracts.flush()
}

func (w *writer) close() {
	if w.closed {
		return
	}
	w.closed = true
	for _, st := range []*sql.Stmt{w.findTrace, w.insTrace, w.insContract, w.link} {
		if st != nil {
			st.Close()
		}
	}
	w.steps.close()
	w.traceContracts.close()
}

// contentSHA is the hash that decides whether a trace or case seen again
// is the same one: sha256 over its JSON encoding (the source location is
// not part of it). encoding/json writes struct fields in a fixed order and
// map keys sorted, so equal content gives equal bytes without a
// canonicalization pass on the import hot path.
func contentSHA(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("store: encoding %T: %v", v, err)) // model types always encode
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func (w *writer) putTrace(t *model.Trace, replace bool, res *ImportResult) (*importers.LineError, error) {
	sha := contentSHA(t)
	var oldID int64
	var oldSHA, oldFile string
	var oldLine int
	err := w.findTrace.QueryRowContext(w.ctx, t.TraceID).Scan(&oldID, &oldSHA, &oldFile, &oldLine)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, err
	case oldSHA == sha:
		res.Unchanged++
		return nil, nil
	case !replace:
		return &importers.LineError{Line: t.Source.Line, Path: "trace_id", Msg: fmt.Sprintf(
			"trace %q was already imported from %s:%d with different content (use --replace to overwrite it)",
			t.TraceID, oldFile, oldLine)}, nil
	default:
		// Cases keep their labels: ON DELETE SET NULL unlinks them and the
		// link statement below ties them to the new row.
		if err := w.flush(); err != nil { // rows of the old trace may still be buffered
			return nil, err
		}
		if _, err := w.tx.ExecContext(w.ctx, `DELETE FROM traces WHERE id = ?`, oldID); err != nil {
			return nil, err
		}
		res.Replaced++
		res.New--
	}
	var meta any
	if len(t.Metadata) > 0 {
		b, _ := json.Marshal(t.Metadata)
		meta = string(b)
	}
	r, err := w.insTrace.ExecContext(w.ctx, t.TraceID, t.Server, t.RunID, t.UserRole, t.AsUser, t.Question,
		t.StartedAt, string(t.Outcome), t.FinalAnswer(), t.Usage.InputTokens, t.Usage.OutputTokens, t.Usage.USD,
		meta, len(t.Steps), t.ToolCalls(), t.Turns(), sha, t.Source.File, t.Source.Line, w.at)
	if err != nil {
		return nil, err
	}
	pk, err := r.LastInsertId()
	if err != nil {
		return nil, err
	}
	for i := range t.Steps {
		st := &t.Steps[i]
		if err := w.steps.add(pk, i, string(st.Kind), st.ID, st.CallID, st.Text, st.Tool, nullJSON(st.Args),
			nullJSON(st.Result), st.AsOf, st.IsError, st.Credential, st.NextCursor, st.HasMore); err != nil {
			return nil, err
		}
	}
	for _, tc := range t.Tools {
		body, fp, err := w.contract(tc)
		if err != nil {
			return &importers.LineError{Line: t.Source.Line, Path: "tools", Msg: "tool " + tc.Name + ": " + err.Error()}, nil
		}
		if !w.stored[fp] {
			if _, err := w.insContract.ExecContext(w.ctx, fp, tc.Name, body); err != nil {
				return nil, err
			}
			w.stored[fp] = true
		}
		if err := w.traceContracts.add(pk, tc.Name, fp); err != nil {
			return nil, err
		}
	}
	if w.unlinked {
		if _, err := w.link.ExecContext(w.ctx, pk, t.TraceID); err != nil {
			return nil, err
		}
	}
	res.New++
	res.Steps += len(t.Steps)
	res.Traces = append(res.Traces, t.TraceID)
	return nil, nil
}

func nullJSON(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	return string(raw)
}
