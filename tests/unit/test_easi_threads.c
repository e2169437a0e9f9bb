/** @file test_easi_threads.c  The easi evaluation threaded: the same bits with 1 and 4 threads for a model
 * whose !LuaMap keeps a global in its Lua state (one state shared by two threads would mix points), an
 * !ASAGI grid, a !FunctionMap and a !GroupFilter; the same first error (the lowest failing point) whatever
 * the number of threads; and point-by-point calls from several threads at once. */
#include "sq_check.h"

#include <math.h>
#include <netcdf.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "sq_common.h"
#include "sq_easi.h"
#include "sq_test_util.h"

static char dir[256];

static const char *put(const char *name, const char *text) {
  static char path[512];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
  return path;
}

static void threads(int n) {
#ifdef _OPENMP
  omp_set_num_threads(n);
#else
  (void)n;
#endif
}

/* mu on a 21 x 11 x 16 grid over [-10, 10] x [-5, 5] x [-15, 0] km: mu = 3e10 + 1e5 x + 2e5 y - 1e6 z */
static double mu_of(double x, double y, double z) { return 3e10 + 1e5 * x + 2e5 * y - 1e6 * z; }

static void write_grid(void) {
  char path[512];
  snprintf(path, sizeof(path), "%s/mu.nc", dir);
  int nc, dims[3], vx, vy, vz, vd;
  ck_assert_int_eq(nc_create(path, NC_NETCDF4, &nc), 0);
  enum { NX = 21, NY = 11, NZ = 16 };
  nc_def_dim(nc, "z", NZ, &dims[0]);
  nc_def_dim(nc, "y", NY, &dims[1]);
  nc_def_dim(nc, "x", NX, &dims[2]);
  nc_def_var(nc, "z", NC_DOUBLE, 1, &dims[0], &vz);
  nc_def_var(nc, "y", NC_DOUBLE, 1, &dims[1], &vy);
  nc_def_var(nc, "x", NC_DOUBLE, 1, &dims[2], &vx);
  nc_def_var(nc, "mu", NC_DOUBLE, 3, dims, &vd);
  nc_enddef(nc);
  double xc[NX], yc[NY], zc[NZ], *v = malloc(NX * NY * NZ * sizeof(double));
  for (int i = 0; i < NX; ++i) xc[i] = -10000 + 1000.0 * i;
  for (int i = 0; i < NY; ++i) yc[i] = -5000 + 1000.0 * i;
  for (int i = 0; i < NZ; ++i) zc[i] = -15000 + 1000.0 * i;
  for (int k = 0; k < NZ; ++k)
    for (int j = 0; j < NY; ++j)
      for (int i = 0; i < NX; ++i) v[(k * NY + j) * NX + i] = mu_of(xc[i], yc[j], zc[k]);
  nc_put_var_double(nc, vz, zc);
  nc_put_var_double(nc, vy, yc);
  nc_put_var_double(nc, vx, xc);
  nc_put_var_double(nc, vd, v);
  nc_close(nc);
  free(v);
}

static const char *const model_text = "!Switch\n"
                                      "[rho]: !LuaMap\n"
                                      "  returns: [rho]\n"
                                      "  function: |\n"
                                      "    function f (x)\n"
                                      "      g = x[\"x\"] * 3 + x[\"z\"]\n" /* a global of the state, read back below */
                                      "      local s = 0\n"
                                      "      for i = 1, 20 do s = s + math.sin(g * 1e-3 + i) end\n"
                                      "      return {rho = 2600 + g * 1e-3 + s}\n"
                                      "    end\n"
                                      "[mu]: !ASAGI\n"
                                      "  file: mu.nc\n"
                                      "  parameters: [mu]\n"
                                      "  var: mu\n"
                                      "[lambda]: !Any\n"
                                      "  components:\n"
                                      "    - !GroupFilter\n"
                                      "      groups: [2]\n"
                                      "      components: !FunctionMap\n"
                                      "        map:\n"
                                      "          lambda: return 3e10 + 1e5 * x - 2e4 * z;\n"
                                      "    - !LuaMap\n"
                                      "      map:\n"
                                      "        lambda: return 2e10 + y * 1e4 + z\n";

enum { N = 200000 };

