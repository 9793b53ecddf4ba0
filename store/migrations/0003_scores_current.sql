-- 0003: stored scores that know when they are current, the queue's counts
-- without json_extract, and peers found by an index. Migrations are
-- numbered and never edited once released.

-- A score is current while the trace's content, its gold and the scoring
-- configuration hash to what they were when it was computed. '' matches no
-- hash: every score from before this migration is stale.
ALTER TABLE scores ADD COLUMN content_sha TEXT NOT NULL DEFAULT '';
ALTER TABLE scores ADD COLUMN gold_sha    TEXT NOT NULL DEFAULT '';
ALTER TABLE scores ADD COLUMN config_sha  TEXT NOT NULL DEFAULT '';

-- What scoring reads of a case as its gold (store.GoldSHA); filled in Go
-- by this migration's companion and kept by every case write.
ALTER TABLE cases ADD COLUMN gold_sha TEXT NOT NULL DEFAULT '';
-- The cases that can teach other traces their gold: a person's gold or a
-- confirmed label. Few, and read on every scoring run.
CREATE INDEX cases_peers ON cases(trace_pk) WHERE gold_origin = 'human' OR status = 'confirmed';

-- The question bucketed as store.QuestionKey does (filled in Go by this
-- migration's companion): peers of a trace are an index lookup, never a scan.
ALTER TABLE traces ADD COLUMN question_key TEXT NOT NULL DEFAULT '';
CREATE INDEX traces_question ON traces(question_key);

-- An import names the format of the rows it wrote once the parser knows it
-- (UPDATE … WHERE source_file = ? AND source_format = ''): only those rows
-- are in this index, so that update does not scan the database.
CREATE INDEX traces_unformatted ON traces(source_file) WHERE source_format = '';

-- The queue's columns, kept in step with cases and scores by the triggers
-- below: the trace's case (its first by case_id), that case's status and
-- label class, the scorer's suggested class, and the class the queue
-- shows (the label's, else the suggestion's, else 'none'). queue_class is
-- a plain column, not a generated one, so the counts' indexes cover it.
ALTER TABLE traces ADD COLUMN case_id         TEXT NOT NULL DEFAULT '';
ALTER TABLE traces ADD COLUMN case_status     TEXT NOT NULL DEFAULT 'none';
ALTER TABLE traces ADD COLUMN label_class     TEXT NOT NULL DEFAULT '';
ALTER TABLE traces ADD COLUMN suggested_class TEXT NOT NULL DEFAULT '';
ALTER TABLE traces ADD COLUMN queue_class     TEXT NOT NULL DEFAULT 'none';
CREATE INDEX traces_queue ON traces(queue_class, case_status);
-- score_ok: the trace has a score computed from its present content and
-- its case's present gold (the triggers below keep it); with the index on
-- scores(config_sha), "what is stale" is two index lookups, not a scan.
-- 0 for every row here: scores from before this migration carry no hashes.
ALTER TABLE traces ADD COLUMN score_ok INTEGER NOT NULL DEFAULT 0;
CREATE INDEX traces_unscored ON traces(id) WHERE score_ok = 0;
CREATE INDEX scores_config ON scores(config_sha);
CREATE INDEX traces_case_status ON traces(case_status, queue_class);

-- A trace has one case: the machine's untouched suggestion goes where a
-- person's case for the same trace shadowed it (or was shadowed by it).
DELETE FROM cases WHERE status = 'suggested' AND gold_origin = 'machine' AND trace_pk IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM events e WHERE e.case_id = cases.case_id)
    AND EXISTS (SELECT 1 FROM cases c2 WHERE c2.trace_pk = cases.trace_pk AND c2.case_id <> cases.case_id
        AND (c2.gold_origin = 'human' OR c2.status = 'confirmed'));

UPDATE traces SET suggested_class = COALESCE((SELECT suggested_class FROM scores WHERE trace_pk = traces.id), '');
UPDATE traces SET (case_id, case_status, label_class) = (SELECT c.case_id, c.status,
        COALESCE(json_extract(c.label, '$.failure_class'), '')
    FROM cases c WHERE c.trace_pk = traces.id ORDER BY c.case_id LIMIT 1)
WHERE EXISTS (SELECT 1 FROM cases c WHERE c.trace_pk = traces.id);
UPDATE traces SET queue_class = CASE WHEN label_class <> '' THEN label_class
    WHEN suggested_class <> '' THEN suggested_class ELSE 'none' END;

