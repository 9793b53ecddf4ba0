-- 0049: the labeling queue `tracelab sample` draws (traces.queued) gets an
-- index of its own: only the queued traces, in id order (the queue's
-- default). `n` and the workbench's --queued list read the queue through
-- it. On PostgreSQL every n on that queue read every trace to find the
-- few hundred queued: n's pick asks for its rows in order under a fence
-- (OFFSET 0, store/reserve.go), and with no index holding them in that
-- order the planner read and sorted them all, 200 ms of the server's time
-- for each n at 100,000 traces. SQLite read the traces in id order up to
-- the first free queued one.
CREATE INDEX traces_queued ON traces(id) WHERE queued = 1;
