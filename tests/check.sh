#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/check.sh - what `make check` runs, stage by stage:
#
#   default  $BUILD (cc):          unit, compile checks, fuzz corpus replay, examples in parallel,
#                                  then the stress tests, STRESS_SECONDS each, JOBS at a time
#   asan     $BUILD-asan (clang):  -fsanitize=address,undefined: unit, fuzz corpora, examples,
#                                  stress (no benchmarks built)
#   tsan     $BUILD-tsan (clang):  -fsanitize=thread with tests/tsan.supp: stress, unit, examples
#                                  (no benchmarks or corpus-replay programs built)
#   fuzz     $BUILD-fuzz (clang):  every libFuzzer target for FUZZ_SECONDS, seeded from
#                                  tests/fuzz/corpus/<name>/, JOBS targets at a time
#   cross    $BUILD-aarch64:       library, command, examples, benchmarks and stress tests
#                                  cross-compiled for aarch64 with -Werror
#                                  (cmake/aarch64-linux-gnu.cmake); SKIP without
#                                  aarch64-linux-gnu-gcc or libc6:arm64
#
# A stage whose compiler or sanitizer runtime is missing prints SKIP and counts one skip, never
# a pass. A build that fails counts one failure. The last line is the summary
# "N passed, N failed, N skipped" (test programs, all stages); exit status 1 if anything failed.
#
#   tests/check.sh                  all five stages (or those in $STAGES, e.g. STAGES="default tsan")
#   tests/check.sh --fuzz           the fuzz stage alone
#   tests/check.sh --stress         the stress tests alone, long: STRESS_SECONDS (default 60) each,
#                                   LOOPS times, in the trees of $STRESS_TREES (default "default";
#                                   "default asan tsan" for all three), through tests/runtests.sh
#   SOAK=600 tests/check.sh --stress   stress/soak alone for SOAK seconds (issue 11: writers, the
#                                   control socket, evtrace record and trace_pipe at once), LOOPS
#                                   times, in the trees of $STRESS_TREES
#
# Environment: BUILD (build), JOBS (nproc), STRESS_SECONDS, SOAK, FUZZ_SECONDS (6), LOOPS (1).
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
TOP=$PWD
BUILD=${BUILD:-build}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
FUZZ_SECONDS=${FUZZ_SECONDS:-6}
LOOPS=${LOOPS:-1}
STAGES=${STAGES:-default cross asan tsan fuzz}
STRESS_TREES=${STRESS_TREES:-default}
mode=all
case "${1:-}" in
--fuzz | --fuzz-only) mode=fuzz ;;
--stress | --stress-only) mode=stress ;;
"") ;;
*)
	sed -n '4,30s/^# \{0,1\}//p' "$0"
	exit 2
	;;
esac
if [ -n "${SOAK:-}" ] && ! [[ $SOAK =~ ^[0-9]+$ ]]; then
	echo "SOAK=$SOAK: give the soak's seconds (make check-stress SOAK=600)"
	exit 2
fi
if [ $mode = stress ]; then
	STRESS_SECONDS=${STRESS_SECONDS:-60}
else
	STRESS_SECONDS=${STRESS_SECONDS:-4}
fi

export TSAN_OPTIONS="suppressions=$TOP/tests/tsan.supp halt_on_error=1 second_deadlock_stack=1"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
SYMBOLIZER=$(command -v llvm-symbolizer ||
	find /usr/lib/llvm-*/bin -name llvm-symbolizer 2>/dev/null | sort -V | tail -1)
if [ -n "$SYMBOLIZER" ]; then
	export ASAN_SYMBOLIZER_PATH=$SYMBOLIZER
	export TSAN_OPTIONS="$TSAN_OPTIONS external_symbolizer_path=$SYMBOLIZER"
fi

passed=0
failed=0
skipped=0
failures=()
t_start=$SECONDS

stage_begin()
{
	stage_t0=$SECONDS
	stage_p=$passed stage_f=$failed stage_s=$skipped
	printf '\n==== %s\n' "$*"
}

stage_end()
{
	printf '==== [%s] passed %d, failed %d, skipped %d, %d s\n' "$1" $((passed - stage_p)) \
		$((failed - stage_f)) $((skipped - stage_s)) $((SECONDS - stage_t0))
}

skip_stage()
{
	echo "SKIP: $*"
	skipped=$((skipped + 1))
}

