# Included by Assimp's code/CMakeLists.txt (patch 0001) when
# build-assimp.sh passes -DGSIO_ASSIMP_CMAKE=this file: compiles gsio's
# adapter (assimp_patch/*.cpp) into the assimp target and links a static,
# position-independent libgsio (built by build-assimp.sh in GSIO_BUILD_DIR).
# Nothing of gsio is exported: Debian's version script keeps only ai* and
# Assimp::* symbols, so libassimp.so.5 has the same interface as Debian's.
if(NOT GSIO_ROOT OR NOT GSIO_BUILD_DIR)
  message(FATAL_ERROR "gsio-in-assimp.cmake needs GSIO_ROOT and GSIO_BUILD_DIR")
endif()
set(gsio_adapter_dir ${GSIO_ROOT}/assimp_patch)
file(GLOB gsio_adapter_sources CONFIGURE_DEPENDS
  ${gsio_adapter_dir}/*.cpp ${gsio_adapter_dir}/src/*.cpp)
# The adapter's own tests and programs are not part of the library.
list(FILTER gsio_adapter_sources EXCLUDE REGEX "/(test|example|tool)_[^/]*\\.cpp$")
set(gsio_adapter_header "")
foreach(dir ${gsio_adapter_dir} ${gsio_adapter_dir}/include)
  if(EXISTS ${dir}/gsio_assimp.h)
    set(gsio_adapter_header ${dir}/gsio_assimp.h)
  endif()
endforeach()

if(NOT gsio_adapter_header OR NOT gsio_adapter_sources)
  # The adapter is not written yet (or not in this checkout): a stock build,
  # with the patches' hooks compiled out.
  message(WARNING "gsio: no adapter in ${gsio_adapter_dir} (gsio_assimp.h + *.cpp): building Assimp without gsio's importers")
  return()
endif()

find_library(GSIO_STATIC_LIBRARY NAMES libgsio.a PATHS ${GSIO_BUILD_DIR} NO_DEFAULT_PATH REQUIRED)
find_package(PkgConfig REQUIRED)
# libgsio's own dependencies (PNG compression), as gsio.pc lists them.
pkg_check_modules(GSIO_ISAL REQUIRED IMPORTED_TARGET libisal)
pkg_check_modules(GSIO_ZLIB REQUIRED IMPORTED_TARGET zlib)
pkg_check_modules(GSIO_DEFLATE REQUIRED IMPORTED_TARGET libdeflate)

get_filename_component(gsio_adapter_include ${gsio_adapter_header} DIRECTORY)
target_sources(assimp PRIVATE ${gsio_adapter_sources})
target_include_directories(assimp PRIVATE
  ${gsio_adapter_include} ${gsio_adapter_dir}
  ${GSIO_ROOT}/common ${GSIO_ROOT}/importers ${GSIO_ROOT}/exporters)
target_compile_definitions(assimp PRIVATE GSIO_IN_ASSIMP)
file(READ ${gsio_adapter_header} gsio_adapter_header_text)
if(gsio_adapter_header_text MATCHES "gsio_assimp_append_exporters")
  # The exporter hook of patch 0001 (setupExporterArray) is live once the
  # adapter offers gsio's writers.
  target_compile_definitions(assimp PRIVATE GSIO_ASSIMP_HAVE_EXPORTERS)
endif()
# The signature Assimp's own CMakeLists uses for this target (CMake refuses
# a mix): plain in 5.2, with keywords from 5.3 on.
if(Assimp_VERSION VERSION_LESS 5.3)
  target_link_libraries(assimp ${GSIO_STATIC_LIBRARY} PkgConfig::GSIO_ISAL PkgConfig::GSIO_ZLIB PkgConfig::GSIO_DEFLATE m)
else()
  target_link_libraries(assimp PRIVATE ${GSIO_STATIC_LIBRARY} PkgConfig::GSIO_ISAL PkgConfig::GSIO_ZLIB PkgConfig::GSIO_DEFLATE m)
endif()
list(LENGTH gsio_adapter_sources gsio_adapter_count)
message(STATUS "gsio: adapter compiled in (${gsio_adapter_count} sources, ${gsio_adapter_header})")
