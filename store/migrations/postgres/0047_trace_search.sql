-- 0047 for PostgreSQL: the index holds a trace's step body as its text,
-- as SQLite's FTS5 index does (../0018_step_search.sql): the JSON escapes
-- of line breaks and tabs made spaces, in rows of at most 30,000
-- characters, each overlapping the one before by 1,000 (idx 0, 1, ...,
-- kind 'steps'), beside the question's row (idx -1) as before. 0018's
-- rows were a step each, their text the keys and values of the step's
-- JSON, parsed by search_json_text: 220,000 rows for 20,000 traces of
-- bench gen, against 40,000 here. Which steps hold a search's words was
-- decided in Go from the body already, on both backends (store/search.go);
-- the index finds the traces, a term in any of their rows (a step, before,
-- had to hold them all, which FTS5's row per trace never asked: a trace
-- with its words in two steps was counted by SQLite and not here).

-- 0018's search_words made each run of ASCII punctuation and spaces one
-- space with regexp_replace, whose cost is per match: 2.9 s for the 26 MB
-- of those 20,000 bodies, most of what their vectors cost. Here each such
-- character becomes a space, one replace() a character (1.2 s): the text
-- parser skips spaces however many, so vectors and queries are the same
-- (the 20,000 bodies' vectors compared equal; store/searchrows_test.go
-- checks the index against this function's rows).
CREATE OR REPLACE FUNCTION search_words(t TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
    SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t,
        '!', ' '), '"', ' '), '#', ' '), '$', ' '), '%', ' '), '&', ' '), '''', ' '), '(', ' '),
        ')', ' '), '*', ' '), '+', ' '), ',', ' '), '-', ' '), '.', ' '), '/', ' '), ':', ' '),
        ';', ' '), '<', ' '), '=', ' '), '>', ' '), '?', ' '), '@', ' '), '[', ' '), '\', ' '),
        ']', ' '), '^', ' '), '_', ' '), '`', ' '), '{', ' '), '|', ' '), '}', ' '), '~', ' '),
        chr(9), ' '), chr(10), ' '), chr(11), ' '), chr(12), ' '), chr(13), ' ')
$$;

-- 0046's step_search_vectors, a body's rows for its trigger and the bulk
-- import alike, now gives the parts, so both follow. They are bounded so
-- that each vector stays far under a tsvector's 1 MB and its 16,383
-- positions (a phrase past those is not found); a word or phrase of up to
-- 1,000 characters lies whole in one of them. The body's first 4,000,000
-- characters are indexed (0018's rows, the first 200,000 of each step's
-- text): finding where a part starts walks the text from its start
-- (substr, in characters), so the parts of a longer text would cost the
-- square of its length.
CREATE OR REPLACE FUNCTION step_search_vectors(body TEXT) RETURNS TABLE (idx INTEGER, kind TEXT, text TEXT, tsv tsvector)
LANGUAGE sql IMMUTABLE AS $$
    SELECT c.k, 'steps', c.text, search_vector(c.text) FROM (
        SELECT k, substr(b.t, k * 29000 + 1, 30000) AS text
        FROM (SELECT replace(replace(replace(left(body, 4000000), '\n', ' '), '\t', ' '), '\r', ' ') AS t OFFSET 0) b,
            generate_series(0, greatest(ceil((length(b.t) - 1000) / 29000.0)::INTEGER, 1) - 1) k
        OFFSET 0) c
$$;

-- A body's row holds many more words than a step's did, so the least
-- common of the words the statistics keep (ten times the target: 1,000
-- by default) is common, and every word not kept was taken to be in 0.5%
-- of the rows: 1,000 where a rare phrase is in 67 at 100,000 traces, and
-- a search for it read every body in id order to fill a page it could not
-- fill (130 ms in psql; 1.7 ms with the target at 1,000, whose ANALYZE of
-- the table took 1 s).
ALTER TABLE step_search ALTER COLUMN tsv SET STATISTICS 1000;

-- The stored traces' bodies, indexed again.
DELETE FROM step_search WHERE idx >= 0;
INSERT INTO step_search (trace_pk, idx, kind, text, tsv)
SELECT b.trace_pk, r.idx, r.kind, r.text, r.tsv FROM step_bodies b, step_search_vectors(b.body) r;

DROP FUNCTION step_search_rows(TEXT);
DROP FUNCTION search_json_text(TEXT);
