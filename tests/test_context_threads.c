/* Several threads released at the same moment into clforge_context_create
 * (the documented one-context-per-thread use, e.g. a thread pool starting
 * up), each then running a small GEMM on its own context and checking it
 * against the reference. The driver race this guards against happens only
 * on a process's first device enumeration, so the test runs itself again
 * as several fresh child processes (`--child`) and counts their results. */
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

enum { THREADS = 6, PROCESSES = 6, N = 24 };

/* Under AddressSanitizer only: the worker threads compile kernels, and PoCL's
 * LLVM installs an alternate signal stack of its own on a compiling thread;
 * ASan would then fail to unmap "its" stack when the thread exits ("unable
 * to unmap"). ASan reads this hook at start-up; other builds never call it. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "use_sigaltstack=0"; }

static pthread_barrier_t start;

typedef struct {
  int index, alone; /* alone: no barrier (the parent's run) */
  clforge_status create, run;
  char message[512];
  double max_err;
} worker;

static void *work(void *arg) {
  worker *w = arg;
  if (!w->alone) pthread_barrier_wait(&start);
  clforge_context ctx = NULL;
  w->create = clforge_context_create(NULL, &ctx);
  if (w->create != CLFORGE_SUCCESS) {
    snprintf(w->message, sizeof w->message, "%s", clforge_last_error(NULL));
    return NULL;
  }
  /* A small GEMM (each thread its own values) compared with the reference. */
  float a[N * N], b[N * N], c[N * N], want[N * N];
  unsigned seed = 7u + (unsigned)w->index;
  for (int i = 0; i < N * N; ++i) {
    a[i] = (float)(tu_rand(&seed) % 17) - 8.0f;
    b[i] = (float)(tu_rand(&seed) % 13) - 6.0f;
  }
  clforge_gemm_desc d = {.m = N, .n = N, .k = N, .alpha = 1.0f, .beta = 0.0f};
  cl_context cl;
  cl_command_queue q;
  clforge_context_cl_context(ctx, &cl);
  clforge_context_queue(ctx, &q);
  cl_int err;
  cl_mem ba = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof a, a, &err);
  cl_mem bb = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof b, b, &err);
  cl_mem bc = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof c, NULL, &err);
  w->run = clforge_gemm(ctx, &d, ba, bb, bc, NULL, 0, NULL, NULL);
  if (w->run == CLFORGE_SUCCESS) w->run = clEnqueueReadBuffer(q, bc, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL);
  if (w->run != CLFORGE_SUCCESS) snprintf(w->message, sizeof w->message, "%s", clforge_last_error(ctx));
  clforge_ref_gemm(&d, a, b, want, NULL);
  for (int i = 0; w->run == CLFORGE_SUCCESS && i < N * N; ++i) {
    double e = c[i] > want[i] ? c[i] - want[i] : want[i] - c[i];
    if (e > w->max_err) w->max_err = e;
  }
  clReleaseMemObject(ba);
  clReleaseMemObject(bb);
  clReleaseMemObject(bc);
  clforge_context_destroy(ctx);
  return NULL;
}

static void check_worker(const worker *w) {
  CHECK(w->create == CLFORGE_SUCCESS, "thread %d: context_create -> %s: %s", w->index, clforge_status_name(w->create),
        w->message);
  if (w->create != CLFORGE_SUCCESS) return;
  CHECK(w->run == CLFORGE_SUCCESS, "thread %d: gemm -> %s: %s", w->index, clforge_status_name(w->run), w->message);
  /* Small integers: the f32 result is exact. */
  CHECK(w->max_err == 0.0, "thread %d: gemm differs from the reference by %g", w->index, w->max_err);
}

static int child(void) {
  pthread_t t[THREADS];
  worker w[THREADS];
  memset(w, 0, sizeof w);
  pthread_barrier_init(&start, NULL, THREADS);
  for (int i = 0; i < THREADS; ++i) {
    w[i].index = i;
    pthread_create(&t[i], NULL, work, &w[i]);
  }
  for (int i = 0; i < THREADS; ++i) pthread_join(t[i], NULL);
  pthread_barrier_destroy(&start);
  for (int i = 0; i < THREADS; ++i) check_worker(&w[i]);
  printf("child: %d passed, %d failed\n", tu_passed, tu_failed);
  return tu_failed ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--child")) return child();
  /* The GEMM once here first, so that the children find its kernel in
   * PoCL's cache: the race is in the driver's start-up, which each child
   * still meets afresh, and 36 contexts compiling one kernel at once
   * would only cost time. */
  worker first = {.index = -1, .alone = 1};
  work(&first);
  check_worker(&first);
  /* A crash in one child is a failure of the parent; each child starts with
   * a driver nobody in it has initialized yet. */
  for (int p = 0; p < PROCESSES; ++p) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      execl("/proc/self/exe", argv[0], "--child", (char *)NULL);
      _exit(127);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork/wait failed");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d: %s %d", p,
          WIFSIGNALED(status) ? "killed by signal" : "exit status",
          WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  }
  return tu_summary();
}
