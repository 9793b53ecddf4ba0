-- 0005: "gold confirmed, label pending". A case an import confirmed whose
-- label has correct, grounded and failure_class all null (a suite whose
-- gold experts wrote and whose labels are still empty) shows as 'pending'
-- in the queue and its counts (model.QueueStatus is the same rule in Go). Migrations are
-- numbered and never edited once released.

-- The 0003 triggers set case_status from the case's status whenever the
-- case changes; this one then narrows 'confirmed' to 'pending' while the
-- label is unset.
CREATE TRIGGER traces_label_pending AFTER UPDATE OF case_status ON traces
WHEN NEW.case_status = 'confirmed' AND EXISTS (SELECT 1 FROM cases c
    WHERE c.case_id = NEW.case_id AND c.trace_pk = NEW.id AND c.confirmed_by LIKE 'import:%'
    AND json_extract(c.label, '$.correct') IS NULL AND json_extract(c.label, '$.grounded') IS NULL
    AND json_extract(c.label, '$.failure_class') IS NULL)
BEGIN
    UPDATE traces SET case_status = 'pending' WHERE id = NEW.id;
END;

UPDATE traces SET case_status = 'pending' WHERE case_status = 'confirmed' AND EXISTS (SELECT 1 FROM cases c
    WHERE c.case_id = traces.case_id AND c.trace_pk = traces.id AND c.confirmed_by LIKE 'import:%'
    AND json_extract(c.label, '$.correct') IS NULL AND json_extract(c.label, '$.grounded') IS NULL
    AND json_extract(c.label, '$.failure_class') IS NULL);
