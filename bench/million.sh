#!/usr/bin/env bash
# bench/million.sh: issue 33's 1M rows (1,000,000 traces / 10,000,000
# steps): the floor (a plain insert of the same rows in one transaction),
# import with scoring, the cases, score with nothing changed, report, then
# the workbench's operations (bench ops) and search (bench search). Fewer
# rows than bench/run.sh, which at this size would run for an hour.
#
#   bench/million.sh [WORKDIR]        # needs about 9 GB free there
#   N=300000 bench/million.sh         # another size
#
# Nothing here runs under `go test`.
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-$(mktemp -d /tmp/tracelab-1m.XXXXXX)}
N=${N:-1000000}
mkdir -p "$W"
TL=${TL:-$W/tracelab}
BENCH=${BENCH:-$W/bench}
[ -x "$TL" ] || go build -o "$TL" .
[ -x "$BENCH" ] || go build -o "$BENCH" ./bench
echo "# $(git rev-parse --short HEAD 2>/dev/null || echo '?') $(date -u +%FT%TZ) N=$N in $W; $(uptime | sed 's/.*load/load/')"

# timed NAME CMD...: wall and CPU seconds and peak RSS of one command.
timed() {
	local name=$1; shift
	sync
	if ! /usr/bin/time -o "$W/time.txt" -f '%e %U %S %M' "$@" >"$W/out.txt" 2>"$W/err.txt"; then
		echo "$name FAILED: $(tail -2 "$W/err.txt")"; secs=0; return 0
	fi
	set -- $(tail -1 "$W/time.txt")
	printf '%-34s wall %8.2f s  cpu %8.2f s  peak RSS %5.0f MiB\n' "$name" "$1" "$(echo "$2+$3" | bc -l)" "$(echo "$4/1024" | bc -l)"
	secs=$1
}

[ -f "$W/corpus.jsonl" ] || "$BENCH" gen -n "$N" -out "$W/corpus.jsonl" -cases "$W/cases.jsonl"
rm -f "$W"/*.db "$W"/*.db-*
timed "floor (plain insert, 1 tx)" "$BENCH" floor -in "$W/corpus.jsonl" -db "$W/floor.db"
rm -f "$W"/floor.db*
floor=$secs
timed "import (scores)" "$TL" --db "$W/t.db" import "$W/corpus.jsonl"
# The row's goal is a ratio to the floor of the same run.
[ "$floor" != 0 ] && printf '  -> %.2fx the floor (goal <= 2x)\n' "$(echo "$secs/$floor" | bc -l)"
timed "import cases" "$TL" --db "$W/t.db" import "$W/cases.jsonl"
timed "score (nothing changed)" "$TL" --db "$W/t.db" score
timed "report" "$TL" --db "$W/t.db" report
"$BENCH" ops -db "$W/t.db" -n "${REPS:-5}"
"$BENCH" search -db "$W/t.db"
