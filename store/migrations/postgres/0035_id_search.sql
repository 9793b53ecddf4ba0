-- 0035: the SQLite file indexes trace and case ids by trigrams for the
-- queue's `/` (see the SQLite 0035). PostgreSQL keeps its ILIKE on the
-- ids: a trigram index there is pg_trgm's, an extension a team's
-- database user may not be allowed to install, and the search must work
-- without it. This migration keeps the numbers in step.
SELECT 1;
