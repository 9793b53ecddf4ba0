-- 0035: a substring index over trace ids and case ids, for the queue's
-- `/` (store/search.go, queueSearchCondPage). A search looks for its
-- text anywhere in a trace's id and in its case's id (traces.case_id);
-- a LIKE '%…%' can use no b-tree, so each of the two read every id of
-- its index, whatever the text: at a million traces most of a search
-- page's 156-194 ms.
--
-- An FTS5 table with the trigram tokenizer answers a substring of three
-- characters or more from the postings of its trigrams: one row per
-- trace, its rowid the trace's id. The index only narrows (it folds more
-- than ASCII case); the LIKE on the trace row still decides, so results
-- are those of the LIKE. A text shorter than three characters still
-- reads every id (search.go).
--
-- The case id is indexed only where it is not the trace id (a machine
-- case takes its trace's id: most traces), since the trace id's entries
-- already find it. An id over 1,024 bytes is not tokenized (a hostile
-- 60 MB id would cost an index entry per byte): its row holds 'long' in
-- the column long instead, and every search takes such rows as
-- candidates, so they are still found by the LIKE. octet_length counts
-- every byte, past a NUL too (length stops at one).
--
-- No copy of the ids is kept (content=''); a row is deleted by rowid
-- (contentless_delete). Triggers keep it, so every way a trace is
-- written keeps it current. The copy of a staged import (staging.go)
-- fires the insert trigger once per trace: filling the index from the
-- landed traces in one statement afterwards cost as much (0.3-0.45 s of
-- CPU for 100,000 traces either way, nearly all of it FTS5's own work).
CREATE VIRTUAL TABLE id_search USING fts5(trace_id, case_id, long, content = '', contentless_delete = 1,
    tokenize = 'trigram');

CREATE TRIGGER traces_id_search_insert AFTER INSERT ON traces BEGIN
    INSERT INTO id_search (rowid, trace_id, case_id, long) VALUES (NEW.id,
        CASE WHEN octet_length(NEW.trace_id) <= 1024 THEN NEW.trace_id END,
        CASE WHEN NEW.case_id <> NEW.trace_id AND octet_length(NEW.case_id) <= 1024 THEN NEW.case_id END,
        CASE WHEN octet_length(NEW.trace_id) > 1024 OR octet_length(NEW.case_id) > 1024 THEN 'long' END);
END;

-- A trace written straight into the file (not staged: live intake, a
-- folder the import cannot write) gets its machine case after its row,
-- and so its case id after its index row; the case id is the trace id
-- then, which the row already holds: only a change of what the row
-- indexes rewrites it.
CREATE TRIGGER traces_id_search_update AFTER UPDATE OF trace_id, case_id ON traces
WHEN OLD.trace_id IS NOT NEW.trace_id OR (OLD.case_id IS NOT NEW.case_id
    AND NOT (OLD.case_id IN ('', OLD.trace_id) AND NEW.case_id IN ('', NEW.trace_id))) BEGIN
    DELETE FROM id_search WHERE rowid = OLD.id;
    INSERT INTO id_search (rowid, trace_id, case_id, long) VALUES (NEW.id,
        CASE WHEN octet_length(NEW.trace_id) <= 1024 THEN NEW.trace_id END,
        CASE WHEN NEW.case_id <> NEW.trace_id AND octet_length(NEW.case_id) <= 1024 THEN NEW.case_id END,
        CASE WHEN octet_length(NEW.trace_id) > 1024 OR octet_length(NEW.case_id) > 1024 THEN 'long' END);
END;

CREATE TRIGGER traces_id_search_delete AFTER DELETE ON traces BEGIN
    DELETE FROM id_search WHERE rowid = OLD.id;
END;

-- The traces stored before this migration.
INSERT INTO id_search (rowid, trace_id, case_id, long)
SELECT id,
    CASE WHEN octet_length(trace_id) <= 1024 THEN trace_id END,
    CASE WHEN case_id <> trace_id AND octet_length(case_id) <= 1024 THEN case_id END,
    CASE WHEN octet_length(trace_id) > 1024 OR octet_length(case_id) > 1024 THEN 'long' END
FROM traces;
