-- 0039: on PostgreSQL a bulk import fills its traces' search rows from a
-- second connection instead of 0018's per-row triggers
-- (migrations/postgres/0039_bulk_search.sql). SQLite's FTS5 triggers are
-- unchanged: the number is kept so that both dialects have the same
-- schema versions.
SELECT 1;
