#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# install-check.sh BUILD_DIR - what `make install` puts down works for a user: install into a
# scratch DESTDIR, then build a small program with `pkg-config --cflags --libs evtrace` alone
# and run it against the installed libevtrace.so. Exit 0 / 1 / 77 (no pkg-config).
build=${1:?usage: install-check.sh BUILD_DIR}
cc=${CC:-cc}
command -v pkg-config >/dev/null || { echo "SKIP: pkg-config not found"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

DESTDIR=$tmp/root cmake --install "$build" >"$tmp/install.log" 2>&1 || {
	cat "$tmp/install.log"
	exit 1
}
pc=$(find "$tmp/root" -name evtrace.pc | head -1)
[ -n "$pc" ] || { echo "evtrace.pc was not installed"; exit 1; }
for f in evtrace.h ring_buffer.h clock.h error.h version.h; do
	[ -n "$(find "$tmp/root" -path "*/include/evtrace/$f")" ] || { echo "no $f"; exit 1; }
done

cat >"$tmp/prog.c" <<'PROG'
#include <stdio.h>
#include <string.h>
#include <evtrace/evtrace.h>

int main(void)
{
	struct evt_ring_buffer_event *ev;
	struct evt_ring_buffer *rb;
	unsigned int got = 0;
	uint64_t ts, v = 42;

	if (evt_ring_buffer_alloc(1 << 16, 0, &rb))
		return 1;
	ev = evt_ring_buffer_lock_reserve(rb, sizeof(v));
	if (!ev)
		return 1;
	memcpy(evt_ring_buffer_event_data(ev), &v, sizeof(v));
	evt_ring_buffer_unlock_commit(rb, ev);
	for (int cpu = 0; cpu < evt_ring_buffer_nr_cpus(rb); cpu++)
		while ((ev = evt_ring_buffer_consume(rb, cpu, &ts, NULL)))
			got += !memcmp(evt_ring_buffer_event_data(ev), &v, sizeof(v));
	evt_ring_buffer_free(rb);
	printf("evtrace %s: %u event back\n", EVTRACE_VERSION, got);
	return got == 1 ? 0 : 1;
}
PROG

# PKG_CONFIG_SYSROOT_DIR puts the DESTDIR in front of the -I and -L paths of evtrace.pc
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$tmp/root \
	pkg-config --cflags --libs evtrace) || exit 1
echo "pkg-config: $flags"
# shellcheck disable=SC2086 # flags are words
$cc -std=c11 -Wall -Wextra -Werror "$tmp/prog.c" -o "$tmp/prog" $flags || exit 1
libdir=$(dirname "$(find "$tmp/root" -name 'libevtrace.so.*' | head -1)")
LD_LIBRARY_PATH=$libdir "$tmp/prog"
