#!/usr/bin/env bash
# bench/ab.sh: two builds of tracelab side by side on the rows of issue 10's
# table that move the most with load on a shared machine (score 100k after
# a configuration change, import 1k new traces into a scored 100k
# database), run alternately so that both see the same machine.
#
#   bench/ab.sh OLD NEW [WORKDIR]     # OLD, NEW: tracelab binaries
#   RUNS=5 bench/ab.sh OLD NEW        # how many times each row runs per build
#
# Each build imports the corpus (and its cases) into its own database
# once (WORKDIR/old.db, new.db: delete them to import again); every timed
# run works on a fresh copy of that database, written out to disk first.
# The corpus is bench/run.sh's (made here when missing).
# Nothing here runs under `go test`.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: bench/ab.sh OLD NEW [WORKDIR]" >&2; exit 2; }
OLD=$(realpath "$1") NEW=$(realpath "$2")
cd "$(dirname "$0")/.."
W=${3:-$(mktemp -d /tmp/tracelab-ab.XXXXXX)}
N=${N:-100000}
RUNS=${RUNS:-3}
mkdir -p "$W"
BENCH=${BENCH:-$W/bench}
[ -x "$BENCH" ] || go build -o "$BENCH" ./bench
[ -f "$W/corpus.jsonl" ] || "$BENCH" gen -n "$N" -out "$W/corpus.jsonl" -cases "$W/cases.jsonl"
[ -f "$W/new1k.jsonl" ] || "$BENCH" gen -n 1000 -start "$N" -out "$W/new1k.jsonl"
printf 'suddenly\n' >"$W/lexicon.txt"
echo "# old=$OLD new=$NEW $(date -u +%FT%TZ) N=$N in $W"

# timed LABEL CMD...: one line of wall time, CPU seconds and peak RSS.
timed() {
	local label=$1; shift
	sync
	/usr/bin/time -o "$W/time" -f '%e %U %S %M' "$@" >"$W/out" 2>"$W/err" || { echo "$label FAILED: $(tail -1 "$W/err")"; return 0; }
	set -- $(tail -1 "$W/time")
	printf '%-34s %6.2f s (cpu %6.2f s)  peak RSS %4.0f MiB\n' "$label" "$1" "$(echo "$2+$3" | bc -l)" "$(echo "$4/1024" | bc -l)"
}

for b in old new; do
	bin=$OLD; [ $b = new ] && bin=$NEW
	[ -f "$W/$b.db" ] && continue
	rm -f "$W/$b.db"-*
	timed "import 100k ($b)" "$bin" --db "$W/$b.db" import "$W/corpus.jsonl"
	"$bin" --db "$W/$b.db" import "$W/cases.jsonl" >/dev/null
done
for r in $(seq "$RUNS"); do
	for b in old new; do
		bin=$OLD; [ $b = new ] && bin=$NEW
		cp "$W/$b.db" "$W/run.db"; rm -f "$W/run.db"-*
		timed "score --lexicon ($b)" "$bin" --db "$W/run.db" score --lexicon "$W/lexicon.txt"
		cp "$W/$b.db" "$W/run.db"; rm -f "$W/run.db"-*
		timed "import 1k new ($b)" "$bin" --db "$W/run.db" import "$W/new1k.jsonl"
	done
done
rm -f "$W/run.db" "$W/run.db"-*
