-- 0007: labels per labeler. A case keeps its final label in cases.label
-- (what scoring, export, report and the queue read); every rater's own
-- label sits beside it here, one row per rater per case, and the final
-- label follows them by the rule of model.FinalLabel (adjudicated, else
-- the only person's, else the common one, else pending adjudication).
-- Migrations are numbered and never edited once released.

CREATE TABLE rater_labels (
    case_id    TEXT NOT NULL REFERENCES cases(case_id) ON DELETE CASCADE,
    rater      TEXT NOT NULL, -- a labeler's name, or judge:NAME
    kind       TEXT NOT NULL CHECK (kind IN ('human', 'machine', 'judge')),
    label      TEXT NOT NULL, -- JSON, model.Label
    fields     TEXT,          -- JSON, model.FieldSets; NULL: the rater gave no field sets
    status     TEXT NOT NULL DEFAULT 'suggested' CHECK (status IN ('suggested', 'confirmed')),
    rationale  TEXT NOT NULL DEFAULT '', -- a judge's reason
    updated_at TEXT NOT NULL,
    PRIMARY KEY (case_id, rater)
);
CREATE INDEX rater_labels_rater ON rater_labels(rater, case_id);

-- The label someone settled a disagreement with; it is the final label
-- while it stands (undo removes it, through the event log).
CREATE TABLE adjudications (
    case_id        TEXT PRIMARY KEY REFERENCES cases(case_id) ON DELETE CASCADE,
    label          TEXT NOT NULL, -- JSON, model.Label
    fields         TEXT,          -- JSON, model.FieldSets or NULL
    picked         TEXT NOT NULL DEFAULT '', -- the rater whose label was taken, '' for a label written outright
    note           TEXT NOT NULL DEFAULT '',
    adjudicated_by TEXT NOT NULL,
    adjudicated_at TEXT NOT NULL
);

-- The people who labeled a case disagree and nobody adjudicated: set in
-- Go with every rater write, mirrored onto the trace (the queue's filter
-- and counts read the trace row only) by the trigger below.
ALTER TABLE cases ADD COLUMN disputed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE traces ADD COLUMN disputed INTEGER NOT NULL DEFAULT 0;
CREATE INDEX traces_disputed ON traces(id) WHERE disputed = 1;

CREATE TRIGGER cases_disputed AFTER UPDATE OF trace_pk, disputed ON cases
BEGIN
    UPDATE traces SET disputed = COALESCE((SELECT MAX(c.disputed) FROM cases c WHERE c.trace_pk = traces.id), 0)
    WHERE id IN (OLD.trace_pk, NEW.trace_pk);
END;
