# The Python package's tests (python/tests, pytest), one ctest entry per file
# so that ctest -j runs them side by side. They run the package from the
# source tree (python/src) over this build's libclforge and clforge command,
# with the interpreter of the environment README command 1 made (.venv:
# Debian's numpy, pyopencl, matplotlib and pytest, ml_dtypes from PyPI), or
# CLFORGE_PYTHON. Without numpy and pytest they report a skip with the reason.
# Not in a sanitizer build: the ASan runtime would have to be preloaded into
# the interpreter.
if(CLFORGE_SANITIZE)
  message(STATUS "Python tests off in a sanitizer build (the interpreter does not load the ASan runtime)")
  return()
endif()
# Empty: the script takes .venv/bin/python when it exists at test time, else python3.
set(CLFORGE_PYTHON "" CACHE FILEPATH "Python interpreter for the Python package's tests (empty: .venv, else python3)")

# Every public struct's layout as the compiler sees it, for test_abi.py.
add_executable(abi_layout abi_layout.c)
target_link_libraries(abi_layout PRIVATE clforge)

if(TARGET clforge_cli)
  set(_py_command "CLFORGE_COMMAND=$<TARGET_FILE:clforge_cli>")
else()
  set(_py_command "CLFORGE_COMMAND_UNSET=1")
endif()
file(GLOB _py_tests CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/tests/test_*.py)
foreach(_file IN LISTS _py_tests)
  get_filename_component(_stem ${_file} NAME_WE)
  string(REGEX REPLACE "^test_" "python_" _name ${_stem})
  add_test(NAME ${_name}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/python_check.sh "${CLFORGE_PYTHON}" ${PROJECT_SOURCE_DIR}/.venv ${_file})
  set_tests_properties(${_name} PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS python
    ENVIRONMENT "CLFORGE_LIBRARY=$<TARGET_FILE:clforge>;${_py_command};CLFORGE_ABI_LAYOUT=$<TARGET_FILE:abi_layout>;PYTHONPATH=${PROJECT_SOURCE_DIR}/python/src;PYTHONPYCACHEPREFIX=${CMAKE_CURRENT_BINARY_DIR}/pycache;MPLBACKEND=Agg")
endforeach()

# clforge.distributed over mpi4py on 3 ranks (tests/mpirun.sh), where the
# library has its MPI transport.
if(CLFORGE_MPI)
  add_test(NAME python_distributed_3
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/mpirun.sh ${MPIEXEC_EXECUTABLE} 3
                   sh ${CMAKE_CURRENT_SOURCE_DIR}/python_check.sh "${CLFORGE_PYTHON}" ${PROJECT_SOURCE_DIR}/.venv
                   ${PROJECT_SOURCE_DIR}/python/tests/mpi_distributed.py)
  set_tests_properties(python_distributed_3 PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS "python;mpi"
    ENVIRONMENT "CLFORGE_LIBRARY=$<TARGET_FILE:clforge>;PYTHONPATH=${PROJECT_SOURCE_DIR}/python/src;PYTHONPYCACHEPREFIX=${CMAKE_CURRENT_BINARY_DIR}/pycache")
endif()
