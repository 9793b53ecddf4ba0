-- 0020 for PostgreSQL: ../0020_live_spans.sql, whose comment says why.
CREATE TABLE live_spans (
    trace_id    TEXT COLLATE "C" NOT NULL,
    span_id     TEXT COLLATE "C" NOT NULL,
    record      TEXT NOT NULL,
    received_at TEXT NOT NULL,
    PRIMARY KEY (trace_id, span_id)
);
ALTER TABLE cases ADD COLUMN review TEXT NOT NULL DEFAULT '';
