-- 0045: a step body longer than 4 MiB is stored in parts (store/bodyparts.go
-- says how): the step_bodies row holds its start, at least the 4,000,000
-- characters 0024's full-text trigger indexes, and parts says how many
-- rows of step_body_parts hold the rest, a mebibyte each, in seq order.
-- SQLite takes two copies of a value it stores (the driver's copy of the
-- bound string, the row it builds), each rounded up to a power of two:
-- written whole, a trace whose tool result was 100 MB cost the import
-- four times that at its peak; in parts, the copies are of one part.
ALTER TABLE step_bodies ADD COLUMN parts INTEGER NOT NULL DEFAULT 0;

CREATE TABLE step_body_parts (
    trace_pk INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    seq      INTEGER NOT NULL, -- 1, 2, …
    part     TEXT    NOT NULL,
    PRIMARY KEY (trace_pk, seq)
);
