/* Running the host's multiply-add loop (host_fma_loop.c) on several
 * threads, after checking that this CPU can run the code it was built to. */
#include "host_fma.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "timer.h"

enum { MAX_THREADS = 1024 };

#ifndef CLFORGE_BENCH_HOST_FMA_FLAGS
#define CLFORGE_BENCH_HOST_FMA_FLAGS ""
#endif

const char *clforge_bench_host_fma_flags(void) { return CLFORGE_BENCH_HOST_FMA_FLAGS; }

int clforge_bench_host_fma_usable(const char **why) {
  const char *need = clforge_bench_host_fma_built.needs;
  int ok = 1;
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
  /* __builtin_cpu_supports takes string literals only. */
  if (need && !strcmp(need, "avx512f")) ok = __builtin_cpu_supports("avx512f");
  else if (need && !strcmp(need, "fma")) ok = __builtin_cpu_supports("fma");
  else if (need && !strcmp(need, "avx")) ok = __builtin_cpu_supports("avx");
#endif
  if (!ok && why) *why = "the host loop was built for another CPU (-march=native of the build machine): not run";
  return ok;
}

double clforge_bench_host_fma_flops(int threads, long long iters) {
  const clforge_bench_host_fma_build *b = &clforge_bench_host_fma_built;
  return 2.0 * 16 * b->chains * b->lanes * (double)iters * threads;
}

typedef struct {
  long long iters;
  float seed, out;
} worker;

static void *work(void *arg) {
  worker *w = arg;
  /* x converges to b / (1 - a) = 1: no overflow, no denormals. */
  w->out = clforge_bench_host_fma_loop(w->iters, 0.999f, 0.001f, w->seed);
  return NULL;
}

double clforge_bench_host_fma_run(int threads, long long iters) {
  if (threads < 1 || threads > MAX_THREADS) return -1;
  pthread_t *tid = malloc((size_t)threads * sizeof *tid);
  worker *w = malloc((size_t)threads * sizeof *w);
  if (!tid || !w) {
    free(tid);
    free(w);
    return -1;
  }
  int started = 0;
  const double t0 = clforge_bench_now();
  for (; started < threads; ++started) {
    w[started] = (worker){iters, (float)started * 0.5f, 0.0f};
    if (pthread_create(&tid[started], NULL, work, &w[started]) != 0) break;
  }
  for (int i = 0; i < started; ++i) pthread_join(tid[i], NULL);
  const double t = clforge_bench_now() - t0;
  free(tid);
  free(w);
  return started == threads && t > 0 ? t : -1;
}
