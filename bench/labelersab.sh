#!/usr/bin/env bash
# bench/labelersab.sh: issue 33's team-store rows, two builds of the bench
# program side by side: `bench labelers -labelers L -pg URL` runs with
# each build in turn, ROUNDS times, each on a fresh database of one
# private PostgreSQL server (as bench/pg.sh starts one: unix socket, fsync
# off, stopped on exit), so that both see the same machine. Each run
# prints the load average before and after it, the bench process's wall
# and CPU time, the server's CPU in that run (its backends', counted
# once every connection of the run has ended: pg_cpu) and the postgres
# rows of the bench: edits of the queue, n, and the hot case.
#
#   bench/labelersab.sh OLD NEW [WORKDIR]        # OLD, NEW: builds of ./bench
#   L=50 ROUNDS=3 bench/labelersab.sh OLD NEW
#   ARGS="-poll 2s" bench/labelersab.sh OLD NEW  # flags for both builds
#
# Nothing here runs under `go test`.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: bench/labelersab.sh OLD NEW [WORKDIR]" >&2; exit 2; }
OLD=$(realpath "$1") NEW=$(realpath "$2")
W=${3:-$(mktemp -d /tmp/tracelab-labab.XXXXXX)}
L=${L:-8}
ROUNDS=${ROUNDS:-3}
mkdir -p "$W"
. "$(dirname "$0")/pgserver.sh"
S=$W/pg
# 50 labelers each open an engine of their own (a pool each).
pg_private "$S" -c max_connections=300
echo "# old=$OLD new=$NEW $(date -u +%FT%TZ) labelers=$L rounds=$ROUNDS args=${ARGS:-} in $W"
for r in $(seq 1 "$ROUNDS"); do
	for b in old new; do
		bin=$OLD; [ $b = new ] && bin=$NEW
		db=ab_${b}_$r
		"${as[@]}" "$(pgbin createdb)" -h "$S" "$db"
		pg_settled "$S"
		l0=$(cut -d' ' -f1 /proc/loadavg) c0=$(pg_cpu "$S")
		/usr/bin/time -o "$W/time" -f '%e %U %S' "$bin" labelers -labelers "$L" ${ARGS:-} -pg "postgres://postgres@/$db?host=$S" >"$W/out" 2>&1 ||
			{ echo "$b round $r FAILED: $(tail -1 "$W/out")"; continue; }
		pg_settled "$S"
		c1=$(pg_cpu "$S") l1=$(cut -d' ' -f1 /proc/loadavg)
		set -- $(cat "$W/time")
		printf '== %s round %d: load %s -> %s; bench %.1f s wall, %.2f s cpu; server cpu %.2f s\n' \
			$b "$r" "$l0" "$l1" "$1" "$(echo "$2+$3" | bc -l)" "$(echo "$c1-$c0" | bc -l)"
		grep '^postgres' "$W/out"
		"${as[@]}" "$(pgbin dropdb)" -h "$S" "$db"
	done
done
