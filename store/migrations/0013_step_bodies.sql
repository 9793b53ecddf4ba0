-- 0013: each trace's steps in one body (store/stepbody.go says how it is
-- written): loading a trace reads one column of one row instead of
-- thirteen columns of every step, which was the largest part of a
-- rescore. The Go half of this migration (fillStepBodies) writes the body
-- of every stored trace from its steps; 0014 then drops the step columns
-- the bodies hold.
CREATE TABLE step_bodies (
    trace_pk INTEGER PRIMARY KEY REFERENCES traces(id) ON DELETE CASCADE,
    body     TEXT    NOT NULL -- JSON: one array per step
);
