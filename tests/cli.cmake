# The clforge command's tests; included from tests/CMakeLists.txt, which
# defines CLFORGE_TEST_ENV.
if(TARGET clforge_cli)
  add_test(NAME test_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_cli.sh $<TARGET_FILE:clforge_cli>)
  set_tests_properties(test_cli PROPERTIES ENVIRONMENT "${CLFORGE_TEST_ENV}" TIMEOUT 300)
endif()
