# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Tests of the evtrace command (tests/unit/cmd-*.c and any test naming EVT_TOOL) run build/tools/evtrace: they get its path
# as EVT_TOOL and are built after it.
if(TARGET evtrace-cli)
	# the test library's cmdt_run() runs it too
	target_compile_definitions(evt_testlib PRIVATE EVT_TOOL="$<TARGET_FILE:evtrace-cli>")
	foreach(src ${EVT_UNIT_TESTS})
		get_filename_component(name ${src} NAME_WE)
		# every test that runs the command: it names EVT_TOOL or includes a header that does
		file(STRINGS ${src} uses_tool REGEX "EVT_TOOL|cmd-test.h|cmd-record-util.h|cmd-ctl-child.h|sec-util.h" LIMIT_COUNT 1)
		if((name MATCHES "^cmd-" OR uses_tool) AND TARGET unit-${name})
			add_dependencies(unit-${name} evtrace-cli)
			target_compile_definitions(unit-${name} PRIVATE
				EVT_TOOL="$<TARGET_FILE:evtrace-cli>")
			# the record tests also run examples/record-demo
			if(TARGET example-record-demo)
				add_dependencies(unit-${name} example-record-demo)
				target_compile_definitions(unit-${name} PRIVATE
					EVT_RECORD_DEMO="$<TARGET_FILE:example-record-demo>")
			endif()
			if(TARGET example-events-demo)
				add_dependencies(unit-${name} example-events-demo)
				target_compile_definitions(unit-${name} PRIVATE
					EVT_EVENTS_DEMO="$<TARGET_FILE:example-events-demo>")
			endif()
		endif()
	endforeach()
endif()
# Stress tests that run the command (stress/soak: `evtrace record` beside the control socket).
if(TARGET evtrace-cli)
	foreach(src ${EVT_STRESS_TESTS})
		get_filename_component(name ${src} NAME_WE)
		file(STRINGS ${src} uses_tool REGEX "EVT_TOOL" LIMIT_COUNT 1)
		if(uses_tool AND TARGET stress-${name})
			add_dependencies(stress-${name} evtrace-cli)
			target_compile_definitions(stress-${name} PRIVATE
				EVT_TOOL="$<TARGET_FILE:evtrace-cli>")
		endif()
	endforeach()
endif()
# bench/record runs the command too (never from ctest).
if(TARGET evtrace-cli AND TARGET bench-record)
	add_dependencies(bench-record evtrace-cli)
	target_compile_definitions(bench-record PRIVATE EVT_TOOL="$<TARGET_FILE:evtrace-cli>")
	target_include_directories(bench-record PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/tests/lib)
endif()
# tests/victim/probe-victim.c: a program written with no thought of evtrace (it links
# libevtrace, --no-as-needed, and calls nothing of it), probed from outside by unit/cmd-probe.
if(TARGET unit-cmd-probe AND TARGET evtrace)
	add_executable(probe-victim ${CMAKE_CURRENT_SOURCE_DIR}/tests/victim/probe-victim.c)
	target_link_libraries(probe-victim PRIVATE -Wl,--no-as-needed evtrace -Wl,--as-needed)
	set_target_properties(probe-victim PROPERTIES
		RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/victim)
	add_dependencies(unit-cmd-probe probe-victim)
	target_compile_definitions(unit-cmd-probe PRIVATE
		EVT_PROBE_VICTIM="$<TARGET_FILE:probe-victim>")
endif()
