/** @file test_postseismic_run.c  `starquake postseismic` as a whole (sim/postseismic.c) on a small box with a
 * vertical strike-slip patch: the elastic station displacement against Okada's half-space (loosely: the box's
 * sides are fixed), unchanged by steps when every cell is elastic; with a Maxwell layer at depth the
 * displacement grows monotonically and its increments shrink, and after 60 relaxation times it is within 10% (of
 * the post-seismic motion) of the relaxed state (the layer without shear modulus); the outputs read back
 * (station CSVs, surface HDF5 snapshots at the configured times, equal to the stations at surface vertices); a
 * stop request mid-run leaves complete outputs up to the last step; bad postseismic sections are refused with
 * the file, line and key. */
#include "sq_check.h"
#include "sq_test_util.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "sq_okada.h"
#include "sq_postseismic.h"
#include "sq_postseismic_io.h"

static char dir[2048];

/* A station A at a surface vertex, B and C farther. */
static void write_inputs(void) {
  snprintf(dir, sizeof(dir), "%s/tests/unit/ps_run", SQ_BUILDDIR);
  mkdir(dir, 0755);
  char path[4096];
  snprintf(path, sizeof(path), "%s/slip.txt", dir);
  FILE *f = fopen(path, "w");
  ck_assert(f);
  fprintf(f, "# x y depth strike dip length width strike_slip dip_slip\n0 0 0.5 0 90 2 1 1 0\n");
  fclose(f);
  snprintf(path, sizeof(path), "%s/stations.txt", dir);
  f = fopen(path, "w");
  ck_assert(f);
  fprintf(f, "A 0.5 0.5\nB 1.0 -0.5\nC -0.5 1.5\n");
  fclose(f);
}

/* The configuration: box [-3, 3]^2 x [-3, 0], 1/2 spacing, fault x = 0, |y| <= 1, depth 0.5 .. 1.5. */
static void load_with(sq_config *cfg, const char *out, const char *eta_default, const char *layers, const char *dt,
                      const char *end, const char *snap, const char *materials, const char *extra) {
  char yaml[8192];
  snprintf(yaml, sizeof(yaml),
           "mesh:\n  type: box\n  box:\n    cells: [12, 12, 6]\n    lo: [-3, -3, -3]\n    hi: [3, 3, 0]\n"
           "    boundary: {xmin: absorbing, xmax: absorbing, ymin: absorbing, ymax: absorbing, zmin: absorbing, "
           "zmax: free_surface}\n"
           "    fault: {lo: [0, -1, -1.5], hi: [0, 1, -0.5]}\n"
           "materials:\n  default: {rho: 1, lambda: 1, mu: 1}\n%s"
           "output: {directory: %s/%s, prefix: ps}\n"
           "postseismic:\n  slip_file: %s/slip.txt\n  stations: %s/stations.txt\n  dt: %s\n  end_time: %s\n"
           "  snapshot_interval: %s\n  serial: true\n%s  viscosity:\n    default: %s\n%s",
           materials, dir, out, dir, dir, dt, end, snap, extra, eta_default, layers);
  ck_assert_int_eq(sq_test_load(yaml, cfg), 0);
}

static void load(sq_config *cfg, const char *out, const char *eta_default, const char *layers, const char *dt,
                 const char *end, const char *snap) {
  load_with(cfg, out, eta_default, layers, dt, end, snap, "", "");
}

static int64_t read_station(const char *out, const char *name, double *t, double *u, int64_t max) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s/ps-gps-%s.csv", dir, out, name);
  int64_t n = 0;
  ck_assert_int_eq(sq_ps_station_read(path, max, t, u, &n), 0);
  return n;
}

