-- 0009: the numbers report.json reads of a score, as columns, so a report
-- over every trace reads a few numbers per row instead of decoding each
-- score's JSON; and the score trigger of 0003 narrowed to the rescores
-- that change what it derives. Migrations are numbered and never edited
-- once released.
ALTER TABLE scores ADD COLUMN grounding_precision REAL;
ALTER TABLE scores ADD COLUMN grounding_recall    REAL;
ALTER TABLE scores ADD COLUMN definition_match    INTEGER;
ALTER TABLE scores ADD COLUMN freshness_pass      INTEGER;
ALTER TABLE scores ADD COLUMN policy_violations   INTEGER;
ALTER TABLE scores ADD COLUMN calls               INTEGER NOT NULL DEFAULT 0;
ALTER TABLE scores ADD COLUMN clarifications      INTEGER NOT NULL DEFAULT 0;
ALTER TABLE scores ADD COLUMN cost_usd            REAL    NOT NULL DEFAULT 0;
-- Scores from before carry none of them: stale, so the next run rescores them.
UPDATE scores SET config_sha = '';

-- A rescore under a new configuration mostly writes the class, content and
-- gold hashes the score already had; the trace's queue columns derive only
-- from those (the case triggers keep them when the case changes), so the
-- trace row is left alone unless one of them moved or the trace is not
-- marked current.
DROP TRIGGER scores_queue_update;
CREATE TRIGGER scores_queue_update AFTER UPDATE OF suggested_class, content_sha, gold_sha ON scores
WHEN OLD.suggested_class <> NEW.suggested_class OR OLD.content_sha <> NEW.content_sha OR OLD.gold_sha <> NEW.gold_sha
    OR (SELECT score_ok FROM traces WHERE id = NEW.trace_pk) <> 1
BEGIN
    UPDATE traces SET suggested_class = NEW.suggested_class,
        queue_class = CASE WHEN label_class <> '' THEN label_class ELSE CASE WHEN NEW.suggested_class <> '' THEN NEW.suggested_class ELSE 'none' END END,
        score_ok = (NEW.content_sha = traces.content_sha AND NEW.gold_sha = COALESCE((SELECT c.gold_sha
            FROM cases c WHERE c.case_id = traces.case_id AND c.trace_pk = traces.id), 'none'))
    WHERE id = NEW.trace_pk;
END;

-- The same for a new case: one UPDATE of the trace row instead of two (the
-- second of 0003's read back what the first had just written).
DROP TRIGGER cases_queue_insert;
CREATE TRIGGER cases_queue_insert AFTER INSERT ON cases WHEN NEW.trace_pk IS NOT NULL
BEGIN
    UPDATE traces SET (case_id, case_status, label_class, queue_class, score_ok) = (SELECT c.case_id, c.status, c.class,
            CASE WHEN c.class <> '' THEN c.class WHEN traces.suggested_class <> '' THEN traces.suggested_class ELSE 'none' END,
            COALESCE((SELECT s.content_sha = traces.content_sha AND s.gold_sha = c.gold_sha
                FROM scores s WHERE s.trace_pk = traces.id), 0)
        FROM (SELECT case_id, status, gold_sha, COALESCE(json_extract(label, '$.failure_class'), '') AS class
            FROM cases WHERE trace_pk = NEW.trace_pk ORDER BY case_id LIMIT 1) c)
    WHERE id = NEW.trace_pk;
END;
