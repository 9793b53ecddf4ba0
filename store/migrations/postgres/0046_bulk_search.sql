-- 0046: a bulk import (store/pgsearch.go) sets tracelab.bulk_search to
-- 'on' for its transaction and inserts the search rows of its traces
-- (question and step body) itself, computed by 0018's functions (with
-- 0039's OFFSET 0) on a second connection while the import's own backend
-- writes its rows: the triggers leave the traces and bodies of that
-- transaction alone. Every other writer (a live batch, the workbench, a
-- migration) keeps the per-row triggers.
-- The index's rows of a step body, vectors and all: 0018's texts, each
-- computed once (0039's OFFSET 0). The trigger and the bulk import
-- (store/pgsearch.go) both write these.
CREATE FUNCTION step_search_vectors(body TEXT) RETURNS TABLE (idx INTEGER, kind TEXT, text TEXT, tsv tsvector)
LANGUAGE sql IMMUTABLE AS $$
    SELECT r.idx, r.kind, r.text, search_vector(r.text) FROM (SELECT * FROM step_search_rows(body) OFFSET 0) r
$$;

CREATE OR REPLACE FUNCTION step_bodies_search() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('tracelab.bulk_search', TRUE) = 'on' THEN
        RETURN NULL;
    END IF;
    INSERT INTO step_search (trace_pk, idx, kind, text, tsv)
    SELECT NEW.trace_pk, r.idx, r.kind, r.text, r.tsv FROM step_search_vectors(NEW.body) r;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION traces_search() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('tracelab.bulk_search', TRUE) = 'on' THEN
        RETURN NULL;
    END IF;
    INSERT INTO step_search (trace_pk, idx, kind, text, tsv)
    VALUES (NEW.id, -1, 'question', NEW.question, search_vector(NEW.question));
    RETURN NULL;
END $$;

-- The index is derived from the traces, written only by the triggers above
-- and the bulk writer, each from a trace row of its own transaction; its
-- foreign key checked that again on every row (a lookup and a row lock
-- on traces: 2.2 s of the 5.6 s a 220,000-row insert took). Deleting a
-- trace deletes its rows, as the key's ON DELETE CASCADE did (and as
-- SQLite's traces_search_delete does), once per statement.
ALTER TABLE step_search DROP CONSTRAINT step_search_trace_pk_fkey;

CREATE FUNCTION traces_search_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM step_search s USING gone g WHERE s.trace_pk = g.id;
    RETURN NULL;
END $$;
CREATE TRIGGER traces_search_delete AFTER DELETE ON traces REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION traces_search_delete();
