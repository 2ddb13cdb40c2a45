# evtrace - a thin wrapper around CMake. `make help` lists the targets.
BUILD          ?= build
JOBS           ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS     ?=
STRESS_SECONDS ?= 4
FUZZ_SECONDS   ?= 20
PREFIX         ?= /usr/local

export BUILD JOBS STRESS_SECONDS FUZZ_SECONDS

.PHONY: all build check check-stress demo bench install uninstall fuzz deps format clean help

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_ARGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# Debian packages the build and the test suite need; installed when missing and root.
deps:
	@sh tests/deps.sh

# The whole suite: default build, ASan+UBSan, TSan, and a short libFuzzer run.
check: deps
	@bash tests/check.sh

check-stress: deps
	@STRESS_SECONDS=$${STRESS_SECONDS:-60} bash tests/check.sh --stress-only

fuzz: deps
	@bash tests/check.sh --fuzz-only

demo: build
	@echo "== examples/rb-demo: four threads write events, a consumer prints them back"
	@$(BUILD)/examples/rb-demo

bench:
	cmake -S . -B $(BUILD)-bench -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)
	cmake --build $(BUILD)-bench -j $(JOBS)
	@for b in $(BUILD)-bench/bench/*; do echo "== $$b"; $$b || exit 1; done

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

uninstall:
	xargs rm -f < $(BUILD)/install_manifest.txt

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan $(BUILD)-fuzz $(BUILD)-bench

help:
	@echo "make          build the library, tests, examples and benchmarks in $(BUILD)/"
	@echo "make demo     build, then trace an example program and show the result"
	@echo "make check    the whole test suite (installs missing Debian packages as root)"
	@echo "make check-stress   the torture tests, long (STRESS_SECONDS=60)"
	@echo "make fuzz     the libFuzzer targets (FUZZ_SECONDS each)"
	@echo "make bench    the benchmarks (Release build in $(BUILD)-bench/)"
	@echo "make install  install to PREFIX=$(PREFIX) (DESTDIR honoured)"
