-- 0018: a full-text index over every trace's question and steps (the
-- reasoning, assistant text, answer, tool names, arguments and results),
-- for `tracelab search` and the queue's `/` (store/search.go).
--
-- One row per trace question and per step. Its rowid says which:
-- trace_pk * 2^20 is the question, trace_pk * 2^20 + 1 + idx the step idx
-- (steps past 2^20 - 2 are not indexed). A trace's rows are then one
-- rowid range, which FTS5 deletes and scans without a full pass.
--
-- The tokenizer keeps '_' inside a word, so an identifier such as
-- is_active is one token and matches as written (unicode61 alone would
-- split it in two). Arguments and results are indexed as the keys and
-- scalar values of their JSON, not as JSON text: "\nFROM" in a SQL string
-- would otherwise be the token nFROM.
--
-- Triggers fill the index, so every way a trace is written (an import
-- straight into the file, the copy of a staged import, a replace) keeps
-- it up to date; deleting a trace drops its rows.
CREATE VIRTUAL TABLE step_search USING fts5(kind UNINDEXED, text, tokenize = "unicode61 tokenchars '_'");

CREATE TRIGGER traces_search_insert AFTER INSERT ON traces BEGIN
    INSERT INTO step_search (rowid, kind, text) VALUES (new.id * 1048576, 'question', new.question);
END;

CREATE TRIGGER traces_search_delete AFTER DELETE ON traces BEGIN
    DELETE FROM step_search WHERE rowid BETWEEN old.id * 1048576 AND old.id * 1048576 + 1048575;
END;

-- What the index holds of each step, as rows: the trigger indexes one
-- trace's, the backfill below every stored trace's.
CREATE VIEW step_search_rows AS
SELECT b.trace_pk AS trace_pk, b.trace_pk * 1048576 + 1 + s.key AS rid, s.value ->> 0 AS kind, concat_ws(char(10),
    NULLIF(s.value ->> 3, ''), NULLIF(s.value ->> 4, ''),
    CASE WHEN json_valid(s.value ->> 5) THEN (SELECT group_concat(concat_ws(' ',
        CASE WHEN typeof(a.key) = 'text' THEN a.key END,
        CASE WHEN a.type NOT IN ('object', 'array') THEN a.atom END), ' ') FROM json_tree(s.value ->> 5) a)
        ELSE s.value ->> 5 END,
    CASE WHEN json_valid(s.value ->> 6) THEN (SELECT group_concat(concat_ws(' ',
        CASE WHEN typeof(r.key) = 'text' THEN r.key END,
        CASE WHEN r.type NOT IN ('object', 'array') THEN r.atom END), ' ') FROM json_tree(s.value ->> 6) r)
        ELSE s.value ->> 6 END) AS text
FROM step_bodies b, json_each(b.body) s WHERE s.key < 1048575;

-- Nothing rewrites a body in place (a replaced trace is deleted and
-- written again), so only an insert is indexed.
CREATE TRIGGER step_bodies_search_insert AFTER INSERT ON step_bodies BEGIN
    INSERT INTO step_search (rowid, kind, text) SELECT rid, kind, text FROM step_search_rows WHERE trace_pk = new.trace_pk;
END;

-- The traces stored before this migration.
INSERT INTO step_search (rowid, kind, text) SELECT id * 1048576, 'question', question FROM traces;
INSERT INTO step_search (rowid, kind, text) SELECT rid, kind, text FROM step_search_rows;

-- Saved views: a queue filter and a search under a name, saved from the
-- workbench, listed in its filter menu and read by `tracelab ls --view`.
CREATE TABLE saved_views (
    name     TEXT PRIMARY KEY,
    filter   TEXT NOT NULL, -- JSON, store.Filter (its search too)
    saved_by TEXT NOT NULL DEFAULT '',
    saved_at TEXT NOT NULL
);
