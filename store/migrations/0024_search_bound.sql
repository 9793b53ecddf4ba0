-- 0024: the full-text index reads at most the first 4,000,000 characters
-- of a trace's step body. Indexing copied the body five times in
-- SQLite's memory (three replace() calls, concat_ws, the tokenizer): a
-- 63 MiB reasoning step cost 420 MiB of an import's 975 MiB peak. A word
-- past that start is not found by search (PostgreSQL's index, 0018, reads
-- the first 200,000 characters of each step).
DROP TRIGGER step_bodies_search_insert;

CREATE TRIGGER step_bodies_search_insert AFTER INSERT ON step_bodies BEGIN
    INSERT INTO step_search (rowid, text) VALUES (new.trace_pk, concat_ws(char(10),
        (SELECT question FROM traces WHERE id = new.trace_pk),
        replace(replace(replace(substr(new.body, 1, 4000000), '\n', ' '), '\t', ' '), '\r', ' ')));
END;
