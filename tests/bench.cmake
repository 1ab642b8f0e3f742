# The `clforge bench` tests; included from tests/CMakeLists.txt.
# Tiny sizes: they test the harness, not speed.
if(TARGET clforge_cli)
  add_test(NAME test_bench COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_bench.sh $<TARGET_FILE:clforge_cli>)
  set_tests_properties(test_bench PROPERTIES TIMEOUT 900) # each bench measures the peak: seconds on a busy CPU
endif()
# The bench library's device-free pieces (report notes, the host FMA loop).
if(TARGET clforge_bench)
  add_executable(test_bench_report test_bench_report.c)
  target_link_libraries(test_bench_report PRIVATE clforge_bench)
  target_include_directories(test_bench_report PRIVATE ${PROJECT_SOURCE_DIR}/src) # families/conv_layers.h
  target_compile_definitions(test_bench_report PRIVATE _POSIX_C_SOURCE=200809L)
  add_test(NAME test_bench_report COMMAND test_bench_report)
endif()
