// Element-wise conversion between f32, f16 and bf16 storage.
// Parameters (-D), declared in src/families/convert.c:
//   SRC_T, DST_T  storage codes (CLFORGE_DT_*), different from each other
//   VW            elements per work-item: 1, 2, 4, 8 or 16
//   (WGS, the work-group size, is the host's: not a build option)
// Values travel as f32 bit patterns (uint) between load and store, so no
// floating-point operation touches them.

// (VSUF, uintv, VLOADF / VSTOREF: cl/common.cl. LOAD_BITS1 and the rest are
// this file's own: on bit patterns, named apart from common.cl's.)
#define AS_UINTV(x) CLFORGE_CAT(as_uint, VSUF)(x)
#define F16_BITS(x) CLFORGE_CAT(clforge_f16_bits_uint, VSUF)(x)
#define BF16_BITS(x) CLFORGE_CAT(clforge_bf16_bits_uint, VSUF)(x)
#define CONVERT_UINTV(x) CLFORGE_CAT(convert_uint, VSUF)(x)
#define CONVERT_USHORTV(x) CLFORGE_CAT(convert_ushort, VSUF)(x)

#if SRC_T == CLFORGE_DT_F32
typedef uint src_t;
#define LOAD_BITS1(p) (*(p))
#define LOAD_BITSV(p) VLOADF(p)
#elif SRC_T == CLFORGE_DT_F16
typedef ushort src_t;  // f16 bits, widened by cl/common.cl
#define LOAD_BITS1(p) as_uint(clforge_f32_from_f16_bits_uint((uint)(*(p))))
#define LOAD_BITSV(p) AS_UINTV(CLFORGE_CAT(clforge_f32_from_f16_bits_uint, VSUF)(CONVERT_UINTV(VLOADF(p))))
#elif SRC_T == CLFORGE_DT_BF16
typedef ushort src_t;
#define LOAD_BITS1(p) ((uint)(*(p)) << 16)
#define LOAD_BITSV(p) (CONVERT_UINTV(VLOADF(p)) << 16)
#else
#error "SRC_T must be a CLFORGE_DT_* code"
#endif

#if DST_T == CLFORGE_DT_F32
typedef uint dst_t;
#define STORE_BITS1(b, p) (*(p) = (b))
#define STORE_BITSV(b, p) VSTOREF(b, p)
#elif DST_T == CLFORGE_DT_F16 || DST_T == CLFORGE_DT_BF16
typedef ushort dst_t;  // f16 is stored through its bits too: see cl/common.cl
#if DST_T == CLFORGE_DT_F16
#define NARROW1 clforge_f16_bits_uint
#define NARROWV F16_BITS
#else
#define NARROW1 clforge_bf16_bits_uint
#define NARROWV BF16_BITS
#endif
#define STORE_BITS1(b, p) (*(p) = (ushort)NARROW1(b))
#define STORE_BITSV(b, p) VSTOREF(CONVERT_USHORTV(NARROWV(b)), p)
#else
#error "DST_T must be a CLFORGE_DT_* code"
#endif

// src_off/dst_off are element offsets, so any offset works: vloadN/vstoreN
// need only the alignment of the scalar type.
kernel void clforge_convert(const global src_t *src, ulong src_off, global dst_t *dst, ulong dst_off,
                            ulong n) {
  ulong i = (ulong)get_global_id(0) * VW;
  if (i >= n) return;
  src += src_off + i;
  dst += dst_off + i;
  if (i + VW <= n) {
    uintv b = LOAD_BITSV(src);
    STORE_BITSV(b, dst);
  } else {  // the one partial vector at the end
    for (ulong j = 0; i + j < n; ++j) {
      uint b = LOAD_BITS1(src + j);
      STORE_BITS1(b, dst + j);
    }
  }
}
