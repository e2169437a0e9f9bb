/**
 * @file test_sources.c  Check suite for source.c, fullspace.c and source_io.c: time functions (rates,
 * exact integrals, derivatives, the Taylor projection of eq. 3.29-3.32), moment tensors from
 * strike/dip/rake against Aki & Richards' Box 4.4, the closed-form full-space solution against the
 * elastic wave equation, the source projection, and the file readers with their error messages.
 */
#include "sq_check.h"
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sq_attenuation.h"
#include "sq_locate.h"
#include "sq_source.h"
#include "sq_source_io.h"
#include "sq_test_util.h"

/* Composite Simpson integral of the rate over [a, b]. */
static double simpson(const sq_stf *s, double a, double b, int n) {
  const double h = (b - a) / n;
  double sum = sq_stf_rate(s, a) + sq_stf_rate(s, b);
  for (int i = 1; i < n; ++i) sum += (i % 2 ? 4.0 : 2.0) * sq_stf_rate(s, a + i * h);
  return sum * h / 3.0;
}

static sq_stf make_stf(int kind) {
  sq_stf s = {.kind = kind, .onset = 0.05, .delay = 0.4, .width = 0.1, .frequency = 3.0, .period = 0.1};
  return s;
}

START_TEST(stf_integrals_and_derivatives) {
  for (int kind = SQ_STF_GAUSSIAN; kind <= SQ_STF_LOH1; ++kind) {
    const sq_stf s = make_stf(kind);
    /* exact integrals against quadrature, on intervals inside and across the pulse */
    const double iv[4][2] = {{0.0, 0.3}, {0.31, 0.47}, {0.2, 2.0}, {-1.0, 0.01}};
    for (int k = 0; k < 4; ++k) {
      const double exact = sq_stf_integral(&s, iv[k][0], iv[k][1]);
      const double quad = simpson(&s, iv[k][0], iv[k][1], 20000);
      ck_assert_msg(fabs(exact - quad) < 1e-9, "kind %d interval %d: %.12g vs %.12g", kind, k, exact, quad);
    }
    /* unit moment: Gaussian, Brune, LOH.1 integrate to 1; Ricker to 0 */
    ck_assert_double_eq_tol(sq_stf_cumulative(&s, 50.0), kind == SQ_STF_RICKER ? 0.0 : 1.0, 1e-12);
    /* derivative against central differences */
    for (double t = 0.1; t < 1.0; t += 0.0731) {
      const double h = 1e-6;
      const double fd = (sq_stf_rate(&s, t + h) - sq_stf_rate(&s, t - h)) / (2 * h);
      ck_assert_msg(fabs(fd - sq_stf_derivative(&s, t)) < 1e-5 * (1.0 + fabs(fd)), "kind %d t %g: %g vs %g", kind, t,
                    fd, sq_stf_derivative(&s, t));
    }
  }
}
END_TEST

START_TEST(stf_table) {
  double t[4] = {0.0, 0.1, 0.3, 0.4}, v[4] = {0.0, 2.0, 2.0, 0.0};
  sq_stf s = {.kind = SQ_STF_TABLE, .onset = 1.0, .nsample = 4, .time = t, .value = v};
  ck_assert_double_eq_tol(sq_stf_rate(&s, 1.05), 1.0, 1e-14);
  ck_assert_double_eq_tol(sq_stf_rate(&s, 1.2), 2.0, 1e-14);
  ck_assert_double_eq(sq_stf_rate(&s, 0.99), 0.0);
  ck_assert_double_eq(sq_stf_rate(&s, 1.41), 0.0);
  ck_assert_double_eq_tol(sq_stf_integral(&s, 0.0, 5.0), 0.1 + 0.4 + 0.1, 1e-14);
  ck_assert_double_eq_tol(sq_stf_integral(&s, 1.05, 1.35), 0.075 + 0.4 + 0.075, 1e-14);
  ck_assert_double_eq_tol(sq_stf_cumulative(&s, 1.2), 0.1 + 0.2, 1e-14);
  ck_assert_double_eq_tol(sq_stf_derivative(&s, 1.05), 20.0, 1e-12);
}
END_TEST

