-- 0047: on PostgreSQL the search index reads each trace's step body as
-- SQLite's FTS5 index does, its text as written rather than each step's
-- JSON parsed (migrations/postgres/0047_trace_search.sql). SQLite's index
-- is unchanged: the number is kept so that both dialects have the same
-- schema versions.
SELECT 1;
