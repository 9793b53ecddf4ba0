-- 0014: the steps table keeps what filters and facets query (a step's
-- kind and tool); the rest of each step is in its trace's body (0013).
-- SQLite drops a column by rewriting the table, once per column: one copy
-- into a narrow table does it in a single pass.
CREATE TABLE steps_narrow (
    trace_pk INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    idx      INTEGER NOT NULL,
    kind     TEXT    NOT NULL,
    tool     TEXT    NOT NULL DEFAULT ''
);
INSERT INTO steps_narrow (trace_pk, idx, kind, tool) SELECT trace_pk, idx, kind, tool FROM steps ORDER BY trace_pk, idx;
DROP TABLE steps;
ALTER TABLE steps_narrow RENAME TO steps;
CREATE UNIQUE INDEX steps_order ON steps(trace_pk, idx);
