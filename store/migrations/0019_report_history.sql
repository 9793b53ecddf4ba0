-- 0019: report history. Every export and check records the report it made
-- (report.json's bytes, as written), when (at_ms, Unix milliseconds: an
-- integer sorts and compares alike on both backends), which command made
-- it, and the suite it belongs to with the sha256 of that suite's
-- suite.json, so `report --history` and the charts show each metric over
-- time and say which runs scored with the same configuration.
-- Migrations are numbered and never edited once released.
CREATE TABLE report_history (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    at_ms        INTEGER NOT NULL,
    kind         TEXT    NOT NULL,            -- export | check
    suite        TEXT    NOT NULL DEFAULT '', -- the suite's folder as given
    manifest_sha TEXT    NOT NULL DEFAULT '', -- sha256 of its suite.json ('' when it has none)
    report       TEXT    NOT NULL             -- report.json: a JSON array, one object per server
);
CREATE INDEX report_history_at ON report_history(at_ms, id);
