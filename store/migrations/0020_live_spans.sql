-- 0020: live intake (tracelab serve). Every span received over OTLP is kept
-- as its OTLP JSON record (one ExportTraceServiceRequest holding the span and
-- its resource), so a trace whose spans arrive in many requests, in any
-- order, minutes apart or across a restart is rebuilt from all of them.
CREATE TABLE live_spans (
    trace_id    TEXT NOT NULL,
    span_id     TEXT NOT NULL,
    record      TEXT NOT NULL,
    received_at TEXT NOT NULL,
    PRIMARY KEY (trace_id, span_id)
);

-- A confirmed case is never relabelled by the machine: when new spans change
-- its trace, review says what changed, for a person to look at.
ALTER TABLE cases ADD COLUMN review TEXT NOT NULL DEFAULT '';
