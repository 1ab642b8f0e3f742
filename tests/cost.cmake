# Each test's cold cost in seconds (README command 2 with a cold PoCL cache,
# ctest -j2 on a 2-vCPU AMD EPYC Zen 4, 2026-12-07; tests under 1 s left out; see
# docs/performance.md, "The test suite's cost"). A fresh clone has no
# CTestCostData.txt, so these COST values are what make `ctest -j2` start
# the longest tests first and keep both cores busy to the end; later runs
# use ctest's own measurements. Every test's TIMEOUT (900 s, clforge_test)
# is at least three times these. Refresh them from
# `sh tests/suite_report.sh build 60` when a test's cost moves.
set(_clforge_test_costs
  test_bench 78 test_conv 59 test_attention_fused 53 test_attention_split_kv 49
  test_attention_kv_cache 41 test_conv_select 31 test_gemm 29 test_attention_compute_type 28
  test_conv_direct 28 test_gemm_packed 28 test_attention_backward 25 oclgrind_attention_split_kv 23
  test_attention_tune 23 test_conv_implicit_gemm 22 example_train_cnn 21
  oclgrind_conv_gemm_algos 19 test_conv_fft 18 test_gemm_quantized 17 test_attention 17
  python_kv_cache 17 oclgrind_conv_direct 17 test_softmax 16 oclgrind_attention_fused 16
  test_cross_entropy 16 oclgrind_conv_winograd 15 test_conv_gemm_algos 15 test_user_files 15
  test_tuner 15 oclgrind_attention 14 oclgrind_gemm_compute_type 14 example_train_transformer 13
  oclgrind_gemm_epilogue 12 oclgrind_conv_backward 12 test_conv_quantized 11 test_gemm_epilogue 10
  oclgrind_conv_fft 9 test_conv_winograd 9 python_quantize 9 python_conv2d 9 test_optimizer 9
  python_conv2d_grad 8 test_softmax_backward 8 python_cli 8 python_norm 8
  oclgrind_attention_compute_type 8 oclgrind_cross_entropy 8 oclgrind_conv_quantized 7
  python_loss 7 install_and_consume 6 test_cli 6 python_softmax 6 oclgrind_attention_backward 6
  test_gemm_compute_type 6 python_convert_tune 5 oclgrind_gemm_quantized 5 test_conv_backward 5
  example_batched_decode 5 oclgrind_test_softmax 5 test_norm 5 python_plot 5 test_binary_cache 4
  python_matmul 4 oclgrind_conv_implicit_gemm 4 native_kernels_compile 4 test_tuning_file 3
  test_convert 3 oclgrind_gemm 3 test_conv_aux 3 test_quantize 3 oclgrind_attention_kv_cache 3
  test_tune_compute_type 2 oclgrind_softmax_backward 2 python_attention 2 python_errors 2
  test_activation_backward 2 test_tune_confirm 2 test_tune_concurrent 2 python_abi 2
  test_gemm_shared_buffer 2 test_context_threads 2 oclgrind_conv_aux 1 oclgrind_gemm_packed 1)
get_directory_property(_clforge_registered TESTS)
while(_clforge_test_costs)
  list(POP_FRONT _clforge_test_costs _name _seconds)
  if(_name IN_LIST _clforge_registered)
    set_tests_properties(${_name} PROPERTIES COST ${_seconds})
  endif()
endwhile()
