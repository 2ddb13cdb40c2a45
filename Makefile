# SPDX-License-Identifier: LGPL-2.1-or-later
#
# evtrace: a thin wrapper around CMake (CMakeLists.txt does the work). `make help` lists the
# targets; tests/check.sh runs the stages of `make check`.
BUILD          ?= build
JOBS           ?= $(shell nproc 2>/dev/null || echo 2)
PREFIX         ?= /usr/local
CMAKE_ARGS     ?=
# make check: 4 s per stress test; make check-stress: 60 s (tests/check.sh picks the default)
STRESS_SECONDS ?=
# make check-stress SOAK=600: stress/soak alone, that many seconds (issue 11's soak)
SOAK           ?=
# make check-stress: the stress trees (default asan tsan) and how many times to run each test
STRESS_TREES   ?= default
LOOPS          ?= 1
FUZZ_SECONDS   ?= 6

export BUILD JOBS STRESS_SECONDS SOAK STRESS_TREES LOOPS FUZZ_SECONDS

# CMake's own generated Makefiles must not see our command line (make BUILD=x ...) nor our
# jobserver: -j $(JOBS) is passed explicitly.
CMAKE := env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL cmake

.PHONY: all build configure check check-stress fuzz demo bench install uninstall deps \
	format format-check clean help

all: build

# The first configure checks the Debian packages too (a fresh machine: make demo just works).
$(BUILD)/CMakeCache.txt:
	@sh tests/deps.sh
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_ARGS)

configure:
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_ARGS)

build: $(BUILD)/CMakeCache.txt
	$(CMAKE) --build $(BUILD) -j $(JOBS)

# The Debian packages of tests/deps.sh: installed when missing if we are root.
deps:
	@sh tests/deps.sh

# default build, ASan+UBSan, TSan, libFuzzer; last line "N passed, N failed, N skipped"
check: deps
	@env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL bash tests/check.sh

# the stress tests, long (STRESS_SECONDS=60), LOOPS times, in STRESS_TREES; SOAK=N: the soak
# alone for N seconds
check-stress: deps
	@env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL bash tests/check.sh --stress

fuzz: deps
	@env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL bash tests/check.sh --fuzz

# The examples (events-demo also prints a hist trigger's table), then events-demo's trace as a
# trace.dat file (written in-process, with evt_tracedat_write_file()): `evtrace report` prints
# its head, `evtrace export` makes the Perfetto/Chrome JSON; then record-demo recorded from
# outside with `evtrace record`, and latency-demo's onmatch() latency histogram.
DEMO_DAT = $(BUILD)/events-demo.dat
DEMO_JSON = $(BUILD)/events-demo.json
REC_DAT = $(BUILD)/record-demo.dat
REC_JSON = $(BUILD)/record-demo.json
REC_CTF = $(BUILD)/record-demo-ctf
demo: build
	@set -e; for d in rb-demo events-demo latency-demo; do \
		if [ ! -x $(BUILD)/examples/$$d ]; then \
			echo "make demo: no $(BUILD)/examples/$$d (examples/$$d.c)"; exit 1; \
		fi; \
	done; \
	echo "== $(BUILD)/examples/rb-demo (examples/rb-demo.c)"; \
	$(BUILD)/examples/rb-demo; \
	echo "== $(BUILD)/examples/events-demo $(DEMO_DAT) (examples/events-demo.c)"; \
	$(BUILD)/examples/events-demo $(DEMO_DAT); \
	echo "== $(BUILD)/tools/evtrace report $(DEMO_DAT) | head -n 12"; \
	$(BUILD)/tools/evtrace report $(DEMO_DAT) > $(DEMO_DAT).txt; \
	head -n 12 $(DEMO_DAT).txt; rm -f $(DEMO_DAT).txt; \
	echo "== $(BUILD)/tools/evtrace export -o $(DEMO_JSON) $(DEMO_DAT)"; \
	$(BUILD)/tools/evtrace export -o $(DEMO_JSON) $(DEMO_DAT); \
	head -c 300 $(DEMO_JSON); echo " ..."; \
	echo "== $(BUILD)/tools/evtrace record -e 'recdemo:*' -o $(REC_DAT) -- examples/record-demo"; \
	$(BUILD)/tools/evtrace record -e 'recdemo:*' -o $(REC_DAT) -- \
		$(BUILD)/examples/record-demo -t 4 -n 50; \
	$(BUILD)/tools/evtrace report $(REC_DAT) > $(REC_DAT).txt; \
	head -n 6 $(REC_DAT).txt; rm -f $(REC_DAT).txt; \
	$(BUILD)/tools/evtrace export -o $(REC_JSON) $(REC_DAT); \
	rm -rf $(REC_CTF); $(BUILD)/tools/evtrace export --format=ctf -o $(REC_CTF) $(REC_DAT); \
	echo "== $(BUILD)/examples/latency-demo (examples/latency-demo.c): an onmatch() latency histogram"; \
	$(BUILD)/examples/latency-demo; \
	echo; \
	echo "To look at the traces ($(REC_DAT), recorded from outside; $(DEMO_DAT), written in-process):"; \
	printf '  %-50s %s\n' "$(BUILD)/tools/evtrace report $(REC_DAT)" \
		"# all of it, in the kernel's trace layout" \
		"trace-cmd report $(REC_DAT)" "# the same, by trace-cmd (apt install trace-cmd)" \
		"kernelshark $(REC_DAT)" "# the timeline (apt install kernelshark)" \
		"babeltrace2 $(REC_CTF)" "# its CTF export (apt install babeltrace2; Trace Compass opens it too)"; \
	echo "  Perfetto: https://ui.perfetto.dev, 'Open trace file', $(REC_JSON) or $(DEMO_JSON)"; \
	echo "  (or chrome://tracing, Load)"

