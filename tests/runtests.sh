#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/runtests.sh - run test programs without ctest.
#
#   tests/runtests.sh [-t SECONDS] [-l LOOPS] [-j JOBS] [-v|-q] TEST|DIR... [-- ARGS...]
#
#   TEST     a test program; DIR: every executable file in it (build/tests/unit)
#   -t SECS  kill a run after SECS seconds and count it failed (default 60, 0: never)
#   -l N     run each program N times, stopping at its first failure or skip (default 1)
#   -j N     run N programs at once (default 1)
#   -v       print every program's output (default: only a failing one's, its last 50 lines)
#   -q       print only failures and the summary
#   -- ARGS  arguments for every program, e.g. -- -d 60 for the stress tests
#
# Exit status of a program: 0 PASS, 77 SKIP, anything else (a signal, a timeout) FAIL.
# The last line is "N passed, N failed, N skipped", counting programs; the exit status is 1
# when something failed, 2 for bad usage.
#
# Examples:
#   tests/runtests.sh -j 2 build/tests/unit
#   tests/runtests.sh -l 20 -t 300 build/tests/stress -- -d 10
#   T_SEED=1234 tests/runtests.sh build/tests/stress/rb-torture     (t_rand's seed)
set -u

usage()
{
	sed -n '4,23s/^# \{0,1\}//p' "$0"
}

timeout_s=60
loops=1
jobs=1
verbose=0
quiet=0
tests=()
args=()

while [ $# -gt 0 ]; do
	case $1 in
	-t | -l | -j)
		if [ $# -lt 2 ] || ! [[ $2 =~ ^[0-9]+$ ]]; then
			echo "runtests.sh: $1 needs a number" >&2
			exit 2
		fi
		case $1 in
		-t) timeout_s=$2 ;;
		-l) loops=$2 ;;
		-j) jobs=$2 ;;
		esac
		shift 2
		;;
	-v) verbose=1; shift ;;
	-q) quiet=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; args=("$@"); break ;;
	-*) echo "runtests.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
	*)
		if [ -d "$1" ]; then
			for f in "$1"/*; do
				[ -f "$f" ] && [ -x "$f" ] && tests+=("$f")
			done
		elif [ -e "$1" ]; then
			tests+=("$1")
		else
			echo "runtests.sh: $1: no such test" >&2
			exit 2
		fi
		shift
		;;
	esac
done
[ "$loops" -ge 1 ] || loops=1
[ "$jobs" -ge 1 ] || jobs=1
if [ ${#tests[@]} -eq 0 ]; then
	echo "runtests.sh: no test programs given" >&2
	usage >&2
	exit 2
fi
use_timeout=0
if [ "$timeout_s" -gt 0 ]; then
	if command -v timeout >/dev/null; then
		use_timeout=1
	else
		echo "runtests.sh: no timeout(1): running without a time limit" >&2
	fi
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/evt-runtests.XXXXXX") || exit 2
cleanup()
{
	local pids

	pids=$(jobs -p)
	# shellcheck disable=SC2086 # one pid per word
	[ -n "$pids" ] && kill $pids 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now()
{
	if [ -n "${EPOCHREALTIME:-}" ]; then
		echo "${EPOCHREALTIME/,/.}"
	else
		date +%s.%N
	fi
}

# "unit/rb-alloc" for build/tests/unit/rb-alloc: the name ctest gives it.
test_name()
{
	local dir

	dir=$(basename "$(dirname "$1")")
	echo "$dir/$(basename "$1")"
}

# run_one INDEX PROGRAM: run it up to $loops times; write the result to $tmp/INDEX.st as
# "STATUS|detail|seconds" (renamed into place last, so a complete file means done).
run_one()
{
	local i=$1 prog=$2 log=$tmp/$1.log
	local rc=0 run=0 t0 t1 status detail=""

	t0=$(now)
	: >"$log"
	while [ $run -lt "$loops" ]; do
		run=$((run + 1))
		[ "$loops" -gt 1 ] && echo "---- run $run/$loops" >>"$log"
		if [ $use_timeout = 1 ]; then
			timeout -k 5 "$timeout_s" "$prog" ${args[@]+"${args[@]}"} >>"$log" 2>&1 </dev/null
		else
			"$prog" ${args[@]+"${args[@]}"} >>"$log" 2>&1 </dev/null
		fi
		rc=$?
		[ $rc -ne 0 ] && break
	done
	t1=$(now)
	case $rc in
	0) status=PASS ;;
	77)
		status=SKIP
		detail=$(grep -m1 -i 'skip' "$log" | sed -E 's/^[[:space:]]*(SKIP:?)?[[:space:]]*//I')
		[ -n "$detail" ] || detail=$(head -1 "$log")
		;;
	*)
		status=FAIL
		if [ $use_timeout = 1 ] && { [ $rc -eq 124 ] || [ $rc -eq 137 ]; }; then
			detail="timed out after ${timeout_s} s"
		elif [ $rc -gt 128 ]; then
			detail="killed by signal $((rc - 128)) (SIG$(kill -l $((rc - 128)) 2>/dev/null))"
		else
			detail="exit status $rc"
		fi
		[ "$loops" -gt 1 ] && detail="$detail, run $run of $loops"
		;;
	esac
	printf '%s|%s|%s\n' "$status" "$detail" "$(awk -v a="$t0" -v b="$t1" \
		'BEGIN { printf "%.2f", b - a }')" >"$tmp/$i.st.new"
	mv "$tmp/$i.st.new" "$tmp/$i.st"
}

passed=0
failed=0
skipped=0
declare -A reported=()

# Print every finished program not printed yet, in the order they finished being noticed.
report()
{
	local i status detail secs name

	for i in "${!tests[@]}"; do
		[ -n "${reported[$i]:-}" ] && continue
		[ -f "$tmp/$i.st" ] || continue
		reported[$i]=1
		IFS='|' read -r status detail secs <"$tmp/$i.st"
		name=$(test_name "${tests[$i]}")
		case $status in
		PASS)
			passed=$((passed + 1))
			[ $quiet = 1 ] || printf 'PASS  %-32s %6s s\n' "$name" "$secs"
			[ $verbose = 1 ] && sed 's/^/      | /' "$tmp/$i.log"
			;;
		SKIP)
			skipped=$((skipped + 1))
			[ $quiet = 1 ] || printf 'SKIP  %-32s %6s s  %s\n' "$name" "$secs" "$detail"
			[ $verbose = 1 ] && sed 's/^/      | /' "$tmp/$i.log"
			;;
		*)
			failed=$((failed + 1))
			printf 'FAIL  %-32s %6s s  %s\n' "$name" "$secs" "$detail"
			if [ $verbose = 1 ]; then
				sed 's/^/      | /' "$tmp/$i.log"
			else
				tail -n 50 "$tmp/$i.log" | sed 's/^/      | /'
			fi
			;;
		esac
	done
}

running=0
for i in "${!tests[@]}"; do
	if [ $running -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
		report
	fi
	run_one "$i" "${tests[$i]}" 2>/dev/null &	# (no "Segmentation fault" from bash)
	running=$((running + 1))
done
wait
report

echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