# build DIR CMAKE-ARGS...: configure and build (everything, or the targets in $BUILD_TARGETS); on
# failure count one failure and show why.
build()
{
	local dir=$1 rc t0=$SECONDS

	shift
	mkdir -p "$dir"
	cmake -S "$TOP" -B "$dir" -DEVT_STRESS_SECONDS="$STRESS_SECONDS" "$@" >"$dir/configure.log" 2>&1 &&
		cmake --build "$dir" -j "$JOBS" ${BUILD_TARGETS:+--target $BUILD_TARGETS} \
			>"$dir/build.log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "FAIL: build of $dir (logs: $dir/configure.log, $dir/build.log)"
		grep -h -E -B2 -A6 'error|Error' "$dir/configure.log" "$dir/build.log" | head -80
		failures+=("build $dir")
		failed=$((failed + 1))
	else
		echo "built $dir in $((SECONDS - t0)) s"
	fi
	return $rc
}

# run_ctest DIR TAG CTEST-ARGS...: run ctest, print one line per test, count the results from
# ctest's per-test status lines ("  3/40 Test  #7: unit/rb-alloc ....   Passed    0.05 sec").
run_ctest()
{
	local dir=$1 tag=$2 log p f s ft rc

	shift 2
	log=$dir/ctest-$tag.log
	(cd "$dir" && ${RUNWRAP:-} ctest --output-on-failure --no-tests=ignore "$@") >"$log" 2>&1
	rc=$?
	local status_re='^ *[0-9]+/[0-9]+ Test +#[0-9]+: '
	p=$(grep -cE "$status_re.* Passed +[0-9.]+ sec" "$log")
	s=$(grep -cE "$status_re.*\*\*\*Skipped" "$log")
	f=$(grep -E "$status_re" "$log" | grep -vcE ' Passed +[0-9.]+ sec|\*\*\*Skipped')
	grep -E "$status_re" "$log" | sed -E "s|$status_re|[$tag] |"
	if [ "$f" -gt 0 ]; then
		echo "---- [$tag] failures (full log: $log)"
		# ctest prints a failed test's output right after its status line
		awk -v re="$status_re" '
			/^ +Start +[0-9]+: / { next }
			$0 ~ re { p = ($0 !~ / Passed +[0-9.]+ sec/ && $0 !~ /\*\*\*Skipped/) }
			/^The following tests|^[0-9]+% tests passed/ { p = 0 }
			p' "$log" | head -300
		mapfile -t ft < <(grep -E "$status_re" "$log" |
			grep -vE ' Passed +[0-9.]+ sec|\*\*\*Skipped' | sed -E "s|$status_re([^ ]+).*|\1|")
		failures+=("${ft[@]/#/[$tag] }")
	elif [ $rc -ne 0 ]; then
		# ctest failed without a failed test: it could not run them at all
		echo "---- [$tag] ctest exited $rc without a failed test (full log: $log)"
		tail -20 "$log"
		failures+=("[$tag] ctest exit $rc")
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
}

# probe CC SANITIZER: can CC build a threaded program with -fsanitize=SANITIZER and run it?
# Sets RUNWRAP when it only runs with address space randomization off (TSan of clang < 18 on
# kernels with vm.mmap_rnd_bits > 28 dies with "unexpected memory mapping").
probe()
{
	local cc=$1 san=$2 dir rc

	command -v "$cc" >/dev/null || return 1
	dir=$(mktemp -d) || return 1
	if [ "$san" = fuzzer ]; then
		cat >"$dir/p.c" <<-'EOF'
		#include <stddef.h>
		#include <stdint.h>
		int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }
		EOF
		"$cc" -fsanitize=fuzzer,address,undefined "$dir/p.c" -o "$dir/p" >"$dir/log" 2>&1 &&
			"$dir/p" -runs=10 >>"$dir/log" 2>&1
		rc=$?
	else
		cat >"$dir/p.c" <<-'EOF'
		#include <pthread.h>
		static int x;
		static void *run(void *a) { x++; return a; }
		int main(void) { pthread_t t; pthread_create(&t, 0, run, 0); pthread_join(t, 0); return x - 1; }
		EOF
		"$cc" -pthread -fsanitize="$san" "$dir/p.c" -o "$dir/p" >"$dir/log" 2>&1
		rc=$?
		if [ $rc -eq 0 ]; then
			"$dir/p" >>"$dir/log" 2>&1
			rc=$?
			if [ $rc -ne 0 ] && setarch "$(uname -m)" -R "$dir/p" >/dev/null 2>&1; then
				RUNWRAP="setarch $(uname -m) -R"
				echo "note: $cc -fsanitize=$san runs only without ASLR: using $RUNWRAP"
				rc=0
			fi
		fi
	fi
	[ $rc -eq 0 ] || probe_log=$(head -5 "$dir/log")
	rm -rf "$dir"
	return $rc
}