START_TEST(elastic_okada) {
  write_inputs();
  sq_config *cfg = malloc(sizeof(*cfg));
  load(cfg, "elastic", "elastic", "", "1 s", "2 s", "1 s");
  sq_ps_summary sum;
  sq_verbosity = 0;
  ck_assert_int_eq(sq_postseismic_run(cfg, NULL, &sum), 0);
  EXPECT_EQ(sum.nstep, 2);
  EXPECT_EQ(sum.nsnapshot, 3);
  const sq_okada_fault f = {.x = 0,
                            .y = 0,
                            .depth = 0.5,
                            .strike_deg = 0,
                            .dip_deg = 90,
                            .rake_deg = 0,
                            .length = 2,
                            .width = 1,
                            .slip = 1,
                            .opening = 0};
  const char *names[3] = {"A", "B", "C"};
  const double xy[3][2] = {{0.5, 0.5}, {1.0, -0.5}, {-0.5, 1.5}};
  double num = 0, den = 0;
  for (int s = 0; s < 3; ++s) {
    double t[8], u[24];
    const int64_t n = read_station("elastic", names[s], t, u, 8);
    EXPECT_EQ(n, 3);
    const double x[3] = {xy[s][0], xy[s][1], 0};
    double ue[3];
    ck_assert_int_eq(sq_okada_displacement(&f, 1, 1, x, ue), 0);
    for (int d = 0; d < 3; ++d) {
      num += (u[d] - ue[d]) * (u[d] - ue[d]);
      den += ue[d] * ue[d];
      EXPECT_NEAR(u[6 + d], u[d], 1e-9); /* elastic: the steps change nothing */
    }
  }
  const double rel = sqrt(num / den);
  fprintf(stderr, "postseismic elastic: stations against Okada: relative L2 %.3g\n", rel);
  /* the fixed sides and bottom 1.5 fault lengths away hold the far field back: about 16% here, where a wrong
   * sign, moment or orientation of the slip gives more than 50% */
  EXPECT_MSG(rel < 0.25, "station misfit against Okada %g", rel);
  /* the snapshots read back at their times; at station A's vertex they equal the station */
  char h5[4096];
  snprintf(h5, sizeof(h5), "%s/elastic/ps-surface.h5", dir);
  sq_mesh *m = NULL;
  ck_assert_int_eq(sq_mesh_box(&cfg->box, &m), 0);
  int64_t nn, ntri, *vert, *tri;
  double *sxyz;
  ck_assert_int_eq(sq_ps_surface_triangles(m, &nn, &sxyz, &vert, &ntri, &tri), 0);
  double *us = malloc(sizeof(double) * 3 * nn);
  double tA[8], uA[24];
  read_station("elastic", "A", tA, uA, 8);
  for (int k = 0; k < 3; ++k) {
    double time = -1;
    ck_assert_int_eq(sq_ps_surface_read(h5, k, nn, &time, us), 0);
    EXPECT_NEAR(time, k, 1e-12);
    int found = 0;
    for (int64_t i = 0; i < nn; ++i)
      if (fabs(sxyz[3 * i] - 0.5) < 1e-12 && fabs(sxyz[3 * i + 1] - 0.5) < 1e-12) {
        found = 1;
        for (int d = 0; d < 3; ++d) EXPECT_NEAR(us[3 * i + d], uA[3 * k + d], 1e-12);
      }
    EXPECT(found);
  }
  free(us);
  free(sxyz);
  free(vert);
  free(tri);
  sq_mesh_destroy(m);
  free(cfg);
}
END_TEST

START_TEST(maxwell_relaxation) {
  write_inputs();
  sq_config *cfg = malloc(sizeof(*cfg));
  /* a Maxwell half-space below depth 1.75 (relaxation time eta / mu = 1 s), 8 steps of 0.5 s */
  load(cfg, "visco", "elastic", "    layers:\n      - {z_top: -1.75, z_bottom: -10, eta: 1}\n", "0.5 s", "4 s", "2 s");
  EXPECT_EQ(cfg->postseismic.multistep, 4); /* the default */
  sq_ps_summary sum;
  sq_verbosity = 0;
  ck_assert_int_eq(sq_postseismic_run(cfg, NULL, &sum), 0);
  EXPECT_EQ(sum.nstep, 8);
  EXPECT_EQ(sum.nsnapshot, 3);
  const char *names[3] = {"A", "B", "C"};
  for (int s = 0; s < 3; ++s) {
    double t[16], u[48];
    const int64_t n = read_station("visco", names[s], t, u, 16);
    EXPECT_EQ(n, 9);
    /* the strike-parallel (north) displacement moves away from its elastic value in one direction, by
     * shrinking increments */
    const double d1 = u[3 + 1] - u[1];
    EXPECT_MSG(fabs(d1) > 1e-4 * fabs(u[1]), "station %s: no relaxation (%g of %g)", names[s], d1, u[1]);
    for (int k = 1; k < n; ++k) {
      const double dk = u[3 * k + 1] - u[3 * (k - 1) + 1];
      EXPECT_MSG(dk * d1 > 0, "station %s, step %d: the displacement turns back (%g after %g)", names[s], k, dk, d1);
      if (k > 1) {
        const double dprev = u[3 * (k - 1) + 1] - u[3 * (k - 2) + 1];
        EXPECT_MSG(fabs(dk) < fabs(dprev), "station %s, step %d: increments grow (%g after %g)", names[s], k, dk,
                   dprev);
      }
    }
  }
  /* one step at a time (postseismic.multistep: 1; the default solves four together): the same series to the
   * solver's tolerance */
  load_with(cfg, "visco1", "elastic", "    layers:\n      - {z_top: -1.75, z_bottom: -10, eta: 1}\n", "0.5 s", "4 s",
            "2 s", "", "  multistep: 1\n");
  EXPECT_EQ(cfg->postseismic.multistep, 1);
  ck_assert_int_eq(sq_postseismic_run(cfg, NULL, &sum), 0);
  EXPECT_EQ(sum.nstep, 8);
  for (int s = 0; s < 3; ++s) {
    double t[16], u[48], t4[16], u4[48];
    const int64_t n = read_station("visco", names[s], t, u, 16), n4 = read_station("visco1", names[s], t4, u4, 16);
    EXPECT_EQ(n4, n);
    double umax = 0;
    for (int64_t k = 0; k < 3 * n; ++k) umax = fmax(umax, fabs(u[k]));
    for (int64_t k = 0; k < 3 * n; ++k)
      EXPECT_MSG(fabs(u4[k] - u[k]) <= 1e-7 * umax, "station %s: multistep 1 gives %.9g, four steps together %.9g",
                 names[s], u4[k], u[k]);
  }
  free(cfg);
}
END_TEST

