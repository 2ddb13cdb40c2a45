#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tls-budget.sh LIBEVTRACE.so [BUDGET] - the library's thread-local storage fits a budget (64
# bytes by default). A library with initial-exec TLS takes its whole TLS block from the static
# TLS surplus glibc keeps for modules loaded later (a few hundred bytes, shared by all of them),
# so more than a few dozen bytes and `dlopen()` fails with "cannot allocate memory in static TLS
# block" (LTTng-UST's rule; README "Loading the library with dlopen()"). Then, when python3 is
# there and the library is not sanitized (EVT_TLS_PYTHON=1), the one-line check of a user:
# ctypes.CDLL() of the library.
lib=$1
budget=${2:-64}
if ! command -v readelf >/dev/null 2>&1; then
	echo "SKIP: no readelf"
	exit 77
fi
[ -f "$lib" ] || { echo "FAIL: no $lib"; exit 1; }
# "  TLS  0x... 0x... 0x... 0x000000 0x000028 R   0x8": FileSiz, then MemSiz (.tdata + .tbss)
size=$(readelf -lW "$lib" | awk '$1 == "TLS" { print $6 }')
if [ -z "$size" ]; then
	echo "tls-budget: $lib has no PT_TLS segment"
	size=0x0
fi
bytes=$(printf '%d' "$size")
echo "tls-budget: PT_TLS of $lib is $bytes bytes (budget $budget)"
if [ "$bytes" -gt "$budget" ]; then
	echo "FAIL: $bytes bytes of TLS; the thread-local variables of the library:"
	readelf -sW "$lib" | awk '$4 == "TLS" && $3 > 0 { print "  " $8 ": " $3 " bytes" }'
	exit 1
fi
if [ "${EVT_TLS_PYTHON:-0}" = 1 ] && command -v python3 >/dev/null 2>&1; then
	if ! python3 -c "import ctypes, sys; ctypes.CDLL(sys.argv[1])" "$lib"; then
		echo "FAIL: python3 ctypes.CDLL($lib)"
		exit 1
	fi
	echo "tls-budget: python3 ctypes.CDLL() loads it"
fi
exit 0
