-- 0039: on PostgreSQL 0018's step body trigger computes each step's
-- search text once (migrations/postgres/0039_search_once.sql). SQLite's
-- FTS5 triggers are unchanged: the number is kept so that both dialects
-- have the same schema versions.
SELECT 1;
