# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Cross-compiling for aarch64 (Debian: gcc-aarch64-linux-gnu, and libc6:arm64 after
# `dpkg --add-architecture arm64` for qemu-aarch64):
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# With qemu-user installed, ctest runs the programs through qemu-aarch64 (CMake's emulator).
# make check builds everything this way (its "cross" stage) and runs the examples.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
# pkg-config: the arm64 .pc files only (fuse3 if installed)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
find_program(EVT_QEMU_AARCH64 qemu-aarch64)
if(EVT_QEMU_AARCH64)
	set(CMAKE_CROSSCOMPILING_EMULATOR ${EVT_QEMU_AARCH64} -L /usr/aarch64-linux-gnu)
endif()
