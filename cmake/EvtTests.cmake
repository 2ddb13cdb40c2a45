# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Tests, examples and benchmarks. The conventions (tests/README in CONTRIBUTING.md):
#
#   tests/unit/<name>.c    one program per behaviour     ctest unit/<name>     exit 0 / 1 / 77
#   tests/stress/<name>.c  torture, takes -d SECONDS     ctest stress/<name>   same
#   tests/fuzz/<name>.c    LLVMFuzzerTestOneInput()      ctest fuzz/<name>     (corpus replay)
#   include/evtrace/*.h    alone, C11 and C++17          ctest compile/<hdr>.h:<std>
#   examples/<name>.c      built by default              ctest example/<name>
#   bench/<name>.c         built, never run by ctest     build/bench/<name>
#
# Every test program links libevtrace statically plus the test library (tests/lib/, compiled
# once), and may include private headers from src/. New files are picked up at the next build
# (CONFIGURE_DEPENDS).

set(EVT_TESTS_DIR ${CMAKE_CURRENT_SOURCE_DIR}/tests)

# The test library: what test programs share (tests/lib/README.md), compiled once per tree.
file(GLOB EVT_TESTLIB_SOURCES CONFIGURE_DEPENDS ${EVT_TESTS_DIR}/lib/*.c)
add_library(evt_testlib STATIC ${EVT_TESTLIB_SOURCES})
target_include_directories(evt_testlib PUBLIC ${EVT_TESTS_DIR}/lib ${EVT_TESTS_DIR})
target_link_libraries(evt_testlib PUBLIC evtrace_static)

# evt_test_program(<dir> <name> <sources...>): executable <dir>-<name>, built as
# ${CMAKE_BINARY_DIR}/tests/<dir>/<name>.
function(evt_test_program dir name)
	add_executable(${dir}-${name} ${ARGN})
	target_include_directories(${dir}-${name} PRIVATE ${EVT_TESTS_DIR})
	target_link_libraries(${dir}-${name} PRIVATE evt_testlib evtrace_static)
	set_target_properties(${dir}-${name} PROPERTIES OUTPUT_NAME ${name}
		RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/${dir})
endfunction()

file(GLOB EVT_FUZZ_TARGETS CONFIGURE_DEPENDS ${EVT_TESTS_DIR}/fuzz/*.c)
list(FILTER EVT_FUZZ_TARGETS EXCLUDE REGEX "/driver\\.c$")

# ---- the libFuzzer tree: the fuzz targets and nothing else ------------------------------------
if(EVT_FUZZ)
	foreach(src ${EVT_FUZZ_TARGETS})
		get_filename_component(name ${src} NAME_WE)
		evt_test_program(fuzz ${name} ${src})
		target_compile_options(fuzz-${name} PRIVATE -fsanitize=fuzzer)
		target_link_options(fuzz-${name} PRIVATE -fsanitize=fuzzer)
	endforeach()
	return()
endif()

# ---- unit tests -------------------------------------------------------------------------------
file(GLOB EVT_UNIT_TESTS CONFIGURE_DEPENDS ${EVT_TESTS_DIR}/unit/*.c)
foreach(src ${EVT_UNIT_TESTS})
	get_filename_component(name ${src} NAME_WE)
	evt_test_program(unit ${name} ${src})
	add_test(NAME unit/${name} COMMAND unit-${name})
	set_tests_properties(unit/${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60 LABELS unit)
endforeach()

# probe-unwind's functions that throw, rethrow and end their thread are C++.
if(TARGET unit-probe-unwind)
	target_sources(unit-probe-unwind PRIVATE ${EVT_TESTS_DIR}/unit/probe-unwind-cxx.cc)
endif()

# probe-fentry's functions begin with `call __fentry__` (-pg -mfentry), and those of
# probe-fentry-nop, the same source, with the 5-byte nop of -mnop-mcount where the compiler
# has it (gcc, and not with -fPIC/PIE: that one is linked -no-pie; clang has it for s390x
# only). x86-64 only: elsewhere the test skips.
if(TARGET unit-probe-fentry AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
	target_compile_options(unit-probe-fentry PRIVATE -pg -mfentry)
	include(CheckCCompilerFlag)
	check_c_compiler_flag("-fno-pie -pg -mfentry -mnop-mcount" EVT_HAVE_NOP_MCOUNT_NOPIE)
	if(EVT_HAVE_NOP_MCOUNT_NOPIE)
		evt_test_program(unit probe-fentry-nop ${EVT_TESTS_DIR}/unit/probe-fentry.c)
		target_compile_options(unit-probe-fentry-nop PRIVATE -fno-pie -pg -mfentry -mnop-mcount)
		target_link_options(unit-probe-fentry-nop PRIVATE -no-pie)
		target_compile_definitions(unit-probe-fentry-nop PRIVATE FENTRY_NOP)
		add_test(NAME unit/probe-fentry-nop COMMAND unit-probe-fentry-nop)
		set_tests_properties(unit/probe-fentry-nop PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60
			LABELS unit)
	endif()
endif()

# Stack traces name the program's own functions: dladdr() needs them in the dynamic symbol table.
foreach(t unit-trigger-stacktrace unit-probe-stack)
	if(TARGET ${t})
		set_target_properties(${t} PROPERTIES ENABLE_EXPORTS ON)
	endif()
endforeach()

# Tests that change the kernel's tracing state (their own instances and uprobes, trace-cmd
# extract) run one at a time: trace-cmd walks every instance, and one test removing its
# instance under another's trace-cmd made that fail, and a set_event word naming an event of
# every group (`ev_a`) enables another test's uprobe events too.
foreach(name events-trace-kernel filter-diff tracedat-kernel tracefs-diff tracefs-kernel
	     tracefs-sweep-diff trigger-diff)
	if(TEST unit/${name})
		set_tests_properties(unit/${name} PROPERTIES RESOURCE_LOCK kernel-tracefs)
	endif()
endforeach()
# Tests that create local users (useradd takes a lock on /etc/passwd) run one at a time.
foreach(name control-peer-check control-record-attack mount-allow-other secdir-swap)
	if(TEST unit/${name})
		set_tests_properties(unit/${name} PROPERTIES RESOURCE_LOCK local-users)
	endif()
endforeach()

# ---- stress tests -----------------------------------------------------------------------------
math(EXPR EVT_STRESS_TIMEOUT "${EVT_STRESS_SECONDS} * 3 + 60")
file(GLOB EVT_STRESS_TESTS CONFIGURE_DEPENDS ${EVT_TESTS_DIR}/stress/*.c)
foreach(src ${EVT_STRESS_TESTS})
	get_filename_component(name ${src} NAME_WE)
	evt_test_program(stress ${name} ${src})
	add_test(NAME stress/${name} COMMAND stress-${name} -d ${EVT_STRESS_SECONDS})
	set_tests_properties(stress/${name} PROPERTIES SKIP_RETURN_CODE 77
			     TIMEOUT ${EVT_STRESS_TIMEOUT} LABELS stress)
endforeach()

# ---- fuzz targets, without libFuzzer: tests/fuzz/driver.c replays the seed corpus -------------
if(NOT EVT_FUZZ_REPLAY)
	set(EVT_FUZZ_TARGETS "")
endif()
if(EVT_FUZZ_TARGETS)
	add_library(evt_fuzz_driver OBJECT ${EVT_TESTS_DIR}/fuzz/driver.c)
endif()
foreach(src ${EVT_FUZZ_TARGETS})
	get_filename_component(name ${src} NAME_WE)
	evt_test_program(fuzz ${name} ${src} $<TARGET_OBJECTS:evt_fuzz_driver>)
	add_test(NAME fuzz/${name} COMMAND fuzz-${name} ${EVT_TESTS_DIR}/fuzz/corpus/${name})
	set_tests_properties(fuzz/${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 LABELS fuzz)
endforeach()

# ---- compile checks ---------------------------------------------------------------------------
# Each public header alone (twice: the include guard), to an object file, with nothing from
# this build's flags: C11 with -pedantic, C++17 without it, because ISO C++ has no flexible array
# member and struct evt_ring_buffer_event (ring_buffer.h) needs one: C++ users get the
# g++/clang++ extension, which -Werror=pedantic would reject.
set(EVT_HDR_C_FLAGS -std=c11 -Wall -Wextra -Werror -pedantic)
set(EVT_HDR_CXX_FLAGS -std=c++17 -Wall -Wextra -Werror)
set(EVT_HDR_COMPILERS "c11|${CMAKE_C_COMPILER}|c" "c++17|${CMAKE_CXX_COMPILER}|cc")
# The other compiler too, when it is there: gcc builds check clang and the other way round.
if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
	find_program(EVT_OTHER_CC clang)
	find_program(EVT_OTHER_CXX clang++)
	set(EVT_OTHER_NAME clang)
else()
	find_program(EVT_OTHER_CC gcc)
	find_program(EVT_OTHER_CXX g++)
	set(EVT_OTHER_NAME gcc)
endif()
if(EVT_OTHER_CC AND EVT_OTHER_CXX)
	list(APPEND EVT_HDR_COMPILERS "${EVT_OTHER_NAME}-c11|${EVT_OTHER_CC}|c"
				      "${EVT_OTHER_NAME}-c++17|${EVT_OTHER_CXX}|cc")
endif()

file(GLOB EVT_PUBLIC_HEADERS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/include/evtrace/*.h)
foreach(hdr ${EVT_PUBLIC_HEADERS})
	get_filename_component(hname ${hdr} NAME)
	get_filename_component(name ${hdr} NAME_WE)
	foreach(c ${EVT_HDR_COMPILERS})
		string(REPLACE "|" ";" c "${c}")
		list(GET c 0 tag)
		list(GET c 1 compiler)
		list(GET c 2 ext)
		if(ext STREQUAL "c")
			set(flags ${EVT_HDR_C_FLAGS})
		else()
			set(flags ${EVT_HDR_CXX_FLAGS})
		endif()
		set(tu ${CMAKE_BINARY_DIR}/tests/compile/${name}-${tag}.${ext})
		file(WRITE ${tu} "/* generated by cmake/EvtTests.cmake */\n"
			"#include <evtrace/${hname}>\n#include <evtrace/${hname}>\n"
			"int evt_compile_check_${name};\n")
		add_test(NAME compile/${hname}:${tag}
			 COMMAND ${compiler} ${flags} -I${CMAKE_CURRENT_SOURCE_DIR}/include
				 -I${CMAKE_CURRENT_BINARY_DIR}/include -c ${tu} -o ${tu}.o)
		set_tests_properties(compile/${hname}:${tag} PROPERTIES LABELS compile TIMEOUT 60)
	endforeach()
