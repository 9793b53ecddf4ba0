package store

import (
	"context"
	"database/sql"
)

// The search rows of a bulk PostgreSQL import. 0018's triggers compute
// each trace's rows (search_vector of its question, and then of each
// step's text: a JSON parse, a regexp and to_tsvector; since 0047 of its
// body's text in parts) on the import's own backend, inside the
// statements that insert the trace and its body: 17.6 s of a 28.5 s
// import of 20,000 traces of bench gen (pg_stat_user_functions), while
// the other core mostly waited. A bulk writer turns those triggers off
// for its transaction (migration 0046) and sends each trace's question
// and body to a second connection that computes the same rows with the
// same SQL functions, the one rule of what the index holds; the rows
// come back as text and go into step_search in the import's
// transaction, in batches like every other table's, so a failed import
// leaves none. The two backends then work at once: at 100k traces the
// import took 88 s instead of 143.

// sqlBulkSearchOn turns 0018's search triggers off until the import's
// transaction ends (0046).
const sqlBulkSearchOn = `SELECT set_config('tracelab.bulk_search', 'on', TRUE)`

// sqlSearchRows is the triggers' rows for a list of traces: the same
// functions (0046's step_search_vectors, giving 0047's parts, is the body
// trigger's).
const sqlSearchRows = `WITH b AS (SELECT * FROM unnest(CAST(? AS BIGINT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[])) AS b(pk, question, body))
	SELECT b.pk, -1, 'question', b.question, search_vector(b.question)::text FROM b
	UNION ALL
	SELECT b.pk, r.idx, r.kind, r.text, r.tsv::text FROM b, step_search_vectors(b.body) r`

// sqlSearchInsert writes a job's rows, sent as five arrays: a column a
// parameter, where 64-row VALUES batches box every value.
const sqlSearchInsert = `INSERT INTO step_search (trace_pk, idx, kind, text, tsv)
	SELECT r.pk, r.idx, r.kind, r.text, r.tsv::tsvector
	FROM unnest(CAST(? AS BIGINT[]), CAST(? AS INTEGER[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]))
		AS r(pk, idx, kind, text, tsv)`

// sqlSearchStored is the triggers' rows of one stored trace, computed
// by the import's own backend (see addStored).
const sqlSearchStored = `INSERT INTO step_search (trace_pk, idx, kind, text, tsv)
	SELECT id, -1, 'question', question, search_vector(question) FROM traces WHERE id = ?
	UNION ALL
	SELECT b.trace_pk, r.idx, r.kind, r.text, r.tsv FROM step_bodies b, step_search_vectors(b.body) r WHERE b.trace_pk = ?`

// searchJobs is how many lists of traces may be on their way to the
// search connection or back at once.
const searchJobs = 4

// searchJob is a list of traces: their ids, questions and step bodies,
// and the length of those texts.
type searchJob struct {
	pks               []int64
	questions, bodies []string
	bytes             int
}

// searchResult is a job's rows, a column a slice (sqlSearchInsert's).
type searchResult struct {
	pks               []int64
	idxs              []int32
	kinds, texts, tsv []string
	err               error
}

// bulkSearch computes the search rows of the traces a bulk writer puts on
// its own connection, on a goroutine, and writes them in the import's
// transaction.
type bulkSearch struct {
	conn     *sql.Conn
	cancel   context.CancelFunc
	jobs     chan searchJob
	results  chan searchResult
	exited   chan struct{}
	inflight int       // jobs sent whose result was not read
	next     searchJob // the job being filled
	// The rows go into step_search in the import's transaction, after
	// parent, the batch of the trace rows they reference.
	ctx    context.Context
	tx     *sql.Tx
	parent *batch
}

// startBulkSearch starts the search connection and turns the search
// triggers off for tx; parent is the batch of the trace rows the search
// rows reference. A server that refuses a second connection (its
// max_connections, or the role's CONNECTION LIMIT, reached) gives nil:
// the triggers index the import's traces on its own backend, as for any
// other writer, and the import goes on.
func startBulkSearch(ctx context.Context, s *Store, tx *sql.Tx, parent *batch) (*bulkSearch, error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, ctx.Err()
	}
	if _, err := tx.ExecContext(ctx, sqlBulkSearchOn); err != nil {
		conn.Close()
		return nil, err
	}
	cctx, cancel := context.WithCancel(ctx)
	bs := &bulkSearch{conn: conn, cancel: cancel,
		jobs: make(chan searchJob, searchJobs), results: make(chan searchResult, searchJobs),
		exited: make(chan struct{}), ctx: ctx, tx: tx, parent: parent}
	go bs.run(cctx)
	return bs, nil
}

