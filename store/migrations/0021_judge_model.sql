-- 0021: the built-in judge (tracelab judge --endpoint). Each judge label
-- says which model gave it and under which prompt (the sha256 of the
-- prompt file's bytes), so a label is never read apart from what made it;
-- labels of a command judge, people and imports leave both empty.
-- judge_cache keeps each model answer by the sha256 of (model, prompt
-- hash, the rendered request: trace, gold and the scorer's evidence), so
-- a rerun over unchanged traces calls nothing and costs nothing.
-- Migrations are numbered and never edited once released.
ALTER TABLE rater_labels ADD COLUMN judge_model TEXT NOT NULL DEFAULT '';
ALTER TABLE rater_labels ADD COLUMN prompt_sha256 TEXT NOT NULL DEFAULT '';

CREATE TABLE judge_cache (
    key           TEXT PRIMARY KEY, -- sha256 hex, see above
    model         TEXT NOT NULL,
    prompt_sha256 TEXT NOT NULL,
    answer        TEXT NOT NULL,    -- JSON: the model's message (content, refusal, finish_reason)
    usd           REAL NOT NULL DEFAULT 0, -- what the call cost, estimated from usage and the price table
    created_at    TEXT NOT NULL
);
