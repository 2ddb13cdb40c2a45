#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/lttng-session.sh BINARY [ARGS...] - run bench/lttng with LTTng-UST's tracepoint
# evtbench:ev16 enabled, in a snapshot session (overwrite buffers; nothing is written to disk
# since no snapshot is taken) of a session daemon: the one running, or one started here (as a
# child, stopped at the end). bench/lttng runs this script itself when lttng(1) and
# lttng-sessiond(8) are installed (Debian: lttng-tools). When the session cannot be made,
# BINARY runs with the tracepoint off, and says so.
set -u
bin=$1
shift
sess="evtbench-$$"
dir=$(mktemp -d "${TMPDIR:-/tmp}/evtbench-lttng.XXXXXX") || exit 1
daemon=

cleanup()
{
	lttng --no-sessiond destroy "$sess" >/dev/null 2>&1
	if [ -n "$daemon" ]; then
		kill "$daemon" 2>/dev/null
		wait "$daemon" 2>/dev/null
	fi
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

if ! lttng --no-sessiond list >/dev/null 2>&1; then
	lttng-sessiond --no-kernel >"$dir/sessiond.log" 2>&1 &
	daemon=$!
	i=0
	while ! lttng --no-sessiond list >/dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -gt 50 ] || ! kill -0 "$daemon" 2>/dev/null; then
			echo "lttng-session: no session daemon (see below); the tracepoint stays off"
			cat "$dir/sessiond.log"
			break
		fi
		sleep 0.1
	done
fi
state=off
if lttng --no-sessiond create "$sess" --snapshot --output="$dir/out" >/dev/null &&
	lttng --no-sessiond enable-event --userspace --session="$sess" evtbench:ev16 >/dev/null &&
	lttng --no-sessiond start "$sess" >/dev/null; then
	state=$sess
fi
EVT_BENCH_LTTNG_SESSION=$state "$bin" "$@"
ret=$?
lttng --no-sessiond stop "$sess" >/dev/null 2>&1
exit $ret
