#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/check.sh - everything `make check` runs, stage by stage:
#
#   1. default build (gcc): unit, stress (short), compile checks, fuzz corpora, examples
#   2. ASan + UBSan (clang): unit, stress, fuzz corpora, examples
#   3. TSan (clang): stress and unit tests; lockless code is checked here
#   4. libFuzzer (clang): every fuzz target for FUZZ_SECONDS, seeded from its corpus
#
# A stage whose tool is missing says SKIP and counts nothing as passed. The last
# line is the summary "N passed, N failed, N skipped"; the exit status is 1 if
# anything failed.
#
# Options: --stress-only (stage 1 stress tests, long), --fuzz-only (stage 4).
set -uo pipefail

cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
STRESS_SECONDS=${STRESS_SECONDS:-4}
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
TOP=$PWD
export TSAN_OPTIONS="suppressions=$TOP/tests/tsan.supp halt_on_error=1 second_deadlock_stack=1"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
SYMBOLIZER=$(command -v llvm-symbolizer || ls /usr/lib/llvm-*/bin/llvm-symbolizer 2>/dev/null | head -1)
[ -n "$SYMBOLIZER" ] && export ASAN_SYMBOLIZER_PATH=$SYMBOLIZER TSAN_SYMBOLIZER_PATH=$SYMBOLIZER \
	&& export TSAN_OPTIONS="$TSAN_OPTIONS external_symbolizer_path=$SYMBOLIZER"

passed=0
failed=0
skipped=0
failures=()

stage() { printf '\n==== %s\n' "$*"; }

# configure + build DIR with extra cmake args; 0 on success
build() {
	local dir=$1
	shift
	mkdir -p "$dir"
	cmake -S . -B "$dir" -DEVT_STRESS_SECONDS="$STRESS_SECONDS" "$@" >"$dir/configure.log" 2>&1 &&
		cmake --build "$dir" -j "$JOBS" >"$dir/build.log" 2>&1
	local rc=$?
	if [ $rc -ne 0 ]; then
		grep -E -A3 'error|Error' "$dir/configure.log" "$dir/build.log" | head -60
		failures+=("build $dir")
		failed=$((failed + 1))
	fi
	return $rc
}

# run ctest in DIR with the given selection; add its counts to the totals
run_ctest() {
	local dir=$1 name=$2
	shift 2
	local log="$dir/ctest-$name.log"
	(cd "$dir" && ctest --output-on-failure --timeout 600 "$@") >"$log" 2>&1
	local p f s
	p=$(grep -cE 'Test +#[0-9]+: .* +Passed' "$log")
	s=$(grep -cE '\*\*\*Skipped|Disabled' "$log")
	f=$(grep -cE '\*\*\*(Failed|Timeout|Exception)|\*\*\*Not Run|Exit code' "$log")
	grep -E 'Test +#[0-9]+:' "$log" | sed "s/^/[$name] /"
	if [ "$f" -gt 0 ]; then
		grep -E '\*\*\*(Failed|Timeout|Exception)|Not Run' "$log" |
			sed -E 's/.*Test +#[0-9]+: ([^ ]+).*/\1/' | while read -r t; do echo "FAILED: [$name] $t"; done
		sed -n '/The following tests FAILED/,$p' "$log"
		awk '/Output from these tests|Start/{p=0} /\*\*\*Failed|\*\*\*Timeout|\*\*\*Exception/{p=1} p' "$log" | head -200
		failures+=("$name")
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
}

# can clang build and run a program with sanitizer $1?
have_clang() {
	local probe=/tmp/evt-cc-probe.$$
	command -v clang >/dev/null || return 1
	if [ "$1" = fuzzer ]; then
		printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >$probe.c
		clang -fsanitize=fuzzer $probe.c -o $probe >/dev/null 2>&1 && $probe -runs=1 >/dev/null 2>&1
	else
		echo 'int main(void){return 0;}' >$probe.c
		clang -fsanitize="$1" $probe.c -o $probe >/dev/null 2>&1 && $probe
	fi
	local rc=$?
	rm -f $probe $probe.c
	return $rc
}

stage_default() {
	stage "1. default build ($BUILD): unit, stress ${STRESS_SECONDS}s, compile, fuzz corpora, examples"
	build "$BUILD" || return
	run_ctest "$BUILD" default -j "$JOBS" -LE stress
	run_ctest "$BUILD" default-stress -L stress
}

stage_asan() {
	stage "2. ASan + UBSan ($BUILD-asan)"
	if ! have_clang address,undefined; then
		echo "SKIP: clang with ASan/UBSan runtimes is not available"
		skipped=$((skipped + 1))
		return
	fi
	build "$BUILD-asan" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
		-DEVT_SANITIZE=address,undefined || return
	run_ctest "$BUILD-asan" asan -j "$JOBS" -LE "stress|compile"
	run_ctest "$BUILD-asan" asan-stress -L stress
}

stage_tsan() {
	stage "3. TSan ($BUILD-tsan)"
	if ! have_clang thread; then
		echo "SKIP: clang with the TSan runtime is not available"
		skipped=$((skipped + 1))
		return
	fi
	build "$BUILD-tsan" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
		-DEVT_SANITIZE=thread || return
	run_ctest "$BUILD-tsan" tsan-stress -L stress
	run_ctest "$BUILD-tsan" tsan-unit -j "$JOBS" -L unit
}

stage_fuzz() {
	stage "4. libFuzzer ($BUILD-fuzz), ${FUZZ_SECONDS}s per target"
	if ! have_clang fuzzer; then
		echo "SKIP: clang with libFuzzer is not available"
		skipped=$((skipped + 1))
		return
	fi
	build "$BUILD-fuzz" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
		-DEVT_SANITIZE=address,undefined -DEVT_FUZZ=ON || return
	for f in "$BUILD-fuzz"/tests/fuzz/*; do
		[ -x "$f" ] || continue
		local name corpus work
		name=$(basename "$f")
		corpus="$TOP/tests/fuzz/corpus/$name"
		work="$BUILD-fuzz/corpus-$name"
		mkdir -p "$work"
		[ -d "$corpus" ] && cp -r "$corpus"/. "$work"/ 2>/dev/null
		if "$f" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
			-artifact_prefix="$BUILD-fuzz/$name-" "$work" >"$BUILD-fuzz/$name.log" 2>&1; then
			echo "[fuzz] $name: $(grep -oE 'Done [0-9]+ runs' "$BUILD-fuzz/$name.log" | tail -1) Passed"
			passed=$((passed + 1))
		else
			echo "FAILED: [fuzz] $name"
			tail -60 "$BUILD-fuzz/$name.log"
			failures+=("fuzz $name")
			failed=$((failed + 1))
		fi
	done
}

case "${1:-}" in
--stress-only)
	build "$BUILD" && run_ctest "$BUILD" stress -L stress
	;;
--fuzz-only)
	stage_fuzz
	;;
*)
	stage_default
	stage_asan
	stage_tsan
	stage_fuzz
	;;
esac

echo
if [ ${#failures[@]} -gt 0 ]; then
	echo "failed stages: ${failures[*]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
