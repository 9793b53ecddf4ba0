-- 0009 for PostgreSQL: ../0009_score_metrics.sql, whose comments say why.
-- PostgreSQL allows no subquery in a trigger's WHEN, so the narrowing of
-- the score trigger is the first test of its function instead. (0009's
-- one-UPDATE case trigger is what 0003's tracelab_refresh_queue already
-- does here.)
ALTER TABLE scores ADD COLUMN grounding_precision DOUBLE PRECISION;
ALTER TABLE scores ADD COLUMN grounding_recall    DOUBLE PRECISION;
ALTER TABLE scores ADD COLUMN definition_match    BIGINT;
ALTER TABLE scores ADD COLUMN freshness_pass      BIGINT;
ALTER TABLE scores ADD COLUMN policy_violations   BIGINT;
ALTER TABLE scores ADD COLUMN calls               BIGINT NOT NULL DEFAULT 0;
ALTER TABLE scores ADD COLUMN clarifications      BIGINT NOT NULL DEFAULT 0;
ALTER TABLE scores ADD COLUMN cost_usd            DOUBLE PRECISION NOT NULL DEFAULT 0;
UPDATE scores SET config_sha = '';

CREATE OR REPLACE FUNCTION scores_queue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        UPDATE traces SET suggested_class = '', score_ok = 0,
            queue_class = CASE WHEN label_class <> '' THEN label_class ELSE 'none' END
        WHERE id = OLD.trace_pk;
        RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.suggested_class = NEW.suggested_class AND OLD.content_sha = NEW.content_sha
        AND OLD.gold_sha = NEW.gold_sha AND (SELECT score_ok FROM traces WHERE id = NEW.trace_pk) = 1 THEN
        RETURN NULL;
    END IF;
    UPDATE traces SET suggested_class = NEW.suggested_class,
        queue_class = CASE WHEN label_class <> '' THEN label_class ELSE CASE WHEN NEW.suggested_class <> '' THEN NEW.suggested_class ELSE 'none' END END,
        score_ok = (NEW.content_sha = traces.content_sha AND NEW.gold_sha = COALESCE((SELECT c.gold_sha
            FROM cases c WHERE c.case_id = traces.case_id AND c.trace_pk = traces.id), 'none'))::int
    WHERE id = NEW.trace_pk;
    RETURN NULL;
END $$;
DROP TRIGGER scores_queue_update ON scores;
CREATE TRIGGER scores_queue_update AFTER UPDATE OF suggested_class, content_sha, gold_sha ON scores FOR EACH ROW
    EXECUTE FUNCTION scores_queue();
