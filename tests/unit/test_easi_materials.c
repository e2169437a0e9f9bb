/** @file test_easi_materials.c  The materials of many cells at once (sq_material_eval_cells), threaded: an
 * easi model and native rules with expressions give, with 1 and 4 threads, the same bits as cell-by-cell
 * evaluation, the same statistics, and the same error: the lowest failing cell, named with its mesh cell. */
#include "sq_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "sq_common.h"
#include "sq_config.h"
#include "sq_test_util.h"

static char dir[256];

static void threads(int n) {
#ifdef _OPENMP
  omp_set_num_threads(n);
#else
  (void)n;
#endif
}

/* a config from @p yaml, its files relative to the test's folder */
static void config(const char *yaml, sq_config *cfg) {
  char d[300];
  snprintf(d, sizeof(d), "%s/", dir);
  ck_assert_int_eq(sq_config_load_text(yaml, "test.yaml", d, NULL, 0, cfg), 0);
}

static void put(const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

/* sq_material_eval_cells with its stderr in sq_test_msg */
static int cells(const sq_material_eval *ev, int64_t n, const double *xyz, const int32_t *group, const int64_t *id,
                 sq_material *mat, sq_material_stats *st) {
  const int saved = sq_test_capture_begin();
  const int rc = sq_material_eval_cells(ev, n, xyz, group, id, NULL, 0, mat, st);
  sq_test_capture_end(saved);
  return rc;
}

enum { N = 50000 };

static void centroids(double *xyz, int32_t *group, int64_t *id) {
  for (int c = 0; c < N; ++c) {
    xyz[3 * c] = -5000 + 0.2 * c;
    xyz[3 * c + 1] = 100.0 * (c % 7);
    xyz[3 * c + 2] = -0.3 * c;
    group[c] = c % 5 == 0 ? 2 : 1;
    id[c] = 1000000 + c;
  }
}

/* 1 and 4 threads against cell-by-cell evaluation: materials and statistics */
static void same_as_cells(const sq_config *cfg) {
  sq_material_eval *ev = NULL;
  ck_assert_int_eq(sq_material_eval_create(cfg, &ev), 0);
  double *xyz = malloc(3 * N * sizeof(double));
  int32_t *group = malloc(N * sizeof(int32_t));
  int64_t *id = malloc(N * sizeof(int64_t));
  sq_material *one = calloc(N, sizeof(sq_material)), *m = calloc(N, sizeof(sq_material));
  centroids(xyz, group, id);
  sq_material_stats st1, st;
  sq_material_stats_init(&st1);
  for (int c = 0; c < N; ++c)
    ck_assert_int_eq(sq_material_eval_cell(ev, &xyz[3 * c], group[c], id[c], &one[c], &st1), 0);
  for (int nt = 1; nt <= 4; nt *= 4) {
    threads(nt);
    memset(m, 0, N * sizeof(sq_material));
    sq_material_stats_init(&st);
    ck_assert_int_eq(cells(ev, N, xyz, group, id, m, &st), 0);
    EXPECT(memcmp(m, one, N * sizeof(sq_material)) == 0);
    EXPECT(memcmp(&st, &st1, sizeof(st)) == 0);
  }
  free(xyz);
  free(group);
  free(id);
  free(one);
  free(m);
  sq_material_eval_destroy(ev);
}

/* 1, 2 and 4 threads: the error of the lowest failing cell (x = 1e6 at cells bad[0] < bad[1] < bad[2]); @p frag in
 * it */
static void first_error(const sq_config *cfg, const int bad[3], const char *frag) {
  sq_material_eval *ev = NULL;
  ck_assert_int_eq(sq_material_eval_create(cfg, &ev), 0);
  double *xyz = malloc(3 * N * sizeof(double));
  int32_t *group = malloc(N * sizeof(int32_t));
  int64_t *id = malloc(N * sizeof(int64_t));
  sq_material *m = calloc(N, sizeof(sq_material));
  centroids(xyz, group, id);
  for (int k = 0; k < 3; ++k) xyz[3 * bad[k]] = 1e6; /* the models fail at x > 1e5 */
  for (int nt = 1; nt <= 4; nt *= 2) {
    threads(nt);
    sq_material_stats st;
    sq_material_stats_init(&st);
    EXPECT_EQ(cells(ev, N, xyz, group, id, m, &st), SQ_ERR_INPUT);
    char first[32], second[32];
    snprintf(first, sizeof(first), "cell %d", 1000000 + bad[0]);
    snprintf(second, sizeof(second), "cell %d", 1000000 + bad[1]);
    EXPECT_MSG(strstr(sq_test_msg, first) && strstr(sq_test_msg, "(1e+06, ") && strstr(sq_test_msg, frag) &&
                   !strstr(sq_test_msg, second),
               "%d threads: message '%s'", nt, sq_test_msg);
  }
  free(xyz);
  free(group);
  free(id);
  free(m);
  sq_material_eval_destroy(ev);
}

START_TEST(easi_model) {
  snprintf(dir, sizeof(dir), "/tmp/sq_easi_mat_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  put("m.yaml", "!Switch\n"
                "[rho]: !LuaMap\n"
                "  returns: [rho]\n"
                "  function: |\n"
                "    function f (x)\n"
                "      d = -x[\"z\"]\n"
                "      return {rho = 2600 + 0.01 * d + math.sin(x[\"x\"] * 1e-3)}\n"
                "    end\n"
                "[mu, lambda]: !Any\n"
                "  components:\n"
                "    - !GroupFilter\n"
                "      groups: [2]\n"
                "      components: !ConstantMap {map: {mu: 1e10, lambda: 1.2e10}}\n"
                "    - !FunctionMap\n"
                "      map:\n"
                "        mu: return 3e10 - 1e5 * z;\n"
                "        lambda: |\n"
                "          if (x > 1e5) { return -1e12; }\n"
                "          return 3.2e10 + 1e3 * y;\n");
  sq_config cfg;
  config("mesh:\n  type: box\nmaterials:\n  easi: m.yaml\nequations:\n  end_time: 1.0\n", &cfg);
  same_as_cells(&cfg);
  /* x > 1e5 in group 1: lambda -1e12, a negative bulk modulus */
  const int bad[3] = {12346, 30001, N - 1};
  first_error(&cfg, bad, "test.yaml:4: key 'materials.easi'");
}
END_TEST

START_TEST(native_rules) {
  snprintf(dir, sizeof(dir), "/tmp/sq_easi_mat_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  sq_config cfg;
  config("mesh:\n  type: box\n"
         "materials:\n"
         "  default: {rho: \"2700 - 0.01 * z\", vp: \"6000 - 0.1 * z\", vs: 3464}\n"
         "  layers:\n"
         "    - {z_top: 0, z_bottom: -3000, rho: 2500, vp: 5000, vs: \"2900 + 0.01 * x\"}\n"
         "  groups:\n"
         "    - {group: 2, rho: \"if(x > 1e5, -1, 2000 + y)\", lambda: 2e10, mu: 1.5e10}\n"
         "equations:\n  end_time: 1.0\n",
         &cfg);
  same_as_cells(&cfg);
  /* x > 1e5 in group 2 (c % 5 == 0): rho -1 */
  const int bad[3] = {12345, 30000, 45000};
  first_error(&cfg, bad, "test.yaml:8: key 'materials.groups[0].rho'");
}
END_TEST

int main(void) {
  const TTest *tests[] = {easi_model, native_rules, NULL};
  return sq_test_run(sq_test_suite("easi_materials", 120, tests), 1);
}
