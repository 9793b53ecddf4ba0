-- 0025: a trace that got its data only through tools whose contracts
-- encode the definition (scoring.EncodesDefinition) teaches the other
-- servers' traces of its question the fields it used, though no person
-- labeled it: with only traces imported, the generic warehouse's "new
-- business last quarter" is suggested what closed_won_total reads.
-- Migrations are numbered and never edited once released.

-- encodes: the trace's current score says so (set with every score,
-- app.scoreRows). With the partial index, a question's contract teachers
-- are read from those few, not from every trace that asks it (as
-- traces_teachers does for a person's teachers, 0011).
ALTER TABLE traces ADD COLUMN encodes INTEGER NOT NULL DEFAULT 0;
CREATE INDEX traces_encoders ON traces(question_key) WHERE encodes = 1;
