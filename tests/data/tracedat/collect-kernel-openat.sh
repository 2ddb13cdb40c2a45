#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Make kernel-openat.dat (tests/unit/cmd-export): a kernel recording, as root, in a tracefs
# instance of our own (removed after), of one shell and its children (set_event_pid,
# event-fork): openat enter/exit, sched_process_exec (a __data_loc filename) and
# sched_process_exit; `trace-cmd extract -B`, converted to version 6, trimmed by trim-v6.py
# to those four formats and 4 pages per CPU.
set -e
here=$(cd "$(dirname "$0")" && pwd)
name=evt-export-golden-$$
inst=/sys/kernel/tracing/instances/$name
tmp=$(mktemp -d)
trap 'rmdir "$inst" 2>/dev/null || true; rm -rf "$tmp"' EXIT
mkdir "$inst"
echo 64 > "$inst/buffer_size_kb"
echo 1 > "$inst/options/event-fork"
sh -c "
	echo \$\$ > $inst/set_event_pid
	for e in syscalls/sys_enter_openat syscalls/sys_exit_openat sched/sched_process_exec \
		 sched/sched_process_exit; do
		echo 1 > $inst/events/\$e/enable
	done
	cat /etc/hostname > /dev/null
	ls / > /dev/null
	cat /nonexistent 2> /dev/null || true
	echo 0 > $inst/tracing_on
"
trace-cmd extract -B "$name" -o "$tmp/k.v7" > "$tmp/log" 2>&1
trace-cmd convert --file-version 6 --compression none -i "$tmp/k.v7" -o "$tmp/k.dat" >> "$tmp/log" 2>&1
python3 "$here/trim-v6.py" "$tmp/k.dat" "$here/kernel-openat.dat" \
	syscalls:sys_enter_openat,syscalls:sys_exit_openat,sched:sched_process_exec,sched:sched_process_exit 4
