-- 0039: the search rows of a step body (0018) are computed once each.
-- step_search_rows is an SQL function the planner inlines, and the
-- trigger's search_vector(r.text) then held a second copy of r.text's
-- expression: search_json_text parsed every step's args and result twice
-- (800,000 calls for 200,000 steps). A subquery with OFFSET 0 is not
-- pulled up, so each text is computed once and its vector made from it.
-- The rows are the same.
--
-- A bulk import (store/pgsearch.go) sets tracelab.bulk_search to 'on' for
-- its transaction and inserts the same rows itself, computed by the same
-- functions on another connection while this one writes the import's
-- rows: the two triggers leave the traces and bodies of that transaction
-- alone. Every other writer keeps the per-row triggers.
CREATE OR REPLACE FUNCTION step_bodies_search() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('tracelab.bulk_search', TRUE) = 'on' THEN
        RETURN NULL;
    END IF;
    INSERT INTO step_search (trace_pk, idx, kind, text, tsv)
    SELECT NEW.trace_pk, r.idx, r.kind, r.text, search_vector(r.text)
    FROM (SELECT * FROM step_search_rows(NEW.body) OFFSET 0) r;
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