# pick_cc SANITIZER: set PICK_CC and PICK_CXX to the first compiler pair that passes the probe
# (and RUNWRAP, see probe). clang first; gcc for ASan+UBSan only: gcc's TSan does not model
# atomic_thread_fence() (gcc -Wtsan) and reports races that our fences prevent.
pick_cc()
{
	local pair pairs=("clang clang++")

	PICK_CC='' PICK_CXX='' RUNWRAP='' probe_log=''
	[ "$1" = thread ] || pairs+=("gcc g++")
	for pair in "${pairs[@]}"; do
		command -v "${pair#* }" >/dev/null || continue
		if probe "${pair% *}" "$1"; then
			PICK_CC=${pair% *} PICK_CXX=${pair#* }
			return 0
		fi
	done
	return 1
}

stage_default()
{
	stage_begin "default build ($BUILD): unit, compile, fuzz corpora, examples; stress ${STRESS_SECONDS} s"
	if build "$BUILD"; then
		run_ctest "$BUILD" default -j "$JOBS" -LE stress
		run_ctest "$BUILD" default-stress -j "$JOBS" -L stress
	fi
	stage_end default
}

stage_asan()
{
	stage_begin "ASan + UBSan ($BUILD-asan)"
	if pick_cc address,undefined; then
		echo "compiler: $PICK_CC"
		if build "$BUILD-asan" -DCMAKE_C_COMPILER="$PICK_CC" -DCMAKE_CXX_COMPILER="$PICK_CXX" \
			-DEVT_SANITIZE=address,undefined -DEVT_BENCH=OFF; then
			run_ctest "$BUILD-asan" asan -j "$JOBS" -LE 'stress|compile'
			run_ctest "$BUILD-asan" asan-stress -j "$JOBS" -L stress
		fi
	else
		skip_stage "no compiler with the ASan+UBSan runtimes (libclang-rt-14-dev) ${probe_log:-}"
	fi
	stage_end asan
	RUNWRAP=
}

stage_tsan()
{
	stage_begin "TSan ($BUILD-tsan): stress, unit, examples"
	if pick_cc thread; then
		echo "compiler: $PICK_CC${RUNWRAP:+ (tests run under $RUNWRAP)}"
		if build "$BUILD-tsan" -DCMAKE_C_COMPILER="$PICK_CC" -DCMAKE_CXX_COMPILER="$PICK_CXX" \
			-DEVT_SANITIZE=thread -DEVT_BENCH=OFF -DEVT_FUZZ_REPLAY=OFF; then
			run_ctest "$BUILD-tsan" tsan-stress -j "$JOBS" -L stress
			run_ctest "$BUILD-tsan" tsan -j "$JOBS" -L 'unit|example'
		fi
	else
		skip_stage "clang with a working TSan runtime is not available ${probe_log:-}"
	fi
	stage_end tsan
	RUNWRAP=
}

# The unit tests the cross stage builds and runs under qemu-user: the probe mechanism's aarch64
# instructions (probe-arm64; probe-unwind: return probes through C++ exceptions, pthread_exit()
# and longjmp()), and one of the ring buffer's (its lockless code with the weaker memory model).
# Building them (the test library, three links) and running them add about 25 s on an idle
# 2-core machine (62 s of build under a load of 12, 5 s under qemu). The other unit tests run on
# the host only.
CROSS_RUN="probe-arm64 probe-unwind rb-write-read"

# cross_targets DIR: configure DIR and set CROSS_TARGETS to what the cross stage builds: the
# library (shared and static), the command, the examples, the benchmarks and the stress tests (the
# lockless code's torture tests), and the unit tests of CROSS_RUN. The ~200 other unit tests are
# host code around the same library and took most of the stage's time; they are built and run by
# the other stages.
cross_targets()
{
	mkdir -p "$1"
	cmake -S "$TOP" -B "$1" -DCMAKE_TOOLCHAIN_FILE="$TOP/cmake/aarch64-linux-gnu.cmake" \
		>"$1/configure.log" 2>&1 || return 0	# build() reports the failure
	CROSS_TARGETS="evtrace evtrace_static evtrace-cli $(cmake --build "$1" --target help |
		sed -n 's/^\.\.\. \(\(bench\|example\|stress\)-[^ ]*\).*/\1/p' | tr '\n' ' ')"
	CROSS_TARGETS="$CROSS_TARGETS $(printf 'unit-%s ' $CROSS_RUN)"
}

