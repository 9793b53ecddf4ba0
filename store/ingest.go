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
	"runtime/debug"
	"sort"
	"strconv"
	"strings"

	"github.com/tracelab-dev/tracelab/model"
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
	// Written counts the traces written (new or replaced). Their ids are
	// not kept: a list of every id grew with the file, and no caller
	// needed more than its length (Unscored lists those still to score).
	Written int
	Labels  int // rater labels added or changed (cases imported with a labeler)
	Scored  int // scores put with PutScores (final after Commit)
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
	// pending is the traces written and not scored yet, each with its
	// place among the writes (Stats.Written when it was written): what
	// Unscored returns, in that order. The scorer follows the writer
	// closely, so it stays small, where a set of every scored id grew with
	// the file (18 MB of ids at 300k traces, doubled by the GC's headroom).
	pending map[string]int
	encodes []string  // of those, the ones whose score says they teach through contracts (0025)
	format  string    // the file's format, once EndOfFile or Commit knows it
	ended   bool      // EndOfFile was called: no trace or case may follow
	live    bool      // a live intake batch (live.go): never staged, no import row
	liveQ   liveStmts // its statements, bound once per batch
	reuse   *reuse    // a live batch's statements, kept across batches (nil: prepared per transaction)
	Stats   WriteStats
}

// errAfterEnd is a trace or case put after EndOfFile.
var errAfterEnd = errors.New("store: a record put after EndOfFile")

// SetLabeler makes every case of the file without a labeler of its own
// that labeler's label, added beside the others' (see PutCase).
func (im *Importer) SetLabeler(name string) { im.labeler = name }

// BeginImport starts the import of one file named file; replace says a
// trace or case seen again with other content replaces the old one.
// Nothing is locked yet: the first record decides where rows go.
func (s *Store) BeginImport(ctx context.Context, file string, replace bool) (*Importer, error) {
	return &Importer{s: s, ctx: ctx, file: file, replace: replace, at: s.stamp(), pending: map[string]int{}}, nil
}

// start opens where the rows go: a file that starts with traces is staged
// when the store stages imports; anything else (a suite of cases, small)
// is written in a transaction on the database itself.
func (im *Importer) start(traces bool) error {
	if im.w != nil {
		return nil
	}
	if traces && !im.live && im.s.stagesImports() {
		ok, err := im.startStaged()
		if ok || err != nil {
			return err
		}
	}
	return im.startDirect(traces)
}

// startDirect begins the import's transaction on the database (BEGIN
// IMMEDIATE: it waits for the write lock up to the lock wait). A bulk
// writer of traces takes the search connection too (a suite of cases has
// no use for it).
func (im *Importer) startDirect(traces bool) error {
	tx, err := im.s.db.BeginTx(im.ctx, nil)
	if err != nil {
		return err
	}
	if im.live {
		im.reuse = im.s.reuse
	}
	w, err := im.newWriter(tx)
	if err != nil {
		tx.Rollback()
		return err
	}
	if !im.live && im.s.d == postgresDialect {
		w.bulk()
	}
	if traces && w.known != nil {
		if w.search, err = startBulkSearch(im.ctx, im.s, tx, w.traceRows); err != nil {
			w.close()
			tx.Rollback()
			return err
		}
	}
	im.tx, im.w = tx, w
	return nil
}

// Prefetch looks up, in one query, which of the traces about to be put
// the database holds already, so that PutRow need not ask for each one.
// Only an import that writes trace rows in batches on PostgreSQL (see
// writer.bulk) asks; elsewhere it does nothing. The answers are used once:
// a trace put twice is looked up again among the rows written.
func (im *Importer) Prefetch(rows []*TraceRow) (err error) {
	defer im.cause(&err)
	if len(rows) == 0 || im.ended || im.live || im.s.d != postgresDialect {
		return nil
	}
	if err := im.start(true); err != nil {
		return err
	}
	w := im.w
	if w.known == nil {
		return nil
	}
	ids := make([]string, 0, len(rows))
	for _, r := range rows {
		if _, ok := w.known[r.t.TraceID]; !ok {
			ids = append(ids, r.t.TraceID)
			w.known[r.t.TraceID] = nil // not in the database, unless the query says so
		}
	}
	return inLists(ids, func(list []any) error {
		q, err := w.tx.QueryContext(w.ctx, withList(sqlFindTraces, len(list)), list...)
		if err != nil {
			return err
		}
		defer q.Close()
		for q.Next() {
			var id string
			o := &storedTrace{}
			if err := q.Scan(&id, &o.pk, &o.sha, &o.file, &o.line); err != nil {
				return err
			}
			w.known[id] = o
		}
		return q.Err()
	})
}

