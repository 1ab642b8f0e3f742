// clforge_elementwise (src/ops/elementwise.c): y = act(a op b) with
// broadcasting, EPI outputs per work-item, the items of a group interleaved
// by element (item i of group g takes g*WG*EPI + e*WG + i: neighbouring
// items, neighbouring outputs). y is dense; a and b are read through the
// collapsed shape (src/desc/elementwise_desc.c) and their strides, 0 where
// they broadcast.
// Tuned parameters (src/families/elementwise.c): WG, EPI.
// Problem options: A_T B_T Y_T (storage codes), OP (clforge_binary_op),
// ACT (cl/common.cl's activations), ND (collapsed dimensions, 1..8).
// (Remainders as x - q * y: the compiler's div/rem pairing would emit an
// LLVM `freeze`, which Oclgrind cannot run.)

typedef CLFORGE_CAT(CLFORGE_STORAGE_, A_T) a_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, B_T) b_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, Y_T) y_t;

#if OP == 1
#define COMBINE(x, y) ((x) + (y))
#elif OP == 2
#define COMBINE(x, y) ((x) - (y))
#elif OP == 3
#define COMBINE(x, y) ((x) * (y))
#elif OP == 4
#define COMBINE(x, y) ((x) / (y))
#elif OP == 5
#define COMBINE(x, y) (isnan(x) || isnan(y) ? (x) + (y) : fmax(x, y)) // a NaN wins
#elif OP == 6
#define COMBINE(x, y) (isnan(x) || isnan(y) ? (x) + (y) : fmin(x, y))
#else
#define COMBINE(x, y) (x)
#endif

// One dimension k of the collapsed shape, innermost first: its index from
// the rest r of the output's number, a's and b's offsets along it.
#define DIM(k)                                                                                                       \
  {                                                                                                                  \
    const ulong q = r / shape.s##k;                                                                                  \
    const ulong at = r - q * shape.s##k;                                                                             \
    ai += at * astr.s##k, bi += at * bstr.s##k, r = q;                                                               \
  }

kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_elementwise(
    const global a_t *A, const ulong a_off, const global b_t *B, const ulong b_off, global y_t *Y, const ulong y_off,
    const ulong n, const ulong8 shape, const ulong8 astr, const ulong8 bstr) {
  const ulong base = (ulong)get_group_id(0) * (WG * EPI) + get_local_id(0);
  for (int e = 0; e < EPI; ++e) {
    const ulong i = base + (ulong)e * WG;
    if (i >= n) return;
    ulong ai = 0, bi = 0, r = i;
    // the shape is outermost first: dimension ND-1 is the innermost
#if ND == 1
    ai = i * astr.s0, bi = i * bstr.s0;
#else
#if ND > 7
    DIM(7)
#endif
#if ND > 6
    DIM(6)
#endif
#if ND > 5
    DIM(5)
#endif
#if ND > 4
    DIM(4)
#endif
#if ND > 3
    DIM(3)
#endif
#if ND > 2
    DIM(2)
#endif
    DIM(1)
    ai += r * astr.s0, bi += r * bstr.s0;
#endif
    const float x = LOAD1(A_T, A, a_off + ai);
#if OP
    const float z = LOAD1(B_T, B, b_off + bi);
    const float v = COMBINE(x, z);
#else
    const float v = x;
#endif
#if ACT == 1
    STORE1(Y_T, isnan(v) ? v : ACTIVATE(v), Y, y_off + i); // torch.relu keeps NaN (the fused epilogues' does not)
#else
    STORE1(Y_T, ACTIVATE(v), Y, y_off + i);
#endif
  }
}
