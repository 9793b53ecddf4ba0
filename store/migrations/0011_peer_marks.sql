-- 0011: a gold edit marks its question's peers stale with one row, not by
-- clearing the score of each of them. Migrations are numbered and never
-- edited once released.

-- A mark says: what the question teaches changed, so the score of every
-- trace of that question whose gold is not a person's (a taker) is stale
-- unless the score has seen the mark (scores.peer_mark >= its id). Marks
-- only grow (AUTOINCREMENT never reuses an id), and whoever has rescored
-- every taker of the marks it read deletes exactly those (store/stale.go).
CREATE TABLE peer_marks (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    question_key TEXT NOT NULL
);
CREATE INDEX peer_marks_question ON peer_marks(question_key, id);

-- The newest mark of its question a score was computed after (0: none);
-- set when one taker is rescored alone while its question is marked.
ALTER TABLE scores ADD COLUMN peer_mark INTEGER NOT NULL DEFAULT 0;

-- Scores marked stale the old way (0003's cleared gold hash) are left as
-- they are: their score_ok is 0 and the next scoring run picks them up.

-- teaches: the trace's case (traces.case_id) has a person's gold or a
-- confirmed label, so it can teach the other traces of its question
-- (store.Peers). With the partial index, the peers of a question are
-- read from its few teachers, not from every trace that asks it: 25,000
-- traces share a question in the benchmark, 250 of them teach.
ALTER TABLE traces ADD COLUMN teaches INTEGER NOT NULL DEFAULT 0;
UPDATE traces SET teaches = 1 WHERE EXISTS (SELECT 1 FROM cases c WHERE c.case_id = traces.case_id
    AND c.trace_pk = traces.id AND (c.gold_origin = 'human' OR c.status = 'confirmed'));
CREATE INDEX traces_teachers ON traces(question_key) WHERE teaches = 1;

-- Kept by two triggers: the trace's case changes (the case triggers of
-- 0003 and 0009 set case_id on every insert, move and delete of a case),
-- or its case's gold origin or status changes. Each writes the trace only
-- when the flag moves.
CREATE TRIGGER traces_teaches AFTER UPDATE OF case_id ON traces
BEGIN
    UPDATE traces SET teaches = 1 - teaches WHERE id = NEW.id AND teaches <> EXISTS (SELECT 1 FROM cases c
        WHERE c.case_id = NEW.case_id AND c.trace_pk = NEW.id AND (c.gold_origin = 'human' OR c.status = 'confirmed'));
END;
CREATE TRIGGER cases_teaches AFTER UPDATE OF gold_origin, status ON cases WHEN NEW.trace_pk IS NOT NULL
BEGIN
    UPDATE traces SET teaches = 1 - teaches WHERE id = NEW.trace_pk AND case_id = NEW.case_id
        AND teaches <> (NEW.gold_origin = 'human' OR NEW.status = 'confirmed');
END;

-- The queue's header counts (store.Counts: per class and status, and how
-- many disputed) read only the index when it holds disputed too: before,
-- each of the 100,000 rows was fetched for its disputed flag.
DROP INDEX traces_queue;
CREATE INDEX traces_queue ON traces(queue_class, case_status, disputed);
DROP INDEX traces_case_status;
CREATE INDEX traces_case_status ON traces(case_status, queue_class, disputed);
