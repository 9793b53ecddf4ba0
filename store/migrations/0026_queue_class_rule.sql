-- 0026: the queue's class rule written once. A trace shows its label's
-- class, else the scorer's suggestion, else 'none'. Migrations 0003 and
-- 0009 wrote that CASE into every trigger that touches a trace's label
-- or suggested class, and the staged import (store/staging.go) had its
-- own copy: a change to the rule had to find every one of them. Here it
-- is the view trace_queue_class, and two triggers on traces keep the
-- stored column (which the queue's indexes cover) equal to the view's
-- answer whenever a trace row lands or its label or suggested class is
-- written. The triggers of 0003 and 0009 are re-created below without
-- their queue_class. PostgreSQL says the same with a function
-- (postgres/0026_queue_class_rule.sql). Migrations are numbered and never
-- edited once released.
CREATE VIEW trace_queue_class (id, queue_class) AS
SELECT id, CASE WHEN label_class <> '' THEN label_class
    WHEN suggested_class <> '' THEN suggested_class ELSE 'none' END
FROM traces;

-- The WHEN costs one lookup by rowid; the UPDATE runs only when the class
-- moves, so a rescore that keeps a trace's class writes nothing more.
CREATE TRIGGER traces_queue_class AFTER UPDATE OF label_class, suggested_class ON traces
WHEN NEW.queue_class IS NOT (SELECT queue_class FROM trace_queue_class WHERE id = NEW.id)
BEGIN
    UPDATE traces SET queue_class = (SELECT queue_class FROM trace_queue_class WHERE id = NEW.id) WHERE id = NEW.id;
END;

-- A staged import lands its traces with their label and suggested class
-- already known (their cases and scores go in first, store/staging.go).
CREATE TRIGGER traces_queue_class_insert AFTER INSERT ON traces
WHEN NEW.queue_class IS NOT (SELECT queue_class FROM trace_queue_class WHERE id = NEW.id)
BEGIN
    UPDATE traces SET queue_class = (SELECT queue_class FROM trace_queue_class WHERE id = NEW.id) WHERE id = NEW.id;
END;

DROP TRIGGER cases_queue_insert;
CREATE TRIGGER cases_queue_insert AFTER INSERT ON cases WHEN NEW.trace_pk IS NOT NULL
BEGIN
    UPDATE traces SET (case_id, case_status, label_class, score_ok) = (SELECT c.case_id, c.status, c.class,
            COALESCE((SELECT s.content_sha = traces.content_sha AND s.gold_sha = c.gold_sha
                FROM scores s WHERE s.trace_pk = traces.id), 0)
        FROM (SELECT case_id, status, gold_sha, COALESCE(json_extract(label, '$.failure_class'), '') AS class
            FROM cases WHERE trace_pk = NEW.trace_pk ORDER BY case_id LIMIT 1) c)
    WHERE id = NEW.trace_pk;
END;

DROP TRIGGER cases_queue_update;
CREATE TRIGGER cases_queue_update AFTER UPDATE OF trace_pk, status, label, gold_sha ON cases
BEGIN
    UPDATE traces SET case_id = '', case_status = 'none', label_class = ''
    WHERE id IN (OLD.trace_pk, NEW.trace_pk) AND NOT EXISTS (SELECT 1 FROM cases c WHERE c.trace_pk = traces.id);
    UPDATE traces SET (case_id, case_status, label_class) = (SELECT c.case_id, c.status,
            COALESCE(json_extract(c.label, '$.failure_class'), '')
        FROM cases c WHERE c.trace_pk = traces.id ORDER BY c.case_id LIMIT 1)
    WHERE id IN (OLD.trace_pk, NEW.trace_pk) AND EXISTS (SELECT 1 FROM cases c WHERE c.trace_pk = traces.id);
    UPDATE traces SET score_ok = COALESCE((SELECT s.content_sha = traces.content_sha AND s.gold_sha = COALESCE((SELECT c.gold_sha
            FROM cases c WHERE c.case_id = traces.case_id AND c.trace_pk = traces.id), 'none')
            FROM scores s WHERE s.trace_pk = traces.id), 0)
    WHERE id IN (OLD.trace_pk, NEW.trace_pk);
END;

DROP TRIGGER cases_queue_delete;
CREATE TRIGGER cases_queue_delete AFTER DELETE ON cases WHEN OLD.trace_pk IS NOT NULL
BEGIN
    UPDATE traces SET case_id = '', case_status = 'none', label_class = ''
    WHERE id = OLD.trace_pk AND NOT EXISTS (SELECT 1 FROM cases c WHERE c.trace_pk = traces.id);
    UPDATE traces SET (case_id, case_status, label_class) = (SELECT c.case_id, c.status,
            COALESCE(json_extract(c.label, '$.failure_class'), '')
        FROM cases c WHERE c.trace_pk = traces.id ORDER BY c.case_id LIMIT 1)
    WHERE id = OLD.trace_pk AND EXISTS (SELECT 1 FROM cases c WHERE c.trace_pk = traces.id);
    UPDATE traces SET score_ok = COALESCE((SELECT s.content_sha = traces.content_sha AND s.gold_sha = COALESCE((SELECT c.gold_sha
            FROM cases c WHERE c.case_id = traces.case_id AND c.trace_pk = traces.id), 'none')
            FROM scores s WHERE s.trace_pk = traces.id), 0)
    WHERE id = OLD.trace_pk;
END;

DROP TRIGGER scores_queue_insert;
CREATE TRIGGER scores_queue_insert AFTER INSERT ON scores
BEGIN
    UPDATE traces SET suggested_class = NEW.suggested_class,
        score_ok = (NEW.content_sha = traces.content_sha AND NEW.gold_sha = COALESCE((SELECT c.gold_sha
            FROM cases c WHERE c.case_id = traces.case_id AND c.trace_pk = traces.id), 'none'))
    WHERE id = NEW.trace_pk;
END;

DROP TRIGGER scores_queue_update;
CREATE TRIGGER scores_queue_update AFTER UPDATE OF suggested_class, content_sha, gold_sha ON scores
WHEN OLD.suggested_class <> NEW.suggested_class OR OLD.content_sha <> NEW.content_sha OR OLD.gold_sha <> NEW.gold_sha
    OR (SELECT score_ok FROM traces WHERE id = NEW.trace_pk) <> 1
BEGIN
    UPDATE traces SET suggested_class = NEW.suggested_class,
        score_ok = (NEW.content_sha = traces.content_sha AND NEW.gold_sha = COALESCE((SELECT c.gold_sha
            FROM cases c WHERE c.case_id = traces.case_id AND c.trace_pk = traces.id), 'none'))
    WHERE id = NEW.trace_pk;
END;

DROP TRIGGER scores_queue_delete;
CREATE TRIGGER scores_queue_delete AFTER DELETE ON scores
BEGIN
    UPDATE traces SET suggested_class = '', score_ok = 0 WHERE id = OLD.trace_pk;
END;
