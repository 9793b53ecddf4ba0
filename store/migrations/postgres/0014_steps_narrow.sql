-- 0014 for PostgreSQL: ../0014_steps_narrow.sql, whose comment says why.
ALTER TABLE steps DROP COLUMN step_id, DROP COLUMN call_id, DROP COLUMN text, DROP COLUMN args,
    DROP COLUMN result, DROP COLUMN as_of, DROP COLUMN is_error, DROP COLUMN credential,
    DROP COLUMN next_cursor, DROP COLUMN has_more;
