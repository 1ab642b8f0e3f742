// What every convolution program starts with (after common.cl, ahead of
// the family's own file; src/families/conv_*.c list it first): the storage
// types of the problem's tensors, the signed coordinate type, and the
// VW-wide float vectors with their loads and stores of each storage code.
// Each part only where the program is built with what it needs: a kernel
// built with fewer options (the reduce of backward filter, im2col) gets
// only the types it names.
//   X_T W_T Y_T BIAS_T C_T   storage codes (CLFORGE_DT_*; C_T: the int8 output)
//   WIDE                     coordinates may pass 2^31: sidx_t is 64 bits
//   VW                       vector width of the family (tuned)

#ifdef X_T
typedef CLFORGE_CAT(CLFORGE_STORAGE_, X_T) x_t;
#endif
#ifdef W_T
typedef CLFORGE_CAT(CLFORGE_STORAGE_, W_T) w_t;
#endif
#ifdef Y_T
typedef CLFORGE_CAT(CLFORGE_STORAGE_, Y_T) y_t;
#endif
#ifdef C_T
typedef CLFORGE_CAT(CLFORGE_STORAGE_, C_T) c_t;
#endif
#ifdef BIAS_T
typedef CLFORGE_CAT(CLFORGE_STORAGE_, BIAS_T) bias_t;
#endif

// Signed coordinates (input rows and columns, which padding makes negative).
#if WIDE
typedef long sidx_t;
#else
typedef int sidx_t;
#endif

#ifdef VW
#if VW == 1
#define VSUF
#define VLOADF(p) (*(p))
#define VSTOREF(x, p) (*(p) = (x))
#else
#define VSUF VW
#define VLOADF(p) CLFORGE_CAT(vload, VW)(0, p)
#define VSTOREF(x, p) CLFORGE_CAT(vstore, VW)(x, 0, p)
#endif
typedef CLFORGE_CAT(float, VSUF) floatv;
typedef CLFORGE_CAT(int, VSUF) intv;
typedef CLFORGE_CAT(uint, VSUF) uintv;

// Each lane's index, for masks.
#if VW == 2
#define LANES (int2)(0, 1)
#elif VW == 4
#define LANES (int4)(0, 1, 2, 3)
#elif VW == 8
#define LANES (int8)(0, 1, 2, 3, 4, 5, 6, 7)
#elif VW == 16
#define LANES (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#endif

// VW consecutive elements of storage code T (f32, f16, bf16; all in bounds)
// as f32, and f32 stored as T (narrowing rounds to nearest even).
#if VW > 1
#define CLFORGE_LDV_1(p) CLFORGE_CAT(vload, VW)(0, p)
#define CLFORGE_LDV_2(p) CLFORGE_CAT(clforge_f32_from_f16_bits_uint, VW)(CLFORGE_CAT(convert_uint, VW)(CLFORGE_CAT(vload, VW)(0, p)))
#define CLFORGE_LDV_3(p) CLFORGE_CAT(as_float, VW)(CLFORGE_CAT(convert_uint, VW)(CLFORGE_CAT(vload, VW)(0, p)) << 16)
#define CLFORGE_STV_1(v, p) CLFORGE_CAT(vstore, VW)(v, 0, p)
#define CLFORGE_STV_2(v, p) \
  CLFORGE_CAT(vstore, VW)(CLFORGE_CAT(convert_ushort, VW)(CLFORGE_CAT(clforge_f16_bits_uint, VW)(CLFORGE_CAT(as_uint, VW)(v))), 0, p)
#define CLFORGE_STV_3(v, p) \
  CLFORGE_CAT(vstore, VW)(CLFORGE_CAT(convert_ushort, VW)(CLFORGE_CAT(clforge_bf16_bits_uint, VW)(CLFORGE_CAT(as_uint, VW)(v))), 0, p)
#define LOADV(T, p) CLFORGE_CAT(CLFORGE_LDV_, T)(p)
#define STOREV(T, v, p) CLFORGE_CAT(CLFORGE_STV_, T)(v, p)
#else
#define LOADV(T, p) LOAD1(T, p, 0)
#define STOREV(T, v, p) STORE1(T, v, p, 0)
#endif
#endif
