/** @file sq_test_data.h  Deterministic test data in either precision, shared by the kernel tests. */
#ifndef SQ_TEST_DATA_H
#define SQ_TEST_DATA_H

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sq_common.h"

static inline const char *prec_name(sq_precision p) { return p == SQ_F64 ? "f64" : "f32"; }

/* Deterministic pseudo-random reals in [-1, 1) (xorshift; one sequence per test program). */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static inline double rnd(void) {
  rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/** @brief Fill @p len reals of precision @p p at @p a with values in [-scale, scale). */
static inline void fill_random(sq_precision p, void *a, size_t len, double scale) {
  for (size_t i = 0; i < len; ++i) {
    if (p == SQ_F64) ((double *)a)[i] = scale * rnd();
    else ((float *)a)[i] = (float)(scale * rnd());
  }
}

/** @brief A malloc'd copy of @p bytes at @p src (the test fails if out of memory). */
static inline void *dup_bytes(const void *src, size_t bytes) {
  void *h = malloc(bytes);
  ck_assert(h);
  memcpy(h, src, bytes);
  return h;
}

#endif