# cross_run DIR: the tests of CROSS_RUN under qemu-aarch64, with the arm64 libraries of the
# multiarch packages (/lib/aarch64-linux-gnu: libc6:arm64). Not with
# QEMU_LD_PREFIX=/usr/aarch64-linux-gnu: Debian 12's qemu 7.2 hangs in pthread_create() with
# the cross toolchain's copy of glibc (seen here; the multiarch glibc works).
cross_run()
{
	local t rc

	if ! command -v qemu-aarch64 >/dev/null; then
		skip_stage "qemu-aarch64 not installed (qemu-user): the aarch64 tests are built, not run"
		return
	fi
	for t in $CROSS_RUN; do
		env -u QEMU_LD_PREFIX timeout 120 qemu-aarch64 "$1/tests/unit/$t" \
			>"$1/tests/unit/$t.log" 2>&1
		rc=$?
		case $rc in
		0) passed=$((passed + 1)) ;;
		77) echo "[cross] SKIP: $t ($(tail -1 "$1/tests/unit/$t.log"))"
			skipped=$((skipped + 1)) ;;
		*) echo "FAIL: [cross] $t under qemu-aarch64 (exit $rc), log $1/tests/unit/$t.log:"
			tail -20 "$1/tests/unit/$t.log"
			failures+=("cross: $t")
			failed=$((failed + 1)) ;;
		esac
	done
	echo "[cross] ran under qemu-aarch64: $CROSS_RUN"
}

# Mostly compile-only: qemu-user could run the programs, but it hangs in fork() on some hosts
# (seen with Debian 12's qemu 7.2), and half the tests fork; the few of CROSS_RUN do run.
stage_cross()
{
	stage_begin "aarch64 cross build ($BUILD-aarch64), a few tests under qemu-user"
	if ! command -v aarch64-linux-gnu-gcc >/dev/null ||
		! command -v aarch64-linux-gnu-g++ >/dev/null; then
		skip_stage "aarch64-linux-gnu-gcc/g++ not installed (gcc-aarch64-linux-gnu)"
	elif ! [ -e /lib/aarch64-linux-gnu/libc.so.6 ]; then
		skip_stage "no arm64 glibc (dpkg --add-architecture arm64; libc6:arm64)"
	elif cross_targets "$BUILD-aarch64" &&
		BUILD_TARGETS=$CROSS_TARGETS build "$BUILD-aarch64" \
			-DCMAKE_TOOLCHAIN_FILE="$TOP/cmake/aarch64-linux-gnu.cmake"; then
		# the library is an aarch64 object (not a host build by mistake)
		if readelf -h "$BUILD-aarch64/libevtrace.so" 2>/dev/null | grep -q 'Machine:.*AArch64'
		then
			echo "[cross] libevtrace.so, evtrace and $(find "$BUILD-aarch64/tests" \
				"$BUILD-aarch64/examples" "$BUILD-aarch64/bench" -type f -perm -u+x |
				wc -l) programs built for aarch64"
			passed=$((passed + 1))
			cross_run "$BUILD-aarch64"
		else
			echo "FAIL: $BUILD-aarch64/libevtrace.so is not an aarch64 library"
			failures+=("cross: not aarch64")
			failed=$((failed + 1))
		fi
	fi
	stage_end cross
}

