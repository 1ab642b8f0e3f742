# Each test's cold cost in seconds (README command 2 with a cold PoCL cache,
# ctest -j2 on a 2-vCPU AMD EPYC Zen 4, 2026-12-07; tests under 1 s left out; see
# docs/performance.md, "The test suite's cost"). A fresh clone has no
# CTestCostData.txt, so these COST values are what make `ctest -j2` start
# the longest tests first and keep both cores busy to the end; later runs
# use ctest's own measurements. Every test's TIMEOUT (900 s, clforge_test)
# is at least three times these. Refresh them from
# `CHECKS=1 sh tests/suite_report.sh build` (the seconds rounded up) when a test's cost moves.
set(_clforge_test_costs
  test_bench 72 test_attention_fused 52 test_attention_split_kv 49 test_attention_kv_cache 38
  test_conv 39 test_conv_direct 26 test_gemm 25 test_gemm_packed 25 test_conv_select 23 test_attention_tune 21
  test_attention_compute_type 21 test_conv_implicit_gemm 20 example_train_cnn 20 test_attention_backward 17
  test_conv_fft 15 test_tuner 14 test_softmax 14 test_gemm_quantized 13 oclgrind_attention_split_kv 13
  test_attention 13 test_cross_entropy 13 test_user_files 12 test_conv_gemm_algos 12 oclgrind_conv_gemm_algos 12
  example_train_transformer 12 oclgrind_conv_winograd 12 oclgrind_attention 11 oclgrind_attention_fused 10
  oclgrind_conv_direct 10 test_gemm_epilogue 10 test_gemm_gate 8 test_gemm_q8_0 5 python_linear 6 test_softmax_backward 9 test_conv_winograd 9 python_conv2d 9
  test_conv_quantized 9 oclgrind_conv_fft 9 python_cli 8 python_conv2d_grad 8 oclgrind_cross_entropy 7
  python_norm 6 test_optimizer 6 oclgrind_conv_quantized 6 install_and_consume 6 oclgrind_conv_backward 6
  python_quantize 6 python_loss 5 python_plot 5 oclgrind_attention_compute_type 5 python_softmax 5
  test_cli 5 oclgrind_gemm_compute_type 5 oclgrind_test_softmax 5 python_matmul 5 test_conv_backward 4
  oclgrind_attention_backward 4 test_norm 4 test_gemm_compute_type 4 python_convert_tune 4 oclgrind_gemm_quantized 4
  python_kv_cache 4 native_kernels_compile 4 test_tuning_file 3 test_conv_aux 3 test_binary_cache 3
  test_quantize 3 oclgrind_conv_implicit_gemm 3 oclgrind_attention_kv_cache 3 oclgrind_gemm_epilogue 3
  test_convert 3 oclgrind_softmax_backward 3 test_tune_compute_type 2 oclgrind_gemm 2 test_tune_confirm 2
  python_attention 2 python_errors 2 test_activation_backward 2 test_gemm_shared_buffer 2 test_context_threads 2
  python_abi 2 test_tune_concurrent 2 oclgrind_gemm_packed 2 test_comm_local 3 example_train_cnn_ranks 8)
get_directory_property(_clforge_registered TESTS)
while(_clforge_test_costs)
  list(POP_FRONT _clforge_test_costs _name _seconds)
  if(_name IN_LIST _clforge_registered)
    set_tests_properties(${_name} PROPERTIES COST ${_seconds})
  endif()
endwhile()
