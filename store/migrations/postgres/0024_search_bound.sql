-- 0024 for PostgreSQL: ../0024_search_bound.sql bounds SQLite's index to
-- the start of a trace's steps; this index (0018) reads the first 200,000
-- characters of each step already. Nothing to change: the number is kept
-- so that both dialects have the same schema versions.
SELECT 1;
