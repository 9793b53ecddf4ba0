-- 0039: the search rows of a step body (0018) are computed once each.
-- step_search_rows is an SQL function the planner inlines, and the
-- trigger's search_vector(r.text) then held a second copy of r.text's
-- expression: search_json_text parsed every step's args and result twice
-- (800,000 calls for 200,000 steps). A subquery with OFFSET 0 is not
-- pulled up, so each text is computed once and its vector made from it.
-- The rows are the same (store/searchrows_test.go).
CREATE OR REPLACE FUNCTION step_bodies_search() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO step_search (trace_pk, idx, kind, text, tsv)
    SELECT NEW.trace_pk, r.idx, r.kind, r.text, search_vector(r.text)
    FROM (SELECT * FROM step_search_rows(NEW.body) OFFSET 0) r;
    RETURN NULL;
END $$;
