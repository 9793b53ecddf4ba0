-- 0008 for PostgreSQL: reservations, as ../0008_reservations.sql.
-- Migrations are numbered and never edited once released.
CREATE TABLE reservations (
    trace_pk   BIGINT PRIMARY KEY REFERENCES traces(id) ON DELETE CASCADE,
    labeler    TEXT COLLATE "C" NOT NULL,
    expires_ms BIGINT NOT NULL
);
CREATE INDEX reservations_labeler ON reservations(labeler);
