# Every test gets a home of its own inside the build tree, emptied before each
# ctest run: HOME and XDG_CACHE_HOME point there (tests of the default
# locations land there), and so do the user tuning file and the system tuning
# file. CLFORGE_CACHE_DIR is unset, so the kernel cache is the default one in
# that home — which on PoCL stands aside for PoCL's own cache, shared by the
# whole run (below): a kernel one test compiled is not compiled again. No test reads or writes the user's clforge files
# (README command 1 writes ~/.cache/clforge/tuning.json; an install writes
# <prefix>/share/clforge/tuning.json), and CLFORGE_* settings from the
# user's shell that change results (overrides, paths, validation, logging)
# do not leak in. CLFORGE_DEVICE passes through: it chooses the device the
# suite runs on. Included last from tests/CMakeLists.txt: it applies to every
# test registered in this directory.
set(CLFORGE_TEST_HOMES ${CMAKE_CURRENT_BINARY_DIR}/homes)
# PoCL's own kernel cache lives under HOME too; one shared cache keeps the
# per-test homes from recompiling every kernel (CI points both of its builds
# at one cache through POCL_CACHE_DIR).
if(DEFINED ENV{POCL_CACHE_DIR})
  set(_pocl_cache "$ENV{POCL_CACHE_DIR}")
else()
  set(_pocl_cache ${CMAKE_CURRENT_BINARY_DIR}/pocl-cache)
endif()

# -DCLFORGE_TEST_LOG=info: every test logs what it compiles (CLFORGE_LOG;
# each context's "programs:" line) into ctest's log — what a test costs.
# (debug lists every first launch too, but the command's tests that expect
# a quiet stderr then fail: use it on one test at a time.)
set(CLFORGE_TEST_LOG "" CACHE STRING "CLFORGE_LOG for the tests (empty: silent)")
if(CLFORGE_TEST_LOG)
  set(_log "CLFORGE_LOG=set:${CLFORGE_TEST_LOG}")
else()
  set(_log "CLFORGE_LOG=unset:")
endif()

# Every driver README command 1 installed (tools/install-intel-opencl.sh:
# Intel's OpenCL CPU runtime beside the system's ICDs) is visible to every
# test; PoCL stays the default device (src/core/device.c), CLFORGE_DEVICE=intel
# runs the suite on the other (tests/run_on_driver.sh). Intel's runtime
# takes a thread per core by default: one per test, as ctest -j2 runs two
# tests on this project's 2-core machines (PoCL's threads are as many as
# the cores too, and have long shared them this way).
# (Not in a sanitizer build: it runs on PoCL only, and the ICD loader would
# load Intel's runtime into every instrumented process.)
set(_drivers "${PROJECT_SOURCE_DIR}/_drivers/vendors")
if(EXISTS "${_drivers}" AND NOT CLFORGE_SANITIZE)
  set(_icd "OCL_ICD_VENDORS=set:${_drivers}")
else()
  set(_icd "OCL_ICD_VENDORS=reset:")
endif()
set(CLFORGE_TEST_DRIVER_THREADS 1 CACHE STRING "threads of Intel's OpenCL CPU runtime per test (CL_CONFIG_CPU_TBB_NUM_WORKERS)")

get_directory_property(_clforge_tests TESTS)
add_test(NAME test_homes_reset
         COMMAND ${CMAKE_COMMAND} -DHOMES=${CLFORGE_TEST_HOMES} "-DTESTS=${_clforge_tests}"
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/reset_test_homes.cmake)
set_tests_properties(test_homes_reset PROPERTIES FIXTURES_SETUP clforge_test_homes)

foreach(t IN LISTS _clforge_tests)
  set(_home ${CLFORGE_TEST_HOMES}/${t})
  set(_mods
    "HOME=set:${_home}" "XDG_CACHE_HOME=set:${_home}/.cache" "POCL_CACHE_DIR=set:${_pocl_cache}"
    "CLFORGE_CACHE_DIR=unset:"
    "CLFORGE_TUNING_FILE=set:${_home}/.cache/clforge/tuning.json"
    "CLFORGE_SYSTEM_TUNING_FILE=set:${_home}/share/clforge/tuning.json"
    "CLFORGE_PARAMS=unset:" "CLFORGE_GEMM_PATH=unset:" "CLFORGE_VALIDATE=unset:" "${_log}" "${_icd}"
    "CL_CONFIG_CPU_TBB_NUM_WORKERS=set:${CLFORGE_TEST_DRIVER_THREADS}")
  # The test's own settings (e.g. Oclgrind's CLFORGE_CACHE_DIR=off) come
  # after these and win: ENVIRONMENT_MODIFICATION is applied after
  # ENVIRONMENT, so its plain assignments move in here as set: entries.
  get_test_property(${t} ENVIRONMENT _own)
  if(_own)
    foreach(_kv IN LISTS _own)
      string(REGEX REPLACE "^([^=]*)=(.*)$" "\\1=set:\\2" _kv "${_kv}")
      list(APPEND _mods "${_kv}")
    endforeach()
  endif()
  get_test_property(${t} ENVIRONMENT_MODIFICATION _own_mods)
  if(_own_mods)
    list(APPEND _mods ${_own_mods})
  endif()
  set_tests_properties(${t} PROPERTIES FIXTURES_REQUIRED clforge_test_homes ENVIRONMENT "" ENVIRONMENT_MODIFICATION "${_mods}")
endforeach()
