-- 0032: on PostgreSQL, an import refreshes the queue columns of the
-- traces it writes once, at its end, instead of a trigger's UPDATE per
-- case and per score (migrations/postgres/0032_import_queue.sql). SQLite's
-- triggers are unchanged: nothing to do here, the number is kept so that
-- both dialects have the same schema versions.
SELECT 1;
