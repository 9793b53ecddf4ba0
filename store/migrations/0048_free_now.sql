-- 0048: on PostgreSQL n checks the trace it picked once it holds its lock
-- (migrations/postgres/0048_free_now.sql). On SQLite the one writer picks
-- and reserves with nothing committed in between: nothing to do. The
-- number is kept so that both dialects have the same schema versions.
SELECT 1;
