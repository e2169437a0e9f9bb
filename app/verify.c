/**
 * @file verify.c  `starquake verify ...`: verification against analytic solutions.
 *  - planewave:   convergence orders in a periodic cube (thesis Table 6.3), elastic or viscoelastic;
 *  - interface:   reflection/transmission coefficients at a material interface (normal incidence);
 *  - freesurface: reflection off a free surface against the analytic image solution;
 *  - absorbing:   energy left after a packet leaves through an absorbing boundary.
 * Each exits non-zero when its acceptance criterion fails.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sq_app.h"

typedef struct verify_opts {
  int order;
  sq_precision precision;
  int json;
  int serial;
  int nmesh;
  int mesh[8];
  double end_time;
  sq_wave_kind wave;
  int cells; /**< 1D experiments: cells along x */
  int tile_size;
  int lts_rate;    /**< planewave: LTS rate (1 = GTS) */
  int graded;      /**< planewave: graded quasi-2D mesh with a 16x refined slab (LTS clusters) */
  int merge;       /**< merged neighbour-cluster tasks */
  double cfl;      /**< 0: default 0.5 */
  int attenuation; /**< planewave: viscoelastic medium (Qp 20, Qs 10, 3 mechanisms) */
} verify_opts;

static int parse_opts(int argc, char **argv, verify_opts *o) {
  for (int i = 0; i < argc; ++i) {
    const char *a = argv[i];
    const int more = i + 1 < argc;
    if (!strcmp(a, "--order") && more) o->order = atoi(argv[++i]);
    else if (!strcmp(a, "--precision") && more) {
      const char *p = argv[++i];
      SQ_CHECK(!strcmp(p, "double") || !strcmp(p, "single"), SQ_ERR_INPUT,
               "--precision must be 'single' or 'double' (got '%s')", p);
      o->precision = !strcmp(p, "single") ? SQ_F32 : SQ_F64;
    } else if (!strcmp(a, "--json")) o->json = 1;
    else if (!strcmp(a, "--serial")) o->serial = 1;
    else if (!strcmp(a, "--end-time") && more) o->end_time = atof(argv[++i]);
    else if (!strcmp(a, "--cells") && more) o->cells = atoi(argv[++i]);
    else if (!strcmp(a, "--tile-size") && more) o->tile_size = atoi(argv[++i]);
    else if (!strcmp(a, "--lts-rate") && more) o->lts_rate = atoi(argv[++i]);
    else if (!strcmp(a, "--graded")) o->graded = 1;
    else if (!strcmp(a, "--merge")) o->merge = 1;
    else if (!strcmp(a, "--attenuation")) o->attenuation = 1;
    else if (!strcmp(a, "--cfl") && more) o->cfl = atof(argv[++i]);
    else if (!strcmp(a, "--wave") && more) {
      const char *w = argv[++i];
      SQ_CHECK(!strcmp(w, "p") || !strcmp(w, "s"), SQ_ERR_INPUT, "--wave must be 'p' or 's' (got '%s')", w);
      o->wave = w[0] == 'p' ? SQ_WAVE_P : SQ_WAVE_S1;
    } else if (!strcmp(a, "--meshes") && more) {
      char *s = argv[++i];
      o->nmesh = 0;
      while (*s && o->nmesh < 8) {
        o->mesh[o->nmesh++] = (int)strtol(s, &s, 10);
        if (*s == ',') ++s;
      }
    } else return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "verify: unknown or incomplete option '%s'", a);
  }
  SQ_CHECK(o->order >= SQ_ORDER_MIN && o->order <= SQ_ORDER_MAX, SQ_ERR_INPUT,
           "verify: --order must be in %d..%d (got %d)", SQ_ORDER_MIN, SQ_ORDER_MAX, o->order);
  for (int i = 0; i < o->nmesh; ++i)
    SQ_CHECK(o->mesh[i] >= 1 && o->mesh[i] <= 256, SQ_ERR_INPUT, "verify: mesh size %d out of range 1..256",
             o->mesh[i]);
  return SQ_SUCCESS;
}