START_TEST(stf_taylor_projection) {
  /* a linear table is reproduced exactly: value and slope at t0, higher derivatives zero */
  double t[2] = {0.0, 10.0}, v[2] = {1.0, 31.0};
  sq_stf lin = {.kind = SQ_STF_TABLE, .nsample = 2, .time = t, .value = v};
  double d[SQ_ORDER_MAX];
  sq_stf_taylor(&lin, 2.0, 0.5, 5, d);
  ck_assert_double_eq_tol(d[0], 7.0, 1e-12);
  ck_assert_double_eq_tol(d[1], 3.0, 1e-11);
  for (int i = 2; i < 5; ++i) ck_assert_double_eq_tol(d[i], 0.0, 1e-6);
  /* a smooth pulse: the projection's derivatives approach the function's as dt shrinks */
  const sq_stf g = make_stf(SQ_STF_GAUSSIAN);
  sq_stf_taylor(&g, 0.42, 1e-3, 4, d);
  ck_assert_double_eq_tol(d[0], sq_stf_rate(&g, 0.42), 1e-9 * fabs(sq_stf_rate(&g, 0.42)) + 1e-12);
  ck_assert(fabs(d[1] - sq_stf_derivative(&g, 0.42)) < 1e-6 * fabs(sq_stf_derivative(&g, 0.42)) + 1e-9);
  /* the projection keeps the integral: int p = int s (to quadrature accuracy) */
  const double t0 = 0.37, dt = 0.05;
  sq_stf_taylor(&g, t0, dt, 5, d);
  double ip = 0, fact = 1;
  for (int i = 0; i < 5; ++i) {
    fact *= i + 1;
    ip += d[i] * pow(dt, i + 1) / fact;
  }
  ck_assert_double_eq_tol(ip, sq_stf_integral(&g, t0, t0 + dt), 1e-10);
}
END_TEST

START_TEST(moment_from_strike_dip_rake) {
  /* Aki & Richards Box 4.4 in (x north, y east, z down), converted to (east, north, up) */
  const double deg = M_PI / 180.0;
  const double cases[4][3] = {{0, 90, 0}, {30, 60, 90}, {135, 45, -60}, {300, 20, 170}};
  for (int c = 0; c < 4; ++c) {
    const double f = cases[c][0] * deg, d = cases[c][1] * deg, l = cases[c][2] * deg;
    const double Mxx = -(sin(d) * cos(l) * sin(2 * f) + sin(2 * d) * sin(l) * sin(f) * sin(f));
    const double Mxy = sin(d) * cos(l) * cos(2 * f) + 0.5 * sin(2 * d) * sin(l) * sin(2 * f);
    const double Mxz = -(cos(d) * cos(l) * cos(f) + cos(2 * d) * sin(l) * sin(f));
    const double Myy = sin(d) * cos(l) * sin(2 * f) - sin(2 * d) * sin(l) * cos(f) * cos(f);
    const double Myz = -(cos(d) * cos(l) * sin(f) - cos(2 * d) * sin(l) * cos(f));
    const double Mzz = sin(2 * d) * sin(l);
    double m[6], n[3], s[3];
    sq_moment_from_sdr(cases[c][0], cases[c][1], cases[c][2], 2.0, m, n, s);
    const double expect[6] = {Myy, Mxx, Mzz, Mxy, -Mxz, -Myz}; /* EE, NN, UU, EN, NU, EU */
    for (int k = 0; k < 6; ++k) ck_assert_double_eq_tol(m[k], 2.0 * expect[k], 1e-13);
    ck_assert_double_eq_tol(n[0] * s[0] + n[1] * s[1] + n[2] * s[2], 0.0, 1e-15); /* slip in the plane */
    ck_assert(n[2] >= 0.0);
  }
}
END_TEST

