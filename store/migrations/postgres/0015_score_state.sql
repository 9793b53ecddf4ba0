-- 0015 for PostgreSQL: ../0015_score_state.sql, whose comment says why.
CREATE TABLE score_state (
    trace_pk   BIGINT PRIMARY KEY REFERENCES scores(trace_pk) ON DELETE CASCADE,
    config_sha TEXT COLLATE "C" NOT NULL DEFAULT '',
    scored_at  TEXT COLLATE "C" NOT NULL
);
INSERT INTO score_state (trace_pk, config_sha, scored_at) SELECT trace_pk, config_sha, scored_at FROM scores ORDER BY trace_pk;
ALTER TABLE scores DROP COLUMN config_sha, DROP COLUMN scored_at;