static void points(double *xyz, int *group) {
  uint64_t r = 88172645463325252ull;
  for (int p = 0; p < N; ++p) {
    for (int k = 0; k < 3; ++k) {
      r ^= r << 13, r ^= r >> 7, r ^= r << 17;
      const double u = (double)(r >> 11) / 9007199254740992.0;
      xyz[3 * p + k] = k == 0 ? -10000 + 20000 * u : k == 1 ? -5000 + 10000 * u : -15000 * u;
    }
    group[p] = p % 3 == 0 ? 2 : 1;
  }
}

START_TEST(same_bits_any_threads) {
  snprintf(dir, sizeof(dir), "/tmp/sq_easi_thr_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  write_grid();
  sq_easi *m = NULL;
  ck_assert_int_eq(sq_easi_load(put("m.yaml", model_text), &m), 0);
  double *xyz = malloc(3 * N * sizeof(double)), *a = malloc(3 * N * sizeof(double)),
         *b = malloc(3 * N * sizeof(double));
  int *group = malloc(N * sizeof(int));
  points(xyz, group);
  const char *names[3] = {"rho", "mu", "lambda"};
  threads(1);
  ck_assert_int_eq(sq_easi_eval(m, N, xyz, group, 3, names, a), 0);
  threads(4);
  ck_assert_int_eq(sq_easi_eval(m, N, xyz, group, 3, names, b), 0);
  EXPECT(memcmp(a, b, 3 * N * sizeof(double)) == 0);
  /* and the values are the model's: a mixed-up Lua state or grid would fail here too */
  for (int p = 0; p < N; ++p) {
    const double x = xyz[3 * p], y = xyz[3 * p + 1], z = xyz[3 * p + 2], g = x * 3 + z;
    double s = 0;
    for (int i = 1; i <= 20; ++i) s += sin(g * 1e-3 + i);
    EXPECT_NEAR(a[3 * p], 2600 + g * 1e-3 + s, 1e-9);
    EXPECT_NEAR(a[3 * p + 1], mu_of(x, y, z), 1e-3); /* (rounding of 4e10: 1e-5) */
    EXPECT_NEAR(a[3 * p + 2], group[p] == 2 ? 3e10 + 1e5 * x - 2e4 * z : 2e10 + y * 1e4 + z, 1e-3);
  }
  free(xyz);
  free(a);
  free(b);
  free(group);
  sq_easi_free(m);
}
END_TEST

/* the message of the error that sq_error prints, read back from stderr */
static const char *failing_eval(const sq_easi *m, int64_t n, const double *xyz, const int *group, double *out,
                                int64_t *bad, int *rc) {
  const int saved = sq_test_capture_begin();
  const char *names[1] = {"a"};
  *rc = sq_easi_eval_first_bad(m, n, xyz, group, 1, names, out, bad);
  sq_test_capture_end(saved);
  return sq_test_msg;
}

START_TEST(first_error_any_threads) {
  snprintf(dir, sizeof(dir), "/tmp/sq_easi_thr_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  sq_easi *m = NULL;
  ck_assert_int_eq(
      sq_easi_load(put("g.yaml", "!GroupFilter\ngroups: [1]\ncomponents: !ConstantMap {map: {a: 1}}\n"), &m), 0);
  double *xyz = malloc(3 * N * sizeof(double)), *out = malloc(N * sizeof(double));
  int *group = malloc(N * sizeof(int));
  for (int p = 0; p < N; ++p) xyz[3 * p] = p, xyz[3 * p + 1] = 0, xyz[3 * p + 2] = -1, group[p] = 1;
  group[170000] = group[30001] = group[N - 1] = 5; /* the lowest bad point: 30001 */
  for (int nt = 1; nt <= 4; nt *= 2) {
    threads(nt);
    int64_t bad = -1;
    int rc = 0;
    const char *msg = failing_eval(m, N, xyz, group, out, &bad, &rc);
    EXPECT_EQ(rc, SQ_ERR_INPUT);
    EXPECT_EQ(bad, 30001);
    EXPECT_MSG(strstr(msg, "(30001, 0, -1) of group 5") && strstr(msg, "g.yaml:1: !GroupFilter"),
               "%d threads: message '%s'", nt, msg);
  }
  free(xyz);
  free(out);
  free(group);
  sq_easi_free(m);
}
END_TEST

int main(void) {
  const TTest *tests[] = {same_bits_any_threads, first_error_any_threads, NULL};
  return sq_test_run(sq_test_suite("easi_threads", 120, tests), 1);
}