/* Residual of rho u_tt - (lambda + 2 mu) grad div u + mu curl curl u at x, t by central differences. */
static void wave_residual(const sq_point_source *src, const sq_material *m, const double x[3], double t, double res[3],
                          double *scale) {
  const double h = 2e-3, k = 2e-3;
  double u0[3], up[3], um[3], lap[3] = {0, 0, 0}, gd[3] = {0, 0, 0}, utt[3];
  sq_fullspace_displacement(src, m, x, t, u0);
  sq_fullspace_displacement(src, m, x, t + k, up);
  sq_fullspace_displacement(src, m, x, t - k, um);
  for (int i = 0; i < 3; ++i) utt[i] = (up[i] - 2 * u0[i] + um[i]) / (k * k);
  /* Laplacian and grad div from a 3x3x3 stencil */
  double u[3][3][3][3];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 3; ++c) {
        const double y[3] = {x[0] + (a - 1) * h, x[1] + (b - 1) * h, x[2] + (c - 1) * h};
        sq_fullspace_displacement(src, m, y, t, u[a][b][c]);
      }
  for (int i = 0; i < 3; ++i) {
    lap[i] = (u[2][1][1][i] + u[0][1][1][i] + u[1][2][1][i] + u[1][0][1][i] + u[1][1][2][i] + u[1][1][0][i] -
              6 * u[1][1][1][i]) /
             (h * h);
  }
  /* d_i d_j u_j */
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      int ap[3] = {1, 1, 1}, am[3] = {1, 1, 1};
      double second;
      if (i == j) {
        ap[i] = 2, am[i] = 0;
        second = (u[ap[0]][ap[1]][ap[2]][j] - 2 * u[1][1][1][j] + u[am[0]][am[1]][am[2]][j]) / (h * h);
      } else {
        int pp[3] = {1, 1, 1}, pm[3] = {1, 1, 1}, mp[3] = {1, 1, 1}, mm[3] = {1, 1, 1};
        pp[i] = 2, pp[j] = 2, pm[i] = 2, pm[j] = 0, mp[i] = 0, mp[j] = 2, mm[i] = 0, mm[j] = 0;
        second = (u[pp[0]][pp[1]][pp[2]][j] - u[pm[0]][pm[1]][pm[2]][j] - u[mp[0]][mp[1]][mp[2]][j] +
                  u[mm[0]][mm[1]][mm[2]][j]) /
                 (4 * h * h);
      }
      gd[i] += second;
    }
  /* curl curl u = grad div u - lap u */
  *scale = 0;
  for (int i = 0; i < 3; ++i) {
    res[i] = m->rho * utt[i] - (m->lambda + 2 * m->mu) * gd[i] + m->mu * (gd[i] - lap[i]);
    *scale = fmax(*scale, fmax(fabs(m->rho * utt[i]), fabs((m->lambda + 2 * m->mu) * gd[i])));
  }
}

START_TEST(fullspace_solves_the_wave_equation) {
  const sq_material m = {.rho = 1.3, .lambda = 1.1, .mu = 0.9};
  sq_point_source src;
  memset(&src, 0, sizeof(src));
  src.x[0] = 0.1, src.x[1] = -0.2, src.x[2] = 0.05;
  src.stf = (sq_stf){.kind = SQ_STF_GAUSSIAN, .delay = 0.5, .width = 0.2};
  for (int kind = 0; kind < 2; ++kind) {
    src.kind = kind;
    const double M[6] = {0.4, -0.3, 0.2, 1.0, -0.5, 0.7}, F[3] = {0.3, -0.5, 1.0};
    memcpy(src.moment, kind == 0 ? M : (const double[6]){0}, sizeof(M));
    memcpy(src.force, kind == 1 ? F : (const double[3]){0}, sizeof(F));
    const double pts[3][3] = {{0.9, 0.1, 0.2}, {-0.3, 0.5, -0.6}, {0.4, -0.7, 0.8}};
    for (int p = 0; p < 3; ++p)
      for (double t = 0.6; t < 1.6; t += 0.25) {
        double res[3], scale;
        wave_residual(&src, &m, pts[p], t, res, &scale);
        for (int i = 0; i < 3; ++i)
          ck_assert_msg(fabs(res[i]) < 2e-4 * scale, "kind %d point %d t %g component %d: residual %g (scale %g)", kind,
                        p, t, i, res[i], scale);
      }
    /* velocity is the time derivative of the displacement */
    double v[3], up[3], um[3];
    const double x[3] = {0.7, 0.3, -0.4};
    sq_fullspace_velocity(&src, &m, x, 1.0, v);
    sq_fullspace_displacement(&src, &m, x, 1.0 + 1e-5, up);
    sq_fullspace_displacement(&src, &m, x, 1.0 - 1e-5, um);
    for (int i = 0; i < 3; ++i) ck_assert_double_eq_tol(v[i], (up[i] - um[i]) / 2e-5, 1e-6 * (1 + fabs(v[i])));
  }
}
END_TEST

