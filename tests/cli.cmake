# The clforge command's tests; included from tests/CMakeLists.txt.
if(TARGET clforge_cli)
  add_test(NAME test_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_cli.sh $<TARGET_FILE:clforge_cli>)
  set_tests_properties(test_cli PROPERTIES TIMEOUT 900)
endif()
# Two `clforge tune` processes writing one tuning file at once.
if(TARGET clforge_cli)
  add_executable(test_tune_concurrent test_tune_concurrent.c)
  target_link_libraries(test_tune_concurrent PRIVATE clforge_static)
  target_compile_definitions(test_tune_concurrent PRIVATE _POSIX_C_SOURCE=200809L)
  add_test(NAME test_tune_concurrent COMMAND test_tune_concurrent $<TARGET_FILE:clforge_cli>)
  set_tests_properties(test_tune_concurrent PROPERTIES TIMEOUT 600)
endif()
