package store

import "errors"

// SQLite's primary result codes that front ends tell apart.
const (
	sqliteBusy     = 5
	sqliteLocked   = 6
	sqliteNoMem    = 7
	sqliteReadOnly = 8
	sqliteIOErr    = 10
	sqliteCorrupt  = 11
	sqliteCantOpen = 14
	sqliteNotADB   = 26
)

// sqliteCode is the primary result code of a driver error, 0 for others.
func sqliteCode(err error) int {
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		return coded.Code() & 0xff
	}
	return 0
}

// IsLocked says err is another process holding the database's write lock
// past the lock wait.
func IsLocked(err error) bool {
	c := sqliteCode(err)
	return c == sqliteBusy || c == sqliteLocked || pgCode(err) == pgLockNotAvailable
}

// IsReadOnly says err is a write to a database opened read-only.
func IsReadOnly(err error) bool {
	return sqliteCode(err) == sqliteReadOnly || pgCode(err) == pgReadOnlyTx
}

// IsUnavailable says err is a database that cannot be read as it is: a
// file that is not a database or is damaged, cannot be opened, fails to
// read, or whose latest changes this process cannot see (WALError); or a
// PostgreSQL server that cannot be reached or dropped the connection.
// Front ends exit 2 (a failed dependency) with what to do.
func IsUnavailable(err error) bool {
	var w *WALError
	if errors.As(err, &w) {
		return true
	}
	switch sqliteCode(err) {
	case sqliteIOErr, sqliteCorrupt, sqliteCantOpen, sqliteNotADB:
		return true
	}
	return pgUnreachable(err)
}

// IsServerLost says err is a PostgreSQL server out of reach (refused, never
// answered, dropped the connection, shutting down): trying again later
// may succeed, unlike a damaged file.
func IsServerLost(err error) bool { return pgUnreachable(err) }

// advisedError is a database error with what the user can do about it.
type advisedError struct {
	err    error
	advice string
}

func (e *advisedError) Error() string { return e.err.Error() + "; " + e.advice }
func (e *advisedError) Unwrap() error { return e.err }

// withAdvice adds what to do to an error that leaves the database
// unavailable (IsUnavailable); other errors are returned as they are.
func withAdvice(err error) error {
	switch sqliteCode(err) {
	case sqliteNotADB, sqliteCorrupt:
		return &advisedError{err, "the file is not a tracelab database or is damaged: check the --db path, or restore the file from a backup"}
	case sqliteIOErr, sqliteCantOpen:
		return &advisedError{err, "the file cannot be read as a database: check that --db names a regular file on a working disk"}
	}
	if pgUnreachable(err) {
		return &advisedError{err, "the PostgreSQL server cannot be reached: check the URL and that the server is up, then run it again"}
	}
	return err
}
