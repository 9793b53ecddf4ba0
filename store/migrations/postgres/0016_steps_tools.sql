-- 0016 for PostgreSQL: ../0016_steps_tools.sql, whose comment says why.
DELETE FROM steps WHERE tool = '';
