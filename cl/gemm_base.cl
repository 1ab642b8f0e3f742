// What every GEMM program starts with (ahead of gemm_common.cl, or of
// gemm_pack.cl alone): the index type and the unroll pragma.
//   IDX64   1 when an operand spans 2^32 elements or more

#ifdef CLFORGE_TEST_BUILD_ERROR // tests only: prove the tuner discards a candidate that fails to build
#error "clforge test: forced build failure"
#endif

#if IDX64
typedef ulong idx_t;
#else
typedef uint idx_t;
#endif

#define CLFORGE_UNROLL_(x) _Pragma(#x)
#define UNROLL(n) CLFORGE_UNROLL_(unroll n)
