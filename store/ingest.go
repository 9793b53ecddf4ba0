package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"tracelab/model"
)

// RecordError is a precise complaint about one record of a file; the
// store raises its own for records that conflict with what the database
// holds.
type RecordError = model.RecordError

// WriteStats counts what one import wrote.
type WriteStats struct {
	New       int // new traces and cases
	Unchanged int // already present with identical content
	Replaced  int
	Steps     int
	Traces    []string // trace ids written (new or replaced)
	Labels    int      // rater labels added or changed (cases imported with a labeler)
}

// Importer writes the records of one file in one transaction: the engine
// parses, the store receives model rows and batches them. Commit makes
// them land together; Rollback (or a failed Commit) leaves the database
// as it was. Where the rows go until then is the store's business: on
// SQLite a file of traces is staged beside the database (staging.go) so
// the write lock is held only for the copy at Commit.
type Importer struct {
	s       *Store
	ctx     context.Context
	file    string
	replace bool
	labeler string
	at      string    // the import's timestamp, on every row it writes
	tx      *sql.Tx   // the transaction rows are written in: the database's or the staging database's
	conn    *sql.Conn // the database connection tx runs on, when it needs one of its own
	w       *writer
	stage   *staging // set while the rows go to a staging database
	staged  string   // the staging database's file, removed when the import ends
	Stats   WriteStats
}

// SetLabeler makes every case of the file without a labeler of its own
// that labeler's label, added beside the others' (see PutCase).
func (im *Importer) SetLabeler(name string) { im.labeler = name }

// BeginImport starts the import of one file named file; replace says a
// trace or case seen again with other content replaces the old one.
// Nothing is locked yet: the first record decides where rows go.
func (s *Store) BeginImport(ctx context.Context, file string, replace bool) (*Importer, error) {
	return &Importer{s: s, ctx: ctx, file: file, replace: replace, at: s.stamp()}, nil
}

// start opens where the rows go: a file that starts with traces is staged
// when the store stages imports; anything else (a suite of cases, small)
// is written in a transaction on the database itself.
func (im *Importer) start(traces bool) error {
	if im.w != nil {
		return nil
	}
	if traces && im.s.stagesImports() {
		ok, err := im.startStaged()
		if ok || err != nil {
			return err
		}
	}
	return im.startDirect()
}

// startDirect begins the import's transaction on the database (BEGIN
// IMMEDIATE: it waits for the write lock up to the lock wait).
func (im *Importer) startDirect() error {
	tx, err := im.s.db.BeginTx(im.ctx, nil)
	if err != nil {
		return err
	}
	w, err := im.newWriter(tx)
	if err != nil {
		tx.Rollback()
		return err
	}
	im.tx, im.w = tx, w
	return nil
}

// PutTrace writes one trace (its Source says where it was read). A
// record the database refuses (same id, other content, no replace) is a
// RecordError; any other error is fatal to the import.
func (im *Importer) PutTrace(t *model.Trace) (_ *RecordError, err error) {
	defer im.cause(&err)
	if err := im.start(true); err != nil {
		return nil, err
	}
	rerr, err := im.w.putTrace(t, im.replace, &im.Stats)
	if rerr != nil {
		rerr.File = im.file
	}
	return rerr, err
}

