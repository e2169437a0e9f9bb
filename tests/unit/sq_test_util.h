/**
 * @file sq_test_util.h  Helpers shared by the source, receiver and checkpoint suites: capture what a
 * call writes to stderr, load a config from a string, and build a small box discretisation.
 */
#ifndef SQ_TEST_UTIL_H
#define SQ_TEST_UTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sq_config.h"
#include "sq_solver.h"

/** What the last captured call wrote to stderr. */
static char sq_test_msg[16384];
static FILE *sq_test_capture_file;

/** Point stderr at a scratch file; returns the saved descriptor. */
static inline int sq_test_capture_begin(void) {
  if (!sq_test_capture_file) sq_test_capture_file = tmpfile();
  fflush(stderr);
  ck_assert_int_eq(ftruncate(fileno(sq_test_capture_file), 0), 0);
  lseek(fileno(sq_test_capture_file), 0, SEEK_SET);
  int saved = dup(STDERR_FILENO);
  dup2(fileno(sq_test_capture_file), STDERR_FILENO);
  return saved;
}

/** Restore stderr and read the captured text into sq_test_msg. */
static inline void sq_test_capture_end(int saved) {
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  ssize_t n = pread(fileno(sq_test_capture_file), sq_test_msg, sizeof(sq_test_msg) - 1, 0);
  sq_test_msg[n > 0 ? n : 0] = '\0';
}

/** Load @p yaml as "test.yaml" with stderr captured. */
static inline int sq_test_load(const char *yaml, sq_config *cfg) {
  int saved = sq_test_capture_begin();
  int rc = sq_config_load_string(yaml, "test.yaml", cfg);
  sq_test_capture_end(saved);
  return rc;
}

/** Expect @p yaml to fail with one message holding every fragment. */
#define SQ_TEST_CONFIG_ERROR(yaml, ...)                                                                                \
  do {                                                                                                                 \
    sq_config cfg_;                                                                                                    \
    const int rc_ = sq_test_load((yaml), &cfg_);                                                                       \
    ck_assert_msg(rc_ == SQ_ERR_INPUT, "expected SQ_ERR_INPUT, got %d for:\n%s", rc_, (yaml));                         \
    const char *frags_[] = {__VA_ARGS__};                                                                              \
    for (size_t i_ = 0; i_ < sizeof(frags_) / sizeof(frags_[0]); ++i_)                                                 \
      ck_assert_msg(strstr(sq_test_msg, frags_[i_]), "message lacks \"%s\":\n%s", frags_[i_], sq_test_msg);            \
  } while (0)

/** A box mesh of n^3 cubes of [0,1]^3 (absorbing, optional jitter) and its discretisation. */
static inline sq_disc *sq_test_box_disc(int n, int order, sq_precision prec, double jitter, int tile_size,
                                        sq_mesh **mesh_out) {
  sq_box_params bp;
  sq_box_params_default(&bp);
  for (int d = 0; d < 3; ++d) bp.n[d] = n, bp.bc[2 * d] = bp.bc[2 * d + 1] = SQ_BC_ABSORB;
  bp.bc[5] = SQ_BC_FREE;
  bp.jitter = jitter;
  sq_mesh *mesh;
  ck_assert_int_eq(sq_mesh_box(&bp, &mesh), 0);
  sq_material *mat = malloc(sizeof(sq_material) * mesh->ncell);
  for (int64_t c = 0; c < mesh->ncell; ++c) mat[c] = (sq_material){.rho = 2.0, .lambda = 1.0, .mu = 1.0};
  sq_disc_options opt = {
      .order = order, .precision = prec, .cfl = 0.5, .tile_size = tile_size, .lts_rate = 1, .max_clusters = 1};
  sq_disc *d;
  ck_assert_int_eq(sq_disc_create(mesh, mat, &opt, &d), 0);
  free(mat);
  *mesh_out = mesh;
  return d;
}

#endif
