#!/bin/sh
# The issue's probe for long writers: three 50k-trace imports into one new
# database at once. Each must land whole; the wait for the lock is printed
# from the import stamps. Usage: scripts/probe_concurrent_imports.sh [N]
# (N traces per file, default 50000). Needs python3 and about 1 GB in $TMPDIR.
set -eu
n=${1:-50000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
root=$(cd "$(dirname "$0")/.." && pwd)
(cd "$root" && go build -o "$dir/tracelab" .)
python3 - "$root/testdata/traces/generic-warehouse.jsonl" "$dir" "$n" <<'PY'
import json, sys
src = [json.loads(l) for l in open(sys.argv[1])]
for k in range(3):
    with open(f"{sys.argv[2]}/big{k}.jsonl", "w") as f:
        for i in range(int(sys.argv[3])):
            t = dict(src[i % len(src)]); t["trace_id"] = f"b{k}_{i}"
            f.write(json.dumps(t) + "\n")
PY
cd "$dir"
for k in 0 1 2; do
  ( /usr/bin/time -f "big$k: %e s, peak %M KB" ./tracelab import --no-score --db three.db big$k.jsonl; echo "big$k: exit $?" ) &
done
wait
python3 - <<'PY'
import sqlite3
c = sqlite3.connect("three.db")
print("traces:", c.execute("select count(*) from traces").fetchone()[0])
for f, lo, hi in c.execute("select source_file, min(imported_at), max(imported_at) from traces group by source_file order by 2"):
    print(f, "writer started", lo)
for p, at in c.execute("select path, imported_at from imports order by 2"):
    print(p, "committed", at)
PY
