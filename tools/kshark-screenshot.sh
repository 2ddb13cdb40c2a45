#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tools/kshark-screenshot.sh FILE.dat OUT.png [SECONDS] - open a trace.dat in KernelShark on a
# private virtual display (Xvfb), wait SECONDS (8) for it to load, save a screenshot of the
# screen as OUT.png (trimmed to the window), and stop what it started. As root, KernelShark
# runs as user nobody (as root it first shows a modal "running with Root privileges" box).
# Exit 77 when Xvfb, kernelshark or ImageMagick's import is missing (apt-get install xvfb
# kernelshark imagemagick). Its messages (e.g. 'plugin "sched_events" failed to initialize',
# harmless) go to OUT.png.log.
set -eu
if [ $# -lt 2 ]; then
	sed -n '4,10s/^# \{0,1\}//p' "$0"
	exit 2
fi
dat=$1
out=$2
secs=${3:-8}
for c in Xvfb kernelshark import; do
	if ! command -v $c >/dev/null 2>&1; then
		echo "SKIP: $c not installed (apt-get install xvfb kernelshark imagemagick)"
		exit 77
	fi
done
[ -r "$dat" ] || { echo "$dat: not readable"; exit 1; }

n=90
while [ -e /tmp/.X$n-lock ] || [ -e /tmp/.X11-unix/X$n ]; do
	n=$((n + 1))
done
tmp=$(mktemp -d /tmp/kshark-shot.XXXXXX)
xpid=
kpid=
cleanup()
{
	set +e
	if [ -n "$kpid" ]; then
		kill "$kpid" 2>/dev/null
		wait "$kpid" 2>/dev/null
	fi
	if [ -n "$xpid" ]; then
		kill "$xpid" 2>/dev/null
		wait "$xpid" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
mkdir "$tmp/home"
cp "$dat" "$tmp/trace.dat"
chmod 755 "$tmp"
chmod 644 "$tmp/trace.dat"

Xvfb :$n -ac -nolisten tcp -screen 0 1600x900x24 >"$tmp/xvfb.log" 2>&1 &
xpid=$!
i=0
until [ -e /tmp/.X11-unix/X$n ]; do
	i=$((i + 1))
	if [ $i -gt 50 ]; then
		echo "Xvfb :$n did not start:"; cat "$tmp/xvfb.log"; exit 1
	fi
	sleep 0.1
done

if [ "$(id -u)" = 0 ]; then
	chown nobody "$tmp/home"
	chmod 700 "$tmp/home"
	# setpriv execs kernelshark itself: $! is its pid
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env HOME="$tmp/home" XDG_RUNTIME_DIR="$tmp/home" DISPLAY=:$n \
		kernelshark "$tmp/trace.dat" >"$out.log" 2>&1 &
else
	chmod 700 "$tmp/home"
	env HOME="$tmp/home" XDG_RUNTIME_DIR="$tmp/home" DISPLAY=:$n \
		kernelshark "$tmp/trace.dat" >"$out.log" 2>&1 &
fi
kpid=$!
sleep "$secs"
if ! kill -0 "$kpid" 2>/dev/null; then
	echo "kernelshark exited early:"; cat "$out.log"; kpid=; exit 1
fi
DISPLAY=:$n import -window root -trim +repage "$out"
echo "$out: screenshot of kernelshark $dat (log: $out.log)"
