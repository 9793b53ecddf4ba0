#!/usr/bin/env bash
# bench/labelersab.sh: issue 33's team-store rows, two builds of the bench
# program side by side: `bench labelers -labelers L -pg URL` runs with
# each build in turn, ROUNDS times, each on a fresh database of one
# private PostgreSQL server (as bench/pg.sh starts one: unix socket, fsync
# off, stopped on exit), so that both see the same machine. Each run
# prints the load average before and after it, the bench process's wall
# and CPU time, the server's CPU in that run (the postmaster's reaped
# children: every connection of the run ends with it) and the postgres
# rows of the bench: edits of the queue, n, and the hot case.
#
#   bench/labelersab.sh OLD NEW [WORKDIR]        # OLD, NEW: builds of ./bench
#   L=50 ROUNDS=3 bench/labelersab.sh OLD NEW
#
# Nothing here runs under `go test`.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: bench/labelersab.sh OLD NEW [WORKDIR]" >&2; exit 2; }
OLD=$(realpath "$1") NEW=$(realpath "$2")
W=${3:-$(mktemp -d /tmp/tracelab-labab.XXXXXX)}
L=${L:-8}
ROUNDS=${ROUNDS:-3}
mkdir -p "$W"
pgbin() {
	command -v "$1" 2>/dev/null && return
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n | tail -1)
	[ -n "$d" ] && [ -x "$d/$1" ] && { echo "$d/$1"; return; }
	echo "bench/labelersab.sh: $1 not found (apt-get install postgresql)" >&2
	exit 2
}
as=()
[ "$(id -u)" = 0 ] && as=(runuser -u postgres --)
S=$W/pg
rm -rf "$S"
mkdir -p "$S"
[ ${#as[@]} -gt 0 ] && chown postgres "$S"
"${as[@]}" "$(pgbin initdb)" -D "$S/data" --auth=trust --username=postgres --encoding=UTF8 --no-sync >/dev/null
# 50 labelers each open an engine of their own (a pool each).
"${as[@]}" "$(pgbin pg_ctl)" -D "$S/data" -l "$S/log" -w -t 60 \
	-o "-k $S -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" start >/dev/null
trap "${as[*]} '$(pgbin pg_ctl)' -D '$S/data' -m immediate -w stop >/dev/null 2>&1 || true" EXIT
PM=$(head -1 "$S/data/postmaster.pid")
srvcpu() { awk '{print ($14+$15+$16+$17)/100}' "/proc/$PM/stat"; }
echo "# old=$OLD new=$NEW $(date -u +%FT%TZ) labelers=$L rounds=$ROUNDS in $W"
for r in $(seq 1 "$ROUNDS"); do
	for b in old new; do
		bin=$OLD; [ $b = new ] && bin=$NEW
		db=ab_${b}_$r
		"${as[@]}" "$(pgbin createdb)" -h "$S" "$db"
		l0=$(cut -d' ' -f1 /proc/loadavg) c0=$(srvcpu)
		/usr/bin/time -o "$W/time" -f '%e %U %S' "$bin" labelers -labelers "$L" -pg "postgres://postgres@/$db?host=$S" >"$W/out" 2>&1 ||
			{ echo "$b round $r FAILED: $(tail -1 "$W/out")"; continue; }
		c1=$(srvcpu) l1=$(cut -d' ' -f1 /proc/loadavg)
		set -- $(cat "$W/time")
		printf '== %s round %d: load %s -> %s; bench %.1f s wall, %.2f s cpu; server cpu %.2f s\n' \
			$b "$r" "$l0" "$l1" "$1" "$(echo "$2+$3" | bc -l)" "$(echo "$c1-$c0" | bc -l)"
		grep '^postgres' "$W/out"
		"${as[@]}" "$(pgbin dropdb)" -h "$S" "$db"
	done
done
