/* Gradient buckets for data-parallel training, as PyTorch DDP makes them:
 * the gradients grouped into buckets of at most a cap of bytes (DDP's
 * default 25 MB), filled in the order the backward produces them (the last
 * layer's first); each bucket is one device buffer and each gradient a
 * sub-buffer of it (aligned as the device asks), so the kernels write the
 * gradients where they are and one MEAN all-reduce per bucket averages all
 * of them, nothing copied. A bucket's all-reduce starts as soon as its last
 * gradient's kernel is enqueued (clforge_allreduce waits for what the rank's
 * queue holds), so it overlaps the backward of the layers below; the
 * optimizer step waits on the buckets' events. Needs train_common.h. */
#ifndef CLFORGE_EXAMPLES_GRAD_BUCKETS_H
#define CLFORGE_EXAMPLES_GRAD_BUCKETS_H

enum { BUCKETS_MAX = 16 };

typedef struct {
  int n;                                       /* buckets */
  clforge_dtype t;
  cl_mem buf[BUCKETS_MAX];
  size_t count[BUCKETS_MAX];                   /* elements, alignment padding included (zeros) */
  int members[BUCKETS_MAX], left[BUCKETS_MAX]; /* gradients; those not produced yet this step */
  int of[BUCKETS_MAX];                         /* gradient -> bucket */
  cl_event ev[BUCKETS_MAX];                    /* this step's all-reduces */
} grad_buckets;

/* ntensors gradients of count[i] elements of t, produced in `order`, into
 * buckets of at most cap bytes (a gradient larger than cap gets one of its
 * own); sub[i] receives gradient i's sub-buffer. 0, or 1 after a message. */
static int buckets_make(grad_buckets *B, env *e, clforge_dtype t, int ntensors, const size_t *count, const int *order,
                        size_t cap, cl_mem *sub) {
  memset(B, 0, sizeof *B);
  B->t = t;
  cl_device_id dev;
  cl_uint align_bits = 0;
  clforge_context_device(e->ctx, &dev);
  clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
  const size_t es = clforge_dtype_size(t), align = align_bits / 8 / es ? align_bits / 8 / es : 1;
  size_t at[BUCKETS_MAX];
  for (int k = 0; k < ntensors; ++k) {
    const int i = order[k];
    if (B->n == 0 || (B->count[B->n - 1] > 0 && (B->count[B->n - 1] + count[i]) * es > cap)) {
      if (B->n == BUCKETS_MAX) return fail(e, "buckets_make: too many buckets");
      B->count[B->n++] = 0;
    }
    const int b = B->n - 1;
    at[i] = (B->count[b] + align - 1) / align * align;
    B->count[b] = at[i] + count[i], B->of[i] = b, ++B->members[b];
  }
  for (int b = 0; b < B->n; ++b)
    if (!(B->buf[b] = make(e, B->count[b], t, NULL))) return fail(e, "buckets_make: clCreateBuffer");
  for (int i = 0; i < ntensors; ++i) {
    const cl_buffer_region region = {at[i] * es, count[i] * es};
    cl_int err;
    sub[i] = clCreateSubBuffer(B->buf[B->of[i]], CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    if (err != CL_SUCCESS) return fail(e, "buckets_make: clCreateSubBuffer");
  }
  return 0;
}

/* A new step: every bucket waits for all of its gradients again. */
static void buckets_begin(grad_buckets *B) {
  for (int b = 0; b < B->n; ++b) {
    B->left[b] = B->members[b];
    if (B->ev[b]) clReleaseEvent(B->ev[b]), B->ev[b] = NULL;
  }
}

/* Gradient i's kernel is enqueued: its bucket's MEAN all-reduce starts when
 * it was the bucket's last. */
static clforge_status buckets_produced(grad_buckets *B, clforge_comm comm, int i) {
  const int b = B->of[i];
  if (--B->left[b] > 0) return CLFORGE_SUCCESS;
  const clforge_collective_desc d = {.dtype = B->t, .op = CLFORGE_REDUCE_MEAN, .count = B->count[b]};
  return clforge_allreduce(comm, &d, B->buf[b], 0, B->buf[b], 0, 0, NULL, &B->ev[b]);
}

/* "all-reduce bucket b", for traces. */
static const char *buckets_name(int b) {
  static char names[BUCKETS_MAX][24];
  snprintf(names[b], sizeof names[b], "all-reduce bucket %d", b);
  return names[b];
}

static void buckets_free(grad_buckets *B) {
  for (int b = 0; b < B->n; ++b) {
    if (B->ev[b]) clReleaseEvent(B->ev[b]);
    if (B->buf[b]) clReleaseMemObject(B->buf[b]);
  }
  memset(B, 0, sizeof *B);
}

#endif