// run answers the jobs in order until jobs is closed. results never
// blocks: the writer has at most cap(results) jobs out.
func (bs *bulkSearch) run(ctx context.Context) {
	defer close(bs.exited)
	for job := range bs.jobs {
		bs.results <- computeSearchRows(ctx, bs.conn, job)
	}
}

func computeSearchRows(ctx context.Context, conn *sql.Conn, job searchJob) searchResult {
	q, err := conn.QueryContext(ctx, sqlSearchRows, job.pks, job.questions, job.bodies)
	if err != nil {
		return searchResult{err: err}
	}
	defer q.Close()
	var r searchResult
	for q.Next() {
		var pk int64
		var idx int32
		var kind, text, tsv string
		if err := q.Scan(&pk, &idx, &kind, &text, &tsv); err != nil {
			return searchResult{err: err}
		}
		r.pks, r.idxs = append(r.pks, pk), append(r.idxs, idx)
		r.kinds, r.texts, r.tsv = append(r.kinds, kind), append(r.texts, text), append(r.tsv, tsv)
	}
	r.err = q.Err()
	return r
}

// add queues the trace pk's question and body; a full job (batchRows
// traces or batchBytes of text) is sent, so that what the import holds of
// the jobs out (their bodies, and rows as long again coming back) stays
// near searchJobs times batchBytes however long the traces are (each body
// is under bigBody, see addStored). A nil bulkSearch (not a bulk writer: the triggers index the trace) does
// nothing.
func (bs *bulkSearch) add(pk int64, question, body string) error {
	if bs == nil {
		return nil
	}
	bs.next.pks = append(bs.next.pks, pk)
	bs.next.questions = append(bs.next.questions, question)
	bs.next.bodies = append(bs.next.bodies, body)
	bs.next.bytes += len(question) + len(body)
	if !full(len(bs.next.pks), bs.next.bytes) {
		return nil
	}
	return bs.send()
}

// addStored indexes the trace pk from its stored row and body, on the
// import's own backend, as the triggers would: for a body over bigBody,
// which sent to the search connection and back would cost the import
// its length several times over (its text comes back as long as it
// went, and goes out again): a 96 MB tool result took the import's peak
// from 401 MiB to 1,000. Its row and body must be written.
func (bs *bulkSearch) addStored(pk int64) error {
	if bs == nil {
		return nil
	}
	_, err := bs.tx.ExecContext(bs.ctx, sqlSearchStored, pk, pk)
	return err
}

// send sends the job being filled, reading a result first when as many
// jobs as results can hold are out, then writes the results that came.
func (bs *bulkSearch) send() error {
	if len(bs.next.pks) == 0 {
		return nil
	}
	if bs.inflight == searchJobs {
		if err := bs.receive(<-bs.results); err != nil {
			return err
		}
	}
	bs.jobs <- bs.next
	bs.next = searchJob{}
	bs.inflight++
	for {
		select {
		case r := <-bs.results:
			if err := bs.receive(r); err != nil {
				return err
			}
		default:
			return nil
		}
	}
}

// receive writes one job's rows.
func (bs *bulkSearch) receive(r searchResult) error {
	bs.inflight--
	if r.err != nil {
		return r.err
	}
	if len(r.pks) == 0 {
		return nil
	}
	if err := bs.parent.flush(); err != nil { // the traces the rows reference
		return err
	}
	_, err := bs.tx.ExecContext(bs.ctx, sqlSearchInsert, r.pks, r.idxs, r.kinds, r.texts, r.tsv)
	return err
}

// flush sends what is queued and writes every row: after it, the index
// holds every trace added.
func (bs *bulkSearch) flush() error {
	if bs == nil {
		return nil
	}
	if err := bs.send(); err != nil {
		return err
	}
	for bs.inflight > 0 {
		if err := bs.receive(<-bs.results); err != nil {
			return err
		}
	}
	return nil
}

// close stops the goroutine (cancelling a query it runs: after a flush
// there is none) and gives the connection back.
func (bs *bulkSearch) close() {
	if bs == nil {
		return
	}
	bs.cancel()
	close(bs.jobs)
	<-bs.exited
	bs.conn.Close()
}
