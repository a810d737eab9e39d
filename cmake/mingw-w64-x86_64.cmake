# Cross build for 64-bit Windows with Debian's mingw-w64 (gcc-mingw-w64-x86-64):
#   cmake -S . -B build-win -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake
# The libraries Debian has no mingw package for are cross-built once into
# the build tree by tools/build-win-deps.sh (cmake/windows-deps.cmake).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(GSIO_MINGW_HOST x86_64-w64-mingw32)
# The posix thread model: winpthreads gives pthread_* (linked statically).
find_program(CMAKE_C_COMPILER NAMES ${GSIO_MINGW_HOST}-gcc-posix ${GSIO_MINGW_HOST}-gcc REQUIRED)
find_program(CMAKE_CXX_COMPILER NAMES ${GSIO_MINGW_HOST}-g++-posix ${GSIO_MINGW_HOST}-g++)
find_program(CMAKE_RC_COMPILER NAMES ${GSIO_MINGW_HOST}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${GSIO_MINGW_HOST})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# The GCC runtime and winpthreads go inside each .exe and .dll, so that the
# programs need only libgsio.dll and Windows' own DLLs.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static-libgcc -static-libstdc++ -Wl,-Bstatic,--whole-archive -lwinpthread -Wl,--no-whole-archive,-Bdynamic")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static-libgcc -static-libstdc++ -Wl,-Bstatic,--whole-archive -lwinpthread -Wl,--no-whole-archive,-Bdynamic")
# Wine runs the cross-built tests.
set(CMAKE_CROSSCOMPILING_EMULATOR wine)
