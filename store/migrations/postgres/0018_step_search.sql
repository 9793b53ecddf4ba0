-- 0018 for PostgreSQL: ../0018_step_search.sql, whose comment says why.
-- Here the index is a table with a tsvector per row and a GIN index on
-- it (no extension needed). idx -1 is the trace's question. The 'simple'
-- configuration keeps words as written (no stemming, no stop words).
-- Words are split at '_' (search_words), so store/search.go asks for an
-- identifier such as is_active as the phrase is <-> active and then
-- checks that the text holds it as written.
CREATE TABLE step_search (
    trace_pk BIGINT  NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    idx      INTEGER NOT NULL,
    kind     TEXT COLLATE "C" NOT NULL,
    text     TEXT COLLATE "C" NOT NULL,
    tsv      tsvector NOT NULL,
    PRIMARY KEY (trace_pk, idx)
);
CREATE INDEX step_search_tsv ON step_search USING GIN (tsv);

-- The keys and scalar values of a JSON document as words ("\nFROM" in a
-- SQL string is then FROM); text that is not JSON as it is.
CREATE FUNCTION search_json_text(doc TEXT) RETURNS TEXT LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    j jsonb;
BEGIN
    IF doc IS NULL OR doc = '' THEN
        RETURN NULL;
    END IF;
    BEGIN
        j := doc::jsonb;
    EXCEPTION WHEN others THEN
        RETURN doc;
    END;
    RETURN (SELECT string_agg(w, ' ') FROM (
        SELECT k #>> '{}' AS w FROM jsonb_path_query(j, 'strict $.** ? (@.type() == "object").keyvalue().key') k
        UNION ALL
        SELECT v #>> '{}' FROM jsonb_path_query(j, 'strict $.** ? (@.type() != "object" && @.type() != "array")') v) x);
END $$;

-- What the index holds of each step of a body (store/stepbody.go).
CREATE FUNCTION step_search_rows(body TEXT) RETURNS TABLE (idx INTEGER, kind TEXT, text TEXT) LANGUAGE sql IMMUTABLE AS $$
    SELECT (e.n - 1)::INTEGER, e.v ->> 0, concat_ws(E'\n', NULLIF(e.v ->> 3, ''), NULLIF(e.v ->> 4, ''),
        search_json_text(e.v ->> 5), search_json_text(e.v ->> 6))
    FROM jsonb_array_elements(body::jsonb) WITH ORDINALITY e(v, n)
$$;

-- The words of a text for the index and for a query: ASCII punctuation
-- (the '_' too) and spaces become one space, so that the parser sees
-- plain words on both sides (it reads c.is_active as one host name).
CREATE FUNCTION search_words(t TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
    SELECT regexp_replace(t, '[!-/:-@{-~[-`[:space:]]+', ' ', 'g')
$$;

-- A tsvector holds at most 1 MB: a long step is indexed by its start.
CREATE FUNCTION search_vector(t TEXT) RETURNS tsvector LANGUAGE sql IMMUTABLE AS $$
    SELECT to_tsvector('simple', search_words(left(t, 200000)))
$$;

CREATE FUNCTION traces_search() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO step_search (trace_pk, idx, kind, text, tsv)
    VALUES (NEW.id, -1, 'question', NEW.question, search_vector(NEW.question));
    RETURN NULL;
END $$;
CREATE TRIGGER traces_search_insert AFTER INSERT ON traces FOR EACH ROW EXECUTE FUNCTION traces_search();

CREATE FUNCTION step_bodies_search() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO step_search (trace_pk, idx, kind, text, tsv)
    SELECT NEW.trace_pk, r.idx, r.kind, r.text, search_vector(r.text) FROM step_search_rows(NEW.body) r;
    RETURN NULL;
END $$;
CREATE TRIGGER step_bodies_search_insert AFTER INSERT ON step_bodies FOR EACH ROW EXECUTE FUNCTION step_bodies_search();

-- The traces stored before this migration.
INSERT INTO step_search (trace_pk, idx, kind, text, tsv)
SELECT id, -1, 'question', question, search_vector(question) FROM traces;
INSERT INTO step_search (trace_pk, idx, kind, text, tsv)
SELECT b.trace_pk, r.idx, r.kind, r.text, search_vector(r.text) FROM step_bodies b, step_search_rows(b.body) r;

-- Saved views (../0018_step_search.sql says what they are).
CREATE TABLE saved_views (
    name     TEXT COLLATE "C" PRIMARY KEY,
    filter   TEXT COLLATE "C" NOT NULL,
    saved_by TEXT COLLATE "C" NOT NULL DEFAULT '',
    saved_at TEXT COLLATE "C" NOT NULL
);
