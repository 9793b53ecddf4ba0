-- 0045 for PostgreSQL: ../0045_body_parts.sql. PostgreSQL stores every
-- body whole (its search trigger reads the body's steps as JSON, and the
-- server, not tracelab, holds the copies), so parts is always 0 here; the
-- column is kept so that both dialects read bodies with one statement.
ALTER TABLE step_bodies ADD COLUMN parts INTEGER NOT NULL DEFAULT 0;
