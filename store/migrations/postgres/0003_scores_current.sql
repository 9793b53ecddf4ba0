-- 0003 for PostgreSQL: scores that know when they are current, the
-- queue's columns on the trace row, peers by an index; as
-- ../0003_scores_current.sql, whose comments say why. SQLite's triggers
-- are trigger functions here and json_extract is ->>. Migrations are
-- numbered and never edited once released.

ALTER TABLE scores ADD COLUMN content_sha TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE scores ADD COLUMN gold_sha    TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE scores ADD COLUMN config_sha  TEXT COLLATE "C" NOT NULL DEFAULT '';

ALTER TABLE cases ADD COLUMN gold_sha TEXT COLLATE "C" NOT NULL DEFAULT '';
CREATE INDEX cases_peers ON cases(trace_pk) WHERE gold_origin = 'human' OR status = 'confirmed';

ALTER TABLE traces ADD COLUMN question_key TEXT COLLATE "C" NOT NULL DEFAULT '';
CREATE INDEX traces_question ON traces(question_key);

CREATE INDEX traces_unformatted ON traces(source_file) WHERE source_format = '';

ALTER TABLE traces ADD COLUMN case_id         TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE traces ADD COLUMN case_status     TEXT COLLATE "C" NOT NULL DEFAULT 'none';
ALTER TABLE traces ADD COLUMN label_class     TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE traces ADD COLUMN suggested_class TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE traces ADD COLUMN queue_class     TEXT COLLATE "C" NOT NULL DEFAULT 'none';
CREATE INDEX traces_queue ON traces(queue_class, case_status);
ALTER TABLE traces ADD COLUMN score_ok BIGINT NOT NULL DEFAULT 0;
CREATE INDEX traces_unscored ON traces(id) WHERE score_ok = 0;
CREATE INDEX scores_config ON scores(config_sha);
CREATE INDEX traces_case_status ON traces(case_status, queue_class);

DELETE FROM cases WHERE status = 'suggested' AND gold_origin = 'machine' AND trace_pk IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM events e WHERE e.case_id = cases.case_id)
    AND EXISTS (SELECT 1 FROM cases c2 WHERE c2.trace_pk = cases.trace_pk AND c2.case_id <> cases.case_id
        AND (c2.gold_origin = 'human' OR c2.status = 'confirmed'));

UPDATE traces SET suggested_class = COALESCE((SELECT suggested_class FROM scores WHERE trace_pk = traces.id), '');
UPDATE traces SET (case_id, case_status, label_class) = (SELECT c.case_id, c.status,
        COALESCE(c.label::jsonb ->> 'failure_class', '')
    FROM cases c WHERE c.trace_pk = traces.id ORDER BY c.case_id LIMIT 1)
WHERE EXISTS (SELECT 1 FROM cases c WHERE c.trace_pk = traces.id);
UPDATE traces SET queue_class = CASE WHEN label_class <> '' THEN label_class
    WHEN suggested_class <> '' THEN suggested_class ELSE 'none' END;

-- The queue columns of one trace from its first case and its score: what
-- each of SQLite's three cases_queue_* triggers does, in their three
-- statements, for the traces a case row left or joined. One UPDATE here:
-- every UPDATE writes a new row version of the trace, and an import's
-- cases would pay three.
CREATE FUNCTION tracelab_refresh_queue(pk BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF pk IS NULL THEN
        RETURN;
    END IF;
    UPDATE traces SET (case_id, case_status, label_class, queue_class, score_ok) = (
        SELECT COALESCE(f.case_id, ''), COALESCE(f.status, 'none'), COALESCE(f.class, ''),
            CASE WHEN COALESCE(f.class, '') <> '' THEN f.class
                WHEN traces.suggested_class <> '' THEN traces.suggested_class ELSE 'none' END,
            COALESCE((SELECT (s.content_sha = traces.content_sha AND s.gold_sha = COALESCE(f.gold_sha, 'none'))::int
                FROM scores s WHERE s.trace_pk = traces.id), 0)
        FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT c.case_id, c.status, c.gold_sha,
                COALESCE(c.label::jsonb ->> 'failure_class', '') AS class
            FROM cases c WHERE c.trace_pk = traces.id ORDER BY c.case_id LIMIT 1) f ON TRUE)
    WHERE id = pk;
END $$;

CREATE FUNCTION cases_queue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM tracelab_refresh_queue(OLD.trace_pk);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.trace_pk IS DISTINCT FROM (CASE WHEN TG_OP = 'UPDATE' THEN OLD.trace_pk END) THEN
        PERFORM tracelab_refresh_queue(NEW.trace_pk);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER cases_queue_insert AFTER INSERT ON cases FOR EACH ROW WHEN (NEW.trace_pk IS NOT NULL)
    EXECUTE FUNCTION cases_queue();
CREATE TRIGGER cases_queue_update AFTER UPDATE OF trace_pk, status, label, gold_sha ON cases FOR EACH ROW
    EXECUTE FUNCTION cases_queue();
CREATE TRIGGER cases_queue_delete AFTER DELETE ON cases FOR EACH ROW WHEN (OLD.trace_pk IS NOT NULL)
    EXECUTE FUNCTION cases_queue();

CREATE FUNCTION scores_queue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        UPDATE traces SET suggested_class = '', score_ok = 0,
            queue_class = CASE WHEN label_class <> '' THEN label_class ELSE 'none' END
        WHERE id = OLD.trace_pk;
        RETURN NULL;
    END IF;
    UPDATE traces SET suggested_class = NEW.suggested_class,
        queue_class = CASE WHEN label_class <> '' THEN label_class ELSE CASE WHEN NEW.suggested_class <> '' THEN NEW.suggested_class ELSE 'none' END END,
        score_ok = (NEW.content_sha = traces.content_sha AND NEW.gold_sha = COALESCE((SELECT c.gold_sha
            FROM cases c WHERE c.case_id = traces.case_id AND c.trace_pk = traces.id), 'none'))::int
    WHERE id = NEW.trace_pk;
    RETURN NULL;
END $$;
CREATE TRIGGER scores_queue_insert AFTER INSERT ON scores FOR EACH ROW EXECUTE FUNCTION scores_queue();
CREATE TRIGGER scores_queue_update AFTER UPDATE ON scores FOR EACH ROW EXECUTE FUNCTION scores_queue();
CREATE TRIGGER scores_queue_delete AFTER DELETE ON scores FOR EACH ROW EXECUTE FUNCTION scores_queue();