endforeach()

# Only evt_* leaves the shared library, each declared in a public header.
add_test(NAME compile/symbols
	 COMMAND sh ${EVT_TESTS_DIR}/compile/check-symbols.sh $<TARGET_FILE:evtrace>
		 ${CMAKE_BINARY_DIR}/include/evtrace)
set_tests_properties(compile/symbols PROPERTIES LABELS compile TIMEOUT 60)

# The layers of DESIGN.md (tests/compile/layers.txt): no edge against them, no cycle, read from
# the objects' symbols (nm) and the include lines.
add_test(NAME compile/layers
	 COMMAND sh ${EVT_TESTS_DIR}/compile/layers.sh ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(compile/layers PROPERTIES LABELS compile SKIP_RETURN_CODE 77 TIMEOUT 120)

# make install into a scratch DESTDIR, then build and run a program with pkg-config alone.
# (A sanitized libevtrace.so needs the sanitizer runtime from the program: not there.)
if(NOT EVT_SANITIZE)
	add_test(NAME compile/install
		 COMMAND ${CMAKE_COMMAND} -E env CC=${CMAKE_C_COMPILER}
			 sh ${EVT_TESTS_DIR}/compile/install-check.sh ${CMAKE_BINARY_DIR})
	set_tests_properties(compile/install PROPERTIES LABELS compile SKIP_RETURN_CODE 77
			     TIMEOUT 120)
endif()

# Other checks: tests/compile/check-*.sh <source dir>, 0 / 1 / 77 (man pages, their examples).
file(GLOB EVT_COMPILE_SCRIPTS CONFIGURE_DEPENDS ${EVT_TESTS_DIR}/compile/check-*.sh)
list(FILTER EVT_COMPILE_SCRIPTS EXCLUDE REGEX "/check-symbols\\.sh$")
foreach(script ${EVT_COMPILE_SCRIPTS})
	get_filename_component(name ${script} NAME_WE)
	add_test(NAME compile/${name} COMMAND sh ${script} ${CMAKE_CURRENT_SOURCE_DIR})
	set_tests_properties(compile/${name} PROPERTIES LABELS compile SKIP_RETURN_CODE 77
			     TIMEOUT 120)
endforeach()

# ---- examples (built by default, run as tests) and benchmarks ---------------------------------
file(GLOB EVT_EXAMPLES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/examples/*.c)
foreach(src ${EVT_EXAMPLES})
	get_filename_component(name ${src} NAME_WE)
	add_executable(example-${name} ${src})
	target_link_libraries(example-${name} PRIVATE evtrace Threads::Threads)
	set_target_properties(example-${name} PROPERTIES OUTPUT_NAME ${name}
		RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/examples)
	add_test(NAME example/${name} COMMAND example-${name})
	set_tests_properties(example/${name} PROPERTIES LABELS example SKIP_RETURN_CODE 77
			     TIMEOUT 60)
endforeach()

# Benchmarks are never run by ctest; sanitizer trees skip them (-DEVT_BENCH=OFF, tests/check.sh).
file(GLOB EVT_BENCHES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/bench/*.c)
if(NOT EVT_BENCH)
	set(EVT_BENCHES "")
endif()
foreach(src ${EVT_BENCHES})
	get_filename_component(name ${src} NAME_WE)
	add_executable(bench-${name} ${src})
	target_link_libraries(bench-${name} PRIVATE evtrace_static)
	set_target_properties(bench-${name} PROPERTIES OUTPUT_NAME ${name}
		RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
endforeach()
include(${CMAKE_CURRENT_LIST_DIR}/EvtRelay.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/EvtTls.cmake)
