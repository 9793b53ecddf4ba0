package app

import (
	"context"

	"github.com/tracelab-dev/tracelab/store"
	"github.com/tracelab-dev/tracelab/suite"
)

// sampleQueue draws a sample from the store's traces and makes it the
// labeling queue (traces.queued), replacing the previous queue.
func sampleQueue(ctx context.Context, st *store.Store, opts suite.SampleOptions) (suite.SampleResult, error) {
	cands, err := st.SampleCandidates(ctx)
	if err != nil {
		return suite.SampleResult{}, err
	}
	res, err := suite.Sample(cands, opts)
	if err != nil {
		return res, err
	}
	return res, st.SetQueue(ctx, res.TraceIDs)
}
