-- 0028: what `score` with nothing changed, and every report and export
-- (which score what is stale first), read grew with the traces: the
-- stale list read score_state through to find the scores of another
-- configuration, and the summary counted the traces (the planner picked
-- the question index, 9 MB at 100k traces). A million traces made both
-- a few seconds of every call.
-- The configuration hash gets an index: the stale list reads only the
-- scores of another configuration, none when nothing changed (the rows a
-- rescore moves to the new configuration pay one index entry each).
CREATE INDEX score_state_config ON score_state(config_sha);

-- The number of traces, kept by triggers (one row; an import pays one
-- single-row update per trace it adds).
CREATE TABLE trace_count (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    n   INTEGER NOT NULL
);
INSERT INTO trace_count (one, n) SELECT 1, count(*) FROM traces;

CREATE TRIGGER traces_count_insert AFTER INSERT ON traces BEGIN
    UPDATE trace_count SET n = n + 1;
END;

CREATE TRIGGER traces_count_delete AFTER DELETE ON traces BEGIN
    UPDATE trace_count SET n = n - 1;
END;
