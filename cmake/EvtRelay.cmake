# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Relay and GTSC: the example's "cat .../do_fork/trace0" output is checked line by line
# by the example itself; here ctest also wants to see the lines and the summary.
if(TARGET example-gtsc-fork)
	set_tests_properties(example/gtsc-fork PROPERTIES
		PASS_REGULAR_EXPRESSION "\\[[0-9]+\\] [0-9]+\n.*gtsc-fork: 5 forks traced")
endif()

# The LD_PRELOAD probe of examples/gtsc-preload.c: a shared module, not an example program.
if(NOT EVT_FUZZ)
	add_library(gtsc-fork-shim MODULE ${CMAKE_CURRENT_SOURCE_DIR}/examples/shim/gtsc-fork-shim.c)
	target_link_libraries(gtsc-fork-shim PRIVATE evtrace ${CMAKE_DL_LIBS})
	set_target_properties(gtsc-fork-shim PROPERTIES
		LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/examples)
	# A sanitized libevtrace.so cannot be preloaded into an uninstrumented /bin/sh: the
	# example skips (77) without GTSC_SHIM there.
	if(TARGET example-gtsc-preload AND NOT EVT_SANITIZE)
		add_dependencies(example-gtsc-preload gtsc-fork-shim)
		set_tests_properties(example/gtsc-preload PROPERTIES
			ENVIRONMENT "GTSC_SHIM=$<TARGET_FILE:gtsc-fork-shim>"
			PASS_REGULAR_EXPRESSION "\\[[0-9]+\\] [0-9]+\n.*gtsc-preload: 3 forks")
	endif()
endif()
