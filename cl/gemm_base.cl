// What every GEMM program starts with (ahead of gemm_operands.cl, or of a
// pack kernel's file alone). The index type and the unroll pragma every family
// shares are in common.cl; cl/conv_base.cl is the convolutions' twin.

#ifdef CLFORGE_TEST_BUILD_ERROR // tests only: prove the tuner discards a candidate that fails to build
#error "clforge test: forced build failure"
#endif

