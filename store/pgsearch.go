package store

import (
	"context"
	"database/sql"
)

// The search rows of a bulk PostgreSQL import. 0018's trigger computes
// each step body's rows (step_search_rows, search_vector: a JSON parse, a
// regexp and to_tsvector per step) on the import's own backend, inside
// the statement that inserts the body: two thirds of that backend's time,
// while the other core mostly waited. A bulk writer turns the trigger off
// for its transaction (migration 0039) and sends each body, with its
// trace id, to a second connection that computes the same rows with the
// same SQL functions, the one rule of what the index holds; the rows come
// back as text and go into step_search in the import's transaction, in
// batches like every other table's. The two backends then work at once.

// sqlBulkSearchOn turns 0018's step body trigger off until the import's
// transaction ends (0039).
const sqlBulkSearchOn = `SELECT set_config('tracelab.bulk_search', 'on', TRUE)`

// sqlSearchRows is the trigger's rows for a list of bodies: the same
// functions, with the same OFFSET 0 that computes each text once.
const sqlSearchRows = `SELECT b.pk, r.idx, r.kind, r.text, search_vector(r.text)::text
	FROM unnest(CAST(? AS BIGINT[]), CAST(? AS TEXT[])) AS b(pk, body),
		LATERAL (SELECT * FROM step_search_rows(b.body) OFFSET 0) r`

// sqlSearchInsert writes a job's rows, sent as five arrays: the rows as
// 64-row VALUES batches, a boxed value per column and the tsvector given
// as a Go string, cost the import's process 6.3-6.8 s of CPU for 20,000
// traces against 5.0-5.7 s so (at load 8-15; 4.2-5.2 s without this file).
const sqlSearchInsert = `INSERT INTO step_search (trace_pk, idx, kind, text, tsv)
	SELECT r.pk, r.idx, r.kind, r.text, r.tsv::tsvector
	FROM unnest(CAST(? AS BIGINT[]), CAST(? AS INTEGER[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]))
		AS r(pk, idx, kind, text, tsv)`

// searchJobs is how many lists of bodies may be on their way to the
// search connection or back at once.
const searchJobs = 4

// searchJob is a list of bodies and the traces they belong to.
type searchJob struct {
	pks    []int64
	bodies []string
}

// searchResult is a job's rows, a column a slice (sqlSearchInsert's).
type searchResult struct {
	pks               []int64
	idxs              []int32
	kinds, texts, tsv []string
	err               error
}

// bulkSearch computes the search rows of the bodies a bulk writer puts on
// its own connection, on a goroutine, and writes them through rows.
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

// startBulkSearch turns the step body trigger off for tx and starts the
// search connection; parent is the batch of the trace rows the
// search rows reference.
func startBulkSearch(ctx context.Context, s *Store, tx *sql.Tx, parent *batch) (*bulkSearch, error) {
	if _, err := tx.ExecContext(ctx, sqlBulkSearchOn); err != nil {
		return nil, err
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
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
	q, err := conn.QueryContext(ctx, sqlSearchRows, job.pks, job.bodies)
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

// add queues the body of the trace pk; a full list is sent, and so is a
// big body at once, and then waited for (see putBody). A nil bulkSearch
// (not a bulk writer: the trigger indexes the body) does nothing.
func (bs *bulkSearch) add(pk int64, body string) error {
	if bs == nil {
		return nil
	}
	bs.next.pks = append(bs.next.pks, pk)
	bs.next.bodies = append(bs.next.bodies, body)
	if len(body) > bigBody {
		return bs.flush()
	}
	if len(bs.next.pks) < batchRows {
		return nil
	}
	return bs.send()
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
// holds every body added.
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
