package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// dialect is everything the store does differently on SQLite and on
// PostgreSQL. The store's SQL is one text for both, written with "?"
// parameters; what cannot be written portably is here and nowhere else
// (the PostgreSQL driver side — placeholder rebinding, the writer lock,
// bool parameters for integer columns — is in pg.go).
type dialect struct {
	name string
	// migrations is the folder of this dialect's migrations in the
	// embedded FS; both folders hold the same numbers, so a schema
	// version means the same schema on either.
	migrations string
	// version reads the schema version; setVersion records one.
	version    string
	setVersion func(n int) string
	// schemaTable runs in the migration transaction before the version
	// is read ("" when the version needs no table).
	schemaTable string
	// like is the LIKE that ignores ASCII case: SQLite's own LIKE does;
	// PostgreSQL's ILIKE does so over the "C" collation every text column
	// of its schema has.
	like string
	// nulInText says a text column can hold U+0000 (SQLite's can,
	// PostgreSQL's cannot: an import refuses such a record, see nulPath).
	nulInText bool
	// syncIDs brings the identity sequences past the ids copied in (nil
	// when ids need no sequence).
	syncIDs func(context.Context, *sql.Tx) error
	// countTraces counts the traces: SQLite reads the count its triggers
	// keep (0028), where count(*) read a whole index.
	countTraces string
	// lockRow ends a SELECT of one table that a one-case transaction
	// locks before it reads anything else (pg.go's caseWriterLock), and
	// skipLocked one of the queue's "t" that passes over traces another
	// labeler is taking; "" on SQLite, whose one writer holds the whole
	// database.
	lockRow, skipLocked string
}

var sqliteDialect = &dialect{
	name:        "sqlite",
	migrations:  "migrations",
	version:     "PRAGMA user_version",
	setVersion:  func(n int) string { return fmt.Sprintf("PRAGMA user_version = %d", n) },
	like:        "LIKE",
	nulInText:   true,
	countTraces: "SELECT n FROM trace_count",
}

// schemaTableName holds PostgreSQL's schema version: the one table that
// is not in the migrations, so that version 0 can be read.
const schemaTableName = "tracelab_schema"

var postgresDialect = &dialect{
	name:       "postgres",
	migrations: "migrations/postgres",
	version:    "SELECT COALESCE(max(version), 0) FROM " + schemaTableName,
	setVersion: func(n int) string {
		return fmt.Sprintf("DELETE FROM %s; INSERT INTO %[1]s (version) VALUES (%d)", schemaTableName, n)
	},
	schemaTable: "CREATE TABLE IF NOT EXISTS " + schemaTableName + " (version BIGINT NOT NULL)",
	like:        "ILIKE",
	syncIDs:     syncIdentities,
	countTraces: "SELECT count(*) FROM traces",
	// NO KEY: rows that only refer to the trace (reservations, a case's
	// foreign key) need not wait for it.
	lockRow:    " FOR NO KEY UPDATE",
	skipLocked: " FOR NO KEY UPDATE OF t SKIP LOCKED",
}

// IsPostgres says a --db value names a PostgreSQL server rather than a
// file: a postgres:// or postgresql:// URL. Anything else is a file name.
func IsPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// syncIdentities sets every identity sequence of the schema to the
// largest id its table holds, so rows inserted after a copy with explicit
// ids do not collide with them.
func syncIdentities(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND is_identity = 'YES' ORDER BY 1`)
	if err != nil {
		return err
	}
	var cols [][2]string
	for rows.Next() {
		var t, c string
		if err := rows.Scan(&t, &c); err != nil {
			rows.Close()
			return err
		}
		cols = append(cols, [2]string{t, c})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, tc := range cols {
		// Names come from the catalog, not from input.
		q := fmt.Sprintf(`SELECT setval(pg_get_serial_sequence('%[1]s', '%[2]s'), COALESCE(max(%[2]s), 0) + 1, false) FROM %[1]s`,
			tc[0], tc[1])
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s.%s: %w", tc[0], tc[1], err)
		}
	}
	return nil
}
