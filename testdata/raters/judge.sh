#!/bin/sh
# A judge for the tests (tracelab judge --judge 'sh testdata/raters/judge.sh'):
# it reads {"trace","score"} on stdin and takes the scorer's suggested class,
# except that it calls a semantic failure temporal, so it disagrees with
# tracelab somewhere; no class means grounded and correct. The first
# argument makes it misbehave on purpose: hang, flood, malformed, typo, fail.
in=$(cat)
case "$1" in
hang) sleep 30; exit 0 ;;
flood) yes '{"failure_class":null}'; exit 0 ;;
malformed) echo 'the trace looks fine to me'; exit 0 ;;
typo) echo '{"failure_clas":null,"correct":true,"grounded":true,"rationale":""}'; exit 0 ;;
fail) echo 'judge: model endpoint unreachable' >&2; exit 3 ;;
esac
class=$(printf '%s' "$in" | grep -o '"suggested_class":"[a-z]*"' | head -n 1 | cut -d'"' -f4)
case "$class" in
"") echo '{"failure_class":null,"correct":true,"grounded":true,"rationale":"no failure found"}' ;;
semantic) echo '{"failure_class":"temporal","correct":false,"grounded":false,"rationale":"the window looks wrong"}' ;;
*) printf '{"failure_class":"%s","correct":false,"grounded":false,"rationale":"agrees with the scorer"}\n' "$class" ;;
esac
