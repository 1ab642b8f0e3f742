# Each test's cold cost in seconds (README command 2 on a fresh clone, cold
# PoCL cache, ctest -j2 on 2 cores of the Intel Xeon CI machine; see
# docs/performance.md, "The test suite's cost"). A fresh clone has no
# CTestCostData.txt, so these COST values are what make `ctest -j2` start
# the longest tests first and keep both cores busy to the end; later runs
# use ctest's own measurements. Every test's TIMEOUT (900 s, clforge_test)
# is at least three times these. Refresh them from
# `sh tests/suite_report.sh build 60` when a test's cost moves.
set(_clforge_test_costs
  test_bench 169 test_conv 102 test_attention_split_kv 99 test_attention_fused 91
  test_conv_implicit_gemm 85 test_gemm 82 test_gemm_packed 74 test_conv_select 59
  oclgrind_conv_fft 30 oclgrind_conv_gemm_algos 51 oclgrind_attention_split_kv 47
  test_conv_gemm_algos 46 oclgrind_attention 36 test_tuner 34 test_attention_tune 32
  test_conv_direct 27 test_softmax 25 oclgrind_conv_winograd 24 oclgrind_attention_fused 23
  test_conv_fft 21 oclgrind_conv_direct 20 test_attention 20 test_user_files 19
  test_conv_winograd 13 test_cli 6 oclgrind_test_softmax 6 install_and_consume 6
  oclgrind_conv_implicit_gemm 5 test_convert 5 oclgrind_gemm 4 test_binary_cache 4
  python_conv2d 18 python_matmul 14 python_cli 12 python_plot 8 python_softmax 7
  test_cross_entropy 25 test_softmax_backward 18 test_optimizer 15 oclgrind_optimizer 12
  oclgrind_cross_entropy 9 oclgrind_softmax_backward 5 python_loss 9
  test_conv_backward 37 oclgrind_conv_backward 20 test_activation_backward 8 oclgrind_activation_backward 5
  example_train_cnn 40 test_gemm_epilogue 30 oclgrind_gemm_epilogue 10
  test_norm 10 oclgrind_norm 5 test_attention_backward 20 oclgrind_attention_backward 15
  example_train_transformer 25 test_conv_aux 10 oclgrind_conv_aux 10)
get_directory_property(_clforge_registered TESTS)
while(_clforge_test_costs)
  list(POP_FRONT _clforge_test_costs _name _seconds)
  if(_name IN_LIST _clforge_registered)
    set_tests_properties(${_name} PROPERTIES COST ${_seconds})
  endif()
endwhile()
