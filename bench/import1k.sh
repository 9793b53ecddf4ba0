#!/usr/bin/env bash
# bench/import1k.sh: issue 33's small import into a big database. 1,000 new
# traces imported into an already-scored 100,000-trace database, by several
# builds of tracelab run alternately round after round, each run on a fresh
# copy of the same database, with the floor (bench floor: a plain insert of
# the same 1,000 traces in one transaction, into an empty file) beside them
# in every round. Prints wall and CPU seconds (user + system) per run, then
# the median and the least of each.
#
#   bench/import1k.sh WORKDIR BIN...     # BIN: a tracelab binary
#   RUNS=5 bench/import1k.sh /tmp/w old new
#
# The database is built once by the first BIN (WORKDIR/t.db, checkpointed:
# delete it to build it again) as bench/run.sh builds it: the corpus, then
# its cases. On a shared machine compare CPU seconds and ratios, not wall
# times alone. Nothing here runs under `go test`.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: bench/import1k.sh WORKDIR BIN..." >&2; exit 2; }
W=$1; shift
bins=()
for b in "$@"; do bins+=("$(realpath "$b")"); done
cd "$(dirname "$0")/.."
N=${N:-100000}
RUNS=${RUNS:-5}
mkdir -p "$W"
BENCH=${BENCH:-$W/bench}
[ -x "$BENCH" ] || go build -o "$BENCH" ./bench
[ -f "$W/corpus.jsonl" ] || "$BENCH" gen -n "$N" -out "$W/corpus.jsonl" -cases "$W/cases.jsonl"
[ -f "$W/new1k.jsonl" ] || "$BENCH" gen -n 1000 -start "$N" -out "$W/new1k.jsonl"
if [ ! -f "$W/t.db" ]; then
	rm -f "$W"/t.db-*
	"${bins[0]}" --db "$W/t.db" import "$W/corpus.jsonl" >/dev/null
	"${bins[0]}" --db "$W/t.db" import "$W/cases.jsonl" >/dev/null
fi
echo "# $(date -u +%FT%TZ) N=$N runs=$RUNS in $W"

# timed LABEL CMD...: one line of wall and CPU seconds and peak RSS; the
# figures also go to WORKDIR/import1k.txt for the summary.
: >"$W/import1k.txt"
timed() {
	local label=$1; shift
	sync
	/usr/bin/time -o "$W/time" -f '%e %U %S %M' "$@" >"$W/out" 2>"$W/err" || { echo "$label FAILED: $(tail -1 "$W/err")"; return 0; }
	set -- $(tail -1 "$W/time")
	local cpu; cpu=$(echo "$2+$3" | bc -l)
	printf '%-28s %6.2f s (cpu %5.2f s)  peak RSS %4.0f MiB\n' "$label" "$1" "$cpu" "$(echo "$4/1024" | bc -l)"
	echo "$label $1 $cpu" >>"$W/import1k.txt"
}

for r in $(seq "$RUNS"); do
	rm -f "$W/floor.db" "$W"/floor.db-*
	timed "floor" "$BENCH" floor -in "$W/new1k.jsonl" -db "$W/floor.db"
	for bin in "${bins[@]}"; do
		cp "$W/t.db" "$W/run.db"
		rm -f "$W"/run.db-*
		timed "$(basename "$bin")" "$bin" --db "$W/run.db" import "$W/new1k.jsonl"
	done
done
rm -f "$W/run.db" "$W"/run.db-* "$W/floor.db" "$W"/floor.db-*
echo "# median and least (wall s, cpu s)"
awk '{w[$1]=w[$1]" "$2; c[$1]=c[$1]" "$3} END {for (k in w) print k, w[k], "|", c[k]}' "$W/import1k.txt" |
	while read -r label rest; do
		ws=$(echo "${rest%|*}" | tr ' ' '\n' | grep . | sort -g)
		cs=$(echo "${rest#*|}" | tr ' ' '\n' | grep . | sort -g)
		n=$(echo "$ws" | wc -l)
		printf '%-28s wall median %5.2f least %5.2f   cpu median %5.2f least %5.2f\n' "$label" \
			"$(echo "$ws" | sed -n "$(((n + 1) / 2))p")" "$(echo "$ws" | head -1)" \
			"$(echo "$cs" | sed -n "$(((n + 1) / 2))p")" "$(echo "$cs" | head -1)"
	done
