-- 0002 for PostgreSQL: tool-contract drift, as ../0002_drift.sql.
-- Migrations are numbered and never edited once released.

ALTER TABLE contracts ADD COLUMN semantic TEXT COLLATE "C" NOT NULL DEFAULT '';
CREATE INDEX contracts_semantic_todo ON contracts(fingerprint) WHERE semantic = '';

CREATE INDEX trace_contracts_name ON trace_contracts(name, fingerprint);
CREATE INDEX traces_server_run ON traces(server, run_id, started_at);

CREATE TABLE approved_contracts (
    server      TEXT COLLATE "C" NOT NULL DEFAULT '',
    name        TEXT COLLATE "C" NOT NULL,
    fingerprint TEXT COLLATE "C" NOT NULL,
    semantic    TEXT COLLATE "C" NOT NULL DEFAULT '',
    body        TEXT COLLATE "C" NOT NULL,
    source      TEXT COLLATE "C" NOT NULL DEFAULT '',
    approved_by TEXT COLLATE "C" NOT NULL DEFAULT '',
    approved_at TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (server, name, fingerprint)
);
CREATE INDEX approved_contracts_fp ON approved_contracts(fingerprint);

ALTER TABLE cases ADD COLUMN contracts TEXT COLLATE "C";
