# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Relay and GTSC: the example's "cat .../do_fork/trace0" output is checked line by line
# by the example itself; here ctest also wants to see the lines and the summary.
if(TARGET example-gtsc-fork)
	set_tests_properties(example/gtsc-fork PROPERTIES
		PASS_REGULAR_EXPRESSION "\\[[0-9]+\\] [0-9]+\n.*gtsc-fork: 5 forks traced")
endif()