# Release (-O2 -DNDEBUG) in $(BUILD)-bench/; each benchmark prints its configuration and figures.
bench:
	$(CMAKE) -S . -B $(BUILD)-bench -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)
	$(CMAKE) --build $(BUILD)-bench -j $(JOBS)
	@set -e; n=0; for b in $(BUILD)-bench/bench/*; do \
		[ -f "$$b" ] && [ -x "$$b" ] || continue; \
		echo "== $$b"; "$$b"; n=$$((n + 1)); \
	done; [ $$n -gt 0 ] || echo "make bench: no benchmarks (bench/*.c)"

# PREFIX is baked into evtrace.pc, so configure again with it; DESTDIR is honoured.
install:
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_ARGS)
	$(CMAKE) --build $(BUILD) -j $(JOBS)
	$(CMAKE) --install $(BUILD)

uninstall:
	@if [ -f $(BUILD)/install_manifest.txt ]; then \
		sed 's|^|$(DESTDIR)|' $(BUILD)/install_manifest.txt | xargs -d '\n' rm -fv; \
	else \
		echo "make uninstall: nothing installed from $(BUILD)/"; \
	fi

FORMAT_FILES = $(shell find src include tests examples bench -name '*.[ch]' -not -path '*/corpus/*' 2>/dev/null)

format:
	clang-format -i $(FORMAT_FILES)

# what `make format` would change, without changing it
format-check:
	clang-format --dry-run -Werror $(FORMAT_FILES)

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan $(BUILD)-fuzz $(BUILD)-bench $(BUILD)-aarch64

help:
	@echo "make                 library, tests, examples, benchmarks in $(BUILD)/"
	@echo "make demo            build, run examples/rb-demo and events-demo, record record-demo,"
	@echo "                     run latency-demo"
	@echo "make check           every stage: default build, aarch64 cross build, ASan+UBSan,"
	@echo "                     TSan, libFuzzer"
	@echo "                     (as root, installs missing Debian packages first: make deps)"
	@echo "make check-stress    stress tests long: STRESS_SECONDS=60 LOOPS=1"
	@echo "                     SOAK=600: the soak alone (writers, control, record, trace_pipe)"
	@echo "                     STRESS_TREES='default asan tsan'"
	@echo "make fuzz            the libFuzzer stage alone, FUZZ_SECONDS=$(FUZZ_SECONDS) per target"
	@echo "make bench           Release build in $(BUILD)-bench/, run every benchmark"
	@echo "make install         to PREFIX=$(PREFIX), DESTDIR honoured; make uninstall"
	@echo "make format          clang-format -i on src include tests examples bench"
	@echo "make format-check    what make format would change, changing nothing"
	@echo "make deps            check (as root: install) the Debian packages of tests/deps.sh"
	@echo "make configure       run cmake again in $(BUILD)/ (PREFIX, CMAKE_ARGS)"
	@echo "make clean           remove $(BUILD)/ and its -asan -tsan -fuzz -bench -aarch64 siblings"
	@echo "Variables: BUILD JOBS PREFIX CMAKE_ARGS STRESS_SECONDS STRESS_TREES LOOPS FUZZ_SECONDS"
