-- 0048 for PostgreSQL: n checks that the trace it picked is free once it
-- holds the trace's row lock (store/reserve.go, nextInQueueTx). The pick
-- reads the reservations as of its statement's start: when another
-- labeler took a trace and committed while the pick ran, the trace looked
-- free and its row's lock was free again, so the pick returned it and the
-- reservation that followed found it taken. With 50 labelers on one
-- queue, 4 n's in 10 lost that race at least once, each loss one more
-- transaction.

-- tracelab_free_now says no labeler but who holds trace pk at now_ms, as
-- the reservations stand when it runs: VOLATILE, so its query takes a new
-- snapshot (n's transactions are READ COMMITTED), and plpgsql, so the
-- planner never inlines it into the pick.
CREATE FUNCTION tracelab_free_now(pk BIGINT, now_ms BIGINT, who TEXT) RETURNS BOOLEAN
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    RETURN NOT EXISTS (SELECT 1 FROM reservations r
        WHERE r.trace_pk = pk AND r.expires_ms > now_ms AND r.labeler <> who);
END
$$;
