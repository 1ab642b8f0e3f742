# cmake -DHOMES=DIR -DTESTS=a;b;c -P reset_test_homes.cmake
# Empties the tests' homes (tests/hermetic.cmake) so that no run sees what an
# earlier one left, and creates one home per test.
file(REMOVE_RECURSE "${HOMES}")
foreach(t IN LISTS TESTS)
  file(MAKE_DIRECTORY "${HOMES}/${t}/.cache")
endforeach()
