#!/usr/bin/env bash
# tui_e2e.sh: drive the tracelab workbench in a real terminal (tmux) from a
# plan read on stdin, capturing the screen as it goes.
#
#   scripts/tui_e2e.sh [-s COLSxROWS] [-t SECONDS] -- COMMAND [ARGS...] < plan
#
# The plan has one instruction per line (blank lines and # comments skipped):
#   wait TEXT        until the screen shows TEXT (fails after the timeout)
#   send KEY...      tmux send-keys names: Enter Escape Tab j k ] C-p …
#   type TEXT        literal text
#   capture FILE     write the visible screen to FILE
#   sleep SECONDS
#   kill             SIGKILL the program (no quit, no cleanup)
#   quit             send q and wait until the program exits with status 0
#   gone TEXT        until the screen no longer shows TEXT (fails after the timeout;
#                    a lone Escape takes the terminal a moment to tell from a sequence)
#   run COMMAND      run a shell command (stop a server mid-session…)
#   ended            wait until the program exits (after a quit question) with status 0
#
# Example, after `go build -o tracelab .`:
#   printf 'wait traces\nsend Enter\nwait Steps\ncapture trace.txt\nquit\n' |
#     scripts/tui_e2e.sh -s 100x30 -- ./tracelab demo
set -euo pipefail

size=100x30
timeout=10
while [ $# -gt 0 ]; do
	case "$1" in
	-s) size=$2; shift 2 ;;
	-t) timeout=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "usage: $0 [-s COLSxROWS] [-t SECONDS] -- COMMAND [ARGS...] < plan" >&2; exit 2 ;;
	esac
done
[ $# -gt 0 ] || { echo "$0: no command" >&2; exit 2; }
command -v tmux >/dev/null || { echo "$0: tmux not found" >&2; exit 3; }

cols=${size%x*}
rows=${size#*x}
session="tracelab-e2e-$$"
sock="tracelab-e2e-$$"
tm() { tmux -L "$sock" "$@"; }
cleanup() { tm kill-server >/dev/null 2>&1 || true; }
trap cleanup EXIT

# Quote the command for the shell tmux starts.
cmd=""
for a in "$@"; do cmd+=" $(printf '%q' "$a")"; done
# The program's exit status goes to a file: tmux 3.3 can mark a pane dead
# before it has recorded #{pane_dead_status}, which made quit checks flaky.
statusfile=$(mktemp)
trap 'cleanup; rm -f "$statusfile"' EXIT
tm -f /dev/null new-session -d -s "$session" -x "$cols" -y "$rows" \
	"env TERM=xterm-256color $cmd; echo \$? > $(printf '%q' "$statusfile")"
tm set-option -t "$session" remain-on-exit on >/dev/null
shellpid=$(tm display-message -p -t "$session" '#{pane_pid}')
# The program is the shell's child; kill must reach it, not the shell.
pid=""
end=$((SECONDS + timeout))
until pid=$(pgrep -P "$shellpid" | head -n 1) && [ -n "$pid" ]; do
	[ $SECONDS -lt $end ] || { echo "$0: the program did not start" >&2; exit 1; }
	sleep 0.02
done

screen() { tm capture-pane -p -t "$session"; }
dead() { [ "$(tm display-message -p -t "$session" '#{pane_dead}')" = 1 ]; }

wait_for() {
	local text=$1 end=$((SECONDS + timeout))
	until screen | grep -qF -- "$text"; do
		if [ $SECONDS -ge $end ]; then
			echo "$0: timed out waiting for: $text" >&2
			screen >&2
			exit 1
		fi
		if dead; then
			echo "$0: program exited while waiting for: $text" >&2
			screen >&2
			exit 1
		fi
		sleep 0.05
	done
}

while IFS= read -r line || [ -n "$line" ]; do
	case "$line" in '' | '#'*) continue ;; esac
	op=${line%% *}
	arg=""
	[ "$op" != "$line" ] && arg=${line#* }
	case "$op" in
	wait) wait_for "$arg" ;;
	send) # shellcheck disable=SC2086
		tm send-keys -t "$session" $arg ;;
	type) tm send-keys -t "$session" -l -- "$arg" ;;
	capture) screen >"$arg" ;;
	sleep) sleep "$arg" ;;
	kill) kill -9 "$pid"
		end=$((SECONDS + timeout))
		until dead; do [ $SECONDS -lt $end ] || { echo "$0: program survived SIGKILL" >&2; exit 1; }; sleep 0.05; done ;;
	quit) tm send-keys -t "$session" q
		end=$((SECONDS + timeout))
		until dead; do [ $SECONDS -lt $end ] || { echo "$0: program did not quit" >&2; screen >&2; exit 1; }; sleep 0.05; done
		status=$(cat "$statusfile")
		[ "$status" = 0 ] || { echo "$0: program exited with status '$status'" >&2; screen >&2; exit 1; } ;;
	run) bash -c "$arg" >/dev/null 2>&1 || { echo "$0: failed: $arg" >&2; exit 1; } ;;
	ended) end=$((SECONDS + timeout))
		until dead; do [ $SECONDS -lt $end ] || { echo "$0: program did not end" >&2; screen >&2; exit 1; }; sleep 0.05; done
		status=$(cat "$statusfile")
		[ "$status" = 0 ] || { echo "$0: program exited with status '$status'" >&2; screen >&2; exit 1; } ;;
	gone) end=$((SECONDS + timeout))
		while screen | grep -qF -- "$arg"; do [ $SECONDS -lt $end ] || { echo "$0: still on screen: $arg" >&2; screen >&2; exit 1; }; sleep 0.05; done ;;
	*) echo "$0: unknown instruction: $line" >&2; exit 2 ;;
	esac
done