static void base_config(sq_config *c, const verify_opts *o) {
  sq_config_default(c);
  snprintf(c->path, sizeof(c->path), "(verify)");
  c->order = o->order;
  c->precision = o->precision;
  c->cfl = o->cfl > 0 ? o->cfl : 0.5;
  c->material_default = (sq_material){.rho = 1.0, .lambda = 2.0, .mu = 1.0};
  c->nrules = 0;
  c->tile_size = o->tile_size > 0 ? o->tile_size : 64;
  c->lts_rate = o->lts_rate > 0 ? o->lts_rate : 1;
  c->lts_max_clusters = 20;
  c->merge_neighbor_clusters = o->merge;
}

/* ---------------------------------------------------------------- plane wave convergence */

static int verify_planewave(int argc, char **argv) {
  verify_opts o = {.order = 3, .precision = SQ_F64, .end_time = 0.1};
  SQ_CALL(parse_opts(argc, argv, &o));
  if (o.graded)
    for (int m = 0; m < o.nmesh; ++m)
      SQ_CHECK(o.mesh[m] % 4 == 0, SQ_ERR_INPUT, "verify: --graded needs mesh sizes divisible by 4 (got %d)",
               o.mesh[m]);
  if (o.nmesh == 0) { /* defaults: coarse enough to stay above round-off, fine enough to be asymptotic */
    static const int defaults[8][3] = {{0}, {0}, {4, 8, 16}, {4, 8, 16}, {2, 4, 8}, {2, 4, 8}, {2, 4, 6}, {2, 3, 4}};
    o.nmesh = 3;
    for (int i = 0; i < 3; ++i) o.mesh[i] = defaults[o.order][i];
  }
  double h[8], err[8], rate[8];
  int ncl[8];
  for (int m = 0; m < o.nmesh; ++m) {
    sq_config c;
    base_config(&c, &o);
    c.end_time = o.end_time;
    sq_box_params_default(&c.box);
    for (int d = 0; d < 3; ++d) c.box.n[d] = o.mesh[m];
    const double twopi = 2.0 * M_PI;
    c.ic_wave_vector[0] = twopi;
    c.ic_wave_vector[1] = twopi;
    c.ic_wave_vector[2] = twopi;
    if (o.graded) { /* one cell thick in z, slab x in [1/4, 1/2] refined 16x along x: three LTS clusters */
      c.box.n[2] = 1;
      c.box.hi[2] = 1.0 / o.mesh[m];
      c.box.nzones = 1;
      c.box.zone_factor[0] = 16;
      for (int d = 0; d < 3; ++d) c.box.zone_lo[0][d] = 0.0, c.box.zone_hi[0][d] = c.box.hi[d];
      c.box.zone_lo[0][0] = 0.25;
      c.box.zone_hi[0][0] = 0.5;
      c.ic_wave_vector[2] = 0.0;
    }
    c.ic_kind = SQ_IC_PLANEWAVE;
    c.ic_profile = SQ_PROFILE_SINE;
    c.ic_nmodes = 3;
    c.ic_modes[0] = (sq_wave_mode){.type = SQ_MODE_P, .amplitude = 1.0, .direction = 1};
    c.ic_modes[1] = (sq_wave_mode){.type = SQ_MODE_S1, .amplitude = 0.5, .direction = -1};
    c.ic_modes[2] = (sq_wave_mode){.type = SQ_MODE_S2, .amplitude = 0.3, .direction = 1};
    if (o.attenuation) { /* the waves' frequencies (1.7 Hz for S, 3.5 Hz for P) lie inside the band */
      c.attenuation =
          (sq_attenuation_config){.enabled = 1, .mechanisms = 3, .central_frequency = 2.5, .frequency_ratio = 100};
      c.material_default.qp = 20;
      c.material_default.qs = 10;
    }
    sq_sim *s = NULL;
    int ierr = sq_sim_create(&c, o.serial, &s);
    double dt;
    int64_t n;
    if (!ierr) {
      sq_sim_plan(s, c.end_time, &dt, &n);
      ierr = sq_sim_advance(s, n, dt, 1);
    }
    if (ierr) {
      sq_sim_destroy(s);
      sq_sim_starpu_stop();
      return ierr;
    }
    double e, norm;
    sq_disc_l2_error(s->disc, sq_planewave_eval, &s->pw, s->time, &e, &norm);
    h[m] = 1.0 / o.mesh[m];
    err[m] = e / norm;
    ncl[m] = s->disc->ncluster;
    rate[m] = m > 0 ? log(err[m - 1] / err[m]) / log(h[m - 1] / h[m]) : NAN;
    if (!o.json)
      printf("  mesh %3d^%d x 6 tets  h=%.4f  clusters=%d  sync steps=%5lld  rel. L2 error %.4e  rate %s%.2f\n",
             o.mesh[m], o.graded ? 2 : 3, h[m], ncl[m], (long long)n, err[m], m ? "" : "  -", m ? rate[m] : 0.0);
    sq_sim_destroy(s);
  }
  sq_sim_starpu_stop();
  if (o.json) {
    printf("{\"order\": %d, \"precision\": \"%s\", \"lts_rate\": %d, \"graded\": %s, \"attenuation\": %s, "
           "\"clusters\": [",
           o.order, o.precision == SQ_F64 ? "double" : "single", o.lts_rate > 0 ? o.lts_rate : 1,
           o.graded ? "true" : "false", o.attenuation ? "true" : "false");
    for (int m = 0; m < o.nmesh; ++m) printf("%s%d", m ? ", " : "", ncl[m]);
    printf("], \"h\": [");
    for (int m = 0; m < o.nmesh; ++m) printf("%s%.10g", m ? ", " : "", h[m]);
    printf("], \"errors\": [");
    for (int m = 0; m < o.nmesh; ++m) printf("%s%.6e", m ? ", " : "", err[m]);
    printf("], \"rates\": [");
    for (int m = 1; m < o.nmesh; ++m) printf("%s%.4f", m > 1 ? ", " : "", rate[m]);
    printf("]}\n");
  } else {
    printf("order %d (%s): observed rate between the two finest meshes %.2f (expected >= %.1f)\n", o.order,
           o.precision == SQ_F64 ? "double" : "single", o.nmesh > 1 ? rate[o.nmesh - 1] : NAN, o.order - 1 + 0.8);
  }
  return SQ_SUCCESS;
}

