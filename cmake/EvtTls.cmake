# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The library can be dlopen()ed (README "Loading the library with dlopen()"):
#
# - compile/tls-budget: libevtrace.so's PT_TLS segment is at most 64 bytes, and python3's
#   ctypes.CDLL() loads it (not in sanitized trees: their library needs the runtime first);
# - unit/dlopen-tls: tests/dso/dlopen-tls.c, a program that does not link libevtrace, loads
#   three modules with 64 KiB of dynamic TLS and one with 256 bytes of initial-exec TLS
#   (tests/dso/tls-heavy.c), then libevtrace.so, and uses it from two threads.
if(EVT_SANITIZE)
	set(EVT_TLS_PYTHON 0)
else()
	set(EVT_TLS_PYTHON 1)
endif()
add_test(NAME compile/tls-budget
	 COMMAND ${CMAKE_COMMAND} -E env EVT_TLS_PYTHON=${EVT_TLS_PYTHON}
		 sh ${EVT_TESTS_DIR}/compile/tls-budget.sh $<TARGET_FILE:evtrace> 64)
set_tests_properties(compile/tls-budget PROPERTIES LABELS compile SKIP_RETURN_CODE 77
		     TIMEOUT 60)

set(EVT_TLS_MODULES)
foreach(flavour gd1:65536 gd2:65536 gd3:65536 ie:256)
	string(REPLACE ":" ";" f ${flavour})
	list(GET f 0 tag)
	list(GET f 1 bytes)
	add_library(evt-tls-heavy-${tag} MODULE ${EVT_TESTS_DIR}/dso/tls-heavy.c)
	target_compile_definitions(evt-tls-heavy-${tag} PRIVATE TLS_BYTES=${bytes})
	if(tag STREQUAL "ie")
		target_compile_definitions(evt-tls-heavy-${tag} PRIVATE TLS_IE=1)
	endif()
	set_target_properties(evt-tls-heavy-${tag} PROPERTIES OUTPUT_NAME tls-heavy-${tag}
		PREFIX "" LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/dso)
	list(APPEND EVT_TLS_MODULES $<TARGET_FILE:evt-tls-heavy-${tag}>)
endforeach()

add_executable(unit-dlopen-tls ${EVT_TESTS_DIR}/dso/dlopen-tls.c)
target_include_directories(unit-dlopen-tls PRIVATE ${EVT_PUBLIC_INCLUDES})
target_link_libraries(unit-dlopen-tls PRIVATE ${CMAKE_DL_LIBS} Threads::Threads)
set_target_properties(unit-dlopen-tls PROPERTIES OUTPUT_NAME dlopen-tls
	RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/unit)
add_dependencies(unit-dlopen-tls evtrace)
add_test(NAME unit/dlopen-tls COMMAND unit-dlopen-tls $<TARGET_FILE:evtrace> ${EVT_TLS_MODULES})
set_tests_properties(unit/dlopen-tls PROPERTIES LABELS unit SKIP_RETURN_CODE 77 TIMEOUT 60)
