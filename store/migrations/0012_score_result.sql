-- 0012: a hash of what a score says (its class, flags, detail and
-- metrics; not the hashes it was computed from), so a rescore that comes
-- out as stored, as most do after a configuration change, rewrites only
-- the score's configuration hash and time instead of the whole row with
-- its detail. Scores from before have none: their next rescore writes
-- them whole.
ALTER TABLE scores ADD COLUMN result_sha TEXT NOT NULL DEFAULT '';
