-- 0006 for PostgreSQL: the model that answered and whether the cost was
-- estimated, as ../0006_trace_model.sql. Migrations are numbered and never
-- edited once released.
ALTER TABLE traces ADD COLUMN model TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE traces ADD COLUMN usd_estimated BIGINT NOT NULL DEFAULT 0;
