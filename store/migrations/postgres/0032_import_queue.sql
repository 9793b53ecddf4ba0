-- 0032 for PostgreSQL: an import's traces get their queue columns once.
-- Each fresh trace of an import gets a machine case and a score, and the
-- triggers of 0003/0009/0026 answered each with an UPDATE of the trace:
-- two new row versions of every trace, each with its index entries, two
-- plpgsql calls, at 10k traces about a fifth of the server's time of the
-- import. An import that takes its trace ids from the sequence ahead
-- (store/ingest.go, writer.bulk) sets tracelab.queue_from, local to its
-- transaction, to the first id it took: the queue triggers then leave the
-- traces from that id on alone (the import's writer lock keeps any other
-- transaction from writing a trace meanwhile, so those are the import's
-- own), and tracelab_refresh_queues_from sets their columns in one
-- statement from what the import left: the same values the triggers give,
-- which depend only on the trace's score and first case (0003's
-- tracelab_refresh_queue with the score's suggested class). Other
-- writers never set the variable: for them nothing changes.

-- tracelab_queue_deferred says the queue columns of trace pk are left to
-- the end of the import that wrote it (NULL: no import defers them).
CREATE FUNCTION tracelab_queue_deferred(pk BIGINT) RETURNS BOOLEAN LANGUAGE sql STABLE AS $$
    SELECT pk >= NULLIF(current_setting('tracelab.queue_from', TRUE), '')::BIGINT
$$;

-- 0026's function, the deferred traces left alone.
CREATE OR REPLACE FUNCTION tracelab_refresh_queue(pk BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF pk IS NULL OR tracelab_queue_deferred(pk) IS TRUE THEN
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

-- 0026's function, the deferred traces left alone.
CREATE OR REPLACE FUNCTION scores_queue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF tracelab_queue_deferred(CASE WHEN TG_OP = 'DELETE' THEN OLD.trace_pk ELSE NEW.trace_pk END) IS TRUE THEN
        RETURN NULL;
    END IF;
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

-- tracelab_refresh_queues_from sets the queue columns of the traces from
-- id first on (an import's, see above) as the triggers would have, and the
-- source format of those read from file (what the import's last UPDATE
-- did, one more row version of each trace), writes only the rows that
-- change, and ends the deferral: whatever the transaction writes after it
-- fires the triggers again.
CREATE FUNCTION tracelab_refresh_queues_from(first BIGINT, file TEXT, format TEXT) RETURNS void LANGUAGE sql AS $$
    UPDATE traces SET (suggested_class, case_id, case_status, label_class, queue_class, score_ok, source_format) =
        (q.suggested_class, q.case_id, q.case_status, q.label_class, q.queue_class, q.score_ok, q.source_format)
    FROM (SELECT t.id, COALESCE(s.suggested_class, '') AS suggested_class, COALESCE(f.case_id, '') AS case_id,
            COALESCE(f.status, 'none') AS case_status, COALESCE(f.class, '') AS label_class,
            tracelab_queue_class(COALESCE(f.class, ''), COALESCE(s.suggested_class, '')) AS queue_class,
            COALESCE((s.content_sha = t.content_sha AND s.gold_sha = COALESCE(f.gold_sha, 'none'))::int, 0) AS score_ok,
            CASE WHEN t.source_file = file AND t.source_format = '' THEN format ELSE t.source_format END AS source_format
        FROM traces t LEFT JOIN scores s ON s.trace_pk = t.id
        LEFT JOIN LATERAL (SELECT c.case_id, c.status, c.gold_sha, COALESCE(c.label::jsonb ->> 'failure_class', '') AS class
            FROM cases c WHERE c.trace_pk = t.id ORDER BY c.case_id LIMIT 1) f ON TRUE
        WHERE t.id >= first) q
    WHERE traces.id = q.id AND (traces.suggested_class, traces.case_id, traces.case_status, traces.label_class,
        traces.queue_class, traces.score_ok, traces.source_format) IS DISTINCT FROM
        (q.suggested_class, q.case_id, q.case_status, q.label_class, q.queue_class, q.score_ok, q.source_format);
    SELECT set_config('tracelab.queue_from', '', TRUE);
$$;
