#!/usr/bin/env bash
# bench/importab.sh: import with scoring of one corpus by several builds of
# tracelab, run alternately round after round so that each sees the same
# machine, with the floor (bench floor: a plain insert of the same rows in
# one transaction) timed in every round beside them. Issue 25 chose its
# JSON paths by these figures (see the opening comment of each).
#
#   bench/importab.sh CORPUS BIN...        # BIN: a tracelab binary, or a
#                                          # script that execs one
#   RUNS=3 bench/importab.sh corpus.jsonl old new
#
# The corpus: go run ./bench gen -n 20000 -out corpus.jsonl (every SQL
# statement distinct). On a loaded machine compare the CPU seconds and the
# ratio to the floor of the same round, not the wall time alone.
# Nothing here runs under `go test`.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: bench/importab.sh CORPUS BIN..." >&2; exit 2; }
CORPUS=$(realpath "$1"); shift
cd "$(dirname "$0")/.."
W=${W:-$(mktemp -d /tmp/tracelab-importab.XXXXXX)}
RUNS=${RUNS:-3}
mkdir -p "$W"
BENCH=${BENCH:-$W/bench}
[ -x "$BENCH" ] || go build -o "$BENCH" ./bench
echo "# $(date -u +%FT%TZ) corpus=$CORPUS runs=$RUNS in $W"

# timed LABEL CMD...: wall, CPU (user+sys) and peak RSS of one command.
timed() {
	local label=$1; shift
	rm -f "$W/run.db" "$W/run.db"-*
	sync
	/usr/bin/time -o "$W/time" -f '%e %U %S %M' "$@" >"$W/out" 2>"$W/err" || { echo "$label FAILED: $(tail -1 "$W/err")"; return 0; }
	set -- $(tail -1 "$W/time")
	printf '%-40s %7.2f s (cpu %6.2f s)  peak RSS %4.0f MiB\n' "$label" "$1" "$(echo "$2+$3" | bc -l)" "$(echo "$4/1024" | bc -l)"
}

for r in $(seq "$RUNS"); do
	timed "round $r floor" "$BENCH" floor -in "$CORPUS" -db "$W/run.db"
	for bin in "$@"; do
		timed "round $r $(basename "$bin")" "$bin" --db "$W/run.db" import "$CORPUS"
	done
done
rm -f "$W/run.db" "$W/run.db"-*
