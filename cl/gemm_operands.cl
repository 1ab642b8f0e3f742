// The GEMM kernels' operands (after gemm_base.cl; the float families'
// gemm_common.cl and the int8 family's gemm_int8.cl follow): one storage
// type per operand (cl/common.cl: CLFORGE_STORAGE_<code>) and where
// element (row, col) of op(A) and op(B) lies in row-major storage.
// Problem options: A_T, B_T, C_T, BIAS_T (storage codes), TA, TB.

typedef CLFORGE_CAT(CLFORGE_STORAGE_, A_T) a_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, B_T) b_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, C_T) c_t;
#ifdef BIAS_T
typedef CLFORGE_CAT(CLFORGE_STORAGE_, BIAS_T) bias_t;
#else
typedef float bias_t;
#endif

#if TA
#define A_AT(row, p) ((idx_t)(p) * lda + (row))
#else
#define A_AT(row, p) ((idx_t)(row) * lda + (p))
#endif
#if TB
#define B_AT(p, col) ((idx_t)(col) * ldb + (p))
#else
#define B_AT(p, col) ((idx_t)(p) * ldb + (col))
#endif
