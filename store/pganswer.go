package store

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// A PostgreSQL server can accept a connection, finish the handshake and
// then never answer a statement (a hung server, a proxy that lost its
// other side, a host frozen under its kernel's TCP stack): every command
// waited for ever. Each connection is dialed through answerConn, which
// gives the server answerWait to send a byte once a request is out and
// after each byte it sends; past that the statement fails as the server
// out of reach (IsUnavailable: exit 2, saying what to do).
//
// The wait is --lock-wait (the longest the server itself makes a
// statement wait, for the writer lock: lock_timeout) plus a margin for
// its refusal to arrive, so no statement the server would answer is cut
// short by it. A statement that runs longer than that without sending a
// row is treated as a silent server: raise --lock-wait for such work.

// answerMargin is how much longer than lock_timeout a server may take to
// say the lock wait ran out.
const answerMargin = 5 * time.Second

// answerWaitFor is how long a statement waits for the server's answer
// when statements wait at most lockWait for the writer lock.
func answerWaitFor(lockWait time.Duration) time.Duration { return lockWait + answerMargin }

// answerDial wraps dial so every connection it makes is an answerConn.
func answerDial(dial pgconn.DialFunc, wait time.Duration) pgconn.DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &answerConn{Conn: c, wait: wait}, nil
	}
}

// SilentServerError is a PostgreSQL server that sent nothing for Wait
// after a request: it is treated as out of reach.
type SilentServerError struct{ Wait time.Duration }

func (e *SilentServerError) Error() string {
	return fmt.Sprintf("the PostgreSQL server sent no answer for %v (the --lock-wait plus %v)", e.Wait, answerMargin)
}

// Timeout and Temporary make it a net.Error, which pgx and pgUnreachable
// recognise as the connection lost.
func (e *SilentServerError) Timeout() bool   { return true }
func (e *SilentServerError) Temporary() bool { return false }

// answerConn is a connection whose reads time out when the server has
// sent nothing for wait since the last request or the last byte, unless
// the driver set an earlier deadline of its own (a context's, which it
// uses to interrupt a read).
type answerConn struct {
	net.Conn
	wait time.Duration

	mu     sync.Mutex
	ext    time.Time // the read deadline the driver set; zero: none
	own    time.Time // the answer deadline of the last request or byte; zero: none
	useOwn bool      // the deadline on the connection is own
}

// arm starts the wait for the server's next byte.
func (c *answerConn) arm() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.own = time.Now().Add(c.wait)
	c.apply()
}

// apply sets the earlier of the two deadlines on the connection. An
// answer deadline already past when the driver sets one of its own is
// an old request's: the connection has been idle since its answer (the
// driver's quick look for a closed connection must not fail on it).
func (c *answerConn) apply() {
	if !c.own.IsZero() && !c.own.After(time.Now()) {
		c.own = time.Time{}
	}
	d, useOwn := c.own, !c.own.IsZero()
	if !c.ext.IsZero() && (d.IsZero() || c.ext.Before(d)) {
		d, useOwn = c.ext, false
	}
	c.useOwn = useOwn
	c.Conn.SetReadDeadline(d)
}

func (c *answerConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if n > 0 {
		c.arm()
	}
	return n, err
}

func (c *answerConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.arm()
	}
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		c.mu.Lock()
		ours := c.useOwn
		c.mu.Unlock()
		if ours {
			return n, &SilentServerError{Wait: c.wait}
		}
	}
	return n, err
}

func (c *answerConn) SetDeadline(t time.Time) error {
	if err := c.Conn.SetWriteDeadline(t); err != nil {
		return err
	}
	return c.SetReadDeadline(t)
}

func (c *answerConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ext = t
	c.apply()
	return nil
}
