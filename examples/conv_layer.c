/* One convolution layer as inference runs it: the filter prepared once,
 * then many calls (y = relu(conv(x, w) + bias + y): a ResNet block's last
 * layer with its shortcut), timed with events, checked against the CPU
 * reference. Usage: conv_layer [N [C [H [K]]]] (default 1 64 56 64). */
#include <clforge/clforge.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static size_t arg(int argc, char **argv, int i, size_t def) { return argc > i ? (size_t)strtoul(argv[i], NULL, 10) : def; }

int main(int argc, char **argv) {
  const size_t n = arg(argc, argv, 1, 1), c = arg(argc, argv, 2, 64), h = arg(argc, argv, 3, 56),
               k = arg(argc, argv, 4, 64);
  clforge_conv2d_desc d = {.n = n, .c = c, .h = h, .w = h, .k = k, .r = 3, .s = 3,
                           .pad_top = 1, .pad_bottom = 1, .pad_left = 1, .pad_right = 1,
                           .beta = 1.0f, .activation = CLFORGE_ACT_RELU};
  size_t p, q;
  if (clforge_conv2d_output_size(&d, &p, &q) != CLFORGE_SUCCESS) {
    fprintf(stderr, "%s\n", clforge_last_error(NULL));
    return 1;
  }
  clforge_context ctx;
  if (clforge_context_create(NULL, &ctx) != CLFORGE_SUCCESS) {
    fprintf(stderr, "%s\n", clforge_last_error(NULL));
    return 1;
  }
  const size_t nx = n * c * h * h, nw = k * c * 9, ny = n * k * p * q;
  float *hx = malloc(nx * 4), *hw = malloc(nw * 4), *hb = malloc(k * 4), *hy = malloc(ny * 4), *want = malloc(ny * 4);
  for (size_t i = 0; i < nx; ++i) hx[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
  for (size_t i = 0; i < nw; ++i) hw[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
  for (size_t i = 0; i < k; ++i) hb[i] = 0.01f * (float)i;
  for (size_t i = 0; i < ny; ++i) hy[i] = want[i] = (float)(i % 3) - 1.0f;

  cl_context cl;
  cl_command_queue queue;
  clforge_context_cl_context(ctx, &cl);
  clforge_context_queue(ctx, &queue);
  cl_int err;
  cl_mem x = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nx * 4, hx, &err);
  cl_mem w = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nw * 4, hw, &err);
  cl_mem b = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, k * 4, hb, &err);
  cl_mem y = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, ny * 4, hy, &err);

  clforge_conv_choice choice;
  clforge_conv2d_weights weights = NULL;
  cl_event done = NULL;
  int rc = 1;
  if (clforge_conv2d_explain(ctx, &d, &choice) != CLFORGE_SUCCESS ||
      clforge_conv2d_weights_create(ctx, &d, w, 0, NULL, &weights) != CLFORGE_SUCCESS ||
      clforge_conv2d_ex(ctx, &d, x, NULL, weights, b, y, NULL, 0, 0, NULL, &done) != CLFORGE_SUCCESS) {
    fprintf(stderr, "%s\n", clforge_last_error(ctx));
    goto out;
  }
  /* the first call is checked (y was the shortcut's values: beta = 1 adds them) */
  clWaitForEvents(1, &done);
  clReleaseEvent(done);
  clEnqueueReadBuffer(queue, y, CL_TRUE, 0, ny * 4, hy, 0, NULL, NULL);
  clforge_ref_conv2d(&d, hx, hw, hb, want);
  double worst = 0, scale = 0;
  for (size_t i = 0; i < ny; ++i) {
    worst = fmax(worst, fabs((double)hy[i] - want[i]));
    scale = fmax(scale, fabs((double)want[i]));
  }
  /* then timed: each call accumulates into y again, which does not matter here */
  cl_event first = NULL, last = NULL;
  const int reps = 10;
  for (int r = 0; r < reps; ++r)
    if (clforge_conv2d_ex(ctx, &d, x, NULL, weights, b, y, NULL, 0, 0, NULL, r == 0 ? &first : r == reps - 1 ? &last : NULL) !=
        CLFORGE_SUCCESS) {
      fprintf(stderr, "%s\n", clforge_last_error(ctx));
      goto out;
    }
  clWaitForEvents(1, &last);
  cl_ulong t0 = 0, t1 = 0;
  /* end to end: a call may be several kernels, and the first one's end is where the others begin */
  clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_END, sizeof t0, &t0, NULL);
  clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
  const double s = (double)(t1 - t0) * 1e-9 / (reps - 1), flops = 2.0 * n * k * c * 9 * p * q;
  printf("conv2d %zux%zux%zux%zu -> %zu, 3x3: %s (%s), %.3f ms, %.1f GFLOP/s, max error %.2e of %.2e\n", n, c, h, h, k,
         clforge_conv_algo_name(choice.algo), choice.why, s * 1e3, flops / s * 1e-9, worst, scale);
  rc = worst <= 1e-3 * (scale > 1 ? scale : 1) ? 0 : 1;
  clReleaseEvent(first);
  clReleaseEvent(last);
out:
  clforge_conv2d_weights_release(weights);
  clReleaseMemObject(x);
  clReleaseMemObject(w);
  clReleaseMemObject(b);
  clReleaseMemObject(y);
  clforge_context_destroy(ctx);
  free(hx);
  free(hw);
  free(hb);
  free(hy);
  free(want);
  return rc;
}
