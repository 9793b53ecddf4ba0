-- 0012 for PostgreSQL: ../0012_score_result.sql, whose comment says why.
ALTER TABLE scores ADD COLUMN result_sha TEXT COLLATE "C" NOT NULL DEFAULT '';
