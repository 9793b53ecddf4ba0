-- 0007 for PostgreSQL: labels per labeler, as ../0007_rater_labels.sql,
-- whose comments say why. The trigger is a trigger function here.
-- Migrations are numbered and never edited once released.

CREATE TABLE rater_labels (
    case_id    TEXT COLLATE "C" NOT NULL REFERENCES cases(case_id) ON DELETE CASCADE,
    rater      TEXT COLLATE "C" NOT NULL,
    kind       TEXT COLLATE "C" NOT NULL CHECK (kind IN ('human', 'machine', 'judge')),
    label      TEXT COLLATE "C" NOT NULL,
    fields     TEXT COLLATE "C",
    status     TEXT COLLATE "C" NOT NULL DEFAULT 'suggested' CHECK (status IN ('suggested', 'confirmed')),
    rationale  TEXT COLLATE "C" NOT NULL DEFAULT '',
    updated_at TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (case_id, rater)
);
CREATE INDEX rater_labels_rater ON rater_labels(rater, case_id);

CREATE TABLE adjudications (
    case_id        TEXT COLLATE "C" PRIMARY KEY REFERENCES cases(case_id) ON DELETE CASCADE,
    label          TEXT COLLATE "C" NOT NULL,
    fields         TEXT COLLATE "C",
    picked         TEXT COLLATE "C" NOT NULL DEFAULT '',
    note           TEXT COLLATE "C" NOT NULL DEFAULT '',
    adjudicated_by TEXT COLLATE "C" NOT NULL,
    adjudicated_at TEXT COLLATE "C" NOT NULL
);

ALTER TABLE cases ADD COLUMN disputed BIGINT NOT NULL DEFAULT 0;
ALTER TABLE traces ADD COLUMN disputed BIGINT NOT NULL DEFAULT 0;
CREATE INDEX traces_disputed ON traces(id) WHERE disputed = 1;

CREATE FUNCTION cases_disputed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE traces SET disputed = COALESCE((SELECT MAX(c.disputed) FROM cases c WHERE c.trace_pk = traces.id), 0)
    WHERE id IN (OLD.trace_pk, NEW.trace_pk);
    RETURN NULL;
END $$;
CREATE TRIGGER cases_disputed AFTER UPDATE OF trace_pk, disputed ON cases FOR EACH ROW
    EXECUTE FUNCTION cases_disputed();
