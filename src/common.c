/** @file common.c  Error reporting (printed or held), aligned allocation, the set-up threads. */
#include "sq_common.h"
#include "sq_kernels.h"
#ifdef _OPENMP
#include <omp.h>
#endif

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int sq_verbosity = 1;

void sq_set_threads(int n) {
#ifdef _OPENMP
  if (n >= 1 && !getenv("OMP_NUM_THREADS")) omp_set_num_threads(n);
#else
  (void)n;
#endif
}

int sq_get_threads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

double sq_wall_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double sq_cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void sq_sum_blocks(int64_t n, int nsum, void (*block)(int64_t lo, int64_t hi, double *acc, const void *ctx),
                   const void *ctx, double *out) {
  if (nsum < 1 || nsum > SQ_SUM_MAX) { /* a caller's bug, not an input error */
    fprintf(stderr, "starquake: sq_sum_blocks: %d sums, 1 to %d allowed\n", nsum, SQ_SUM_MAX);
    abort();
  }
  const int64_t nb = n > 0 ? (n + SQ_SUM_BLOCK - 1) / SQ_SUM_BLOCK : 0;
  double *part = nb > 1 ? calloc((size_t)(nb * nsum), sizeof(double)) : NULL;
  if (part) {
    SQ_PARALLEL_FOR
    for (int64_t b = 0; b < nb; ++b)
      block(b * SQ_SUM_BLOCK, b + 1 < nb ? (b + 1) * SQ_SUM_BLOCK : n, part + b * nsum, ctx);
  }
  /* the blocks in order; without the buffer (one block, or no memory for it) each is summed here */
  double acc[SQ_SUM_MAX];
  for (int j = 0; j < nsum; ++j) out[j] = 0.0;
  for (int64_t b = 0; b < nb; ++b) {
    const double *p = part ? part + b * nsum : acc;
    if (!part) {
      for (int j = 0; j < nsum; ++j) acc[j] = 0.0;
      block(b * SQ_SUM_BLOCK, b + 1 < nb ? (b + 1) * SQ_SUM_BLOCK : n, acc, ctx);
    }
    for (int j = 0; j < nsum; ++j) out[j] += p[j];
  }
  free(part);
}

/* held error text (sq_error_hold): the one piece of process state besides sq_verbosity */
static int error_holding = 0;
static char error_held[8192];
static size_t error_held_len = 0;

static void error_vput(const char *prefix, const char *fmt, va_list ap) {
  if (!error_holding) {
    fputs(prefix, stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    return;
  }
  char line[2048];
  const int n = vsnprintf(line, sizeof line, fmt, ap);
  if (n < 0) return;
  error_held_len +=
      (size_t)snprintf(error_held + error_held_len, sizeof error_held - error_held_len, "%s%s\n", prefix, line);
  if (error_held_len >= sizeof error_held) error_held_len = sizeof error_held - 1;
}

int sq_error(int code, const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_vput("starquake: error: ", fmt, ap);
  va_end(ap);
  if (sq_verbosity >= 2) sq_error_more("  (reported at %s:%d, code %d)", file, line, code);
  return code;
}

void sq_error_more(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_vput("", fmt, ap);
  va_end(ap);
}

void sq_error_hold(int hold) { error_holding = hold; }

void sq_error_release(void) {
  if (error_held_len) fputs(error_held, stderr);
  sq_error_discard();
}

void sq_error_discard(void) {
  error_held_len = 0;
  error_held[0] = 0;
}

int sq_calloc_aligned(void **ptr, size_t n, size_t size) {
  size_t bytes = n * size;
  if (bytes == 0) bytes = 64;
  bytes = (bytes + 63) & ~(size_t)63;
  void *p = aligned_alloc(64, bytes);
  if (!p) {
    *ptr = NULL;
    return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory allocating %zu bytes", bytes);
  }
  /* zeroed by all threads: the first touch of a large array (page faults) spreads over the cores; a
   * small one (one chunk) by this thread, with no thread team to wake (that takes milliseconds while the
   * runtime's workers hold the cores, and task submission allocates small arrays often) */
  const int64_t chunk = 1 << 20, nchunk = (int64_t)((bytes + chunk - 1) / chunk);
  if (nchunk <= 1) {
    memset(p, 0, bytes);
  } else {
    SQ_PARALLEL_FOR
    for (int64_t i = 0; i < nchunk; ++i) {
      const size_t off = (size_t)(i * chunk), n = bytes - off < (size_t)chunk ? bytes - off : (size_t)chunk;
      memset((char *)p + off, 0, n);
    }
  }
  *ptr = p;
  return SQ_SUCCESS;
}

void sq_free_aligned(void *ptr) { free(ptr); }

static int kernel_threads = 1;

void sq_kernel_set_threads(int nthreads) { kernel_threads = nthreads > 1 ? nthreads : 1; }

int sq_kernel_threads(void) { return kernel_threads; }
