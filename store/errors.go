package store

import "errors"

// SQLite's primary result codes that front ends tell apart.
const (
	sqliteBusy     = 5
	sqliteLocked   = 6
	sqliteReadOnly = 8
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
