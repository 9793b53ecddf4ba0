-- 0028: the stale list reads only the scores of another configuration
-- through this index, none when nothing changed (see the SQLite 0028).
-- PostgreSQL counts its traces with count(*) (an index-only scan; the
-- SQLite file keeps a count table instead, see dialect.countTraces).
CREATE INDEX score_state_config ON score_state (config_sha);