// PutCase writes one suite case read at line of the file. A case with no
// rater (no labeler field, no labels, no SetLabeler) is the case itself,
// written or refused as before. A case with raters adds their labels
// beside the others' (a rater's own earlier label is replaced): the case
// is written when it is new (or only the machine's), otherwise it stays
// as it is, and its final label is settled from its raters.
//
// A case is checked against the database when it is put, so a staged file
// moves to the database's own transaction at its first case.
func (im *Importer) PutCase(c *model.Case, line int) (_ *RecordError, err error) {
	defer im.cause(&err)
	if err := im.direct(); err != nil {
		return nil, err
	}
	adj := c.Adjudication
	raters := im.ratersOf(c)
	if len(raters) == 0 && adj == nil {
		rerr, err := im.w.putCase(c, im.file, line, im.replace, &im.Stats)
		if rerr != nil {
			rerr.File = im.file
		}
		return rerr, err
	}
	// The case is written when it is new or still only the machine's;
	// a person's case stays as it is and gains the raters' labels.
	var sha, file string
	var at int
	var machine bool
	err = im.w.cases.find.QueryRowContext(im.ctx, c.CaseID).Scan(&sha, &file, &at, &machine)
	wrote := errors.Is(err, sql.ErrNoRows) || (err == nil && machine)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	if wrote {
		rerr, err := im.w.putCase(c, im.file, line, im.replace, &im.Stats)
		if rerr != nil {
			rerr.File = im.file
		}
		if rerr != nil || err != nil {
			return rerr, err
		}
	}
	changed := 0
	for _, rl := range raters {
		ch, err := im.s.putRaterEventTx(im.ctx, im.tx, c.CaseID, rl)
		if err != nil {
			return nil, err
		}
		if ch {
			changed++
		}
	}
	if adj != nil {
		ch, err := im.s.putAdjudicationTx(im.ctx, im.tx, c.CaseID, *adj)
		if err != nil {
			return nil, err
		}
		if ch {
			changed++
		}
	}
	if changed == 0 && !wrote {
		im.Stats.Unchanged++
	}
	im.Stats.Labels += changed
	return nil, nil
}