START_TEST(fullspace_far_field_sign) {
  /* an explosion (M = M0 I) pushes outward: the P pulse's radial velocity has the sign of the moment rate */
  const sq_material m = {.rho = 1.0, .lambda = 1.0, .mu = 1.0};
  sq_point_source src;
  memset(&src, 0, sizeof(src));
  src.kind = SQ_SOURCE_MOMENT;
  src.moment[0] = src.moment[1] = src.moment[2] = 1.0;
  src.stf = (sq_stf){.kind = SQ_STF_GAUSSIAN, .delay = 0.5, .width = 0.05};
  const double x[3] = {3.0, 0.0, 0.0}, r = 3.0, vp = sqrt(3.0);
  double v[3];
  /* far field ~ (1 / 4 pi rho vp^3 r) d/dt Mdot: the rising flank of the pulse gives outward motion */
  sq_fullspace_velocity(&src, &m, x, 0.5 + r / vp - 0.05, v);
  ck_assert(v[0] > 0.0);
  ck_assert_double_eq_tol(v[1], 0.0, 1e-12);
  ck_assert_double_eq_tol(v[2], 0.0, 1e-12);
}
END_TEST

START_TEST(fullspace_visco_elastic_limit) {
  /* Q = infinity (zero anelastic coefficients): the frequency-domain solution transformed with FFTW equals the
   * time-domain closed form; a finite Q delays and weakens the pulse, and stays causal */
  const sq_material m = {.rho = 1.3, .lambda = 1.1, .mu = 0.9};
  sq_atten_band band;
  ck_assert_int_eq(sq_atten_band_init(3, 1.0, 100.0, &band), 0);
  sq_point_source src;
  memset(&src, 0, sizeof(src));
  src.x[0] = 0.1, src.x[1] = -0.2, src.x[2] = 0.05;
  src.stf = (sq_stf){.kind = SQ_STF_GAUSSIAN, .delay = 0.5, .width = 0.15};
  const double x[3] = {0.7, 0.3, -0.4}, dt = 0.005;
  enum { NT = 400 };
  static double vel[NT * 3], velq[NT * 3];
  for (int kind = 0; kind < 2; ++kind) {
    src.kind = kind;
    const double M[6] = {0.4, -0.3, 0.2, 1.0, -0.5, 0.7}, F[3] = {0.3, -0.5, 1.0};
    memcpy(src.moment, kind == 0 ? M : (const double[6]){0}, sizeof(M));
    memcpy(src.force, kind == 1 ? F : (const double[3]){0}, sizeof(F));
    sq_visco v;
    sq_material u;
    ck_assert_int_eq(sq_visco_init(&band, &m, INFINITY, INFINITY, &v, &u), 0);
    ck_assert_int_eq(sq_fullspace_velocity_visco(&src, m.rho, &band, &v, x, dt, NT, vel), 0);
    double err = 0, peak = 0;
    for (int j = 0; j < NT; ++j) {
      double ve[3];
      sq_fullspace_velocity(&src, &m, x, j * dt, ve);
      for (int d = 0; d < 3; ++d) err = fmax(err, fabs(vel[3 * j + d] - ve[d])), peak = fmax(peak, fabs(ve[d]));
    }
    ck_assert_msg(err < 1e-9 * peak, "kind %d: Q = inf differs from the elastic closed form by %g of %g", kind, err,
                  peak);
    ck_assert_int_eq(sq_visco_init(&band, &m, 20, 10, &v, &u), 0);
    ck_assert_int_eq(sq_fullspace_velocity_visco(&src, m.rho, &band, &v, x, dt, NT, velq), 0);
    double peakq = 0, early = 0;
    for (int j = 0; j < NT; ++j)
      for (int d = 0; d < 3; ++d) {
        peakq = fmax(peakq, fabs(velq[3 * j + d]));
        if (j * dt < 0.5 - 6 * 0.15) early = fmax(early, fabs(velq[3 * j + d]));
      }
    ck_assert_msg(peakq < 0.97 * peak && peakq > 0.5 * peak, "kind %d: peak %g with Q, %g without", kind, peakq, peak);
    ck_assert_msg(early < 1e-6 * peak, "kind %d: %g before the source acts", kind, early);
  }
}
END_TEST

