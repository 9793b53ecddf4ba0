#!/usr/bin/env bash
# bench/pgimportab.sh: issue 33's "100k on PostgreSQL" import row for
# several builds side by side (bench/pg.sh runs one build through every
# operation). Each round imports the corpus (bench gen: every SQL
# statement distinct) into a new SQLite file with the first build, the
# reference the ratio is to, and then into a new database of one private
# PostgreSQL server (as bench/pg.sh starts one: unix socket, fsync off)
# with each build in turn. Each import prints its wall time, the tracelab
# process's CPU and peak RSS, the server's CPU (the postmaster's reaped
# children, read once the import's connections have ended) and its ratio
# to the round's SQLite import; then the median ratio of each build.
#
#   bench/pgimportab.sh OLD NEW              # OLD, NEW: tracelab binaries
#   N=20000 RUNS=3 W=/tmp/w bench/pgimportab.sh OLD NEW
#
# Nothing here runs under `go test`.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: bench/pgimportab.sh BIN..." >&2; exit 2; }
bins=()
for b in "$@"; do bins+=("$(realpath "$b")"); done
cd "$(dirname "$0")/.."
W=${W:-$(mktemp -d /tmp/tracelab-pgab.XXXXXX)}
N=${N:-100000}
RUNS=${RUNS:-2}
mkdir -p "$W"
BENCH=${BENCH:-$W/bench}
[ -x "$BENCH" ] || go build -o "$BENCH" ./bench
[ -f "$W/corpus.jsonl" ] || "$BENCH" gen -n "$N" -out "$W/corpus.jsonl"

. "$(dirname "$0")/pgserver.sh"
S=$W/pg
pg_private "$S"
psql=("${as[@]}" "$(pgbin psql)" -h "$S" -U postgres -d postgres -qAt)
echo "# $(date -u +%FT%TZ) N=$N runs=$RUNS in $W; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %-28s %9s %9s %9s %8s %7s\n' round build "wall s" "cpu s" "server s" "RSS MiB" ratio
for r in $(seq 1 "$RUNS"); do
	rm -f "$W/s.db" "$W"/s.db-*
	sync
	/usr/bin/time -o "$W/time" -f '%e %U %S %M' "${bins[0]}" --db "$W/s.db" import "$W/corpus.jsonl" >/dev/null 2>"$W/err" ||
		{ echo "sqlite import failed: $(tail -1 "$W/err")" >&2; exit 1; }
	read -r sw su ss sm <"$W/time"
	printf '%-5s %-28s %9.2f %9.2f %9s %8.0f %7s\n' "$r" "sqlite: $(basename "${bins[0]}")" "$sw" "$(echo "$su+$ss" | bc -l)" - "$(echo "$sm/1024" | bc -l)" -
	for i in "${!bins[@]}"; do
		b=${bins[$i]}
		"${psql[@]}" -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS ab" -c "CREATE DATABASE ab"
		pg_settled "$S"
		sync
		c0=$(pg_cpu "$S")
		/usr/bin/time -o "$W/time" -f '%e %U %S %M' "$b" --db "postgres://postgres@/ab?host=$S" import "$W/corpus.jsonl" >/dev/null 2>"$W/err" ||
			{ echo "$(basename "$b") failed: $(tail -1 "$W/err")" >&2; continue; }
		pg_settled "$S"
		c1=$(pg_cpu "$S")
		read -r pw pu ps pm <"$W/time"
		ratio=$(echo "$pw / $sw" | bc -l)
		echo "$ratio" >>"$W/ratios.$i"
		printf '%-5s %-28s %9.2f %9.2f %9.2f %8.0f %6.2fx\n' "$r" "postgres: $(basename "$b")" "$pw" "$(echo "$pu+$ps" | bc -l)" \
			"$(echo "$c1-$c0" | bc -l)" "$(echo "$pm/1024" | bc -l)" "$ratio"
	done
done
echo "# median ratio to SQLite (goal <= 3x)"
for i in "${!bins[@]}"; do
	[ -f "$W/ratios.$i" ] || continue
	printf '%-28s %6.2fx\n' "$(basename "${bins[$i]}")" "$(sort -n "$W/ratios.$i" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')"
	rm -f "$W/ratios.$i"
done
