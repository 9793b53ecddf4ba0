-- 0015: a score's configuration hash and time in a narrow table of their
-- own. After a configuration change most rescores come out as stored and
-- only move to the new configuration (0012); on the scores table that
-- rewrote each whole row, detail and all, and its config_sha index entry,
-- which was a tenth of a 100k rescore. score_state rows are a few dozen
-- bytes and have no index: the stale list reads the table through
-- (100k rows are a few thousand pages).
CREATE TABLE score_state (
    trace_pk   INTEGER PRIMARY KEY REFERENCES scores(trace_pk) ON DELETE CASCADE,
    config_sha TEXT    NOT NULL DEFAULT '',
    scored_at  TEXT    NOT NULL
);
INSERT INTO score_state (trace_pk, config_sha, scored_at) SELECT trace_pk, config_sha, scored_at FROM scores ORDER BY trace_pk;
DROP INDEX scores_config;
ALTER TABLE scores DROP COLUMN config_sha;
ALTER TABLE scores DROP COLUMN scored_at;