START_TEST(source_projection) {
  /* a source projected into its element integrates to one against the constant test function */
  sq_box_params bp;
  sq_box_params_default(&bp);
  for (int d = 0; d < 3; ++d) bp.n[d] = 3, bp.bc[2 * d] = bp.bc[2 * d + 1] = SQ_BC_ABSORB;
  sq_mesh *mesh;
  ck_assert_int_eq(sq_mesh_box(&bp, &mesh), 0);
  sq_material *mat = malloc(sizeof(sq_material) * mesh->ncell);
  for (int64_t c = 0; c < mesh->ncell; ++c) mat[c] = (sq_material){.rho = 2.0, .lambda = 1.0, .mu = 1.0};
  sq_disc_options opt = {
      .order = 4, .precision = SQ_F64, .cfl = 0.5, .tile_size = 16, .lts_rate = 1, .max_clusters = 1};
  sq_disc *d;
  ck_assert_int_eq(sq_disc_create(mesh, mat, &opt, &d), 0);
  sq_locator *loc;
  ck_assert_int_eq(sq_locator_create(mesh, &loc), 0);
  sq_source_list list = {0};
  sq_point_source s;
  memset(&s, 0, sizeof(s));
  s.kind = SQ_SOURCE_FORCE;
  s.x[0] = 0.41, s.x[1] = 0.52, s.x[2] = 0.13;
  s.force[2] = 4.0;
  ck_assert_int_eq(sq_source_list_push(&list, &s), 0);
  s.kind = SQ_SOURCE_MOMENT;
  s.force[2] = 0.0;
  s.moment[3] = 1.5;
  s.x[0] = 0.9;
  ck_assert_int_eq(sq_source_list_push(&list, &s), 0);
  sq_source_set *set;
  ck_assert_int_eq(sq_source_set_create(d, loc, &list, &set), 0);
  ck_assert_int_eq(set->n, 2);
  int total = 0;
  for (int t = 0; t < d->ntile; ++t) total += sq_source_set_count(set, t);
  ck_assert_int_eq(total, 2);
  for (int i = 0; i < 2; ++i) {
    const sq_source_point *p = &set->point[i];
    /* int psi_0 phi-projection dV = psi_0(x_s): the delta's moment against the constant */
    double phi[84];
    const double xi[3] = {0.25, 0.25, 0.25};
    sq_basis_eval(4, xi, phi);
    int tile = 0;
    while (!(i >= set->tile_begin[tile] && i < set->tile_begin[tile + 1])) ++tile;
    const int64_t c = d->cell_of[d->tile[tile].begin + p->elem];
    const double integral = p->phi[0] * d->ref->mass[0] * 6.0 * mesh->volume[c] * phi[0];
    ck_assert_double_eq_tol(integral, phi[0] * phi[0], 1e-12);
    if (p->index == 0) ck_assert_double_eq_tol(p->q[8], 2.0, 1e-15); /* F / rho */
    else ck_assert_double_eq_tol(p->q[3], -1.5, 1e-15);              /* -M */
  }
  sq_source_set_destroy(set);
  /* outside the mesh: an error */
  s.x[0] = 7.0;
  ck_assert_int_eq(sq_source_list_push(&list, &s), 0);
  ck_assert_int_eq(sq_source_set_create(d, loc, &list, &set), SQ_ERR_INPUT);
  sq_source_set_destroy(set);
  sq_source_list_clear(&list);
  sq_locator_destroy(loc);
  sq_disc_destroy(d);
  free(mat);
  sq_mesh_destroy(mesh);
}
END_TEST

/* Write @p text to a fresh temporary file; returns its path (static buffer per slot). */
static const char *temp_file(int slot, const char *text) {
  static char path[4][64];
  snprintf(path[slot], sizeof(path[slot]), "/tmp/sq_test_sources_%d_%d.txt", (int)getpid(), slot);
  FILE *f = fopen(path[slot], "w");
  fputs(text, f);
  fclose(f);
  return path[slot];
}

