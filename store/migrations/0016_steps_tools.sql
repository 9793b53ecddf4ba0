-- 0016: the steps table keeps only the steps that name a tool. The tool
-- filter, the tool facet and the sample read nothing else, and the other
-- steps (the user's turn, reasoning, results, the answer) were two thirds
-- of its rows: each import wrote them and copied them out of its staging
-- database for nothing. Every step is still in its trace's body (0013).
DELETE FROM steps WHERE tool = '';
