/** @file common.c  Error reporting and aligned allocation. */
#include "sq_common.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int sq_verbosity = 1;

int sq_error(int code, const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "starquake: error: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  if (sq_verbosity >= 2) fprintf(stderr, "  (reported at %s:%d, code %d)\n", file, line, code);
  va_end(ap);
  return code;
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
  /* zeroed by all threads: the first touch of a large array (page faults) spreads over the cores */
  const int64_t chunk = 1 << 20, nchunk = (int64_t)((bytes + chunk - 1) / chunk);
  SQ_PARALLEL_FOR
  for (int64_t i = 0; i < nchunk; ++i) {
    const size_t off = (size_t)(i * chunk), n = bytes - off < (size_t)chunk ? bytes - off : (size_t)chunk;
    memset((char *)p + off, 0, n);
  }
  *ptr = p;
  return SQ_SUCCESS;
}

void sq_free_aligned(void *ptr) { free(ptr); }
