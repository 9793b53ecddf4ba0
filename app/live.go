package app

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/tracelab-dev/tracelab/importers"
	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store"
)

// LiveSpan is one span a receiver got, as its OTLP JSON record.
type LiveSpan = store.LiveSpan

// LiveResult says what one live batch did.
type LiveResult struct {
	Spans   int      // spans written (new or received again)
	Traces  []string // traces rebuilt and written (new or changed)
	Pending []string // traces whose spans hold no conversation yet: kept, not yet a trace
	Review  []string // traces whose confirmed case now says what changed
	Scored  int
}

// IngestLive is storeLive then scoreLive: the batch's spans and traces
// committed, then those traces rescored. The receiver answers once it
// returns. (Scoring beside the writer, acknowledging at the commit, was
// measured: on SQLite's one writer the scorer's transactions held the
// commits back, and the acknowledgement latency rose.)
func (ims ImportService) IngestLive(ctx context.Context, file string, spans []LiveSpan) (LiveResult, error) {
	res, err := ims.storeLive(ctx, file, spans)
	if err != nil || len(res.Traces) == 0 {
		return res, err
	}
	res.Scored, err = ims.scoreLive(ctx, res.Traces)
	return res, err
}

// storeLive writes received spans and rebuilds every trace they touch
// from all its spans so far, with the file importers' span readers, in one
// transaction: when it returns nil the spans and their traces are
// committed (res.Traces lists those written, for scoreLive). A trace whose
// case a person confirmed keeps that label; its case says what the new
// spans changed, for review. file names the source ("otlp").
func (ims ImportService) storeLive(ctx context.Context, file string, spans []LiveSpan) (LiveResult, error) {
	e := ims.e
	res := LiveResult{Spans: len(spans)}
	im, err := e.st.BeginLive(ctx, file)
	if err != nil {
		return res, err
	}
	defer im.Rollback()
	if err := im.PutLiveSpans(spans); err != nil {
		return res, err
	}
	formats := map[string]string{}
	read := readLive(spans)
	for _, id := range liveTraceIDs(spans) {
		state, format, review, err := e.rebuildLive(ctx, im, file, id, read)
		if err != nil {
			return res, err
		}
		switch state {
		case liveWritten:
			res.Traces = append(res.Traces, id)
			formats[id] = format
		case livePending:
			res.Pending = append(res.Pending, id)
		}
		if review != "" {
			res.Review = append(res.Review, id)
		}
	}
	// The formats go in after every trace is put, so the writer's
	// batches are flushed once.
	for _, id := range res.Traces {
		if err := im.SetTraceFormat(id, formats[id]); err != nil {
			return res, err
		}
	}
	return res, im.Commit("", "", 0)
}

// scoreLive rescores the traces storeLive wrote, and nothing else.
func (ims ImportService) scoreLive(ctx context.Context, traceIDs []string) (int, error) {
	if _, err := fillSemantic(ctx, ims.e.st); err != nil {
		return 0, err
	}
	sum, err := ims.e.Scores.ScoreTraces(ctx, traceIDs, nil)
	return sum.Scored, err
}

// What rebuilding one trace did.
const (
	liveUnchanged = iota // the rebuilt trace is the stored one
	liveWritten          // written, new or changed
	livePending          // no conversation in its spans yet
)

// liveTraceIDs lists the traces of a batch's spans, first seen first.
func liveTraceIDs(spans []LiveSpan) []string {
	seen := map[string]bool{}
	var out []string
	for _, sp := range spans {
		if !seen[sp.TraceID] {
			seen[sp.TraceID] = true
			out = append(out, sp.TraceID)
		}
	}
	return out
}

// liveKey names a span: its trace and span ids.
type liveKey struct{ trace, span string }

// readLive is the batch's spans that the receiver read as it checked them
// (DecodeLiveSpan), by trace and span id; the last wins, as in the store.
func readLive(spans []LiveSpan) map[liveKey]*LiveSpan {
	out := map[liveKey]*LiveSpan{}
	for i := range spans {
		if spans[i].Decoded != nil {
			out[liveKey{spans[i].TraceID, spans[i].SpanID}] = &spans[i]
		}
	}
	return out
}

