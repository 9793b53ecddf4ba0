-- 0005 for PostgreSQL: "gold confirmed, label pending", as
-- ../0005_label_pending.sql. PostgreSQL's WHEN takes no subquery, so the
-- case test is in the function. Migrations are numbered and never edited
-- once released.

CREATE FUNCTION traces_label_pending() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM cases c
        WHERE c.case_id = NEW.case_id AND c.trace_pk = NEW.id AND c.confirmed_by LIKE 'import:%'
        AND c.label::jsonb ->> 'correct' IS NULL AND c.label::jsonb ->> 'grounded' IS NULL
        AND c.label::jsonb ->> 'failure_class' IS NULL) THEN
        UPDATE traces SET case_status = 'pending' WHERE id = NEW.id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER traces_label_pending AFTER UPDATE OF case_status ON traces FOR EACH ROW
    WHEN (NEW.case_status = 'confirmed') EXECUTE FUNCTION traces_label_pending();

UPDATE traces SET case_status = 'pending' WHERE case_status = 'confirmed' AND EXISTS (SELECT 1 FROM cases c
    WHERE c.case_id = traces.case_id AND c.trace_pk = traces.id AND c.confirmed_by LIKE 'import:%'
    AND c.label::jsonb ->> 'correct' IS NULL AND c.label::jsonb ->> 'grounded' IS NULL
    AND c.label::jsonb ->> 'failure_class' IS NULL);