// PutTrace writes one trace (its Source says where it was read). A
// record the database refuses (same id, other content, no replace) is a
// RecordError; any other error is fatal to the import.
func (im *Importer) PutTrace(t *model.Trace) (*RecordError, error) {
	_, rerr, err := im.PutRow(PrepareTrace(t))
	return rerr, err
}

// PutRow is PutTrace for a prepared trace that also says whether the
// trace can be scored before the import commits: fresh is the trace as
// LoadTraces will read it back (tools as stored, the final answer filled
// in) when it was written new with no case waiting for it, else nil. A
// fresh trace's score goes in with PutScores, in the same transaction. A
// trace that replaces another, or that a stored case waits for, is scored
// after the commit, with its case and the traces it teaches.
func (im *Importer) PutRow(row *TraceRow) (fresh *model.Trace, _ *RecordError, err error) {
	defer im.cause(&err)
	if im.ended {
		return nil, nil, errAfterEnd
	}
	if err := im.start(true); err != nil {
		return nil, nil, err
	}
	t := row.t
	written := im.Stats.Written
	fresh, rerr, err := im.w.putTrace(row, im.replace, &im.Stats)
	if _, ok := im.pending[t.TraceID]; im.Stats.Written > written && !ok {
		im.pending[t.TraceID] = written
	}
	if rerr != nil {
		rerr.File = im.file
	}
	if fresh != nil && im.stage != nil && im.stage.unlinked {
		// A case in the database may wait for this id: it is linked at
		// the copy, and the trace scored with it after the commit.
		var waits bool
		if err := im.stage.waiting.QueryRowContext(im.ctx, t.TraceID).Scan(&waits); err != nil {
			return nil, nil, err
		}
		if waits {
			delete(im.w.fresh, t.TraceID)
			fresh = nil
		}
	}
	return fresh, rerr, err
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
	if im.ended {
		return nil, errAfterEnd
	}
	if err := im.direct(false); err != nil {
		return nil, err
	}
	if err := im.w.traceRows.flush(); err != nil { // a bulk writer's traces, before a case looks for one
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

// EndOfFile says the file, of format format, is read to its end: what
// was staged is copied into the database now. Only PutScores and Commit
// may follow; a score put after the copy is written to the database's
// trace rows through the queue triggers, so the engine's import calls it
// once its scorer is done (app's importPipe.awaitScores).
// Without staging it does nothing.
func (im *Importer) EndOfFile(format string) (err error) {
	defer im.cause(&err)
	im.ended = true
	im.format = format // staged traces land with it
	if im.stage == nil {
		return nil
	}
	return im.unstage(true)
}

// direct makes the rows go to the database's own transaction from here
// on, copying what was staged into it; last says only scores follow.
func (im *Importer) direct(last bool) error {
	if im.stage != nil {
		return im.unstage(last)
	}
	return im.start(false)
}

// PutScores writes the scores of fresh traces (see PutRow) and the
// machine's suggested cases for them, in the import's transaction, as
// SaveScores would after the commit: the queue's columns follow from the
// same triggers. A row or suggestion for a trace that is not fresh (it
// was replaced later in the file) is left out.
func (im *Importer) PutScores(rows []ScoreRow, suggestions []Suggestion) (err error) {
	defer im.cause(&err)
	w := im.w
	if w == nil {
		return errors.New("store: PutScores before any trace")
	}
	for _, sg := range suggestions {
		f, ok := w.fresh[sg.TraceID]
		if !ok {
			continue
		}
		c := sg.machineCase(f.role, f.user, f.question)
		if err := w.machineCases.add(c.CaseID, f.pk, c.SourceTrace, f.role, f.user, f.question, mustJSON(c.Gold),
			mustJSON(c.Label), mustJSON(c.Cost), "suggested", OriginMachine, contentSHA(&c), "tracelab", im.at,
			OriginMachine); err != nil {
			return err
		}
	}
	if err := w.machineCases.flush(); err != nil {
		return err
	}
	for _, r := range rows {
		f, ok := w.fresh[r.TraceID]
		if !ok {
			continue
		}
		delete(w.fresh, r.TraceID)
		if err := r.add(w.scoreRows, w.scoreState, f.pk, f.sha, r.resultSHA(), im.at); err != nil {
			return err
		}
		delete(im.pending, r.TraceID)
		im.Stats.Scored++
		if r.Encodes {
			im.encodes = append(im.encodes, r.TraceID)
		}
	}
	return nil
}

// sqlSetEncoders sets traces.encodes (0025) of the traces named, where
// it moves, and names them.
const sqlSetEncoders = `UPDATE traces SET encodes = 1 WHERE encodes = 0 AND trace_id IN (?*) RETURNING trace_id`

// setEncodes flags the traces whose scores PutScores wrote saying they
// teach their question through their tools' contracts (ScoreRow.Encodes),
// and marks stale the takers of those questions, as saveScores does: a
// trace of the question scored before this import learns what they teach.
func (im *Importer) setEncodes() error {
	var taught []string
	err := inLists(im.encodes, func(list []any) error {
		ids, err := queryColumn[string](im.ctx, im.tx, withList(sqlSetEncoders, len(list)), list...)
		taught = append(taught, ids...)
		return err
	})
	if err != nil {
		return err
	}
	_, err = markTakers(im.ctx, im.tx, taught)
	return err
}

// Unscored lists the traces written (Stats.Written) that PutScores wrote
// no score for, in the order they were written: after Commit, what is
// left to score.
func (im *Importer) Unscored() []string {
	if len(im.pending) == 0 {
		return nil
	}
	out := make([]string, 0, len(im.pending))
	for id := range im.pending {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return im.pending[out[i]] < im.pending[out[j]] })
	return out
}

// Commit writes what is buffered, records the import (format, sha256 of
// the file, rejected records) and commits. Stats are final after it.
func (im *Importer) Commit(format, sha string, rejected int) (err error) {
	defer im.Rollback()
	defer im.cause(&err)
	im.format = format // staged traces land with it
	if err := im.direct(true); err != nil {
		return err
	}
	if err := im.w.flush(); err != nil {
		return err
	}
	if err := im.w.refreshQueue(im.file, format); err != nil {
		return err
	}
	if err := im.w.analyze(im.Stats.Written); err != nil {
		return err
	}
	if err := im.setEncodes(); err != nil {
		return err
	}
	if !im.live { // a live batch sets each trace's format itself (SetTraceFormat)
		if _, err := im.tx.ExecContext(im.ctx, sqlSetSourceFormat, format, im.file); err != nil {
			return err
		}
		st := im.Stats
		if _, err := im.tx.ExecContext(im.ctx, sqlInsertImport, im.file, sha, format, st.New, st.Unchanged, st.Replaced,
			rejected, st.Steps, im.at); err != nil {
			return err
		}
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
	// sqlFindTraces is sqlFindTrace for a list of ids (Prefetch).
	sqlFindTraces = `SELECT trace_id, id, content_sha, source_file, source_line FROM traces WHERE trace_id IN (?*)`
	// sqlTakeTraceIDs takes ? ids from the traces' identity sequence
	// (PostgreSQL; see writer.nextPK).
	sqlTakeTraceIDs = `SELECT nextval(pg_get_serial_sequence('traces', 'id')) FROM generate_series(1, ?)`
	// sqlDeferQueue leaves the queue columns of the traces from id ? on
	// to sqlRefreshQueue, until the transaction ends (PostgreSQL, 0032).
	sqlDeferQueue   = `SELECT set_config('tracelab.queue_from', ?, TRUE)`
	sqlRefreshQueue = `SELECT tracelab_refresh_queues_from(?, ?, ?)`
	// sqlTracesEstimate is the planner's row count of traces (-1: never
	// analyzed); sqlAnalyzeImport refreshes the statistics of the tables
	// an import grows that the report, the queue and export read. Export's
	// case page reads trace_contracts: left unanalyzed, the planner
	// guessed 579 contracts a trace, costed each 1,000-case page past
	// jit_above_cost, and compiled it: 240 ms of JIT for a 13 ms query,
	// export --all 25 s instead of 1.8 s right after a 100k import.
	sqlTracesEstimate = `SELECT reltuples::float8 FROM pg_class WHERE oid = 'traces'::regclass`
	sqlAnalyzeImport  = `ANALYZE (SKIP_LOCKED) traces, scores, score_state, cases, trace_contracts`
	sqlInsTrace       = `INSERT INTO traces (trace_id, server, run_id, user_role, as_user, question, started_at,
		outcome, answer, input_tokens, output_tokens, usd, metadata, step_count, tool_calls, turns,
		content_sha, source_file, source_format, source_line, imported_at, question_key, model, usd_estimated)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?, ?) RETURNING id`
	sqlInsContract  = `INSERT INTO contracts (fingerprint, name, body) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`
	sqlLinkCases    = `UPDATE cases SET trace_pk = ? WHERE source_trace = ? AND trace_pk IS NULL`
	sqlAnyUnlinked  = `SELECT EXISTS (SELECT 1 FROM cases WHERE trace_pk IS NULL AND source_trace <> '')`
	sqlDeleteTrace  = `DELETE FROM traces WHERE id = ?`
	sqlStepsHead    = `INSERT INTO steps (trace_pk, idx, kind, tool) VALUES`
	sqlBodiesHead   = `INSERT INTO step_bodies (trace_pk, body) VALUES`
	sqlTraceCtsHead = `INSERT INTO trace_contracts (trace_pk, name, fingerprint) VALUES`
	sqlTraceCtsTail = `ON CONFLICT (trace_pk, name) DO UPDATE SET fingerprint = excluded.fingerprint`
	// The machine's case for a fresh trace, as SaveScores writes it for a
	// trace that has none yet (its score goes through sqlScoresHead).
	sqlMachineCasesHead = `INSERT INTO cases (case_id, trace_pk, source_trace, user_role, as_user, question,
		gold, label, cost, status, gold_origin, content_sha, updated_by, updated_at, gold_sha) VALUES`
	sqlMachineCasesTail = `ON CONFLICT DO NOTHING`
)

// The rows of a staged or bulk writer's traces (see staged), in
// batches: a bulk writer's land with score_ok 1 (see bulk).
const (
	stagedTraceCols = `id, trace_id, server, run_id, user_role, as_user, question, started_at,
		outcome, answer, input_tokens, output_tokens, usd, metadata, step_count, tool_calls, turns,
		content_sha, source_file, source_line, imported_at, question_key, model, usd_estimated`
	sqlStagedTracesHead = `INSERT INTO traces (` + stagedTraceCols + `) VALUES`
	sqlBulkTracesHead   = `INSERT INTO traces (` + stagedTraceCols + `, score_ok) VALUES`
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
	// steps (kind and tool of the steps that name a tool), bodies (each
	// trace's steps, stepbody.go) and traceContracts are written in
	// multi-row statements that span traces: fewer, larger executions are
	// what the pure-Go SQLite spends its time on.
	steps, bodies, traceContracts *batch
	// contracts caches each contract as stored by wire bytes: the same
	// tool list repeats on every trace of a run.
	contracts map[string]storedContract
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
	// bodyParts says a body over bigBody is stored in parts (SQLite,
	// bodyparts.go; PostgreSQL's search trigger reads every body whole).
	bodyParts bool
	// fresh holds the traces of this import PutScores may score (see
	// PutNewTrace) until their score is put.
	fresh map[string]freshTrace
	// scoreRows (with scoreState) and machineCases write what PutScores puts.
	scoreRows, scoreState, machineCases *batch
	// Set while staging (see staged): the ids of the traces written so
	// far (as a filter: the staging table knows them exactly), the last
	// id given, the batch their rows go in and the values each row ends
	// with past stagedTraceCols (see stagedInto).
	ids       *idFilter
	lastPK    int64
	traceRows *batch
	traceTail []any
	// Set in bulk mode (see bulk): what Prefetch found of the traces
	// about to be put (nil: not stored), and ids taken from the sequence
	// and not given yet.
	known   map[string]*storedTrace
	freePKs []int64
	// queueFrom is the first id a bulk writer took (0: none yet): the
	// queue columns of its traces are set at the end (refreshQueue).
	queueFrom int64
	// bigBodies are the staged traces whose step body is over bigBody
	// bytes, in order: the copy moves each on its own (copyBigBodies).
	bigBodies []int64
	// search, set in bulk mode, writes the search rows of the traces put
	// (pgsearch.go); nil: the triggers do.
	search *bulkSearch
}

// analyzeAfter is how many traces a PostgreSQL import writes, at least,
// before it refreshes the planner's statistics of the tables it grew.
const analyzeAfter = 1000

// analyze refreshes the planner's statistics of the tables a bulk import
// of n traces grew, in its transaction, when they grew by more than a
// tenth (or were never analyzed), as autovacuum will some time later.
// Until then the planner guessed: `tracelab report` right after a 100k
// import took 1.09 s instead of 0.36 s (its stale check joined the whole
// score_state), 4.4x the SQLite file's. A role that does not own the
// tables only gets a warning, and a table another session holds (an
// anti-wraparound vacuum, which does not give way) is skipped rather than
// waited for: the import never fails for its statistics.
func (w *writer) analyze(n int) error {
	if w.known == nil || n < analyzeAfter {
		return nil
	}
	var before float64
	if err := w.tx.QueryRowContext(w.ctx, sqlTracesEstimate).Scan(&before); err != nil {
		return err
	}
	if before >= 0 && float64(n) <= before/10 {
		return nil
	}
	_, err := w.tx.ExecContext(w.ctx, sqlAnalyzeImport)
	return err
}

// refreshQueue sets the queue columns of a bulk writer's traces, which
// the triggers left alone, after its rows are written, and the source
// format of those read from file in the same UPDATE (migration 0032).
func (w *writer) refreshQueue(file, format string) error {
	if w.queueFrom == 0 {
		return nil
	}
	_, err := w.tx.ExecContext(w.ctx, sqlRefreshQueue, w.queueFrom, file, format)
	w.queueFrom = 0
	return err
}

// bigBody is the step body length past which a body is written at once,
// not held in a batch, and copied out of the staging database on its
// own. Well above any ordinary trace's body, so the batches of an
// ordinary import are as they were.
const bigBody = 4 << 20

// putBody writes the step body of the trace pk, and hands it with the
// trace's question to the bulk writer's search (pgsearch.go). A big body
// is written at once, so that Go holds it only while SQLite takes its
// copy: a batch would keep it until 63 more bodies came, or the end of
// the file. On SQLite it is written in parts, encoded a part at a time
// (bodyparts.go).
func (w *writer) putBody(pk int64, question string, steps []model.Step) error {
	n := stepsBodyLen(steps)
	if n > releaseBody {
		// Collect what the parse left (the read line, the hash's buffer)
		// and give it back first, so that its peak and the write's do not
		// add up.
		debug.FreeOSMemory()
	}
	if n > bigBody && w.bodyParts {
		start, err := w.putBodyParts(pk, steps, n)
		if err == nil {
			w.noteBig(pk, start)
		}
		return err
	}
	body := stepsBody(steps)
	if err := w.bodies.add(pk, body); err != nil {
		return err
	}
	if n <= bigBody {
		return w.search.add(pk, question, body)
	}
	w.noteBig(pk, n)
	if err := w.bodies.flush(); err != nil {
		return err
	}
	return w.search.addStored(pk)
}

// noteBig notes the staged trace pk whose step_bodies row holds n bytes,
// when that is over bigBody: the copy out of staging moves it on its own.
func (w *writer) noteBig(pk int64, n int) {
	if n > bigBody && w.ids != nil && w.known == nil { // staged, not bulk
		w.bigBodies = append(w.bigBodies, pk)
	}
}

// releaseBody is the body length past which putBody returns Go's free
// memory first: one forced collection, small beside writing that much.
const releaseBody = 32 << 20

// staged makes the writer give the trace ids itself and write the trace
// rows in batches: on a staging database, which nobody else writes.
func (w *writer) staged() {
	w.stagedInto(sqlStagedTracesHead)
}

// stagedInto is staged with the trace rows' statement head: its columns
// are stagedTraceCols, then one more for each of tail, the value every
// row gives it.
func (w *writer) stagedInto(head string, tail ...any) {
	w.ids = newIDFilter()
	w.traceTail = tail
	w.traceRows = newBatch(w.ctx, w.tx, head, strings.Count(stagedTraceCols, ",")+1+len(tail), "")
	for _, b := range []*batch{w.steps, w.bodies, w.traceContracts, w.scoreRows, w.machineCases} {
		b.parent = w.traceRows
	}
}

// bulk makes the writer of a PostgreSQL import write the trace rows in
// batches too, as staged does, with ids it takes from the traces' identity
// sequence a block at a time, and whether a trace is stored already
// prefetched for many traces at once (Prefetch): a round trip per trace
// (find it, insert it returning its id) was most of an import's time.
// Anything that reads the traces table in the transaction flushes the
// batch first (the lookups, the case link, PutCase, a row's parent).
//
// Its traces land with score_ok 1, not the column's 0, though they have
// no score yet: refreshQueue sets it at the end, from the score. Landed
// with 0, each trace had an entry in the partial index traces_unscored
// (score_ok = 0), dead once refreshQueue set it to 1 and left there until
// a vacuum: the first listing of the unscored traces after a 100k import
// (a workbench's background rescore) visited all of them, 2.8 s while 50
// labelers waited on the same two cores.
func (w *writer) bulk() {
	w.stagedInto(sqlBulkTracesHead, 1) // score_ok, until refreshQueue
	w.known = map[string]*storedTrace{}
}

// storedTrace is a trace the database holds, as putTrace compares with.
type storedTrace struct {
	pk   int64
	sha  string
	file string
	line int
}

// pkBlock is how many trace ids a bulk writer takes from the sequence in
// one round trip.
const pkBlock = 256

// nextPK is the next trace id of a bulk writer. The ids of one block are
// increasing, as the sequence gives them, so traces are numbered in the
// order of their file as when each insert took its own.
func (w *writer) nextPK() (int64, error) {
	if len(w.freePKs) == 0 {
		ids, err := queryColumn[int64](w.ctx, w.tx, sqlTakeTraceIDs, pkBlock)
		if err != nil {
			return 0, err
		}
		if len(ids) == 0 {
			return 0, errors.New("store: the traces' id sequence gave no ids")
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		w.freePKs = ids
		if w.queueFrom == 0 {
			// The queue columns of the traces from here on are set at
			// the end (migration 0032).
			if _, err := w.tx.ExecContext(w.ctx, sqlDeferQueue, strconv.FormatInt(ids[0], 10)); err != nil {
				return 0, err
			}
			w.queueFrom = ids[0]
		}
	}
	pk := w.freePKs[0]
	w.freePKs = w.freePKs[1:]
	return pk, nil
}

// storedContract is a tool contract as the store keeps it: its canonical
// body, its fingerprint, and the contract LoadTraces decodes from the body.
type storedContract struct {
	body, fp string
	tc       model.ToolContract
}

// freshTrace is what a score or a machine case of a fresh trace is
// written with.
type freshTrace struct {
	pk                   int64
	sha                  string
	user, role, question string
}

// contract returns a contract as stored: canonical body, wire
// fingerprint, and the contract read back from the body.
func (w *writer) contract(tc model.ToolContract) (storedContract, error) {
	wire := tc.WireJSON()
	if c, ok := w.contracts[string(wire)]; ok {
		return c, nil
	}
	canon, err := model.CanonicalJSON(wire)
	if err != nil {
		return storedContract{}, err
	}
	sum := sha256.Sum256(canon)
	c := storedContract{body: string(canon), fp: hex.EncodeToString(sum[:])}
	if err := json.Unmarshal(canon, &c.tc); err != nil {
		return storedContract{}, err
	}
	c.tc.Raw = json.RawMessage(c.body)
	w.contracts[string(wire)] = c
	return c, nil
}

// newWriter is the import's writer on tx, for the store's dialect.
func (im *Importer) newWriter(tx *sql.Tx) (*writer, error) {
	w, err := newWriter(im.ctx, tx, im.at, im.reuse)
	if err == nil {
		w.nulOK = im.s.d.nulInText
		w.bodyParts = im.s.d == sqliteDialect
	}
	return w, err
}

func newWriter(ctx context.Context, tx *sql.Tx, at string, re *reuse) (*writer, error) {
	w := &writer{ctx: ctx, tx: tx, at: at, contracts: map[string]storedContract{}, stored: map[string]bool{},
		steps:          newBatch(ctx, tx, sqlStepsHead, 4, ""),
		bodies:         newBatch(ctx, tx, sqlBodiesHead, 2, ""),
		traceContracts: newBatch(ctx, tx, sqlTraceCtsHead, 3, sqlTraceCtsTail),
		fresh:          map[string]freshTrace{},
		scoreRows:      newBatch(ctx, tx, sqlScoresHead, sqlScoresCols, ""),
		scoreState:     newBatch(ctx, tx, sqlStateHead, sqlStateCols, ""),
		machineCases:   newBatch(ctx, tx, sqlMachineCasesHead, 15, sqlMachineCasesTail)}
	w.scoreState.parent = w.scoreRows // a state row references its score
	for _, b := range []*batch{w.steps, w.bodies, w.traceContracts, w.scoreRows, w.scoreState, w.machineCases} {
		b.reuse = re
	}
	if err := prepareAll(ctx, tx, re, []prepared{
		{&w.findTrace, sqlFindTrace}, {&w.insTrace, sqlInsTrace}, {&w.insContract, sqlInsContract}, {&w.link, sqlLinkCases},
	}); err != nil {
		w.close()
		return nil, err
	}
	var err error
	if w.cases, err = newCaseWriter(ctx, tx, re); err != nil {
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

// prepareAll prepares each statement for tx, through re when it is set.
func prepareAll(ctx context.Context, tx *sql.Tx, re *reuse, ps []prepared) error {
	for _, p := range ps {
		st, err := re.prepare(ctx, tx, p.q)
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

// flush writes every buffered row: a case before the score of its
// trace, as SaveScores writes them (the queue triggers read both).
func (w *writer) flush() error {
	if err := w.search.flush(); err != nil {
		return err
	}
	for _, b := range []*batch{w.traceRows, w.steps, w.bodies, w.traceContracts, w.machineCases, w.scoreRows, w.scoreState} {
		if err := b.flush(); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) close() {
	if w.closed {
		return
	}
	w.closed = true
	closeAll(w.findTrace, w.insTrace, w.insContract, w.link)
	w.search.close()
	if w.cases != nil {
		w.cases.close()
	}
	for _, b := range []*batch{w.traceRows, w.steps, w.bodies, w.traceContracts, w.machineCases, w.scoreRows, w.scoreState} {
		b.close()
	}
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

// TraceRow is a trace made ready to write: what the store derives from
// it alone (its content hash, question key, metadata JSON, the NUL check)
// is computed by PrepareTrace, on whatever goroutine the caller likes, so
// that the import's writer only writes.
type TraceRow struct {
	t         *model.Trace
	sha, qkey string
	meta      any    // the metadata column: JSON text, or nil
	nulPath   string // the first text field holding U+0000 ("" for none)
}

// PrepareTrace derives a trace's row; t must not change after it.
func PrepareTrace(t *model.Trace) *TraceRow {
	r := &TraceRow{t: t, sha: traceSHA(t), qkey: QuestionKey(t.Question), nulPath: nulPath(t)}
	if len(t.Metadata) > 0 {
		b, _ := json.Marshal(t.Metadata)
		r.meta = string(b)
	}
	return r
}

// putTrace writes one trace; fresh is its stored shape when it is new
// and no case of this transaction links to it (see PutRow).
func (w *writer) putTrace(row *TraceRow, replace bool, res *WriteStats) (fresh *model.Trace, _ *RecordError, _ error) {
	t, sha := row.t, row.sha
	if !w.nulOK && row.nulPath != "" {
		return nil, &RecordError{Line: t.Source.Line, Path: row.nulPath, Msg: errNUL}, nil
	}
	var oldID int64
	var oldSHA, oldFile string
	var oldLine int
	err := sql.ErrNoRows
	if w.ids == nil || w.ids.mayHold(t.TraceID) {
		// Written earlier in this transaction (a staged import knows
		// which ids it may have written, and looks only those up).
		if err = w.traceRows.flush(); err != nil {
			return nil, nil, err
		}
		err = w.findTrace.QueryRowContext(w.ctx, t.TraceID).Scan(&oldID, &oldSHA, &oldFile, &oldLine)
	} else if w.known != nil {
		// Bulk: the database's answer was prefetched (Prefetch), else
		// it is asked now.
		if o, ok := w.known[t.TraceID]; ok {
			delete(w.known, t.TraceID)
			if o != nil {
				oldID, oldSHA, oldFile, oldLine, err = o.pk, o.sha, o.file, o.line, nil
			}
		} else {
			err = w.findTrace.QueryRowContext(w.ctx, t.TraceID).Scan(&oldID, &oldSHA, &oldFile, &oldLine)
		}
	}
	inDB := false
	if errors.Is(err, sql.ErrNoRows) && w.inDB != nil {
		err = w.inDB.QueryRowContext(w.ctx, t.TraceID).Scan(&oldID, &oldSHA, &oldFile, &oldLine)
		inDB = err == nil
	}
	replacing := err == nil
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, nil, err
	case oldSHA == sha:
		res.Unchanged++
		return nil, nil, nil
	case !replace:
		return nil, &RecordError{Line: t.Source.Line, Path: "trace_id", Msg: fmt.Sprintf(
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
			return nil, nil, err
		}
		if _, err := w.tx.ExecContext(w.ctx, sqlDeleteTrace, oldID); err != nil {
			return nil, nil, err
		}
		delete(w.fresh, t.TraceID) // an earlier trace of this file, its score not put yet
		w.unlinked = true
		res.Replaced++
		res.New--
	}
	cols := []any{t.TraceID, t.Server, t.RunID, t.UserRole, t.AsUser, t.Question,
		t.StartedAt, string(t.Outcome), t.FinalAnswer(), t.Usage.InputTokens, t.Usage.OutputTokens, t.Usage.USD,
		row.meta, len(t.Steps), t.ToolCalls(), t.Turns(), sha, t.Source.File, t.Source.Line, w.at,
		row.qkey, t.Model, t.Usage.Estimated}
	var pk int64
	if w.ids != nil {
		// Staged: nobody else writes the staging database, so the ids
		// are the writer's to give and the rows go in batches. Bulk:
		// the ids are taken from the table's sequence ahead.
		if w.known != nil {
			var err error
			if pk, err = w.nextPK(); err != nil {
				return nil, nil, err
			}
		} else {
			w.lastPK++
			pk = w.lastPK
		}
		w.ids.add(t.TraceID)
		if err := w.traceRows.add(append(append([]any{pk}, cols...), w.traceTail...)...); err != nil {
			return nil, nil, err
		}
	} else if err := w.insTrace.QueryRowContext(w.ctx, cols...).Scan(&pk); err != nil {
		return nil, nil, err
	}
	for i := range t.Steps {
		st := &t.Steps[i]
		if st.Tool == "" {
			continue // only a tool's steps are queried (migration 0016)
		}
		if err := w.steps.add(pk, i, string(st.Kind), st.Tool); err != nil {
			return nil, nil, err
		}
	}
	if err := w.putBody(pk, t.Question, t.Steps); err != nil {
		return nil, nil, err
	}
	// A listing names each tool once; of a tool named twice only the
	// later contract is kept (trace_contracts holds one per name), on
	// both backends: PostgreSQL refuses a statement that upserts one row
	// twice, where SQLite let the later row overwrite the earlier.
	last := make(map[string]int, len(t.Tools))
	for i, tc := range t.Tools {
		last[tc.Name] = i
	}
	tools := make([]model.ToolContract, 0, len(t.Tools))
	for i, tc := range t.Tools {
		c, err := w.contract(tc)
		if err != nil {
			return nil, &RecordError{Line: t.Source.Line, Path: "tools", Msg: "tool " + tc.Name + ": " + err.Error()}, nil
		}
		if last[tc.Name] != i {
			continue
		}
		if !w.stored[c.fp] {
			if _, err := w.insContract.ExecContext(w.ctx, c.fp, tc.Name, c.body); err != nil {
				return nil, nil, err
			}
			w.stored[c.fp] = true
		}
		if err := w.traceContracts.add(pk, tc.Name, c.fp); err != nil {
			return nil, nil, err
		}
		tools = append(tools, c.tc)
	}
	linked := false
	if w.unlinked {
		if err := w.traceRows.flush(); err != nil {
			return nil, nil, err
		}
		r, err := w.link.ExecContext(w.ctx, pk, t.TraceID)
		if err != nil {
			return nil, nil, err
		}
		n, err := r.RowsAffected()
		if err != nil {
			return nil, nil, err
		}
		linked = n > 0
	}
	res.New++
	res.Steps += len(t.Steps)
	res.Written++
	if replacing || linked {
		return nil, nil, nil
	}
	w.fresh[t.TraceID] = freshTrace{pk: pk, sha: sha, user: t.AsUser, role: t.UserRole, question: t.Question}
	return storedShape(t, tools), nil, nil
}

// storedShape is t as LoadTraces reads it back: the final answer as its
// answer, and its tools as trace_contracts keeps them (one per name, the
// last given, in name order) decoded from their canonical bodies, so a
// trace scored before its import commits scores as it would after.
func storedShape(t *model.Trace, tools []model.ToolContract) *model.Trace {
	st := *t
	st.Answer = t.FinalAnswer()
	sort.SliceStable(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	kept := tools[:0]
	for i, tc := range tools {
		if i+1 < len(tools) && tools[i+1].Name == tc.Name {
			continue // a later contract of the same name overwrote it
		}
		kept = append(kept, tc)
	}
	st.Tools = kept
	if len(kept) == 0 {
		st.Tools = nil
	}
	return &st
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
		for _, f := range []struct{ name, v string }{{"kind", string(st.Kind)}, {"id", st.ID}, {"call_id", st.CallID}, {"text", st.Text},
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
