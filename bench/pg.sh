#!/usr/bin/env bash
# bench/pg.sh: issue 33's "100k on PostgreSQL" row. The same generated
# corpus (bench gen: every SQL statement distinct, a confirmed case for
# every 100th trace) is imported with scoring, reported and exported
# (--all) into a SQLite file and into PostgreSQL, one after the other in
# one session, and one table gives each operation's wall time, CPU of the
# tracelab process and peak RSS on both, with PostgreSQL's time as a ratio
# of SQLite's (goal: each <= 3x). The server's own CPU is not in the
# process's; the wall time carries it.
#
#   bench/pg.sh [WORKDIR]                      # a private server, as store/pgtest starts one
#   PG=postgres://user@host/db bench/pg.sh     # a server of yours: a new schema in it, dropped after
#   N=20000 bench/pg.sh                        # a smaller corpus
#
# Nothing here runs under `go test`.
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-$(mktemp -d /tmp/tracelab-pg.XXXXXX)}
N=${N:-100000}
LIMIT=${LIMIT:-1800}
mkdir -p "$W"
TL=${TL:-$W/tracelab}
BENCH=${BENCH:-$W/bench}
[ -x "$TL" ] || go build -o "$TL" .
[ -x "$BENCH" ] || go build -o "$BENCH" ./bench

. "$(dirname "$0")/pgserver.sh"
if [ -z "${PG:-}" ]; then
	# A private server like store/pgtest's: unix socket only, no fsync
	# (what the tests and bench labelers use), stopped on exit.
	S=$W/pg
	pg_private "$S"
	"${as[@]}" "$(pgbin createdb)" -h "$S" bench
	PGURL="postgres://postgres@/bench?host=$S"
	where="a private server (fsync off) in $S"
else
	schema=bench_$$
	"$(pgbin psql)" "$PG" -qc "CREATE SCHEMA $schema"
	cleanup+=("'$(pgbin psql)' '$PG' -qc 'DROP SCHEMA $schema CASCADE' || true")
	sep='?'
	case $PG in *\?*) sep='&' ;; esac
	PGURL="$PG${sep}search_path=$schema"
	where="schema $schema of \$PG"
fi
echo "# $(git rev-parse --short HEAD 2>/dev/null || echo '?') $(date -u +%FT%TZ) N=$N in $W; postgres: $where; load $(cut -d' ' -f1-3 /proc/loadavg)"

[ -f "$W/corpus.jsonl" ] || "$BENCH" gen -n "$N" -out "$W/corpus.jsonl" -cases "$W/cases.jsonl"
rm -rf "$W/t.db" "$W"/t.db-* "$W"/export-*

# timed BACKEND OP CMD...: records wall, CPU (user+sys) and peak RSS.
timed() {
	local key="$1-$2"; shift 2
	sync
	if ! /usr/bin/time -o "$W/$key.time" -f '%e %M %U %S' timeout "$LIMIT" "$@" >"$W/$key.out" 2>"$W/$key.err"; then
		echo "$key failed or over ${LIMIT}s: $(tail -1 "$W/$key.err")" >&2
		echo "0 0 0 0" >"$W/$key.time"
	fi
}

ops=("import" "import cases" "report" "export --all")
for b in sqlite postgres; do
	db=$W/t.db
	[ $b = postgres ] && db=$PGURL
	timed $b import "$TL" --db "$db" import "$W/corpus.jsonl"
	timed $b "import cases" "$TL" --db "$db" import "$W/cases.jsonl"
	timed $b report "$TL" --db "$db" report
	timed $b "export --all" "$TL" --db "$db" export --all --out "$W/export-$b"
done

printf '%-14s %10s %10s %10s %10s %8s %8s %7s %s\n' "N=$N" "sqlite s" "cpu s" "postgres s" "cpu s" "sqlite" "pg MiB" "ratio" "goal <= 3x"
for op in "${ops[@]}"; do
	read -r sw sm su ss <"$W/sqlite-$op.time"
	read -r pw pm pu ps <"$W/postgres-$op.time"
	ratio=$(echo "if ($sw > 0) $pw / $sw else 0" | bc -l)
	ok=met
	[ "$(echo "$ratio > 3 || $pw == 0" | bc -l)" = 1 ] && ok="NOT met"
	printf '%-14s %10.2f %10.2f %10.2f %10.2f %8.0f %8.0f %6.2fx %s\n' "$op" "$sw" "$(echo "$su+$ss" | bc -l)" \
		"$pw" "$(echo "$pu+$ps" | bc -l)" "$(echo "$sm/1024" | bc -l)" "$(echo "$pm/1024" | bc -l)" "$ratio" "$ok"
done
# The two exports must say the same: the backends hold the same cases.
if cmp -s "$W/export-sqlite/cases.jsonl" "$W/export-postgres/cases.jsonl"; then
	echo "export --all: cases.jsonl identical on both backends ($(wc -l <"$W/export-sqlite/cases.jsonl") cases)"
else
	echo "export --all: cases.jsonl DIFFERS between the backends"
fi
