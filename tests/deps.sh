#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/deps.sh [--list] - the Debian packages the build and `make check` need. As root, install
# the missing ones (one apt-get update, one apt-get install -y); otherwise say what is missing
# and go on: the stages that need them print SKIP. --list prints the list.
#
# The one list (used by make check, make deps and .ci/run):
#   cmake make gcc g++ libc6-dev   the default build; g++ for the C++17 header checks
#   clang libclang-rt-14-dev       ASan/UBSan, TSan and libFuzzer stages (clang 14 runtimes)
#   llvm                           llvm-symbolizer: sanitizer reports with file:line
#   binutils                       nm, for the exported-symbols check
#   pkg-config                     to check the installed evtrace.pc
#   libfuse3-dev fuse3             the control file system (evtrace mount)
#   libzydis-dev                   probe events (src/probe/): the x86-64 instruction decoder
#                                  that measures and relocates the instructions a probe displaces
#   man-db                         the man pages are rendered by man in make check
#   trace-cmd libtraceevent-dev    test oracles only: trace.dat files and event formats are
#                                  checked with them; nothing links them
#   kernelshark                    test oracle only: unit/tracedat-kshark dlopen()s its
#                                  libkshark.so.2 (Debian 12: 39 packages with Qt 5, 25.5 MB
#                                  download, 115 MB installed, 18 s from a warm apt cache)
#   liblttng-ust-dev lttng-tools   make bench only: bench/lttng measures LTTng-UST's tracepoint,
#                                  enabled in a session of lttng-sessiond, next to evtrace's
#                                  (without them it skips, or measures LTTng's disabled one)
#   babeltrace2 python3-bt2        test oracles only: unit/ctf-export reads our CTF traces
#                                  with them (the CLI and the Python bindings)
#   iproute2                       unit/fleet-netns makes network namespaces with `ip netns`
DEB_PACKAGES="cmake make gcc g++ libc6-dev clang libclang-rt-14-dev llvm binutils pkg-config
	libfuse3-dev fuse3 libzydis-dev man-db trace-cmd libtraceevent-dev kernelshark
	liblttng-ust-dev lttng-tools babeltrace2 python3-bt2 iproute2"
# The aarch64 cross stage, best effort (a failure here only makes that stage SKIP): the cross
# compilers, the arm64 glibc after `dpkg --add-architecture arm64` (libc6:arm64, the multiarch
# glibc the tests run with), and qemu-user, whose qemu-aarch64 runs the stage's few tests (the
# probe mechanism's aarch64 instructions, tests/unit/probe-arm64.c, and some ring buffer tests),
# with libstdc++6:arm64 for the C++ one among them (tests/unit/probe-unwind.c).
CROSS_PACKAGES="gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6:arm64 qemu-user
	libstdc++6:arm64"

if [ "${1:-}" = --list ]; then
	echo "$DEB_PACKAGES"
	echo "$CROSS_PACKAGES (cross stage, optional)"
	exit 0
fi
if ! command -v dpkg-query >/dev/null; then
	echo "deps: not a Debian system; needs: $DEB_PACKAGES (or their equivalents)"
	exit 0
fi

# missing PACKAGES...: the ones not installed
missing()
{
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			printf ' %s' "$p"
	done
}

# shellcheck disable=SC2086 # one package per word
missing=$(missing $DEB_PACKAGES)
# shellcheck disable=SC2086
cross_missing=$(missing $CROSS_PACKAGES)
[ -z "$missing$cross_missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	[ -n "$missing" ] && echo "deps: missing Debian packages:$missing"
	[ -n "$cross_missing" ] && echo "deps: missing for the aarch64 cross stage:$cross_missing"
	echo "deps: as root: apt-get install$missing$cross_missing (stages that need them will SKIP)"
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
if [ -n "$cross_missing" ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
	dpkg --add-architecture arm64 || echo "deps: cannot add the arm64 architecture"
fi
apt-get update -qq </dev/null || echo "deps: apt-get update failed"
if [ -n "$missing" ]; then
	echo "deps: installing:$missing"
	# shellcheck disable=SC2086 # one package per word
	if ! apt-get install -y -qq $missing </dev/null; then
		echo "deps: apt-get failed; install by hand:$missing"
		exit 1
	fi
fi
if [ -n "$cross_missing" ]; then
	echo "deps: installing for the aarch64 cross stage:$cross_missing"
	# shellcheck disable=SC2086 # one package per word
	apt-get install -y -qq $cross_missing </dev/null ||
		echo "deps: could not install$cross_missing: the cross stage will SKIP"
fi
exit 0
