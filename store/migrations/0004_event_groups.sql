-- 0004: edit groups. One key press or one gold-editor save changes several
-- fields; each field keeps its own event, and the group ties them together
-- so undo and redo act on the whole action. Migrations are numbered and
-- never edited once released.

CREATE TABLE event_groups (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    case_id TEXT NOT NULL,
    who     TEXT NOT NULL,
    at      TEXT NOT NULL,
    -- edit: a person's action; undo / redo: the reversal of target;
    -- import: a case written by an import (never undone)
    action  TEXT NOT NULL CHECK (action IN ('edit', 'undo', 'redo', 'import')),
    target  INTEGER REFERENCES event_groups(id)
);
CREATE INDEX event_groups_case ON event_groups(case_id, who, id);
CREATE INDEX event_groups_target ON event_groups(target);

ALTER TABLE events ADD COLUMN grp INTEGER REFERENCES event_groups(id);

-- Every older event becomes a group of its own, with the event's id, so
-- undo keeps working on databases labeled before groups existed. The
-- append-only trigger is lifted for this one backfill of the new column.
INSERT INTO event_groups (id, case_id, who, at, action, target)
SELECT id, case_id, who, at,
       CASE WHEN field = 'case' THEN 'import' WHEN undoes IS NULL THEN 'edit' ELSE 'undo' END,
       undoes
FROM events ORDER BY id;
DROP TRIGGER events_no_update;
UPDATE events SET grp = id;
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE INDEX events_grp ON events(grp, id);
