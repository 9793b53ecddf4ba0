-- 0018: a full-text index over every trace's question and steps (the
-- reasoning, assistant text, answer, tool names, arguments and results),
-- for `tracelab search` and the queue's `/` (store/search.go).
--
-- One row per trace, its rowid the trace's id: the question and the
-- trace's step body (store/stepbody.go) as they are, with the JSON escapes
-- of line breaks and tabs made spaces ("\nFROM" in a SQL string would
-- otherwise be the word nFROM). The index finds the traces; which steps
-- hold the words is decided in Go from the body (search.go). Parsing
-- each step's JSON here cost five times what indexing the text does.
-- The index keeps no copy of the text (content=''): the body is the text.
--
-- The tokenizer keeps '_' inside a word, so an identifier such as
-- is_active is one token and matches as written (unicode61 alone would
-- split it in two), and keeps accents (café is not cafe), as the Go side
-- that picks the steps compares words.
--
-- Triggers fill the index, so every way a trace is written (an import
-- straight into the file, the copy of a staged import, a replace) keeps
-- it up to date; deleting a trace drops its row. A trace's row is
-- written with its body, after the trace row (every import path writes
-- the trace first).
CREATE VIRTUAL TABLE step_search USING fts5(text, content = '', contentless_delete = 1,
    tokenize = "unicode61 remove_diacritics 0 tokenchars '_'");

CREATE TRIGGER step_bodies_search_insert AFTER INSERT ON step_bodies BEGIN
    INSERT INTO step_search (rowid, text) VALUES (new.trace_pk, concat_ws(char(10),
        (SELECT question FROM traces WHERE id = new.trace_pk),
        replace(replace(replace(new.body, '\n', ' '), '\t', ' '), '\r', ' ')));
END;

CREATE TRIGGER traces_search_delete AFTER DELETE ON traces BEGIN
    DELETE FROM step_search WHERE rowid = old.id;
END;

-- The traces stored before this migration.
INSERT INTO step_search (rowid, text)
SELECT b.trace_pk, concat_ws(char(10), t.question, replace(replace(replace(b.body, '\n', ' '), '\t', ' '), '\r', ' '))
FROM step_bodies b JOIN traces t ON t.id = b.trace_pk;

-- Saved views: a queue filter and a search under a name, saved from the
-- workbench, listed in its filter menu and read by `tracelab ls --view`.
CREATE TABLE saved_views (
    name     TEXT PRIMARY KEY,
    filter   TEXT NOT NULL, -- JSON, store.Filter (its search too)
    saved_by TEXT NOT NULL DEFAULT '',
    saved_at TEXT NOT NULL
);