/* Run @p fn with stderr captured; return the message. */
static char captured[4096];
static int capture_stderr_begin(void) {
  fflush(stderr);
  const int saved = dup(2);
  FILE *f = freopen("/tmp/sq_test_sources_stderr.txt", "w", stderr);
  (void)f;
  return saved;
}
static void capture_stderr_end(int saved) {
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  FILE *f = fopen("/tmp/sq_test_sources_stderr.txt", "r");
  size_t n = fread(captured, 1, sizeof(captured) - 1, f);
  captured[n] = 0;
  fclose(f);
}

START_TEST(stf_table_reader) {
  sq_stf s = {0};
  const char *good = temp_file(0, "# time value\n0.0 0.0\n0.1 1.0\n\n0.2 0.5  # comment\n0.3 0\n");
  ck_assert_int_eq(sq_read_stf_table(good, &s), 0);
  ck_assert_int_eq(s.nsample, 4);
  ck_assert_double_eq(s.value[2], 0.5);
  free(s.time);
  free(s.value);
  char expect[256];
  const char *bad = temp_file(1, "0.0 0.0\n0.1 1.0\n0.2 abc\n");
  int saved = capture_stderr_begin();
  ck_assert_int_eq(sq_read_stf_table(bad, &s), SQ_ERR_INPUT);
  capture_stderr_end(saved);
  snprintf(expect, sizeof(expect), "%s:3:", bad);
  ck_assert_msg(strstr(captured, expect) && strstr(captured, "abc"), "message: %s", captured);
  bad = temp_file(1, "0.0 0.0\n0.2 1.0\n0.1 1.0\n");
  saved = capture_stderr_begin();
  ck_assert_int_eq(sq_read_stf_table(bad, &s), SQ_ERR_INPUT);
  capture_stderr_end(saved);
  snprintf(expect, sizeof(expect), "%s:3: sample times must increase", bad);
  ck_assert_msg(strstr(captured, expect) != NULL, "message: %s", captured);
  saved = capture_stderr_begin();
  ck_assert_int_eq(sq_read_stf_table("/nonexistent/stf.txt", &s), SQ_ERR_IO);
  capture_stderr_end(saved);
  ck_assert_msg(strstr(captured, "/nonexistent/stf.txt") != NULL, "message: %s", captured);
}
END_TEST

START_TEST(fsrm_reader) {
  const double mu = 3e10, area = 1e6;
  char text[2048];
  snprintf(text, sizeof(text),
           "Seismic Moment Tensor\n0 0 %g\n0 0 0\n%g 0 0\nNumber of subfaults\n2\n"
           "x y z strike dip rake area Onset time\n"
           "100 200 -3000 30 60 90 %g 0.5\n150 250 -3100 30 60 90 %g 0.7\n"
           "source time function\n0.1 4\nsamples\n0 1 1 0\n0 2\n2 0\n",
           mu, mu, area, area);
  const char *path = temp_file(2, text);
  sq_source_list list = {0};
  ck_assert_int_eq(sq_read_fsrm(path, &list), 0);
  ck_assert_int_eq(list.n, 2);
  double m[6];
  sq_moment_from_sdr(30, 60, 90, mu * area, m, NULL, NULL);
  for (int k = 0; k < 6; ++k) ck_assert_double_eq_tol(list.src[1].moment[k], m[k], 1e-6 * mu * area);
  ck_assert_double_eq(list.src[1].stf.onset, 0.7);
  ck_assert_double_eq_tol(sq_stf_rate(&list.src[1].stf, 0.7 + 0.15), 2.0, 1e-12);
  ck_assert_double_eq_tol(sq_stf_integral(&list.src[0].stf, 0.0, 10.0), 0.2, 1e-14);
  ck_assert_msg(strstr(list.src[1].origin, ":9") != NULL, "origin %s", list.src[1].origin);
  sq_source_list_clear(&list);
  /* a bad sub-fault line and a short sample list, each named by file and line */
  const char *bad = temp_file(3, "M\n0 0 1\n0 0 0\n1 0 0\nn\n1\nhdr\n0 0 0 0 90 0 x 0\nstf\n0.1 2\ns\n0 1\n");
  char expect[256];
  int saved = capture_stderr_begin();
  ck_assert_int_eq(sq_read_fsrm(bad, &list), SQ_ERR_INPUT);
  capture_stderr_end(saved);
  snprintf(expect, sizeof(expect), "%s:8:", bad);
  ck_assert_msg(strstr(captured, expect) != NULL, "message: %s", captured);
  sq_source_list_clear(&list);
  bad = temp_file(3, "M\n0 0 1\n0 0 0\n1 0 0\nn\n1\nhdr\n0 0 0 0 90 0 1 0\nstf\n0.1 3\ns\n0 1\n");
  saved = capture_stderr_begin();
  ck_assert_int_eq(sq_read_fsrm(bad, &list), SQ_ERR_INPUT);
  capture_stderr_end(saved);
  ck_assert_msg(strstr(captured, "2 of 3 slip-rate samples") != NULL, "message: %s", captured);
  sq_source_list_clear(&list);
}
END_TEST

