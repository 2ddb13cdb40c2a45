# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Events (src/events, docs/events.md): what the generic rules of EvtTests.cmake do not know.
#
# - examples/events-basic.c includes its TRACE_EVENT() header through define_trace.h, which
#   finds it on the include path (as the kernel's TRACE_INCLUDE_PATH).
# - tests/unit/events-dso.c dlopen()s tests/dso/events-dso.c, a module with events of its own
#   that resolves evt_* from the test program (linked with --export-dynamic), so both use the
#   same registry.
if(TARGET example-events-basic)
	target_include_directories(example-events-basic PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/examples)
endif()
# The events-* tests, bench/events and bench/lttng include the TRACE_EVENT() headers of tests/dso.
file(GLOB EVT_EVENTS_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/*/events-*.c
	${CMAKE_CURRENT_SOURCE_DIR}/bench/events.c ${CMAKE_CURRENT_SOURCE_DIR}/bench/lttng.c)
foreach(src ${EVT_EVENTS_TESTS})
	get_filename_component(name ${src} NAME_WE)
	get_filename_component(dir ${src} DIRECTORY)
	get_filename_component(dir ${dir} NAME)
	foreach(t ${dir}-${name} bench-${name})
		if(TARGET ${t})
			target_include_directories(${t} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/tests/dso)
		endif()
	endforeach()
endforeach()
if(TARGET unit-events-dso)
	add_library(evt-test-dso MODULE ${CMAKE_CURRENT_SOURCE_DIR}/tests/dso/events-dso.c)
	target_include_directories(evt-test-dso PRIVATE ${EVT_PUBLIC_INCLUDES}
		${CMAKE_CURRENT_SOURCE_DIR}/tests/dso)
	set_target_properties(evt-test-dso PROPERTIES OUTPUT_NAME events-dso PREFIX ""
		LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/dso)
	set_target_properties(unit-events-dso PROPERTIES ENABLE_EXPORTS ON)
	# What the module calls must be in the program even if the program does not call it.
	target_link_options(unit-events-dso PRIVATE -Wl,--undefined=evt_trace_event_reserve
		-Wl,--undefined=evt_trace_event_commit -Wl,--undefined=evt_event_register
		-Wl,--undefined=evt_event_unregister)
	add_dependencies(unit-events-dso evt-test-dso)
	target_compile_definitions(unit-events-dso PRIVATE
		EVT_TEST_DSO="$<TARGET_FILE:evt-test-dso>")
endif()
# Call sites in C++: an event header compiles there (the definitions stay in C).
add_test(NAME compile/events-cxx
	 COMMAND ${CMAKE_CXX_COMPILER} -std=c++17 -Wall -Wextra -Werror -fsyntax-only
		 -I${CMAKE_CURRENT_SOURCE_DIR}/include -I${CMAKE_CURRENT_BINARY_DIR}/include
		 -I${CMAKE_CURRENT_SOURCE_DIR}/tests/dso
		 ${CMAKE_CURRENT_SOURCE_DIR}/tests/dso/events-cxx.cc)
set_tests_properties(compile/events-cxx PROPERTIES LABELS compile TIMEOUT 60)
# bench/lttng measures LTTng-UST's tracepoint next to evtrace's when liblttng-ust-dev is
# installed (it says it skipped otherwise), and runs bench/lttng-session.sh to enable it.
if(TARGET bench-lttng)
	pkg_check_modules(LTTNG_UST IMPORTED_TARGET lttng-ust)
	if(LTTNG_UST_FOUND)
		target_link_libraries(bench-lttng PRIVATE PkgConfig::LTTNG_UST ${CMAKE_DL_LIBS})
		target_include_directories(bench-lttng PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/bench)
		target_compile_definitions(bench-lttng PRIVATE EVT_HAVE_LTTNG_UST=1
			EVT_BENCH_LTTNG_SCRIPT="${CMAKE_CURRENT_SOURCE_DIR}/bench/lttng-session.sh")
		# bench/lttng-shared: the same program with evtrace linked as a shared library, as
		# LTTng-UST is (its calls through the PLT, its thread-local state in a DSO): the
		# like-for-like comparison. bench/lttng links the static library, as bench/events.
		add_executable(bench-lttng-shared ${CMAKE_CURRENT_SOURCE_DIR}/bench/lttng.c)
		target_link_libraries(bench-lttng-shared PRIVATE evtrace PkgConfig::LTTNG_UST
			${CMAKE_DL_LIBS})
		target_include_directories(bench-lttng-shared PRIVATE
			${CMAKE_CURRENT_SOURCE_DIR}/bench ${CMAKE_CURRENT_SOURCE_DIR}/tests/dso)
		target_compile_definitions(bench-lttng-shared PRIVATE EVT_HAVE_LTTNG_UST=1
			EVT_BENCH_LTTNG_SHARED=1
			EVT_BENCH_LTTNG_SCRIPT="${CMAKE_CURRENT_SOURCE_DIR}/bench/lttng-session.sh")
		set_target_properties(bench-lttng-shared PROPERTIES OUTPUT_NAME lttng-shared
			RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
	else()
		target_compile_definitions(bench-lttng PRIVATE EVT_HAVE_LTTNG_UST=0)
	endif()
endif()
