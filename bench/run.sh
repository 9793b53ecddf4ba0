#!/usr/bin/env bash
# bench/run.sh: every row of issue 10's table on a generated 100,000-trace
# / 1,000,000-step corpus, next to the floor (bench floor: a plain insert of
# the same rows in one transaction), with wall time and peak RSS.
#
#   bench/run.sh [WORKDIR]            # builds ./tracelab and ./bench from this checkout
#   TL=/path/tracelab BENCH=/path/bench bench/run.sh WORKDIR
#   N=20000 bench/run.sh              # a smaller corpus
#
# Nothing here runs under `go test`.
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-$(mktemp -d /tmp/tracelab-bench.XXXXXX)}
N=${N:-100000}
SHARED=${SHARED:-25000}
LIMIT=${LIMIT:-600}
mkdir -p "$W"
built="this checkout, $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
[ -n "${TL:-}" ] && built="TL=$TL"
TL=${TL:-$W/tracelab}
BENCH=${BENCH:-$W/bench}
[ -x "$TL" ] || go build -o "$TL" .
[ -x "$BENCH" ] || go build -o "$BENCH" ./bench
echo "# $built $(date -u +%FT%TZ) N=$N in $W"

# timed NAME CMD...: wall seconds and peak RSS of one command. The dirty
# pages of what ran before are written out first: a write-back of the
# 550 MB database under a short row doubled its time.
timed() {
	local name=$1; shift
	sync
	if ! /usr/bin/time -o "$W/$name.time" -f '%e %M %U %S' timeout "$LIMIT" "$@" >"$W/$name.out" 2>"$W/$name.err"; then
		echo "$(printf '%-34s' "$name") FAILED or over ${LIMIT}s: $(tail -1 "$W/$name.err")"; return 0
	fi
	set -- $(tail -1 "$W/$name.time")
	printf '%-34s %8.2f s (cpu %6.2f s)  peak RSS %5.0f MiB  %s\n' "$name" "$1" "$(echo "$3+$4" | bc -l)" "$(echo "$2/1024" | bc -l)" "$(tail -1 "$W/$name.out" | cut -c1-60)"
	echo "$1" >"$W/$name.secs"
}

[ -f "$W/corpus.jsonl" ] || "$BENCH" gen -n "$N" -out "$W/corpus.jsonl" -cases "$W/cases.jsonl"
[ -f "$W/new1k.jsonl" ] || "$BENCH" gen -n 1000 -start "$N" -out "$W/new1k.jsonl"
[ -f "$W/shared.jsonl" ] || "$BENCH" gen -n "$N" -shared "$SHARED" -out "$W/shared.jsonl" -cases "$W/shared_cases.jsonl"
printf 'suddenly\n' >"$W/lexicon.txt"
rm -f "$W"/*.db "$W"/*.db-*

# The floor runs in this session, beside what it is compared with: on a
# shared machine only the ratio is stable.
timed "floor (plain insert, 1 tx)" "$BENCH" floor -in "$W/corpus.jsonl" -db "$W/floor.db"
floor=$(cat "$W/floor (plain insert, 1 tx).secs")
DB="$W/t.db"
timed "import 100k (scores)" "$TL" --db "$DB" import "$W/corpus.jsonl"
steps=$((N * 10))
imp=$(cat "$W/import 100k (scores).secs" 2>/dev/null || echo 0)
[ "$imp" != 0 ] && printf '  -> %.0f steps/s, %.2fx the floor\n' "$(echo "$steps/$imp" | bc -l)" "$(echo "$imp/$floor" | bc -l)"
timed "import cases.jsonl (1k gold)" "$TL" --db "$DB" import "$W/cases.jsonl"
# A --lexicon file changes the configuration: every score is stale. Scoring
# again without it is a second full run, after which nothing is stale.
timed "score 100k (config changed)" "$TL" --db "$DB" score --lexicon "$W/lexicon.txt"
timed "score 100k (config back)" "$TL" --db "$DB" score
timed "score again (nothing changed)" "$TL" --db "$DB" score
timed "report" "$TL" --db "$DB" report
timed "report --all" "$TL" --db "$DB" report --all
timed "export" "$TL" --db "$DB" export --out "$W/export"
timed "ls --status confirmed" "$TL" --db "$DB" ls --status confirmed --format json
"$BENCH" ops -db "$DB" -n "${REPS:-15}" | tee "$W/ops.out"
timed "import 1k new into scored 100k" "$TL" --db "$DB" import "$W/new1k.jsonl"
DB2="$W/shared.db"
timed "import shared-question 100k" "$TL" --db "$DB2" import "$W/shared.jsonl"
timed "import shared cases" "$TL" --db "$DB2" import "$W/shared_cases.jsonl"
timed "report, 25k share a question" "$TL" --db "$DB2" report