CREATE TRIGGER cases_queue_insert AFTER INSERT ON cases WHEN NEW.trace_pk IS NOT NULL
BEGIN
    UPDATE traces SET (case_id, case_status, label_class) = (SELECT c.case_id, c.status,
            COALESCE(json_extract(c.label, '$.failure_class'), '')
        FROM cases c WHERE c.trace_pk = traces.id ORDER BY c.case_id LIMIT 1)
    WHERE id = NEW.trace_pk;
    UPDATE traces SET queue_class = CASE WHEN label_class <> '' THEN label_class
        WHEN suggested_class <> '' THEN suggested_class ELSE 'none' END,
        score_ok = COALESCE((SELECT s.content_sha = traces.content_sha AND s.gold_sha = COALESCE((SELECT c.gold_sha
            FROM cases c WHERE c.case_id = traces.case_id AND c.trace_pk = traces.id), 'none')
            FROM scores s WHERE s.trace_pk = traces.id), 0)
    WHERE id IN (NEW.trace_pk);
END;

CREATE TRIGGER cases_queue_update AFTER UPDATE OF trace_pk, status, label, gold_sha ON cases
BEGIN
    UPDATE traces SET case_id = '', case_status = 'none', label_class = ''
    WHERE id IN (OLD.trace_pk, NEW.trace_pk);
    UPDATE traces SET (case_id, case_status, label_class) = (SELECT c.case_id, c.status,
            COALESCE(json_extract(c.label, '$.failure_class'), '')
        FROM cases c WHERE c.trace_pk = traces.id ORDER BY c.case_id LIMIT 1)
    WHERE id IN (OLD.trace_pk, NEW.trace_pk) AND EXISTS (SELECT 1 FROM cases c WHERE c.trace_pk = traces.id);
    UPDATE traces SET queue_class = CASE WHEN label_class <> '' THEN label_class
        WHEN suggested_class <> '' THEN suggested_class ELSE 'none' END,
        score_ok = COALESCE((SELECT s.content_sha = traces.content_sha AND s.gold_sha = COALESCE((SELECT c.gold_sha
            FROM cases c WHERE c.case_id = traces.case_id AND c.trace_pk = traces.id), 'none')
            FROM scores s WHERE s.trace_pk = traces.id), 0)
    WHERE id IN (OLD.trace_pk, NEW.trace_pk);
END;

CREATE TRIGGER cases_queue_delete AFTER DELETE ON cases WHEN OLD.trace_pk IS NOT NULL
BEGIN
    UPDATE traces SET case_id = '', case_status = 'none', label_class = '' WHERE id = OLD.trace_pk;
    UPDATE traces SET (case_id, case_status, label_class) = (SELECT c.case_id, c.status,
            COALESCE(json_extract(c.label, '$.failure_class'), '')
        FROM cases c WHERE c.trace_pk = traces.id ORDER BY c.case_id LIMIT 1)
    WHERE id = OLD.trace_pk AND EXISTS (SELECT 1 FROM cases c WHERE c.trace_pk = traces.id);
    UPDATE traces SET queue_class = CASE WHEN label_class <> '' THEN label_class
        WHEN suggested_class <> '' THEN suggested_class ELSE 'none' END,
        score_ok = COALESCE((SELECT s.content_sha = traces.content_sha AND s.gold_sha = COALESCE((SELECT c.gold_sha
            FROM cases c WHERE c.case_id = traces.case_id AND c.trace_pk = traces.id), 'none')
            FROM scores s WHERE s.trace_pk = traces.id), 0)
    WHERE id IN (OLD.trace_pk);
END;

CREATE TRIGGER scores_queue_insert AFTER INSERT ON scores
BEGIN
    UPDATE traces SET suggested_class = NEW.suggested_class,
        queue_class = CASE WHEN label_class <> '' THEN label_class ELSE CASE WHEN NEW.suggested_class <> '' THEN NEW.suggested_class ELSE 'none' END END,
        score_ok = (NEW.content_sha = traces.content_sha AND NEW.gold_sha = COALESCE((SELECT c.gold_sha
            FROM cases c WHERE c.case_id = traces.case_id AND c.trace_pk = traces.id), 'none'))
    WHERE id = NEW.trace_pk;
END;

CREATE TRIGGER scores_queue_update AFTER UPDATE ON scores
BEGIN
    UPDATE traces SET suggested_class = NEW.suggested_class,
        queue_class = CASE WHEN label_class <> '' THEN label_class ELSE CASE WHEN NEW.suggested_class <> '' THEN NEW.suggested_class ELSE 'none' END END,
        score_ok = (NEW.content_sha = traces.content_sha AND NEW.gold_sha = COALESCE((SELECT c.gold_sha
            FROM cases c WHERE c.case_id = traces.case_id AND c.trace_pk = traces.id), 'none'))
    WHERE id = NEW.trace_pk;
END;

CREATE TRIGGER scores_queue_delete AFTER DELETE ON scores
BEGIN
    UPDATE traces SET suggested_class = '', score_ok = 0,
        queue_class = CASE WHEN label_class <> '' THEN label_class ELSE 'none' END
    WHERE id = OLD.trace_pk;
END;
