package app

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tracelab-dev/tracelab/store/livetest"
)

// TestIngestLiveConfirmed: new spans for a trace whose case a person
// confirmed change the trace but not the person's label; the case says
// what changed. A trace without a confirmed case gets no such note. On
// both stores a team shares: serve writes into PostgreSQL as into SQLite.
func TestIngestLiveConfirmed(t *testing.T) {
	eachTeamBackend(t, func(t *testing.T, loc string) { testIngestLiveConfirmed(t, loc) })
}

func testIngestLiveConfirmed(t *testing.T, loc string) {
	ctx := context.Background()
	e, err := Open(ctx, loc, Files{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	const tid, other = "5b8efff798038103d269b633813fc60c", "6b8efff798038103d269b633813fc60c"
	res, err := e.Imports.IngestLive(ctx, "otlp", []LiveSpan{livetest.ChatSpan(tid, "eee19b7ec3c1b174", 1, "42"), livetest.ChatSpan(other, "eee19b7ec3c1b174", 1, "7")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Traces) != 2 || res.Scored < 2 {
		t.Fatalf("first batch: %+v", res)
	}
	if _, err := e.Labels.EditFields(ctx, tid, "ana", FieldEdit{"label.correct", json.RawMessage("true")}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Labels.ConfirmLabel(ctx, tid, "ana", true); err != nil {
		t.Fatal(err)
	}
	before, err := e.Traces.CaseForTrace(ctx, tid)
	if err != nil {
		t.Fatal(err)
	}
	// A later chat span answers differently: the trace changes.
	res, err = e.Imports.IngestLive(ctx, "otlp", []LiveSpan{livetest.ChatSpan(tid, "fff19b7ec3c1b174", 2, "43"), livetest.ChatSpan(other, "fff19b7ec3c1b174", 2, "8")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Traces) != 2 || len(res.Review) != 1 || res.Review[0] != tid {
		t.Fatalf("second batch: %+v", res)
	}
	tr, err := e.Traces.Trace(ctx, tid)
	if err != nil || tr.FinalAnswer() != "43" {
		t.Fatalf("trace not rebuilt: %v %q", err, tr.FinalAnswer())
	}
	after, err := e.Traces.CaseForTrace(ctx, tid)
	if err != nil {
		t.Fatal(err)
	}
	if after.Status != before.Status || after.ConfirmedBy != "ana" {
		t.Fatalf("case status %s by %q after new spans, was %s", after.Status, after.ConfirmedBy, before.Status)
	}
	bl, _ := json.Marshal(before.Case.Label)
	al, _ := json.Marshal(after.Case.Label)
	if string(bl) != string(al) {
		t.Fatalf("label changed by new spans:\n%s\n%s", bl, al)
	}
	why, err := e.Traces.Review(ctx, tid)
	if err != nil || !strings.Contains(why, "final answer changed") || !strings.Contains(why, "2 span(s)") {
		t.Fatalf("review = %q, %v", why, err)
	}
	if why, _ := e.Traces.Review(ctx, other); why != "" {
		t.Fatalf("unconfirmed trace got a review note %q", why)
	}
	// The note reaches the readers: the case record (the trace screen) and
	// the queue's row (the workbench and ls).
	if after.Review != why {
		t.Fatalf("case record review = %q, want %q", after.Review, why)
	}
	rows, _, err := e.Traces.ListTraces(ctx, Query{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if want := map[string]string{tid: why}[r.TraceID]; r.Review != want {
			t.Fatalf("queue row %s review = %q, want %q", r.TraceID, r.Review, want)
		}
	}
	// The same spans again (an exporter's retry) change nothing.
	res, err = e.Imports.IngestLive(ctx, "otlp", []LiveSpan{livetest.ChatSpan(tid, "fff19b7ec3c1b174", 2, "43")})
	if err != nil || len(res.Traces) != 0 {
		t.Fatalf("retry: %+v %v", res, err)
	}
	// Confirming again is the person saying they looked: the note goes.
	if _, err := e.Labels.ConfirmLabel(ctx, tid, "ana", true); err != nil {
		t.Fatal(err)
	}
	if why, _ := e.Traces.Review(ctx, tid); why != "" {
		t.Fatalf("review note %q kept after the case was confirmed again", why)
	}
}
