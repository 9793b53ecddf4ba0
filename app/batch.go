package app

import (
	"context"

	"github.com/tracelab-dev/tracelab/model"
	"github.com/tracelab-dev/tracelab/store"
)

// loadAhead loads ids a batch at a time with load, on its own goroutine,
// one batch ahead of fn: loading the next batch overlaps working on this
// one. The first error of either stops both.
func loadAhead[T any](ctx context.Context, ids []string, load func(context.Context, []string) (T, error), fn func(T) error) error {
	type loaded struct {
		v   T
		err error
	}
	ch := make(chan loaded, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer close(ch)
		for start := 0; start < len(ids); start += batch {
			if ctx.Err() != nil {
				return // the consumer returns ctx.Err()
			}
			v, err := load(ctx, ids[start:min(start+batch, len(ids))])
			select {
			case ch <- loaded{v, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	for l := range ch {
		if l.err != nil {
			return l.err
		}
		if err := fn(l.v); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// eachBatchAhead loads the traces by id a batch at a time, the next batch
// loading while fn works on this one.
func eachBatchAhead(ctx context.Context, st *store.Store, ids []string, fn func([]*model.Trace) error) error {
	return loadAhead(ctx, ids, st.LoadTraces, fn)
}

// eachBatch is eachBatchAhead for an fn that cannot fail.
func eachBatch(ctx context.Context, st *store.Store, ids []string, fn func([]*model.Trace)) error {
	return eachBatchAhead(ctx, st, ids, func(ts []*model.Trace) error { fn(ts); return nil })
}