stage_fuzz()
{
	local dir=$BUILD-fuzz f name n=0 pids=() names=()

	stage_begin "libFuzzer ($dir): ${FUZZ_SECONDS} s per target, $JOBS at a time"
	if ! probe clang fuzzer; then
		skip_stage "clang with libFuzzer is not available ${probe_log:-}"
		stage_end fuzz
		return
	fi
	if ! build "$dir" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DEVT_FUZZ=ON; then
		stage_end fuzz
		return
	fi
	mkdir -p "$dir/artifacts"
	for f in "$dir"/tests/fuzz/*; do
		[[ -f $f && -x $f ]] || continue
		name=$(basename "$f")
		mkdir -p "$dir/corpus/$name" "$TOP/tests/fuzz/corpus/$name"
		# new inputs go to the first directory (the build's), the seeds are only read
		"$f" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
			-print_final_stats=1 -artifact_prefix="$dir/artifacts/$name-" \
			"$dir/corpus/$name" "$TOP/tests/fuzz/corpus/$name" >"$dir/fuzz-$name.log" 2>&1 &
		pids+=("$!")
		names+=("$name")
		n=$((n + 1))
		if [ $n -ge "$JOBS" ]; then
			fuzz_collect
			n=0
		fi
	done
	fuzz_collect
	stage_end fuzz
}

# wait for the fuzzers in pids[] and count them
fuzz_collect()
{
	local i rc name log runs

	for i in "${!pids[@]}"; do
		wait "${pids[$i]}"
		rc=$?
		name=${names[$i]}
		log=$BUILD-fuzz/fuzz-$name.log
		runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$')
		if [ $rc -eq 0 ]; then
			echo "[fuzz] $name: ${runs:-?} inputs, corpus $(find "$BUILD-fuzz/corpus/$name" -type f |
				wc -l) files: Passed"
			passed=$((passed + 1))
		else
			echo "[fuzz] $name: ***Failed (exit $rc; log: $log)"
			grep -E -A40 'ERROR:|SUMMARY:|Test unit written' "$log" | head -80
			echo "reproduce: $BUILD-fuzz/tests/fuzz/$name <artifact>   (or $BUILD/tests/fuzz/$name <artifact>)"
			failures+=("fuzz $name")
			failed=$((failed + 1))
		fi
	done
	pids=()
	names=()
}

# --stress: the stress programs, long and in a loop, through tests/runtests.sh
stress_long()
{
	local tree dir san args out p f s

	for tree in $STRESS_TREES; do
		dir=$BUILD args=() RUNWRAP=
		case $tree in
		default) ;;
		asan | tsan)
			dir=$BUILD-$tree
			san=address,undefined
			[ "$tree" = tsan ] && san=thread
			if ! pick_cc $san; then
				skip_stage "$tree: no compiler with a working $san runtime ${probe_log:-}"
				continue
			fi
			args=(-DCMAKE_C_COMPILER="$PICK_CC" -DCMAKE_CXX_COMPILER="$PICK_CXX"
			      "-DEVT_SANITIZE=$san")
			;;
		*) echo "unknown tree $tree (default, asan, tsan)"; exit 2 ;;
		esac
		# SOAK=N: the soak alone, N seconds; else every stress test, STRESS_SECONDS each
		local what=$dir/tests/stress secs=$STRESS_SECONDS
		if [ -n "${SOAK:-}" ]; then
			what=$dir/tests/stress/soak secs=$SOAK
		fi
		stage_begin "stress ($what): ${secs} s each, $LOOPS time(s)"
		if build "$dir" "${args[@]}"; then
			${RUNWRAP:-} bash "$TOP/tests/runtests.sh" -v -t $((secs * 3 + 60)) \
				-l "$LOOPS" "$what" -- -d "$secs" |
				tee "$dir/stress-long.log"
			out=$(tail -1 "$dir/stress-long.log")
			# "N passed, N failed, N skipped"
			read -r p _ f _ s _ <<<"${out//,/}"
			[[ "$p$f$s" =~ ^[0-9]+$ ]] || { p=0 f=1 s=0; }
			passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
			[ "$f" -eq 0 ] || failures+=("stress $tree")
		fi
		stage_end "stress $tree"
	done
}

case $mode in
fuzz) stage_fuzz ;;
stress) stress_long ;;
all)
	for st in $STAGES; do
		case $st in
		default | cross | asan | tsan | fuzz) "stage_$st" ;;
		*) echo "unknown stage $st (default cross asan tsan fuzz)"; exit 2 ;;
		esac
	done
	;;
esac

echo
[ ${#failures[@]} -gt 0 ] && printf 'failed: %s\n' "${failures[@]}"
echo "total time $((SECONDS - t_start)) s"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