/* Long after the slip the Maxwell layer holds no deviatoric stress: the displacement tends to the elastic
 * solution with the layer's shear modulus gone and its bulk modulus kept (here mu = 0.01 instead of 0 for a
 * solvable problem).  Backward Euler (alpha 1) steps of 4 relaxation times reach it; the distance left must be
 * small against the whole post-seismic motion. */
START_TEST(relaxed_limit) {
  write_inputs();
  sq_config *cfg = malloc(sizeof(*cfg));
  const char *layer = "    layers:\n      - {z_top: -1.75, z_bottom: -10, eta: 1}\n";
  load_with(cfg, "long", "elastic", layer, "4 s", "60 s", "60 s", "", "  alpha: 1\n");
  sq_ps_summary sum;
  sq_verbosity = 0;
  ck_assert_int_eq(sq_postseismic_run(cfg, NULL, &sum), 0);
  load_with(cfg, "relaxed", "elastic", "", "1 s", "1 s", "1 s",
            "  layers:\n    - {z_top: -1.75, z_bottom: -10, rho: 1, lambda: 1.66, mu: 0.01}\n", "");
  ck_assert_int_eq(sq_postseismic_run(cfg, NULL, &sum), 0);
  const char *names[3] = {"A", "B", "C"};
  for (int s = 0; s < 3; ++s) {
    double t[32], u[96], tr[4], ur[12];
    const int64_t n = read_station("long", names[s], t, u, 32);
    EXPECT_EQ(n, 16);
    read_station("relaxed", names[s], tr, ur, 4);
    double left = 0, moved = 0;
    for (int d = 0; d < 3; ++d) {
      left += (u[3 * (n - 1) + d] - ur[d]) * (u[3 * (n - 1) + d] - ur[d]);
      moved += (ur[d] - u[d]) * (ur[d] - u[d]);
    }
    fprintf(stderr, "postseismic relaxed limit: station %s: %.3g of the motion left\n", names[s], sqrt(left / moved));
    EXPECT_MSG(sqrt(left / moved) < 0.1, "station %s: %g of the post-seismic motion left after 60 relaxation times",
               names[s], sqrt(left / moved));
  }
  free(cfg);
}
END_TEST

static volatile sig_atomic_t stop_flag;
static void on_alarm(int sig) { stop_flag = sig; }

START_TEST(stop_mid_run) {
  write_inputs();
  sq_config *cfg = malloc(sizeof(*cfg));
  load(cfg, "stopped", "elastic", "    layers:\n      - {z_top: -1.75, z_bottom: -10, eta: 1}\n", "0.1 s", "100 s",
       "0.3 s");
  signal(SIGALRM, on_alarm);
  stop_flag = 0;
  const struct itimerval it = {.it_value = {.tv_sec = 1, .tv_usec = 0}};
  setitimer(ITIMER_REAL, &it, NULL);
  sq_ps_summary sum;
  sq_verbosity = 0;
  const int rc = sq_postseismic_run(cfg, &stop_flag, &sum);
  EXPECT_EQ(rc, SQ_STOPPED);
  EXPECT(sum.stopped);
  EXPECT(sum.nstep < 1000);
  /* every step is in the series; the snapshots read back, the last at the last step or before it */
  double *t = malloc(sizeof(double) * 2000), *u = malloc(sizeof(double) * 6000);
  const int64_t n = read_station("stopped", "A", t, u, 2000);
  EXPECT_EQ(n, sum.nstep + 1);
  char h5[4096];
  snprintf(h5, sizeof(h5), "%s/stopped/ps-surface.h5", dir);
  double tlast = -1, tprev = -1;
  for (int k = 0; k < sum.nsnapshot; ++k) {
    ck_assert_int_eq(sq_ps_surface_read(h5, k, 0, &tlast, NULL), 0);
    EXPECT(tlast > tprev);
    tprev = tlast;
  }
  EXPECT(sum.nsnapshot >= 1);
  EXPECT(tlast <= sum.time + 1e-9);
  free(t);
  free(u);
  free(cfg);
}
END_TEST

