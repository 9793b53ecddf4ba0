# bench/pgserver.sh, sourced by bench/pg.sh and bench/labelersab.sh: where
# PostgreSQL's programs are, and a private server like store/pgtest's
# (unix socket only, no fsync), stopped when the sourcing script exits.

# pgbin NAME: a PostgreSQL program, on PATH or in the newest
# /usr/lib/postgresql/*/bin (as pgtest.Bin looks).
pgbin() {
	command -v "$1" 2>/dev/null && return
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n | tail -1)
	[ -n "$d" ] && [ -x "$d/$1" ] && { echo "$d/$1"; return; }
	echo "$(basename "$0"): $1 not found (apt-get install postgresql)" >&2
	exit 2
}

# as runs a server program as the user postgres when we are root.
as=()
[ "$(id -u)" = 0 ] && as=(runuser -u postgres --)

# cleanup holds commands the EXIT trap runs.
cleanup=()
trap 'for c in "${cleanup[@]}"; do eval "$c"; done' EXIT

# pg_private DIR [-c NAME=VALUE...]: a new server in DIR, its socket there,
# with the extra settings given; stopped on exit.
pg_private() {
	local s=$1; shift
	rm -rf "$s"
	mkdir -p "$s"
	[ ${#as[@]} -gt 0 ] && chown postgres "$s"
	"${as[@]}" "$(pgbin initdb)" -D "$s/data" --auth=trust --username=postgres --encoding=UTF8 --no-sync >/dev/null
	"${as[@]}" "$(pgbin pg_ctl)" -D "$s/data" -l "$s/log" -w -t 60 \
		-o "-k $s -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off $*" start >/dev/null
	cleanup+=("${as[*]} '$(pgbin pg_ctl)' -D '$s/data' -m immediate -w stop >/dev/null 2>&1 || true")
}

# pg_cpu DIR: CPU seconds (user and system) of the server in DIR's ended
# backends, the postmaster's reaped children. Read it after pg_settled:
# a backend's time is counted once it is reaped, some time after its
# client has gone.
pg_cpu() {
	awk -v t="$(getconf CLK_TCK)" '{print ($16+$17)/t}' "/proc/$(head -1 "$1/data/postmaster.pid")/stat"
}

# pg_settled DIR: waits until the server in DIR has no client connection
# but the asking one, so that the backends of what ran before have ended
# and pg_cpu counts them.
pg_settled() {
	until [ "$("${as[@]}" "$(pgbin psql)" -h "$1" -U postgres -d postgres -qAt -c \
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")" = 0 ]; do
		sleep 0.05
	done
}
