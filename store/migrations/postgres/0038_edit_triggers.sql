-- 0038 for PostgreSQL: a label edit rewrites only what it changed. Every
-- edit's UPDATE of its case names label (and status, gold_sha), so 0003's
-- cases_queue_update ran tracelab_refresh_queue, whose UPDATE of the
-- trace wrote a new row version of it even when its queue columns came
-- out as they were (a toggle of correct leaves the class alone); that
-- UPDATE names case_id, so 0011's traces_teaches ran its EXISTS and, on a
-- confirmed trace, 0005's traces_label_pending its jsonb test. With 50
-- labelers these ran inside the trace's lock, for every key. Here:
--   - the case triggers fire only when a column they read changed;
--   - tracelab_refresh_queue writes the trace only when one of its queue
--     columns differs, or when its first case is confirmed by an import
--     (traces_label_pending decides 'pending' from the label, which can
--     change while every queue column stays);
--   - the refresh sets teaches (0011) with the queue columns, from the
--     same first case, so a confirm writes the trace once: cases_teaches,
--     which fires after it, then finds the value in place (and
--     traces_teaches, for a moved case_id, too);
--   - traces_teaches fires only when the trace's case changed.
-- The values written are 0032's, from the same score and first case.

CREATE OR REPLACE FUNCTION tracelab_refresh_queue(pk BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF pk IS NULL OR tracelab_queue_deferred(pk) IS TRUE THEN
        RETURN;
    END IF;
    UPDATE traces SET (case_id, case_status, label_class, queue_class, score_ok, teaches) =
        (q.case_id, q.case_status, q.label_class, q.queue_class, q.score_ok, q.teaches)
    FROM (SELECT t.id, COALESCE(f.case_id, '') AS case_id, COALESCE(f.status, 'none') AS case_status,
            COALESCE(f.class, '') AS label_class,
            tracelab_queue_class(COALESCE(f.class, ''), t.suggested_class) AS queue_class,
            COALESCE((SELECT (s.content_sha = t.content_sha AND s.gold_sha = COALESCE(f.gold_sha, 'none'))::int
                FROM scores s WHERE s.trace_pk = t.id), 0) AS score_ok,
            COALESCE(f.teaches, 0) AS teaches, COALESCE(f.imported, FALSE) AS imported
        FROM traces t LEFT JOIN LATERAL (SELECT c.case_id, c.status, c.gold_sha,
                (c.gold_origin = 'human' OR c.status = 'confirmed')::int AS teaches,
                COALESCE(c.label::jsonb ->> 'failure_class', '') AS class,
                c.status = 'confirmed' AND c.confirmed_by LIKE 'import:%' AS imported
            FROM cases c WHERE c.trace_pk = t.id ORDER BY c.case_id LIMIT 1) f ON TRUE
        WHERE t.id = pk) q
    WHERE traces.id = q.id AND (q.imported OR (traces.case_id, traces.case_status, traces.label_class,
        traces.queue_class, traces.score_ok, traces.teaches) IS DISTINCT FROM
        (q.case_id, q.case_status, q.label_class, q.queue_class, q.score_ok, q.teaches));
END $$;

DROP TRIGGER cases_queue_update ON cases;
CREATE TRIGGER cases_queue_update AFTER UPDATE OF trace_pk, status, label, gold_sha ON cases FOR EACH ROW
    WHEN ((OLD.trace_pk, OLD.status, OLD.label, OLD.gold_sha) IS DISTINCT FROM
        (NEW.trace_pk, NEW.status, NEW.label, NEW.gold_sha))
    EXECUTE FUNCTION cases_queue();

DROP TRIGGER cases_teaches ON cases;
CREATE TRIGGER cases_teaches AFTER UPDATE OF gold_origin, status ON cases FOR EACH ROW
    WHEN (NEW.trace_pk IS NOT NULL AND (OLD.gold_origin, OLD.status, OLD.trace_pk) IS DISTINCT FROM
        (NEW.gold_origin, NEW.status, NEW.trace_pk))
    EXECUTE FUNCTION cases_teaches();

DROP TRIGGER traces_teaches ON traces;
CREATE TRIGGER traces_teaches AFTER UPDATE OF case_id ON traces FOR EACH ROW
    WHEN (OLD.case_id IS DISTINCT FROM NEW.case_id)
    EXECUTE FUNCTION traces_teaches();
