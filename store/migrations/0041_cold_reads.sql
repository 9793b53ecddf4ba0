-- 0041: the workbench's `R` and its filters read few pages when the OS
-- has none of the file cached (after a reboot). At a million traces, `R`
-- over the 10,000 confirmed cases read each case's, trace's and score's
-- row: about 24,000 pages spread over the whole file (a score row is
-- ~2.8 KB with its detail JSON, two to a page), 2.2-3 s cold and as much
-- as 1.4 s of CPU, nearly all of it the kernel's for those reads (warm:
-- 0.2 s). A filter on a class or a status read every trace of that class
-- or status, and its score, before it sorted them for the first page:
-- 20,000 traces of one class, up to 3 s cold for a page of 100.
--
-- The report of the confirmed cases (store/report.go, SQLite) reads three
-- partial covering indexes, each holding only the rows it reads, next to
-- each other: a few hundred pages.
--
-- A score has no column saying that its trace's case is confirmed, so it
-- gets one, kept by triggers from the trace's case_status (which the case
-- triggers keep: 'confirmed', or 'pending' for a confirmed case whose
-- label is unset, 0005): every way a case, a trace or a score is written
-- keeps it. A trace's case_status moving into or out of those two values
-- rewrites its score row once; a new score reads its trace's status.
ALTER TABLE scores ADD COLUMN confirmed INTEGER NOT NULL DEFAULT 0;
UPDATE scores SET confirmed = 1 WHERE trace_pk IN (SELECT id FROM traces WHERE case_status IN ('confirmed', 'pending'));

-- The staged copy of an import (store/staging.go) puts the scores before
-- their traces: a trace that lands confirmed marks its score.
CREATE TRIGGER traces_confirmed_insert AFTER INSERT ON traces WHEN NEW.case_status IN ('confirmed', 'pending')
BEGIN
    UPDATE scores SET confirmed = 1 WHERE trace_pk = NEW.id;
END;

CREATE TRIGGER traces_confirmed_update AFTER UPDATE OF case_status ON traces
WHEN (OLD.case_status IN ('confirmed', 'pending')) <> (NEW.case_status IN ('confirmed', 'pending'))
BEGIN
    UPDATE scores SET confirmed = (NEW.case_status IN ('confirmed', 'pending')) WHERE trace_pk = NEW.id;
END;

CREATE TRIGGER scores_confirmed_insert AFTER INSERT ON scores
WHEN (SELECT case_status FROM traces WHERE id = NEW.trace_pk) IN ('confirmed', 'pending')
BEGIN
    UPDATE scores SET confirmed = 1 WHERE trace_pk = NEW.trace_pk;
END;

-- What the report reads of each, the partial index's own condition
-- column included (SQLite counts an index covering only when it holds
-- every column the query names).
CREATE INDEX cases_confirmed_report ON cases(trace_pk, case_id, status, gold_origin, label) WHERE status = 'confirmed';
CREATE INDEX traces_confirmed_report ON traces(id, case_id, case_status, trace_id, server, run_id)
    WHERE case_status IN ('confirmed', 'pending');
CREATE INDEX scores_confirmed_report ON scores(trace_pk, suggested_class, correct, grounded, needs_review,
    grounding_precision, grounding_recall, definition_match, freshness_pass, policy_violations, calls,
    clarifications, cost_usd, confirmed) WHERE confirmed = 1;

-- The queue's page under one class or one status, in import order: the
-- index's entries for that value come in trace id order, so the page
-- reads its 100 traces (and their scores) and stops. traces_queue and
-- traces_case_status hold the value first too, but then the other one:
-- the page read every trace of the value and sorted them.
CREATE INDEX traces_class_page ON traces(queue_class);
CREATE INDEX traces_status_page ON traces(case_status);
