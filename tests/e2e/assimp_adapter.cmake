# The Assimp adapter (assimp_patch/, gsio::assimp) with the system's stock
# libassimp: the test programs are built in assimp_patch/ (where C++ is
# enabled) from tests/assimp/*.cpp and registered here. Each is a cmocka
# program run through tests/run_test.sh (skipped, 77, without the corpus).
if(TARGET gsio_assimp)
  file(GLOB gsio_assimp_test_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/assimp/test_*.cpp)
  foreach(src ${gsio_assimp_test_sources})
    get_filename_component(name ${src} NAME_WE)
    add_test(NAME ${name} COMMAND sh ${PROJECT_SOURCE_DIR}/tests/run_test.sh $<TARGET_FILE:${name}>)
    set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
  endforeach()
endif()
