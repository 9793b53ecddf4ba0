package app

import (
	"io"
	"time"
)

// ServeOptions steer the live receiver of `tracelab serve` (package
// intake). The command line fills them and main hands them to intake, so
// the front end names the engine alone: intake builds on the engine, and
// the engine cannot import it back.
type ServeOptions struct {
	Token      string        // bearer token every request must carry ("": none)
	MaxBody    int64         // bytes of one request, compressed and decompressed
	QueueBytes int64         // bytes of span records waiting to be written, and of what reading them made, at most
	LogEvery   time.Duration // how often the counts are logged (0: never)
	Log        io.Writer     // where they go (nil: nowhere)
}
