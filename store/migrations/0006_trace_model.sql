-- 0006: the model that answered, and whether the trace's cost was
-- estimated from the price table (importers/prices.json) because the source
-- carried tokens but no cost. Migrations are numbered and never edited
-- once released.
ALTER TABLE traces ADD COLUMN model TEXT NOT NULL DEFAULT '';
ALTER TABLE traces ADD COLUMN usd_estimated INTEGER NOT NULL DEFAULT 0;
