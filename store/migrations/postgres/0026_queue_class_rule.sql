-- 0026 for PostgreSQL: ../0026_queue_class_rule.sql, whose comments say
-- why. The rule is the function tracelab_queue_class: IMMUTABLE and plain
-- SQL, so the planner inlines it where it is called and it costs what the
-- CASE cost. The two trigger functions that wrote the CASE (0003's
-- tracelab_refresh_queue, 0009's scores_queue) are re-created to call it;
-- their triggers name them and stay. The view trace_queue_class answers
-- as SQLite's does, so a query or test reads the rule the same way on
-- both.
CREATE FUNCTION tracelab_queue_class(label_class TEXT, suggested_class TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN label_class <> '' THEN label_class
        WHEN suggested_class <> '' THEN suggested_class ELSE 'none' END
$$;

CREATE VIEW trace_queue_class (id, queue_class) AS
SELECT id, tracelab_queue_class(label_class, suggested_class) FROM traces;

CREATE OR REPLACE FUNCTION tracelab_refresh_queue(pk BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF pk IS NULL THEN
        RETURN;
    END IF;
    UPDATE traces SET (case_id, case_status, label_class, queue_class, score_ok) = (
        SELECT COALESCE(f.case_id, ''), COALESCE(f.status, 'none'), COALESCE(f.class, ''),
            tracelab_queue_class(COALESCE(f.class, ''), traces.suggested_class),
            COALESCE((SELECT (s.content_sha = traces.content_sha AND s.gold_sha = COALESCE(f.gold_sha, 'none'))::int
                FROM scores s WHERE s.trace_pk = traces.id), 0)
        FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT c.case_id, c.status, c.gold_sha,
                COALESCE(c.label::jsonb ->> 'failure_class', '') AS class
            FROM cases c WHERE c.trace_pk = traces.id ORDER BY c.case_id LIMIT 1) f ON TRUE)
    WHERE id = pk;
END $$;

CREATE OR REPLACE FUNCTION scores_queue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        UPDATE traces SET suggested_class = '', score_ok = 0,
            queue_class = tracelab_queue_class(label_class, '')
        WHERE id = OLD.trace_pk;
        RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.suggested_class = NEW.suggested_class AND OLD.content_sha = NEW.content_sha
        AND OLD.gold_sha = NEW.gold_sha AND (SELECT score_ok FROM traces WHERE id = NEW.trace_pk) = 1 THEN
        RETURN NULL;
    END IF;
    UPDATE traces SET suggested_class = NEW.suggested_class,
        queue_class = tracelab_queue_class(label_class, NEW.suggested_class),
        score_ok = (NEW.content_sha = traces.content_sha AND NEW.gold_sha = COALESCE((SELECT c.gold_sha
            FROM cases c WHERE c.case_id = traces.case_id AND c.trace_pk = traces.id), 'none'))::int
    WHERE id = NEW.trace_pk;
    RETURN NULL;
END $$;