// rebuildLive rebuilds one trace from its stored spans and writes it when
// it holds a conversation and differs from the stored one; review is what
// changed when the trace's case is confirmed. The spans the batch brought
// and the receiver read already (read) are not read again.
func (e *Engine) rebuildLive(ctx context.Context, im *store.Importer, file, id string, read map[liveKey]*LiveSpan) (state int, format, review string, err error) {
	stored, err := im.LiveSpans(id)
	if err != nil {
		return 0, "", "", err
	}
	recs := make([][]byte, len(stored))
	decoded := make([]*importers.LiveDecoded, len(stored))
	for i, sp := range stored {
		recs[i] = sp.Record
		if got := read[liveKey{id, sp.SpanID}]; got != nil && bytes.Equal(got.Record, sp.Record) {
			decoded[i], _ = got.Decoded.(*importers.LiveDecoded)
		}
	}
	rec, format := importers.LiveTraceFrom(file, id, recs, decoded)
	if rec.Trace == nil {
		return livePending, format, "", nil // no conversation yet: the spans wait for the rest
	}
	t := rec.Trace
	t.Source = model.Source{File: file, Format: format, Line: rec.Line}
	caseID, err := im.ConfirmedCase(id)
	if err != nil {
		return 0, "", "", err
	}
	var old *model.Trace
	if caseID != "" {
		if old, err = e.st.Trace(ctx, id); err != nil && err != store.ErrNotFound {
			return 0, "", "", err
		}
	}
	before := im.Stats
	_, rerr, err := im.PutRow(store.PrepareTrace(t))
	if err != nil {
		return 0, "", "", err
	}
	if rerr != nil {
		return 0, "", "", fmt.Errorf("trace %s: %s", id, rerr.Msg)
	}
	if im.Stats.Unchanged > before.Unchanged {
		return liveUnchanged, format, "", nil
	}
	if caseID != "" {
		review = liveChange(old, t, len(stored))
		if err := im.MarkReview(id, review); err != nil {
			return 0, "", "", err
		}
	}
	return liveWritten, format, review, nil
}

// liveChange says what new spans changed in a trace whose case a person
// had confirmed.
func liveChange(old, t *model.Trace, spans int) string {
	var parts []string
	if old == nil {
		return fmt.Sprintf("new spans arrived after the case was confirmed (%d span(s) now, %d steps)", spans, len(t.Steps))
	}
	if len(old.Steps) != len(t.Steps) {
		parts = append(parts, fmt.Sprintf("steps %d → %d", len(old.Steps), len(t.Steps)))
	}
	if old.ToolCalls() != t.ToolCalls() {
		parts = append(parts, fmt.Sprintf("tool calls %d → %d", old.ToolCalls(), t.ToolCalls()))
	}
	if old.FinalAnswer() != t.FinalAnswer() {
		parts = append(parts, "final answer changed")
	}
	if old.Outcome != t.Outcome {
		parts = append(parts, fmt.Sprintf("outcome %s → %s", old.Outcome, t.Outcome))
	}
	if old.Question != t.Question {
		parts = append(parts, "question changed")
	}
	if len(parts) == 0 {
		parts = append(parts, "step content changed")
	}
	return fmt.Sprintf("new spans arrived after the case was confirmed (%d span(s) now): %s", spans, strings.Join(parts, ", "))
}

// Review is what changed in a trace since a person confirmed its case
// ("" when nothing did).
func (t TraceService) Review(ctx context.Context, traceID string) (string, error) {
	return t.e.st.Review(ctx, traceID)
}

// ChangeMark differs after anyone, this process or another, added,
// replaced or scored a trace: the workbench polls it.
func (t TraceService) ChangeMark(ctx context.Context) ([3]int64, error) {
	return t.e.st.ChangeMark(ctx)
}

// CheckLiveSpan says whether a span record reads as OTLP JSON (nil when
// it does), before a receiver stores it.
func CheckLiveSpan(rec []byte) error { return importers.LiveCheck(rec) }

// DecodeLiveSpan is CheckLiveSpan keeping what it read in sp.Decoded: a
// receiver checks each request's spans beside the others, and its one
// writer then rebuilds their traces without reading them again.
func DecodeLiveSpan(sp *LiveSpan) error {
	d, err := importers.LiveDecode(sp.Record)
	if err != nil {
		return err
	}
	sp.Decoded = d
	return nil
}
