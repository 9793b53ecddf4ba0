-- 0001: the first schema. Migrations are numbered and never edited once released.

CREATE TABLE traces (
    id            INTEGER PRIMARY KEY,
    trace_id      TEXT    NOT NULL UNIQUE,
    server        TEXT    NOT NULL DEFAULT '',
    run_id        TEXT    NOT NULL DEFAULT '',
    user_role     TEXT    NOT NULL DEFAULT '',
    as_user       TEXT    NOT NULL DEFAULT '',
    question      TEXT    NOT NULL,
    started_at    TEXT    NOT NULL DEFAULT '',
    outcome       TEXT    NOT NULL DEFAULT 'unknown',
    answer        TEXT    NOT NULL DEFAULT '',
    input_tokens  INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    usd           REAL    NOT NULL DEFAULT 0,
    metadata      TEXT,            -- JSON object or NULL
    step_count    INTEGER NOT NULL DEFAULT 0,
    tool_calls    INTEGER NOT NULL DEFAULT 0,
    turns         INTEGER NOT NULL DEFAULT 1,
    content_sha   TEXT    NOT NULL, -- sha256 of the canonical trace: idempotent re-import
    source_file   TEXT    NOT NULL DEFAULT '',
    source_format TEXT    NOT NULL DEFAULT '',
    source_line   INTEGER NOT NULL DEFAULT 0,
    queued        INTEGER NOT NULL DEFAULT 0, -- in the labeling sample
    imported_at   TEXT    NOT NULL
);
CREATE INDEX traces_server ON traces(server, id);
CREATE INDEX traces_started ON traces(started_at, id);

CREATE TABLE steps (
    trace_pk    INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    kind        TEXT    NOT NULL,
    step_id     TEXT    NOT NULL DEFAULT '',
    call_id     TEXT    NOT NULL DEFAULT '',
    text        TEXT    NOT NULL DEFAULT '',
    tool        TEXT    NOT NULL DEFAULT '',
    args        TEXT,
    result      TEXT,
    as_of       TEXT    NOT NULL DEFAULT '',
    is_error    INTEGER NOT NULL DEFAULT 0,
    credential  TEXT    NOT NULL DEFAULT '',
    next_cursor TEXT    NOT NULL DEFAULT '',
    has_more    INTEGER NOT NULL DEFAULT 0
);
-- A rowid table: step rows carry whole results, too large for a
-- WITHOUT ROWID b-tree; the (trace_pk, idx) index keeps them in order.
CREATE UNIQUE INDEX steps_order ON steps(trace_pk, idx);

-- Every distinct tool contract, keyed by its wire fingerprint.
CREATE TABLE contracts (
    fingerprint TEXT PRIMARY KEY, -- sha256 of canonical JSON
    name        TEXT NOT NULL,
    body        TEXT NOT NULL     -- canonical JSON as the model saw it
);

-- Which contracts each trace saw.
CREATE TABLE trace_contracts (
    trace_pk    INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    name        TEXT    NOT NULL,
    fingerprint TEXT    NOT NULL REFERENCES contracts(fingerprint),
    PRIMARY KEY (trace_pk, name)
) WITHOUT ROWID;
CREATE INDEX trace_contracts_fp ON trace_contracts(fingerprint);

-- A case: one trace (or a standalone suite case) with gold and label.
CREATE TABLE cases (
    case_id      TEXT PRIMARY KEY,
    trace_pk     INTEGER REFERENCES traces(id) ON DELETE SET NULL,
    source_trace TEXT NOT NULL DEFAULT '',
    user_role    TEXT NOT NULL DEFAULT '',
    as_user      TEXT NOT NULL DEFAULT '',
    question     TEXT NOT NULL,
    gold         TEXT NOT NULL, -- JSON, model.Gold
    label        TEXT NOT NULL, -- JSON, model.Label
    cost         TEXT NOT NULL, -- JSON, model.Cost as imported (a linked trace's usage wins on export)
    status       TEXT NOT NULL CHECK (status IN ('suggested', 'confirmed')),
    gold_origin  TEXT NOT NULL DEFAULT 'human' CHECK (gold_origin IN ('human', 'machine')),
    content_sha  TEXT NOT NULL DEFAULT '',
    updated_by   TEXT NOT NULL DEFAULT '',
    updated_at   TEXT NOT NULL DEFAULT '',
    confirmed_by TEXT NOT NULL DEFAULT '',
    confirmed_at TEXT NOT NULL DEFAULT '',
    source_file  TEXT NOT NULL DEFAULT '',
    source_line  INTEGER NOT NULL DEFAULT 0
);
-- (trace_pk, case_id): a trace's first case is an index-only lookup.
CREATE INDEX cases_trace ON cases(trace_pk, case_id);
CREATE INDEX cases_source_trace ON cases(source_trace);

-- Append-only log of every label and gold edit: undo, audit, agreement.
CREATE TABLE events (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    case_id  TEXT NOT NULL,
    at       TEXT NOT NULL,
    who      TEXT NOT NULL,
    field    TEXT NOT NULL,
    old      TEXT,  -- JSON value before
    new      TEXT,  -- JSON value after
    undoes   INTEGER REFERENCES events(id)
);
CREATE INDEX events_case ON events(case_id, id);
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;

-- Business term -> governed definition.
CREATE TABLE glossary (
    term             TEXT PRIMARY KEY COLLATE NOCASE,
    definition       TEXT NOT NULL,
    predicate        TEXT NOT NULL DEFAULT '',
    required_fields  TEXT NOT NULL DEFAULT '[]', -- JSON array
    forbidden_fields TEXT NOT NULL DEFAULT '[]', -- JSON array
    timestamp_column TEXT NOT NULL DEFAULT '',
    calendar         TEXT NOT NULL DEFAULT '',
    updated_by       TEXT NOT NULL DEFAULT '',
    updated_at       TEXT NOT NULL DEFAULT ''
);

-- Files imported, for idempotence reports and audit.
CREATE TABLE imports (
    id          INTEGER PRIMARY KEY,
    path        TEXT    NOT NULL,
    sha256      TEXT    NOT NULL,
    format      TEXT    NOT NULL,
    traces_new  INTEGER NOT NULL DEFAULT 0,
    cases_new   INTEGER NOT NULL DEFAULT 0,
    unchanged   INTEGER NOT NULL DEFAULT 0,
    replaced    INTEGER NOT NULL DEFAULT 0,
    rejected    INTEGER NOT NULL DEFAULT 0,
    steps       INTEGER NOT NULL DEFAULT 0,
    imported_at TEXT    NOT NULL
);

-- The scorer's latest verdict per trace (the detail is scoring's JSON).
CREATE TABLE scores (
    trace_pk        INTEGER PRIMARY KEY REFERENCES traces(id) ON DELETE CASCADE,
    suggested_class TEXT    NOT NULL DEFAULT '',
    markers         INTEGER NOT NULL DEFAULT 0,
    needs_review    INTEGER NOT NULL DEFAULT 0,
    correct         INTEGER,          -- NULL when unknown
    grounded        INTEGER,
    detail          TEXT    NOT NULL, -- JSON
    scored_at       TEXT    NOT NULL
);
CREATE INDEX scores_class ON scores(suggested_class);
