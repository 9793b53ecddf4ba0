-- 0041: the SQLite file's report of the confirmed cases reads partial
-- covering indexes, and its score rows say whether their trace's case is
-- confirmed (see the SQLite 0041). PostgreSQL reads its rows as before;
-- the number is kept so that both dialects have the same schema versions.
SELECT 1;
