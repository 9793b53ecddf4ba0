package store

import (
	"context"
	"database/sql"
	"errors"
)

// Live intake (tracelab serve, migration 0020): the spans received for a
// trace are kept as OTLP JSON records in live_spans; each batch writes its
// spans, rebuilds the traces they touch from all their records and
// replaces those traces, in one transaction, so a request acknowledged
// after Commit is stored whole or not at all.

// LiveSpan is one received span as its OTLP JSON record.
type LiveSpan struct {
	TraceID, SpanID string
	Record          []byte
	// Decoded is Record as the receiver read it while checking the
	// request (app.DecodeLiveSpan), for the rebuild; nil when not read,
	// and never stored.
	Decoded any
}

const (
	sqlPutLiveSpan = `INSERT INTO live_spans (trace_id, span_id, record, received_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (trace_id, span_id) DO UPDATE SET record = excluded.record, received_at = excluded.received_at`
	sqlLiveSpans      = `SELECT span_id, record FROM live_spans WHERE trace_id = ? ORDER BY received_at, span_id`
	sqlSetTraceFormat = `UPDATE traces SET source_format = ? WHERE trace_id = ?`
	sqlMarkReview     = `UPDATE cases SET review = ? WHERE source_trace = ? AND status = 'confirmed'`
	sqlConfirmedOf    = `SELECT case_id FROM cases WHERE source_trace = ? AND status = 'confirmed'`
	sqlClearReview    = `UPDATE cases SET review = '' WHERE source_trace = ? AND review <> ''`
	sqlReviewOf       = `SELECT review FROM cases WHERE source_trace = ? AND review <> '' ORDER BY case_id`
	sqlScoreCount     = `SELECT COUNT(*) FROM scores`
)

// liveStmts are a live batch's per-trace queries, prepared at first use
// (the transaction closes them).
type liveStmts struct{ spans, confirmed, format *sql.Stmt }

// stmt prepares q once per batch into *dst.
func (im *Importer) stmt(dst **sql.Stmt, q string) (*sql.Stmt, error) {
	if *dst == nil {
		st, err := im.reuse.prepare(im.ctx, im.tx, q)
		if err != nil {
			return nil, err
		}
		*dst = st
	}
	return *dst, nil
}

// BeginLive starts one live intake batch named file (the traces' source
// file, such as "otlp"): its rows go straight into one transaction on the
// database (a batch is small; staging would cost more than it saves), a
// trace received again replaces the stored one, and Commit records no
// import row (a receiver commits many times a second).
func (s *Store) BeginLive(ctx context.Context, file string) (*Importer, error) {
	im, err := s.BeginImport(ctx, file, true)
	if err != nil {
		return nil, err
	}
	im.live = true
	return im, nil
}

// PutLiveSpans writes received spans; a span received again (an exporter's
// retry) replaces its earlier record.
func (im *Importer) PutLiveSpans(spans []LiveSpan) (err error) {
	defer im.cause(&err)
	if err := im.start(false); err != nil {
		return err
	}
	stmt, err := im.reuse.prepare(im.ctx, im.tx, sqlPutLiveSpan)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, sp := range spans {
		if _, err := stmt.ExecContext(im.ctx, sp.TraceID, sp.SpanID, string(sp.Record), im.at); err != nil {
			return err
		}
	}
	return nil
}

// LiveSpans reads every span record of a trace written so far, this
// batch's included, in the order they arrived (TraceID and Decoded unset).
func (im *Importer) LiveSpans(traceID string) (_ []LiveSpan, err error) {
	defer im.cause(&err)
	if err := im.start(false); err != nil {
		return nil, err
	}
	st, err := im.stmt(&im.liveQ.spans, sqlLiveSpans)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(im.ctx, traceID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []LiveSpan
	for rows.Next() {
		var sid, rec string
		if err := rows.Scan(&sid, &rec); err != nil {
			return nil, err
		}
		out = append(out, LiveSpan{SpanID: sid, Record: []byte(rec)})
	}
	return out, rows.Err()
}

// SetTraceFormat records the format a live trace was read as.
func (im *Importer) SetTraceFormat(traceID, format string) error {
	if err := im.w.flush(); err != nil {
		return err
	}
	st, err := im.stmt(&im.liveQ.format, sqlSetTraceFormat)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(im.ctx, format, traceID)
	return err
}

// ConfirmedCase is the id of the confirmed case of a trace, "" when its
// case is not confirmed (or it has none).
func (im *Importer) ConfirmedCase(traceID string) (string, error) {
	if err := im.start(false); err != nil {
		return "", err
	}
	st, err := im.stmt(&im.liveQ.confirmed, sqlConfirmedOf)
	if err != nil {
		return "", err
	}
	var id string
	err = st.QueryRowContext(im.ctx, traceID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// MarkReview says on a trace's confirmed case what changed in its trace
// since a person confirmed it; the label stays the person's.
func (im *Importer) MarkReview(traceID, why string) error {
	_, err := im.tx.ExecContext(im.ctx, sqlMarkReview, why, traceID)
	return err
}

// Review is what changed in a trace since a person confirmed its case ("":
// nothing, or no confirmed case).
func (s *Store) Review(ctx context.Context, traceID string) (string, error) {
	var why string
	err := s.db.QueryRowContext(ctx, sqlReviewOf, traceID).Scan(&why)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return why, err
}

// ChangeMark is a cheap mark of what the traces and scores tables hold: it
// differs after another process added, replaced or scored a trace. The
// workbench polls it to show live arrivals.
func (s *Store) ChangeMark(ctx context.Context) ([3]int64, error) {
	var m [3]int64
	// The number of traces is the one the dialect keeps (countTraces):
	// count(*) read a whole index of traces on every poll, each second.
	if err := s.db.QueryRowContext(ctx, `SELECT COALESCE((SELECT MAX(id) FROM traces), 0), (`+s.d.countTraces+`)`).Scan(&m[0], &m[1]); err != nil {
		return m, err
	}
	err := s.db.QueryRowContext(ctx, sqlScoreCount).Scan(&m[2])
	return m, err
}

// ClearReview drops the review note of a trace's confirmed case: a person
// confirmed it again after looking at what changed.
func (s *Store) ClearReview(ctx context.Context, traceID string) error {
	_, err := s.db.ExecContext(ctx, sqlClearReview, traceID)
	return err
}
