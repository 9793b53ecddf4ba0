-- 0046: on PostgreSQL a bulk import writes its step bodies' search rows
-- itself (migrations/postgres/0046_bulk_search.sql). SQLite's FTS5
-- triggers are unchanged: the number is kept so that both dialects have
-- the same schema versions.
SELECT 1;
