-- 0002: tool-contract drift. The semantic hash of each stored contract, the
-- registry of approved contracts, and the contract fingerprints a case was
-- labeled against. Migrations are numbered and never edited once released.

-- sha256 of the normalized contract (scoring.SemanticFingerprint): name,
-- titles, descriptions and examples left out. '' until package suite fills
-- it in (the store does not import scoring), so it can be filled lazily.
ALTER TABLE contracts ADD COLUMN semantic TEXT NOT NULL DEFAULT '';
CREATE INDEX contracts_semantic_todo ON contracts(fingerprint) WHERE semantic = '';

-- Per server and tool name: which contract each run saw.
CREATE INDEX trace_contracts_name ON trace_contracts(name, fingerprint);
CREATE INDEX traces_server_run ON traces(server, run_id, started_at);

-- Contracts a person approved, by wire fingerprint, for one server or for
-- any server (server = ''). `tracelab drift verify` lists traces that ran
-- against a contract not in here.
CREATE TABLE approved_contracts (
    server      TEXT NOT NULL DEFAULT '', -- '' = approved on every server
    name        TEXT NOT NULL,
    fingerprint TEXT NOT NULL,            -- wire sha256, as in contracts
    semantic    TEXT NOT NULL DEFAULT '',
    body        TEXT NOT NULL,            -- canonical JSON, so approval survives the traces
    source      TEXT NOT NULL DEFAULT '', -- what was approved: a file or db:SERVER@RUN
    approved_by TEXT NOT NULL DEFAULT '',
    approved_at TEXT NOT NULL,
    PRIMARY KEY (server, name, fingerprint)
) WITHOUT ROWID;
CREATE INDEX approved_contracts_fp ON approved_contracts(fingerprint);

-- The contracts block of an imported case (JSON object tool -> wire
-- fingerprint), kept for cases whose trace is not in the database; a
-- linked trace's own contracts win on export, like its cost.
ALTER TABLE cases ADD COLUMN contracts TEXT;