#define HEAD "mesh: {type: box}\nmaterials: {default: {rho: 1, vp: 2, vs: 1}}\nequations: {end_time: 1}\n"

START_TEST(config_sources) {
  sq_config c;
  const char *yaml =
      HEAD "sources:\n"
           "  - type: moment_tensor\n    location: [0.5, 0.5, 0.5]\n    moment_tensor: {xy: 1e18, zz: -2}\n"
           "    time_function: {type: loh1, period: 0.1}\n"
           "  - type: double_couple\n    location: [0, 0, 0]\n    strike: 30\n    dip: 60\n    rake: 90\n"
           "    m0: 2.5\n    onset: 0.2\n    time_function: {type: gaussian, delay: 0.3, width: 0.05}\n"
           "  - {type: force, location: [1, 2, 3], force: [0, 0, 1], time_function: {type: ricker, "
           "frequency: 2, delay: 0.6}}\n"
           "  - {type: finite, file: fault.fsrm}\n"
           "  - {type: force, location: [1, 2, 3], force: [1, 0, 0], time_function: {type: table, "
           "file: stf.txt}}\n";
  ck_assert_int_eq(sq_test_load(yaml, &c), 0);
  ck_assert_int_eq(c.nsources, 5);
  ck_assert_int_eq(c.sources[0].type, SQ_SRCCFG_MOMENT_TENSOR);
  ck_assert_double_eq(c.sources[0].moment_tensor[3], 1e18);
  ck_assert_double_eq(c.sources[0].moment_tensor[2], -2);
  ck_assert_int_eq(c.sources[0].stf.kind, SQ_STFCFG_LOH1);
  ck_assert_int_eq(c.sources[0].line, 5);
  ck_assert_double_eq(c.sources[1].rake, 90);
  ck_assert_double_eq(c.sources[1].onset, 0.2);
  ck_assert_double_eq(c.sources[2].stf.frequency, 2);
  ck_assert_str_eq(c.sources[3].file, "fault.fsrm");
  ck_assert_str_eq(c.sources[4].stf.file, "stf.txt");
  SQ_TEST_CONFIG_ERROR(HEAD "sources:\n  - {type: moment_tensor, location: [0, 0, 0], time_function: {type: loh1, "
                            "period: 0.1}}\n",
                       "test.yaml:5: key 'sources[0].moment_tensor'", "source type 'moment_tensor' needs it");
  SQ_TEST_CONFIG_ERROR(HEAD "sources:\n  - type: force\n    location: [0, 0, 0]\n    force: [0, 0, 1]\n"
                            "    strike: 10\n    time_function: {type: loh1, period: 0.1}\n",
                       "test.yaml:8: key 'sources[0].strike'", "not used by source type 'force'");
  SQ_TEST_CONFIG_ERROR(HEAD "sources:\n  - type: force\n    location: [0, 0, 0]\n    force: [0, 0, 1]\n"
                            "    time_function: {type: gausian, width: 0.1}\n",
                       "test.yaml:8: key 'sources[0].time_function.type'", "did you mean 'gaussian'");
  SQ_TEST_CONFIG_ERROR(HEAD "sources:\n  - type: force\n    location: [0, 0, 0]\n    force: [0, 0, 1]\n"
                            "    time_function: {type: ricker, width: 0.1}\n",
                       "test.yaml:8: key 'sources[0].time_function.width'", "not used by time function type 'ricker'");
  SQ_TEST_CONFIG_ERROR(HEAD "sources:\n  - type: force\n    location: [0, 0, 0]\n    force: [0, 0, 1]\n"
                            "    time_function: {type: brune}\n",
                       "key 'sources[0].time_function.corner_frequency'", "required key is missing");
  SQ_TEST_CONFIG_ERROR(HEAD "sources:\n  - {type: finite, file: f.dat, location: [0, 0, 0]}\n",
                       "test.yaml:5: key 'sources[0].location'", "not used by source type 'finite'");
  SQ_TEST_CONFIG_ERROR(HEAD "sources:\n  - {type: double_couple, location: [0, 0, 0], strike: 0, dip: 95, rake: 0, "
                            "m0: 1, time_function: {type: loh1, period: 1}}\n",
                       "key 'sources[0].dip'", "out of range");
  SQ_TEST_CONFIG_ERROR(HEAD "sources:\n  - {type: moment_tensor, location: [0, 0, 0], moment_tensor: {xy: 0}, "
                            "time_function: {type: loh1, period: 1}}\n",
                       "key 'sources[0].moment_tensor'", "all components are zero");
  SQ_TEST_CONFIG_ERROR(HEAD "sources:\n  - {type: moment_tensor, location: [0, 0, 0], moment_tensor: {xq: 1}, "
                            "time_function: {type: loh1, period: 1}}\n",
                       "key 'sources[0].moment_tensor.xq'", "did you mean");
}
END_TEST

