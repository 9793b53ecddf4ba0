-- 0038: on PostgreSQL, the case and trace triggers fire, and the queue
-- refresh writes the trace, only when something they read changed
-- (migrations/postgres/0038_edit_triggers.sql). SQLite's triggers are
-- unchanged: nothing to do here, the number is kept so that both
-- dialects have the same schema versions.
SELECT 1;
