-- 0008: reservations. Opening a queued trace reserves it for one labeler
-- until expires_ms (Unix milliseconds: an integer compares correctly where
-- RFC 3339 text with trimmed fractions would not, on SQLite and PostgreSQL
-- alike); `n` skips traces another labeler holds, and an expired row counts
-- as no reservation. A labeler holds at most one trace at a time (the store
-- keeps that rule, not a constraint). Migrations are numbered and never
-- edited once released.
CREATE TABLE reservations (
    trace_pk   BIGINT PRIMARY KEY REFERENCES traces(id) ON DELETE CASCADE,
    labeler    TEXT   NOT NULL,
    expires_ms BIGINT NOT NULL
);
CREATE INDEX reservations_labeler ON reservations(labeler);