#define PS_HEAD "mesh:\n  type: box\nmaterials:\n  default: {rho: 1, lambda: 1, mu: 1}\n"

START_TEST(bad_sections) {
  SQ_TEST_CONFIG_ERROR(PS_HEAD "postseismic:\n  dt: 30 days\n", "test.yaml:5: key 'postseismic'", "no slip");
  SQ_TEST_CONFIG_ERROR(PS_HEAD "postseismic:\n  slip_file: s.txt\n  dt: 30 dayz\n", "test.yaml:7: key 'postseismic.dt'",
                       "unknown time unit 'dayz'");
  SQ_TEST_CONFIG_ERROR(PS_HEAD "postseismic:\n  slip_file: s.txt\n  dt: 2 years\n  end_time: 1 year\n",
                       "test.yaml:7: key 'postseismic.dt'", "longer than end_time");
  SQ_TEST_CONFIG_ERROR(PS_HEAD "postseismic:\n  slip_file: s.txt\n  viscosity:\n    default: -3\n",
                       "test.yaml:8: key 'postseismic.viscosity.default'", "must be > 0");
  SQ_TEST_CONFIG_ERROR(PS_HEAD "postseismic:\n  slip_file: s.txt\n  viscosity:\n    layers:\n"
                               "      - {z_top: 0, z_bottom: -1, eta: 1e19 * exq(z)}\n",
                       "test.yaml:9: key 'postseismic.viscosity.layers[0].eta'", "exq");
  SQ_TEST_CONFIG_ERROR(PS_HEAD "postseismic:\n  slip_file: s.txt\n  rupture: {fault_output: x-fault.h5}\n",
                       "test.yaml:7: key 'postseismic.rupture'", "not both");
  SQ_TEST_CONFIG_ERROR(PS_HEAD "postseismic:\n  slip_file: s.txt\n  boundary: {absorbing: sliding}\n",
                       "test.yaml:7: key 'postseismic.boundary.absorbing'", "roller");
  SQ_TEST_CONFIG_ERROR(PS_HEAD "postseismic:\n  slip_file: s.txt\n  multistep: 3\n",
                       "test.yaml:7: key 'postseismic.multistep'", "must be 1 (one step at a time) or 4");
  SQ_TEST_CONFIG_ERROR(PS_HEAD "postseismic:\n  slip_file: s.txt\n  predictr: false\n",
                       "test.yaml:7: key 'postseismic.predictr'", "predictor");
  /* without the section, a dynamic run still needs equations.end_time */
  SQ_TEST_CONFIG_ERROR(PS_HEAD, "key 'equations.end_time'");
  /* durations in every unit */
  sq_config cfg;
  ck_assert_int_eq(sq_test_load(PS_HEAD "postseismic:\n  slip_file: s.txt\n  dt: 30 days\n  end_time: 10 years\n"
                                        "  snapshot_interval: 3600\n",
                                &cfg),
                   0);
  EXPECT_NEAR(cfg.postseismic.dt.seconds, 30 * 86400.0, 1e-6);
  EXPECT_NEAR(cfg.postseismic.end_time.seconds, 10 * 31557600.0, 1e-6);
  EXPECT_NEAR(cfg.postseismic.snapshot_interval.seconds, 3600, 1e-12);
  /* the viscosity of layers and groups, later entries winning, 'elastic' infinite */
  ck_assert_int_eq(sq_test_load(PS_HEAD "postseismic:\n  slip_file: s.txt\n  viscosity:\n    default: elastic\n"
                                        "    layers:\n      - {z_top: 0, z_bottom: -1, eta: 1e19 * (1 - z)}\n"
                                        "    groups:\n      - {group: 7, eta: 5e18}\n",
                                &cfg),
                   0);
  const double xyz[9] = {0, 0, -0.5, 0, 0, -2, 0, 0, -0.5};
  const int32_t group[3] = {0, 0, 7};
  double eta[3];
  ck_assert_int_eq(sq_ps_config_eta(&cfg, 3, xyz, group, eta), 0);
  EXPECT_NEAR(eta[0], 1.5e19, 1e4);
  EXPECT(isinf(eta[1]));
  EXPECT_NEAR(eta[2], 5e18, 1e4);
}
END_TEST

int main(void) {
  const TTest *tests[] = {bad_sections, elastic_okada, maxwell_relaxation, relaxed_limit, stop_mid_run, NULL};
  return sq_test_run(sq_test_suite("postseismic_run", 300, tests), 0);
}