/* ------------------------------------------------------ 1D packets: interface, free surface, absorbing */

/** Analytic solution made of Gaussian packets along x: r * exp(-((x - centre(t)) / w)^2) on [xlo, xhi).
 *  A packet transmitted into a medium of speed c2 from one of speed c1 has its width scaled by c2/c1. */
typedef struct packet_set {
  int n;
  double r[4][9], x0[4], speed[4], t0[4], xlo[4], xhi[4], w[4];
} packet_set;

static void packets_eval(const void *ctx, const double x[3], double t, double q[9]) {
  const packet_set *ps = ctx;
  for (int p = 0; p < 9; ++p) q[p] = 0.0;
  for (int i = 0; i < ps->n; ++i) {
    if (x[0] < ps->xlo[i] || x[0] >= ps->xhi[i]) continue;
    const double c = ps->x0[i] + ps->speed[i] * (t - ps->t0[i]);
    const double g = exp(-(x[0] - c) * (x[0] - c) / (ps->w[i] * ps->w[i]));
    for (int p = 0; p < 9; ++p) q[p] += ps->r[i][p] * g;
  }
}

/* Least-squares amplitude of packet i of @p ps in the numerical solution: <q_h, f_i> / <f_i, f_i>. */
static double fit_amplitude(const sq_disc *d, const packet_set *ps, int i, double t) {
  packet_set one = *ps;
  one.n = 1;
  memcpy(one.r[0], ps->r[i], sizeof(one.r[0]));
  one.x0[0] = ps->x0[i];
  one.speed[0] = ps->speed[i];
  one.t0[0] = ps->t0[i];
  one.xlo[0] = ps->xlo[i];
  one.xhi[0] = ps->xhi[i];
  one.w[0] = ps->w[i];
  const sq_ref *r = d->ref;
  double num = 0.0, den = 0.0;
  for (int64_t e = 0; e < d->nelem; ++e) {
    const int64_t c = d->cell_of[e];
    const int64_t *v = &d->mesh->cell_vert[c * 4];
    for (int iq = 0; iq < r->nvol; ++iq) {
      const double *xi = &r->vol_point[iq * 3];
      double x[3], f[9], qh[9];
      for (int k = 0; k < 3; ++k)
        x[k] = d->mesh->vert[v[0] * 3 + k] + xi[0] * (d->mesh->vert[v[1] * 3 + k] - d->mesh->vert[v[0] * 3 + k]) +
               xi[1] * (d->mesh->vert[v[2] * 3 + k] - d->mesh->vert[v[0] * 3 + k]) +
               xi[2] * (d->mesh->vert[v[3] * 3 + k] - d->mesh->vert[v[0] * 3 + k]);
      packets_eval(&one, x, t, f);
      sq_disc_eval(d, e, xi, qh);
      const double w = 6.0 * d->mesh->volume[c] * r->vol_weight[iq];
      for (int p = 0; p < 9; ++p) {
        num += w * qh[p] * f[p];
        den += w * f[p] * f[p];
      }
    }
  }
  return num / den;
}

