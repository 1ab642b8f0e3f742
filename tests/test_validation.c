/* Validation mode: a correct result passes, a deliberately wrong one (test
 * hook that flips a bit of the device result) is caught with the element
 * and its error in the message; the mode follows CLFORGE_VALIDATE and
 * clforge_context_set_validation. */
#include "../src/core/context.h"
#include "test_util.h"

int main(void) {
  setenv("CLFORGE_VALIDATE", "1", 1);
  clforge_context ctx = tu_context();
  int on = -1;
  CHECK_OK(ctx, clforge_context_get_validation(ctx, &on));
  CHECK(on == 1, "CLFORGE_VALIDATE=1: validation reads %d", on);
  enum { N = 777 };
  float in[N];
  for (int i = 0; i < N; ++i) in[i] = 1.0f + (float)i / 64.0f; /* no zeros: a flipped bit always changes a value */
  cl_mem a = tu_buffer(ctx, sizeof in), b = tu_buffer(ctx, sizeof in);
  tu_write(ctx, a, 0, sizeof in, in);
  const clforge_dtype dts[] = {CLFORGE_F32, CLFORGE_F16, CLFORGE_BF16};
  for (int s = 0; s < 3; ++s)
    for (int d = 0; d < 3; ++d) {
      /* Source holds exact values of its dtype, so every pair is well defined. */
      CHECK_OK(ctx, clforge_convert(ctx, N, a, 0, CLFORGE_F32, b, 0, dts[s], 0, NULL, NULL));
      cl_mem c = tu_buffer(ctx, sizeof in);
      CHECK_OK(ctx, clforge_convert(ctx, N, b, 0, dts[s], c, 0, dts[d], 0, NULL, NULL));
      clforge__test_set_fault(ctx, "convert");
      cl_event ev = NULL;
      CHECK_FAILS(ctx, clforge_convert(ctx, N, b, 0, dts[s], c, 0, dts[d], 0, NULL, &ev), CLFORGE_VALIDATION_FAILED,
                  "element 0 is");
      CHECK(ev == NULL, "%s", "no event is handed out on failure");
      clforge__test_set_fault(ctx, NULL);
      clReleaseMemObject(c);
    }
  /* With validation off the hook has nothing to check against: the call succeeds. */
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
  CHECK_OK(ctx, clforge_context_get_validation(ctx, &on));
  CHECK(on == 0, "after set_validation(0): %d", on);
  clforge__test_set_fault(ctx, "convert");
  CHECK_OK(ctx, clforge_convert(ctx, N, a, 0, CLFORGE_F32, b, 0, CLFORGE_F16, 0, NULL, NULL));
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
  CHECK_FAILS(ctx, clforge_convert(ctx, N, a, 0, CLFORGE_F32, b, 0, CLFORGE_F16, 0, NULL, NULL),
              CLFORGE_VALIDATION_FAILED, "convert");
  clforge__test_set_fault(ctx, NULL);
  CHECK_FAILS(ctx, clforge_context_set_validation(ctx, 2), CLFORGE_INVALID_ARGUMENT, "0 or 1");

  /* GEMM through the same mechanism: a correct result passes, a corrupted one
   * is caught, for an f32 and a bf16 result. The storage types, transposes
   * and epilogues are test_gemm's keys 9 and 17 (tests/gemm_cases.h), so
   * that these builds are shared with it. */
  enum { M = 33, K = 20 };
  float host[M * M];
  for (int i = 0; i < M * M; ++i) host[i] = (float)(i % 29) / 29.0f - 0.4f;
  const clforge_gemm_desc descs[2] = {
      {.m = M, .n = M, .k = K, .alpha = 1, .beta = 0.5f, .trans_b = CLFORGE_TRANS, .a_type = CLFORGE_F16,
       .c_type = CLFORGE_F32, .bias_mode = CLFORGE_BIAS_ROW, .bias_type = CLFORGE_F16,
       .activation = CLFORGE_ACT_RELU},
      {.m = M, .n = M, .k = K, .alpha = 1, .beta = 0.5f, .a_type = CLFORGE_F16, .b_type = CLFORGE_BF16,
       .c_type = CLFORGE_BF16, .bias_mode = CLFORGE_BIAS_COLUMN, .activation = CLFORGE_ACT_RELU}};
  cl_mem ga = tu_buffer(ctx, M * K * 4), gb = tu_buffer(ctx, M * K * 4), gc = tu_buffer(ctx, M * M * 4),
         gbias = tu_buffer(ctx, M * 4);
  for (int i = 0; i < 2; ++i) {
    const clforge_gemm_desc *desc = &descs[i];
    const clforge_dtype bt = desc->b_type ? desc->b_type : CLFORGE_F32, biast = desc->bias_type ? desc->bias_type : CLFORGE_F32;
    unsigned char conv[M * M * 4]; /* each operand's values in its own dtype */
    clforge_ref_convert(M * K, host, CLFORGE_F32, conv, desc->a_type);
    tu_write(ctx, ga, 0, M * K * clforge_dtype_size(desc->a_type), conv);
    clforge_ref_convert(M * K, host + 100, CLFORGE_F32, conv, bt);
    tu_write(ctx, gb, 0, M * K * clforge_dtype_size(bt), conv);
    clforge_ref_convert(M, host + 7, CLFORGE_F32, conv, biast);
    tu_write(ctx, gbias, 0, M * clforge_dtype_size(biast), conv);
    clforge_ref_convert(M * M, host, CLFORGE_F32, conv, desc->c_type);
    tu_write(ctx, gc, 0, M * M * clforge_dtype_size(desc->c_type), conv);
    CHECK_OK(ctx, clforge_gemm(ctx, desc, ga, gb, gc, gbias, 0, NULL, NULL));
    clforge__test_set_fault(ctx, "gemm");
    CHECK_FAILS(ctx, clforge_gemm(ctx, desc, ga, gb, gc, gbias, 0, NULL, NULL), CLFORGE_VALIDATION_FAILED, "gemm: element");
    clforge__test_set_fault(ctx, NULL);
  }
  clReleaseMemObject(ga);
  clReleaseMemObject(gb);
  clReleaseMemObject(gc);
  clReleaseMemObject(gbias);
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clforge_context_destroy(ctx);

  setenv("CLFORGE_VALIDATE", "maybe", 1);
  clforge_context bad = NULL;
  CHECK_FAILS(NULL, clforge_context_create(NULL, &bad), CLFORGE_INVALID_ENVIRONMENT, "CLFORGE_VALIDATE");
  CHECK(bad == NULL, "%s", "no context");
  return tu_summary();
}