/* A slipping patch (NRF sub-faults): a shear slip is the double couple of sq_moment_from_sdr with
 * m0 = area mu (mu of the patch, or the element's when the patch gives 0); an opening along the
 * normal is area (lambda I + 2 mu n n). */
START_TEST(slip_source_quantities) {
  const sq_material mat = {.rho = 2700, .lambda = 3.0e10, .mu = 2.0e10};
  const double cases[3][3] = {{30, 60, 90}, {135, 45, -60}, {300, 20, 170}};
  for (int c = 0; c < 3; ++c)
    for (int own = 0; own < 2; ++own) {
      sq_point_source src;
      memset(&src, 0, sizeof(src));
      src.kind = SQ_SOURCE_SLIP;
      src.area = 2.5e6;
      src.mu = own ? 3.3e10 : 0.0;
      double m[6], q[9];
      sq_moment_from_sdr(cases[c][0], cases[c][1], cases[c][2], src.area * (own ? src.mu : mat.mu), m, src.normal,
                         src.slip);
      sq_source_quantities(&src, &mat, q);
      for (int k = 0; k < 6; ++k) ck_assert_double_eq_tol(q[k], -m[k], 1e-12 * fabs(src.area * 3.3e10));
      for (int k = 6; k < 9; ++k) ck_assert_double_eq(q[k], 0.0);
    }
  sq_point_source open;
  memset(&open, 0, sizeof(open));
  open.kind = SQ_SOURCE_SLIP;
  open.area = 4.0;
  open.normal[2] = open.slip[2] = 1.0;
  double q[9];
  sq_source_quantities(&open, &mat, q);
  const double expect[6] = {-4.0 * 3.0e10, -4.0 * 3.0e10, -4.0 * (3.0e10 + 2 * 2.0e10), 0, 0, 0};
  for (int k = 0; k < 6; ++k) ck_assert_double_eq_tol(q[k], expect[k], 1e-6);
}
END_TEST

int main(void) {
  const TTest *tests[] = {stf_integrals_and_derivatives, stf_table, stf_taylor_projection, moment_from_strike_dip_rake,
                          slip_source_quantities,        NULL};
  Suite *s = sq_test_suite("sources", 0, tests);
  TCase *tf = tcase_create("fullspace");
  tcase_set_timeout(tf, 60);
  tcase_add_test(tf, fullspace_solves_the_wave_equation);
  tcase_add_test(tf, fullspace_far_field_sign);
  tcase_add_test(tf, fullspace_visco_elastic_limit);
  suite_add_tcase(s, tf);
  TCase *td = tcase_create("discretisation");
  tcase_add_test(td, source_projection);
  tcase_add_test(td, stf_table_reader);
  tcase_add_test(td, fsrm_reader);
  tcase_add_test(td, config_sources);
  suite_add_tcase(s, td);
  return sq_test_run(s, 1);
}