// ratersOf takes the rater labels out of an imported case line (and
// clears them and its adjudication from the case itself): its
// labels array (people's and judges'; tracelab's own is derived, never
// imported) and its label as its labeler's (the line's labeler field, else
// the import's). The case's gold gives that labeler's field sets.
func (im *Importer) ratersOf(c *model.Case) []model.RaterLabel {
	var out []model.RaterLabel
	for _, rl := range c.Labels {
		if rl.Kind == model.RaterHuman || rl.Kind == model.RaterJudge {
			out = append(out, rl)
		}
	}
	who := c.Labeler
	if who == "" {
		who = im.labeler
	}
	c.Labeler, c.Labels, c.Adjudication = "", nil, nil
	if who != "" {
		out = append(out, model.RaterLabel{Rater: who, Kind: model.RaterHuman, Label: c.Label, Status: model.StatusConfirmed,
			Fields: &model.FieldSets{Required: nonNil(c.Gold.RequiredFields), Forbidden: nonNil(c.Gold.ForbiddenFields)}})
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// direct makes the rows go to the database's own transaction from here
// on, copying what was staged into it.
func (im *Importer) direct() error {
	if im.stage != nil {
		return im.unstage()
	}
	return im.start(false)
}

// Commit writes what is buffered, records the import (format, sha256 of
// the file, rejected records) and commits. Stats are final after it.
func (im *Importer) Commit(format, sha string, rejected int) (err error) {
	defer im.Rollback()
	defer im.cause(&err)
	if err := im.direct(); err != nil {
		return err
	}
	if err := im.w.flush(); err != nil {
		return err
	}
	if _, err := im.tx.ExecContext(im.ctx, sqlSetSourceFormat, format, im.file); err != nil {
		return err
	}
	st := im.Stats
	if _, err := im.tx.ExecContext(im.ctx, sqlInsertImport, im.file, sha, format, st.New, st.Unchanged, st.Replaced,
		rejected, st.Steps, im.at); err != nil {
		return err
	}
	im.w.close()
	return im.tx.Commit()
}

// cause makes a failure after the import's context ended say so: the
// driver reports a cancelled statement in its own words ("statement is
// closed" from database/sql, a closed connection from pgx), which would
// hide that the user interrupted the import.
func (im *Importer) cause(err *error) {
	if *err != nil && im.ctx.Err() != nil {
		*err = im.ctx.Err()
	}
}

// Rollback abandons the import; a no-op after Commit.
func (im *Importer) Rollback() {
	if im.w != nil {
		im.w.close()
	}
	if im.tx != nil {
		im.tx.Rollback()
	}
	im.w, im.tx = nil, nil
	if im.stage != nil {
		im.stage.close()
		im.stage = nil
	}
	if im.conn != nil {
		detachStaging(im.conn)
		im.conn.Close()
		im.conn = nil
	}
	if im.staged != "" {
		os.Remove(im.staged)
		im.staged = ""
	}
}

const (
	sqlSetSourceFormat = `UPDATE traces SET source_format = ? WHERE source_file = ? AND source_format = ''`
	sqlInsertImport    = `INSERT INTO imports
		(path, sha256, format, traces_new, cases_new, unchanged, replaced, rejected, steps, imported_at)
		VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?)`
	sqlFindTrace = `SELECT id, content_sha, source_file, source_line FROM traces WHERE trace_id = ?`
	sqlInsTrace  = `INSERT INTO traces (trace_id, server, run_id, user_role, as_user, question, started_at,
		outcome, answer, input_tokens, output_tokens, usd, metadata, step_count, tool_calls, turns,
		content_sha, source_file, source_format, source_line, imported_at, question_key, model, usd_estimated)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?, ?) RETURNING id`
	sqlInsContract  = `INSERT INTO contracts (fingerprint, name, body) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`
	sqlLinkCases    = `UPDATE cases SET trace_pk = ? WHERE source_trace = ? AND trace_pk IS NULL`
	sqlAnyUnlinked  = `SELECT EXISTS (SELECT 1 FROM cases WHERE trace_pk IS NULL AND source_trace <> '')`
	sqlDeleteTrace  = `DELETE FROM traces WHERE id = ?`
	sqlStepsHead    = `INSERT INTO steps (trace_pk, idx, kind, step_id, call_id, text, tool, args, result, as_of, is_error, credential, next_cursor, has_more) VALUES`
	sqlTraceCtsHead = `INSERT INTO trace_contracts (trace_pk, name, fingerprint) VALUES`
	sqlTraceCtsTail = `ON CONFLICT (trace_pk, name) DO UPDATE SET fingerprint = excluded.fingerprint`
)

// writer holds the prepared statements of one import transaction.
type writer struct {
	ctx                 context.Context
	tx                  *sql.Tx
	at                  string
	findTrace, insTrace *sql.Stmt
	insContract, link   *sql.Stmt
	cases               *caseWriter
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
	// inDB, set while rows are staged, finds a trace in the database
	// itself (tx is the staging database's); replaces lists the stored
	// traces the staged ones replace, with the content hash seen, for the
	// copy to check that they did not change meanwhile.
	inDB     *sql.Stmt
	replaces map[string]string
	nulOK    bool // the database stores U+0000 in text (dialect.nulInText)
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

// newWriter is the import's writer on tx, for the store's dialect.
func (im *Importer) newWriter(tx *sql.Tx) (*writer, error) {
	w, err := newWriter(im.ctx, tx, im.at)
	if err == nil {
		w.nulOK = im.s.d.nulInText
	}
	return w, err
}

func newWriter(ctx context.Context, tx *sql.Tx, at string) (*writer, error) {
	w := &writer{ctx: ctx, tx: tx, at: at, contracts: map[string][2]string{}, stored: map[string]bool{},
		steps:          newBatch(ctx, tx, sqlStepsHead, 14, ""),
		traceContracts: newBatch(ctx, tx, sqlTraceCtsHead, 3, sqlTraceCtsTail)}
	if err := prepareAll(ctx, tx, []prepared{
		{&w.findTrace, sqlFindTrace}, {&w.insTrace, sqlInsTrace}, {&w.insContract, sqlInsContract}, {&w.link, sqlLinkCases},
	}); err != nil {
		w.close()
		return nil, err
	}
	var err error
	if w.cases, err = newCaseWriter(ctx, tx); err != nil {
		w.close()
		return nil, err
	}
	if err := tx.QueryRowContext(ctx, sqlAnyUnlinked).Scan(&w.unlinked); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

// prepared is one statement to prepare into dst.
type prepared struct {
	dst **sql.Stmt
	q   string
}

func prepareAll(ctx context.Context, tx *sql.Tx, ps []prepared) error {
	for _, p := range ps {
		st, err := tx.PrepareContext(ctx, p.q)
		if err != nil {
			return err
		}
		*p.dst = st
	}
	return nil
}

func closeAll(sts ...*sql.Stmt) {
	for _, st := range sts {
		if st != nil {
			st.Close()
		}
	}
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
	closeAll(w.findTrace, w.insTrace, w.insContract, w.link)
	if w.cases != nil {
		w.cases.close()
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

func (w *writer) putTrace(t *model.Trace, replace bool, res *WriteStats) (*RecordError, error) {
	if !w.nulOK {
		if path := nulPath(t); path != "" {
			return &RecordError{Line: t.Source.Line, Path: path, Msg: errNUL}, nil
		}
	}
	sha := traceSHA(t)
	var oldID int64
	var oldSHA, oldFile string
	var oldLine int
	err := w.findTrace.QueryRowContext(w.ctx, t.TraceID).Scan(&oldID, &oldSHA, &oldFile, &oldLine)
	inDB := false
	if errors.Is(err, sql.ErrNoRows) && w.inDB != nil {
		err = w.inDB.QueryRowContext(w.ctx, t.TraceID).Scan(&oldID, &oldSHA, &oldFile, &oldLine)
		inDB = err == nil
	}
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, err
	case oldSHA == sha:
		res.Unchanged++
		return nil, nil
	case !replace:
		return &RecordError{Line: t.Source.Line, Path: "trace_id", Msg: fmt.Sprintf(
			"trace %q was already imported from %s:%d with different content (use --replace to overwrite it)",
			t.TraceID, oldFile, oldLine)}, nil
	case inDB:
		// Staged: the copy deletes the stored trace (staging.go).
		w.replaces[t.TraceID] = oldSHA
		res.Replaced++
		res.New--
	default:
		// Cases keep their labels: ON DELETE SET NULL unlinks them and the
		// link statement below ties them to the new row.
		if err := w.flush(); err != nil { // rows of the old trace may still be buffered
			return nil, err
		}
		if _, err := w.tx.ExecContext(w.ctx, sqlDeleteTrace, oldID); err != nil {
			return nil, err
		}
		w.unlinked = true
		res.Replaced++
		res.New--
	}
	var meta any
	if len(t.Metadata) > 0 {
		b, _ := json.Marshal(t.Metadata)
		meta = string(b)
	}
	var pk int64
	if err := w.insTrace.QueryRowContext(w.ctx, t.TraceID, t.Server, t.RunID, t.UserRole, t.AsUser, t.Question,
		t.StartedAt, string(t.Outcome), t.FinalAnswer(), t.Usage.InputTokens, t.Usage.OutputTokens, t.Usage.USD,
		meta, len(t.Steps), t.ToolCalls(), t.Turns(), sha, t.Source.File, t.Source.Line, w.at,
		QuestionKey(t.Question), t.Model, t.Usage.Estimated).Scan(&pk); err != nil {
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
			return &RecordError{Line: t.Source.Line, Path: "tools", Msg: "tool " + tc.Name + ": " + err.Error()}, nil
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

// errNUL is the complaint about a record with a NUL character in a text
// column, on a database that cannot store one.
const errNUL = "contains a NUL character (U+0000), which a PostgreSQL database cannot store in text"

// nulPath is the path of the first text field of t holding U+0000, "" for
// none. JSON columns (args, result, metadata, contracts) are encoded JSON,
// where it is always escaped.
func nulPath(t *model.Trace) string {
	fields := []struct{ path, v string }{{"trace_id", t.TraceID}, {"server", t.Server}, {"run_id", t.RunID},
		{"user_role", t.UserRole}, {"as_user", t.AsUser}, {"question", t.Question}, {"started_at", t.StartedAt},
		{"answer", t.Answer}, {"model", t.Model}, {"source", t.Source.File}}
	for i, st := range t.Steps {
		for _, f := range []struct{ name, v string }{{"id", st.ID}, {"call_id", st.CallID}, {"text", st.Text},
			{"tool", st.Tool}, {"as_of", st.AsOf}, {"credential", st.Credential}, {"next_cursor", st.NextCursor}} {
			if strings.ContainsRune(f.v, 0) {
				return fmt.Sprintf("steps[%d].%s", i, f.name)
			}
		}
	}
	for i, tc := range t.Tools {
		fields = append(fields, struct{ path, v string }{fmt.Sprintf("tools[%d].name", i), tc.Name})
	}
	for _, f := range fields {
		if strings.ContainsRune(f.v, 0) {
			return f.path
		}
	}
	return ""
}

func nullJSON(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	return rawText(raw)
}
