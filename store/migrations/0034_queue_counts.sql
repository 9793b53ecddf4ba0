-- 0034: the queue's header counts kept by triggers. Counting the traces
-- per class and status read the whole traces_queue index: 105-123 ms at
-- a million traces (472 ms cold), on every first page, every filter and
-- every reread of the queue. Here one row per (class, status) holds how
-- many traces have them and how many of those are disputed; the counts
-- of the whole queue, or of a filter on class and status only, read
-- those few rows (store/queries.go, Counts). An import pays one
-- single-row upsert per trace it adds, and a trace whose class, status
-- or dispute moves two; a row that reaches zero stays (Counts skips it).
CREATE TABLE queue_counts (
    queue_class TEXT    NOT NULL,
    case_status TEXT    NOT NULL,
    n           INTEGER NOT NULL,
    disputed    INTEGER NOT NULL,
    PRIMARY KEY (queue_class, case_status)
) WITHOUT ROWID;

INSERT INTO queue_counts (queue_class, case_status, n, disputed)
SELECT queue_class, case_status, count(*), COALESCE(sum(disputed), 0) FROM traces GROUP BY 1, 2;

CREATE TRIGGER traces_queue_count_insert AFTER INSERT ON traces BEGIN
    INSERT INTO queue_counts (queue_class, case_status, n, disputed) VALUES (NEW.queue_class, NEW.case_status, 1, NEW.disputed)
    ON CONFLICT (queue_class, case_status) DO UPDATE SET n = n + 1, disputed = disputed + excluded.disputed;
END;

CREATE TRIGGER traces_queue_count_delete AFTER DELETE ON traces BEGIN
    INSERT INTO queue_counts (queue_class, case_status, n, disputed) VALUES (OLD.queue_class, OLD.case_status, -1, -OLD.disputed)
    ON CONFLICT (queue_class, case_status) DO UPDATE SET n = n - 1, disputed = disputed + excluded.disputed;
END;

CREATE TRIGGER traces_queue_count_update AFTER UPDATE OF queue_class, case_status, disputed ON traces
WHEN OLD.queue_class IS NOT NEW.queue_class OR OLD.case_status IS NOT NEW.case_status OR OLD.disputed IS NOT NEW.disputed
BEGIN
    INSERT INTO queue_counts (queue_class, case_status, n, disputed) VALUES (OLD.queue_class, OLD.case_status, -1, -OLD.disputed)
    ON CONFLICT (queue_class, case_status) DO UPDATE SET n = n - 1, disputed = disputed + excluded.disputed;
    INSERT INTO queue_counts (queue_class, case_status, n, disputed) VALUES (NEW.queue_class, NEW.case_status, 1, NEW.disputed)
    ON CONFLICT (queue_class, case_status) DO UPDATE SET n = n + 1, disputed = disputed + excluded.disputed;
END;

-- The distinct question keys, for the queue's `/`: a text found in a
-- question is looked for in each distinct question once, not in each
-- trace's (store/search.go, queueSearchCond). Traces asking the same
-- question are the rule (runs, servers, retries): the bench corpus has
-- 21,000 distinct questions for a million traces, and the question part
-- of a search read every trace's key, 200 ms of CPU at that size. An
-- import pays one lookup per trace; a key whose traces are all gone
-- stays (it finds no trace).
CREATE TABLE question_keys (key TEXT PRIMARY KEY) WITHOUT ROWID;

INSERT OR IGNORE INTO question_keys (key) SELECT question_key FROM traces;

CREATE TRIGGER traces_question_keys_insert AFTER INSERT ON traces BEGIN
    INSERT OR IGNORE INTO question_keys (key) VALUES (NEW.question_key);
END;

CREATE TRIGGER traces_question_keys_update AFTER UPDATE OF question_key ON traces BEGIN
    INSERT OR IGNORE INTO question_keys (key) VALUES (NEW.question_key);
END;
