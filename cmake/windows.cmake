# Included by the top CMakeLists.txt when building for Windows (mingw-w64).
# C99 printf (%zu, the same digits as glibc) instead of msvcrt's, and the
# Windows 7 API level (GetFinalPathNameByHandleW, SRW locks).
add_compile_definitions(__USE_MINGW_ANSI_STDIO=1 _WIN32_WINNT=0x0601)
# CommandLineToArgvW (common/os.c: the arguments as UTF-8).
link_libraries(shell32)
if(NOT CMAKE_CROSSCOMPILING)
  return()
endif()
# A cross build builds the libraries Debian has no mingw package for into
# <build>/win-deps once (tools/build-win-deps.sh) and points pkg-config
# there, so the rest of the build finds them as it finds Debian's on Linux.
set(GSIO_WIN_DEPS "${CMAKE_BINARY_DIR}/win-deps" CACHE PATH "Cross-built libraries for Windows")
if(NOT EXISTS "${GSIO_WIN_DEPS}/.gsio-deps-done-deflate")
  message(STATUS "Cross-building cJSON and ISA-L for Windows into ${GSIO_WIN_DEPS} (once)")
  execute_process(COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/tools/build-win-deps.sh" "${GSIO_WIN_DEPS}"
                  RESULT_VARIABLE gsio_win_deps_rc)
  if(NOT gsio_win_deps_rc EQUAL 0)
    message(FATAL_ERROR "tools/build-win-deps.sh failed (${gsio_win_deps_rc})")
  endif()
endif()
set(ENV{PKG_CONFIG_LIBDIR} "${GSIO_WIN_DEPS}/lib/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
list(APPEND CMAKE_FIND_ROOT_PATH "${GSIO_WIN_DEPS}")
