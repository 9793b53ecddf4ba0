#!/usr/bin/env bash
# bench/bigrecord.sh: what one huge record costs to import (issue 27 item
# 10), for several builds of tracelab run alternately round after round:
# peak RSS and its ratio to the record's size, CPU seconds, and the
# floor (bench floor: a plain insert of the same row) in every round.
# The records, one line each, about 100 MB:
#   str   a trace whose one tool result is a 100 MB string
#   vals  a trace whose one tool result holds 2.7 million small JSON values
# and a file of several:
#   many  six traces, one a line, each a 25 MB string in one tool result
#         (the ratio is to one record: what the import holds at once)
# each imported with scoring, and str also with --no-score. After the
# rounds, the sha256 of every build's stored step bodies and scores (they
# must agree; needs python3).
#
#   bench/bigrecord.sh BIN...        # BIN: a tracelab binary
#   RUNS=2 bench/bigrecord.sh /tmp/tracelab-main /tmp/tracelab-new
#
# Nothing here runs under `go test`.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: bench/bigrecord.sh BIN..." >&2; exit 2; }
cd "$(dirname "$0")/.."
W=${W:-$(mktemp -d /tmp/tracelab-bigrecord.XXXXXX)}
RUNS=${RUNS:-2}
mkdir -p "$W"
BENCH=${BENCH:-$W/bench}
[ -x "$BENCH" ] || go build -o "$BENCH" ./bench
echo "# $(date -u +%FT%TZ) runs=$RUNS in $W"

head='{"trace_id":"t-big","server":"s","question":"how many?","steps":[{"kind":"tool_call","id":"c1","tool":"run_sql","args":{}},{"kind":"tool_result","call_id":"c1","result":'
[ -s "$W/str.jsonl" ] || python3 -c '
import sys
sys.stdout.write(sys.argv[1] + "\"" + "lorem ipsum dolor sit amet " * (100*1000*1000//27) + "\"},{\"kind\":\"answer\",\"text\":\"1\"}]}\n")' "$head" >"$W/str.jsonl"
[ -s "$W/vals.jsonl" ] || python3 -c '
import sys
sys.stdout.write(sys.argv[1] + "{\"rows\":[" + ",".join("{\"id\":%d,\"v\":\"abcdefghijklmn\"}" % i for i in range(2700000)) + "]}},{\"kind\":\"answer\",\"text\":\"1\"}]}\n")' "$head" >"$W/vals.jsonl"

[ -s "$W/many.jsonl" ] || python3 -c '
import sys
for i in range(6):
    sys.stdout.write(sys.argv[1].replace("t-big", "t-big-%d" % i) + "\"" + ("lorem ipsum dolor sit amet %d " % i) * (25*1000*1000//29) + "\"},{\"kind\":\"answer\",\"text\":\"1\"}]}\n")' "$head" >"$W/many.jsonl"

# record FILE: the size of FILE's longest line, the record the ratios are to.
record() { python3 -c 'import sys; print(max(len(l) for l in open(sys.argv[1], "rb")))' "$1"; }

# timed LABEL FILE CMD...: wall, CPU, peak RSS and RSS over the size of
# FILE's biggest record.
timed() {
	local label=$1 file=$2; shift 2
	rm -f "$W/run.db" "$W/run.db"-* "$W"/.run.db.staging*
	/usr/bin/time -o "$W/time" -f '%e %U %S %M' "$@" >"$W/out" 2>"$W/err" || { echo "$label FAILED: $(tail -1 "$W/err")"; return 0; }
	set -- $(tail -1 "$W/time")
	printf '%-34s %7.2f s (cpu %6.2f s)  peak RSS %4.0f MiB  %4.1fx the record\n' "$label" "$1" "$(echo "$2+$3" | bc -l)" \
		"$(echo "$4/1024" | bc -l)" "$(echo "$4*1024/$(record "$file")" | bc -l)"
}

for r in $(seq "$RUNS"); do
	for f in str vals many; do
		timed "round $r floor $f" "$W/$f.jsonl" "$BENCH" floor -in "$W/$f.jsonl" -db "$W/run.db"
		for bin in "$@"; do
			timed "round $r $(basename "$bin") $f" "$W/$f.jsonl" "$bin" --db "$W/run.db" import --max-record 200MB "$W/$f.jsonl"
		done
	done
	for bin in "$@"; do
		timed "round $r $(basename "$bin") str --no-score" "$W/str.jsonl" "$bin" --db "$W/run.db" import --no-score --max-record 200MB "$W/str.jsonl"
	done
done

# What each build stored: the same bodies and scores.
for f in str vals many; do
	for bin in "$@"; do
		rm -f "$W/run.db" "$W/run.db"-*
		"$bin" --db "$W/run.db" import --max-record 200MB "$W/$f.jsonl" >/dev/null 2>&1
		printf '%-5s %-20s %s\n' "$f" "$(basename "$bin")" "$(python3 -c '
import hashlib, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
# A body over 4 MiB is stored in parts since 0045: the whole body is hashed.
parts = db.execute("SELECT count(*) FROM sqlite_master WHERE name = ?", ("step_body_parts",)).fetchone()[0]
def whole(pk, body):
    if not parts:
        return body
    return body + "".join(p for (p,) in db.execute("SELECT part FROM step_body_parts WHERE trace_pk = ? ORDER BY seq", (pk,)))
h = hashlib.sha256()
for tid, pk, kind, body in db.execute("SELECT t.trace_id, b.trace_pk, typeof(b.body), b.body FROM step_bodies b JOIN traces t ON t.id = b.trace_pk ORDER BY 1"):
    h.update(repr((tid, kind, whole(pk, body))).encode())
print("bodies", h.hexdigest()[:16], end="  ")
h = hashlib.sha256()
cur = db.execute("SELECT t.trace_id, s.* FROM scores s JOIN traces t ON t.id = s.trace_pk ORDER BY 1")
# scores.confirmed (0041) is derived from the case, and older builds lack it.
keep = [i for i, d in enumerate(cur.description) if d[0] != "confirmed"]
for row in cur:
    h.update(repr(tuple(row[i] for i in keep)).encode())
print("scores", h.hexdigest()[:16], end="  ")' "$W/run.db")"
	done
done
rm -f "$W/run.db" "$W/run.db"-*
