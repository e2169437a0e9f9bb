/** @file sq_test_data.h  Deterministic test data in either precision, shared by the kernel tests. */
#ifndef SQ_TEST_DATA_H
#define SQ_TEST_DATA_H

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sq_common.h"
#include "sq_solver.h"

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

/** @brief dofs of @p d := the P plane wave with wave vector (2 pi, 0, 2 pi) in material @p m at t = 0. */
static inline void project_p_wave(sq_disc *d, const sq_material *m) {
  sq_planewave pw;
  const double k[3] = {2 * M_PI, 0, 2 * M_PI};
  const sq_wave_kind kinds[1] = {SQ_WAVE_P};
  const int dirs[1] = {1};
  const double amp[1] = {1.0};
  sq_planewave_init(&pw, m, k, 0, 0, 0, 1, kinds, dirs, amp);
  sq_disc_project(d, sq_planewave_eval, &pw, 0.0);
}

#endif
