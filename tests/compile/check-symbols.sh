#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# check-symbols.sh LIBEVTRACE.so [INCLUDE_DIR...] - the shared library exports evt_* and
# nothing else (evtrace.map makes the rest local), none evt__*, every one of them in a version
# node and declared in a public header (include/evtrace/, and the generated headers' directory
# if given).
lib=${1:?usage: check-symbols.sh libevtrace.so [include-dir...]}
shift
incs="$(dirname "$0")/../../include/evtrace $*"
command -v nm >/dev/null || { echo "SKIP: nm (binutils) not found"; exit 77; }
syms=$(nm -D --defined-only "$lib") || exit 1
# type A is the version node itself (EVTRACE_0.1)
bad=$(echo "$syms" | awk '$2 != "A" && $3 !~ /^evt_/ { print $3 }')
if [ -n "$bad" ]; then
	echo "exported, but not evt_*:"
	echo "$bad"
	exit 1
fi
# the kernel's "__" (the caller provides exclusion) is spelled out in our names
bad=$(echo "$syms" | awk '$3 ~ /^evt__/ { print $3 }')
if [ -n "$bad" ]; then
	echo "exported with evt__ (name the guarantee instead: evt_relay_write_serialized):"
	echo "$bad"
	exit 1
fi
n=$(echo "$syms" | awk '$3 ~ /^evt_/' | wc -l)
if [ "$n" -eq 0 ]; then
	echo "no evt_* symbol exported"
	exit 1
fi
unversioned=$(nm -D --defined-only --with-symbol-versions "$lib" 2>/dev/null |
	awk '$3 ~ /^evt_/ && $3 !~ /@@?EVTRACE_/ { print $3 }')
if [ -n "$unversioned" ]; then
	echo "exported without a version (evtrace.map):"
	echo "$unversioned"
	exit 1
fi
undeclared=$(echo "$syms" | awk '$3 ~ /^evt_/ { sub(/@.*/, "", $3); print $3 }' |
	while read -r s; do
		# shellcheck disable=SC2086 # $incs: a list of directories
		grep -rqw -- "$s" $incs 2>/dev/null || echo "$s"
	done)
if [ -n "$undeclared" ]; then
	echo "exported, but declared in no header of include/evtrace/:"
	echo "$undeclared"
	exit 1
fi
echo "exported: $n evt_* symbols, all versioned, all declared in include/evtrace/"