/* Components whose continuity (interface) or vanishing (free surface) fixes the coefficients. */
static void wave_components(sq_wave_kind w, int *traction, int *velocity) {
  *traction = w == SQ_WAVE_P ? 0 : 3;
  *velocity = w == SQ_WAVE_P ? 6 : 7;
}

typedef enum { EXP_INTERFACE, EXP_FREE, EXP_ABSORB } experiment;

static int verify_packet(int argc, char **argv, experiment ex) {
  verify_opts o = {.order = 4, .precision = SQ_F64, .wave = SQ_WAVE_P, .cells = 24};
  SQ_CALL(parse_opts(argc, argv, &o));
  const double L = 2.0, width = 0.15, x0 = ex == EXP_INTERFACE ? 0.5 : 1.0;
  const sq_material m1 = {.rho = 1.0, .lambda = 2.0, .mu = 1.0}, m2 = {.rho = 2.0, .lambda = 4.0, .mu = 3.0};
  sq_config c;
  base_config(&c, &o);
  sq_box_params_default(&c.box);
  c.box.n[0] = o.cells;
  c.box.n[1] = c.box.n[2] = 1;
  c.box.hi[0] = L;
  c.box.hi[1] = c.box.hi[2] = L / o.cells;
  c.box.bc[0] = c.box.bc[1] = SQ_BC_ABSORB;
  if (ex == EXP_FREE) c.box.bc[1] = SQ_BC_FREE;
  if (ex == EXP_INTERFACE) {
    c.nrules = 1;
    c.rules[0] = (sq_material_rule){.kind = SQ_MAT_REGION, .lo = {1.0, -1, -1}, .hi = {10, 10, 10}, .mat = m2};
  }
  /* analytic packets */
  const double k[3] = {1, 0, 0};
  double rin[9], rre[9], rtr[9], c1, c1r, c2;
  sq_plane_wave_eigenvector(&m1, k, o.wave, 1, rin, &c1);
  sq_plane_wave_eigenvector(&m1, k, o.wave, -1, rre, &c1r);
  sq_plane_wave_eigenvector(&m2, k, o.wave, 1, rtr, &c2);
  int it, iv;
  wave_components(o.wave, &it, &iv);
  packet_set ps = {.w = {width, width, width, width}};
  const double xb = ex == EXP_INTERFACE ? 1.0 : L; /* where the packet hits */
  const double thit = (xb - x0) / c1;
  double Rc = 0.0, Tc = 0.0;
  if (ex == EXP_INTERFACE) { /* r_in + R r_re = T r_tr on (traction, velocity) */
    double A[4] = {rre[it], -rtr[it], rre[iv], -rtr[iv]}, b[2] = {-rin[it], -rin[iv]};
    SQ_CALL(sq_solve_dense(2, A, b));
    Rc = b[0];
    Tc = b[1];
  } else if (ex == EXP_FREE) {
    Rc = -rin[it] / rre[it]; /* traction vanishes at the surface */
  }
  ps.n = ex == EXP_ABSORB ? 1 : (ex == EXP_FREE ? 2 : 3);
  memcpy(ps.r[0], rin, sizeof(rin));
  ps.x0[0] = x0, ps.speed[0] = c1, ps.t0[0] = 0, ps.xlo[0] = -1e9, ps.xhi[0] = ex == EXP_INTERFACE ? 1.0 : 1e9;
  for (int p = 0; p < 9; ++p) ps.r[1][p] = Rc * rre[p];
  ps.x0[1] = xb, ps.speed[1] = c1r, ps.t0[1] = thit, ps.xlo[1] = -1e9, ps.xhi[1] = ex == EXP_INTERFACE ? 1.0 : 1e9;
  for (int p = 0; p < 9; ++p) ps.r[2][p] = Tc * rtr[p];
  ps.x0[2] = xb, ps.speed[2] = c2, ps.t0[2] = thit, ps.xlo[2] = 1.0, ps.xhi[2] = 1e9, ps.w[2] = width * c2 / c1;
  /* run until the packets are separated from the boundary/interface by 2.5 widths */
  double t_end = o.end_time;
  if (t_end <= 0) t_end = ex == EXP_ABSORB ? thit + (3.0 * width) / c1 : thit + 2.5 * width / fmin(c1, c2);
  c.end_time = t_end;
  c.ic_kind = SQ_IC_ZERO;
  sq_sim *s = NULL;
  int ierr = sq_sim_create(&c, o.serial, &s);
  if (ierr) {
    sq_sim_destroy(s);
    sq_sim_starpu_stop();
    return ierr;
  }
  packet_set init = ps;
  init.n = 1;
  init.xhi[0] = 1e9;
  ierr = sq_sim_host_overwrite(s); /* the set-up's zero state may already be on the GPUs */
  if (ierr) {
    sq_sim_destroy(s);
    sq_sim_starpu_stop();
    return ierr;
  }
  sq_disc_project(s->disc, packets_eval, &init, 0.0);
  const double e0 = sq_disc_energy(s->disc);
  double dt;
  int64_t n;
  sq_sim_plan(s, t_end, &dt, &n);
  ierr = sq_sim_advance(s, n, dt, 1);
  if (ierr) {
    sq_sim_destroy(s);
    sq_sim_starpu_stop();
    return ierr;
  }
  const char *wname = o.wave == SQ_WAVE_P ? "P" : "S";
  int pass = 1;
  if (ex == EXP_INTERFACE) {
    const double Rm = fit_amplitude(s->disc, &ps, 1, t_end), Tm = fit_amplitude(s->disc, &ps, 2, t_end);
    const double dR = fabs(Rm - 1.0), dT = fabs(Tm - 1.0); /* packets carry the analytic coefficients already */
    pass = dR <= 0.01 && dT <= 0.01;
    if (o.json)
      printf("{\"test\": \"interface\", \"wave\": \"%s\", \"R\": %.6f, \"T\": %.6f, \"R_measured\": %.6f, "
             "\"T_measured\": %.6f, \"rel_dev_R\": %.3e, \"rel_dev_T\": %.3e, \"pass\": %s}\n",
             wname, Rc, Tc, Rm * Rc, Tm * Tc, dR, dT, pass ? "true" : "false");
    else
      printf("interface %s wave: R analytic %.6f measured %.6f (dev %.2e); T analytic %.6f measured %.6f (dev %.2e): "
             "%s\n",
             wname, Rc, Rm * Rc, dR, Tc, Tm * Tc, dT, pass ? "PASS" : "FAIL");
  } else if (ex == EXP_FREE) {
    double err, norm;
    sq_disc_l2_error(s->disc, packets_eval, &ps, t_end, &err, &norm);
    const double Rm = fit_amplitude(s->disc, &ps, 1, t_end);
    pass = err / norm <= 0.01 && fabs(Rm - 1.0) <= 0.01;
    if (o.json)
      printf("{\"test\": \"freesurface\", \"wave\": \"%s\", \"rel_l2_error\": %.6e, \"R\": %.6f, \"R_measured\": %.6f, "
             "\"pass\": %s}\n",
             wname, err / norm, Rc, Rm * Rc, pass ? "true" : "false");
    else
      printf("free surface %s wave: relative L2 error against the image solution %.3e, R analytic %.4f measured "
             "%.6f: %s\n",
             wname, err / norm, Rc, Rm * Rc, pass ? "PASS" : "FAIL");
  } else {
    const double e1 = sq_disc_energy(s->disc);
    pass = e1 / e0 < 0.01;
    if (o.json)
      printf("{\"test\": \"absorbing\", \"wave\": \"%s\", \"energy_initial\": %.6e, \"energy_final\": %.6e, "
             "\"fraction_left\": %.3e, \"pass\": %s}\n",
             wname, e0, e1, e1 / e0, pass ? "true" : "false");
    else
      printf("absorbing %s wave: %.3e of the initial energy left after the packet left: %s\n", wname, e1 / e0,
             pass ? "PASS" : "FAIL");
  }
  sq_sim_destroy(s);
  sq_sim_starpu_stop();
  return pass ? SQ_SUCCESS : SQ_ERR_NUMERIC;
}

