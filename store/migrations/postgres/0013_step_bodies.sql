-- 0013 for PostgreSQL: ../0013_step_bodies.sql, whose comment says why.
CREATE TABLE step_bodies (
    trace_pk BIGINT PRIMARY KEY REFERENCES traces(id) ON DELETE CASCADE,
    body     TEXT COLLATE "C" NOT NULL
);
