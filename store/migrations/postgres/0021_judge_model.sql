-- 0021 for PostgreSQL: the built-in judge's model and prompt hash per
-- label, and its answer cache, as ../0021_judge_model.sql, whose comments
-- say why. Migrations are numbered and never edited once released.
ALTER TABLE rater_labels ADD COLUMN judge_model TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE rater_labels ADD COLUMN prompt_sha256 TEXT COLLATE "C" NOT NULL DEFAULT '';

CREATE TABLE judge_cache (
    key           TEXT COLLATE "C" PRIMARY KEY,
    model         TEXT COLLATE "C" NOT NULL,
    prompt_sha256 TEXT COLLATE "C" NOT NULL,
    answer        TEXT COLLATE "C" NOT NULL,
    usd           DOUBLE PRECISION NOT NULL DEFAULT 0,
    created_at    TEXT COLLATE "C" NOT NULL
);