int sq_cmd_verify(int argc, char **argv) {
  if (argc < 1 || !strcmp(argv[0], "--help")) {
    printf("usage: starquake verify planewave --order O [--precision single|double] [--json] [--meshes n1,n2,...]\n"
           "                                  [--end-time T] [--serial] [--tile-size N]\n"
           "                                  [--lts-rate R] [--graded] [--merge] [--cfl C] [--attenuation]\n"
           "       starquake verify interface|freesurface|absorbing [--wave p|s] [--order O] [--cells N] [--json]\n"
           "       starquake verify pointsource [--size quick|long] [--order O] [--cells N] [--refine F]\n"
           "                                    [--lts-rate R] [--force] [--update-only] [--tolerance X] [--json]\n"
           "       starquake verify thermal-pressurization [--dt DT] [--json]\n"
           "       starquake verify kinematic [--size quick|long] [--order O] [--cells N] [--refine F] [--tau-s T] "
           "[--tau-r T]\n"
           "                                  [--radius R] [--tolerance X] [--json]\n"
           "       starquake verify okada [--meshes k1,k2,...] [--tolerance X] [--exclude D] [--tile-size N] "
           "[--serial] [--verbose] [--dump FILE]\n"
           "                              [--mesh F1,F2,... --dip D] [--json]\n"
           "       starquake verify savage-prescott [--size K] [--dt DT] [--times T1,T2,...] [--length L] [--depth Z]\n"
           "                                        [--profile X] [--tolerance X] [--compare-predictor] [--verbose]\n"
           "                                        [--multistep W] [--dump FILE] [--json]\n");
    return argc < 1 ? SQ_ERR_INPUT : SQ_SUCCESS;
  }
  if (!strcmp(argv[0], "planewave")) return verify_planewave(argc - 1, argv + 1);
  if (!strcmp(argv[0], "interface")) return verify_packet(argc - 1, argv + 1, EXP_INTERFACE);
  if (!strcmp(argv[0], "freesurface")) return verify_packet(argc - 1, argv + 1, EXP_FREE);
  if (!strcmp(argv[0], "absorbing")) return verify_packet(argc - 1, argv + 1, EXP_ABSORB);
  if (!strcmp(argv[0], "pointsource")) return sq_cmd_verify_pointsource(argc - 1, argv + 1);
  if (!strcmp(argv[0], "thermal-pressurization")) return sq_cmd_verify_tp(argc - 1, argv + 1);
  if (!strcmp(argv[0], "kinematic")) return sq_cmd_verify_kinematic(argc - 1, argv + 1);
  if (!strcmp(argv[0], "okada")) return sq_cmd_verify_okada(argc - 1, argv + 1);
  if (!strcmp(argv[0], "savage-prescott")) return sq_cmd_verify_savage_prescott(argc - 1, argv + 1);
  return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                  "verify: unknown test '%s' (choose planewave, interface, freesurface, absorbing, pointsource, "
                  "thermal-pressurization, kinematic, okada or savage-prescott)",
                  argv[0]);
}
