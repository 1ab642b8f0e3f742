# The `clforge bench` tests; included from tests/CMakeLists.txt.
# Tiny sizes: they test the harness, not speed.
if(TARGET clforge_cli)
  add_test(NAME test_bench COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_bench.sh $<TARGET_FILE:clforge_cli>)
  set_tests_properties(test_bench PROPERTIES TIMEOUT 600)
endif()
