/**
 * @file verify_kinematic.c  `starquake verify kinematic`: a small square patch of imposed slip (a kinematic
 * source, regularised Yoffe slip rate) on the plane z = 0 of a homogeneous full space, against the
 * moment-tensor point source of the same moment M0 = mu A D and the same moment-rate function (a table of the
 * Yoffe function) at the patch's centre: both simulated on the same mesh, and the point source's closed-form
 * solution (src/fullspace.c).  Receivers at several azimuths; the figure is the relative L2 misfit of the
 * velocity seismograms of the patch against those of the simulated point source.  It also checks that the
 * slip of every fault point equals the prescribed final slip once the slip-rate function has ended.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sq_app.h"
#include "sq_kinematic.h"

typedef struct kin_opts {
  int order, cells, refine, lts_rate, json;
  double tolerance, radius, tau_s, tau_r;
  const char *dump; /**< "t receiver v(patch) v(point source) v(exact)" rows */
} kin_opts;

static int kin_parse(int argc, char **argv, kin_opts *o) {
  for (int i = 0; i < argc; ++i) {
    const char *a = argv[i];
    const int more = i + 1 < argc;
    if (!strcmp(a, "--size") && more) {
      const char *v = argv[++i];
      SQ_CHECK(!strcmp(v, "quick") || !strcmp(v, "long"), SQ_ERR_INPUT, "--size must be quick or long (got '%s')", v);
      if (!strcmp(v, "long")) o->refine = 8, o->tolerance = 0.02; /* docs/VERIFICATION.md */
    } else if (!strcmp(a, "--order") && more) o->order = atoi(argv[++i]);
    else if (!strcmp(a, "--cells") && more) o->cells = atoi(argv[++i]);
    else if (!strcmp(a, "--refine") && more) o->refine = atoi(argv[++i]);
    else if (!strcmp(a, "--lts-rate") && more) o->lts_rate = atoi(argv[++i]);
    else if (!strcmp(a, "--tolerance") && more) o->tolerance = atof(argv[++i]);
    else if (!strcmp(a, "--radius") && more) o->radius = atof(argv[++i]);
    else if (!strcmp(a, "--tau-s") && more) o->tau_s = atof(argv[++i]);
    else if (!strcmp(a, "--tau-r") && more) o->tau_r = atof(argv[++i]);
    else if (!strcmp(a, "--json")) o->json = 1;
    else if (!strcmp(a, "--dump") && more) o->dump = argv[++i];
    else return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "verify kinematic: unknown or incomplete option '%s'", a);
  }
  SQ_CHECK(o->order >= SQ_ORDER_MIN && o->order <= SQ_ORDER_MAX, SQ_ERR_INPUT, "--order must be in %d..%d",
           SQ_ORDER_MIN, SQ_ORDER_MAX);
  SQ_CHECK(o->cells >= 3 && o->cells <= 199 && o->cells % 2 == 1, SQ_ERR_INPUT,
           "--cells must be odd (the patch is in the centre cell) and in 3..199");
  SQ_CHECK(o->refine >= 2 && o->refine <= 16 && o->refine % 2 == 0, SQ_ERR_INPUT,
           "--refine must be even (the plane z = 0 is a grid plane of the refined centre cell) and in 2..16");
  SQ_CHECK(o->tau_s > 0 && o->tau_r > 0 && o->radius > 0, SQ_ERR_INPUT, "--tau-s, --tau-r and --radius must be > 0");
  return SQ_SUCCESS;
}

enum { NREC = 6 };

/* The common set-up: unit medium, box of half-width L with absorbing sides, the centre base cell refined. */
static void kin_config(const kin_opts *o, double L, double end_time, const double rec[NREC][3], sq_config *c) {
  sq_config_default(c);
  snprintf(c->path, sizeof(c->path), "(verify kinematic)");
  c->order = o->order;
  c->precision = SQ_F64;
  c->cfl = 0.5;
  c->material_default = (sq_material){.rho = 1.0, .lambda = 1.0, .mu = 1.0};
  c->tile_size = 128;
  c->lts_rate = o->lts_rate;
  c->end_time = end_time;
  sq_box_params_default(&c->box);
  for (int d = 0; d < 3; ++d) c->box.n[d] = o->cells, c->box.lo[d] = -L, c->box.hi[d] = L;
  for (int f = 0; f < 6; ++f) c->box.bc[f] = SQ_BC_ABSORB;
  const double h = 2 * L / o->cells;
  c->box.nzones = 1;
  c->box.zone_factor[0] = o->refine;
  for (int d = 0; d < 3; ++d) c->box.zone_lo[0][d] = -0.5 * h, c->box.zone_hi[0][d] = 0.5 * h;
  c->receiver_interval = 0.01;
  c->nreceivers = NREC;
  memcpy(c->receiver_points, rec, sizeof(double) * 3 * NREC);
}

/* Run @p c to its end time; the velocities of every receiver sample before it into *v (NREC x nt x 3). */
static int kin_run(const sq_config *c, sq_sim **out, double **v, int64_t *nt) {
  sq_sim *s = NULL;
  double dt = 0;
  int64_t n = 0;
  int ierr = sq_sim_create(c, 0, &s);
  if (!ierr) {
    sq_sim_plan(s, c->end_time, &dt, &n);
    ierr = sq_receiver_set_reserve(s->receivers, c->end_time + dt);
  }
  if (!ierr) ierr = sq_sim_advance(s, n, dt, 1);
  if (ierr) {
    sq_sim_destroy(s);
    return ierr;
  }
  const sq_receiver_set *rs = s->receivers;
  int64_t jb, je;
  sq_receiver_samples_in(rs->interval, 0.0, s->time, &jb, &je);
  *nt = je;
  *v = calloc((size_t)NREC * (je + 1) * 3, sizeof(double));
  SQ_CHECK(*v, SQ_ERR_MEMORY, "out of memory");
  for (int r = 0; r < NREC; ++r)
    for (int64_t j = jb; j < je; ++j)
      for (int d = 0; d < 3; ++d)
        (*v)[((size_t)r * je + j) * 3 + d] = sq_receiver_set_slot(rs, j)[(size_t)r * 9 + 6 + d];
  *out = s;
  return SQ_SUCCESS;
}

/* sqrt(sum |a - b|^2 / sum |b|^2) over the samples of receiver r (all receivers: r < 0) */
static double kin_misfit(const double *a, const double *b, int64_t nt, int r) {
  double e2 = 0, n2 = 0;
  for (int k = r < 0 ? 0 : r; k < (r < 0 ? NREC : r + 1); ++k)
    for (int64_t j = 0; j < nt * 3; ++j) {
      const double x = a[(size_t)k * nt * 3 + j], y = b[(size_t)k * nt * 3 + j];
      e2 += (x - y) * (x - y), n2 += y * y;
    }
  return n2 > 0 ? sqrt(e2 / n2) : INFINITY;
}

int sq_cmd_verify_kinematic(int argc, char **argv) {
  /* quick: order 4, 5^3 base cells, the centre one refined 4 times (3072 elements, 3 LTS clusters); --size long:
   * refined 8 times (10368 elements, 4 clusters), the patch half as wide */
  kin_opts o = {
      .order = 4, .cells = 5, .refine = 4, .lts_rate = 2, .tolerance = 0.15, .radius = 0.6, .tau_s = 0.4, .tau_r = 1.6};
  SQ_CALL(kin_parse(argc, argv, &o));
  const double L = 1.75, onset = 0.1, D = 1.0, h = 2 * L / o.cells / o.refine; /* the patch: one fine square */
  const sq_friction_params prm = {.slip_strike = D, .onset = onset, .tau_s = o.tau_s, .rise_time = o.tau_r};
  const double t_end = sq_kinematic_end_time(SQ_FRICTION_KINEMATIC_YOFFE, &prm);
  const double end_time = t_end + o.radius + 0.3; /* the S wave of the last slip has passed every receiver */
  const double centre[3] = {0.5 * h, 0.5 * h, 0.0}, mu = 1.0, M0 = mu * h * h * D;
  static const double dir[NREC][3] = {{1, 0, 0.2}, {0, 1, 0.3},    {0, 0.2, 1},
                                      {1, 1, 1},   {-1, 0.5, 0.3}, {0.3, -0.8, -0.5}};
  double rec[NREC][3];
  for (int r = 0; r < NREC; ++r) {
    const double n = sqrt(dir[r][0] * dir[r][0] + dir[r][1] * dir[r][1] + dir[r][2] * dir[r][2]);
    for (int d = 0; d < 3; ++d) rec[r][d] = centre[d] + o.radius * dir[r][d] / n;
  }
  sq_config c;
  double *vk = NULL, *vp = NULL, *ve = NULL;
  int64_t nk = 0, np = 0;
  sq_sim *s = NULL;

  /* 1. the kinematic patch [0, h]^2 x {0}, one square of the refined centre cell: slip D along strike (x: the
   *    normal is +z, towards the reference point) */
  kin_config(&o, L, end_time, rec, &c);
  c.box.has_fault = 1;
  c.box.fault_lo[0] = c.box.fault_lo[1] = 0.0, c.box.fault_hi[0] = c.box.fault_hi[1] = h;
  c.box.fault_lo[2] = c.box.fault_hi[2] = 0.0;
  c.fault.enabled = 1;
  c.fault.law = SQ_FRICTION_KINEMATIC_YOFFE;
  c.fault.reference_point[0] = centre[0], c.fault.reference_point[1] = centre[1], c.fault.reference_point[2] = 1.0;
  snprintf(c.fault.param[SQ_FP_STRIKE_SLIP].text, sizeof(c.fault.param[0].text), "%.17g", D);
  snprintf(c.fault.param[SQ_FP_RUPTURE_ONSET].text, sizeof(c.fault.param[0].text), "%.17g", onset);
  snprintf(c.fault.param[SQ_FP_TAU_S].text, sizeof(c.fault.param[0].text), "%.17g", o.tau_s);
  snprintf(c.fault.param[SQ_FP_RISE_TIME].text, sizeof(c.fault.param[0].text), "%.17g", o.tau_r);
  int ierr = kin_run(&c, &s, &vk, &nk);
  if (ierr) {
    sq_sim_starpu_stop();
    return ierr;
  }
  /* the slip of every fault point: D along strike, to rounding, once the slip-rate function has ended */
  double slip_err = 0.0;
  int64_t npoints = 0;
  const sq_fault *f = s->fault;
  for (int64_t i = 0; f && i < f->nface * f->npoint; ++i, ++npoints) {
    const sq_friction_state *st = &f->point[i].state;
    slip_err = fmax(slip_err, fmax(fabs(st->slip[0] - D), fabs(st->slip[1])) / D);
  }
  const int64_t ncell = s->mesh->ncell;
  const int nclusters = s->disc->ncluster;
  sq_sim_destroy(s);
  s = NULL;

  /* 2. the point source: M_xz = M0 at the centre, the Yoffe function as a table of its moment rate */
  char table[] = "/tmp/starquake-kinematic-XXXXXX";
  const int fd = mkstemp(table);
  FILE *tf = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!tf) {
    free(vk);
    sq_sim_starpu_stop();
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "verify kinematic: cannot write the table %s", table);
  }
  const int nsample = 8000;
  for (int k = 0; k <= nsample; ++k) {
    const double t = onset + (t_end - onset) * k / nsample;
    fprintf(tf, "%.17g %.17g\n", t, sq_kinematic_rate(SQ_FRICTION_KINEMATIC_YOFFE, &prm, t));
  }
  fclose(tf);
  kin_config(&o, L, end_time, rec, &c);
  c.nsources = 1;
  sq_source_config *sc = &c.sources[0];
  memcpy(sc->location, centre, sizeof(centre));
  sc->type = SQ_SRCCFG_MOMENT_TENSOR;
  memset(sc->moment_tensor, 0, sizeof(sc->moment_tensor));
  sc->moment_tensor[5] = M0; /* xz: slip along x on the plane of normal z */
  sc->stf.kind = SQ_STFCFG_TABLE;
  snprintf(sc->stf.file, sizeof(sc->stf.file), "%s", table);
  ierr = kin_run(&c, &s, &vp, &np);
  unlink(table);
  if (ierr || np != nk) {
    free(vk), free(vp);
    sq_sim_destroy(s);
    sq_sim_starpu_stop();
    return ierr ? ierr : sq_error(SQ_ERR_INTERNAL, __FILE__, __LINE__, "verify kinematic: sample counts differ");
  }
  /* 3. the closed form of that point source */
  ve = calloc((size_t)NREC * nk * 3 + 1, sizeof(double));
  const sq_receiver_set *rs = s->receivers;
  for (int r = 0; ve && r < NREC; ++r)
    for (int64_t j = 0; j < nk; ++j)
      sq_fullspace_velocity(&s->sources.src[0], &c.material_default, &rs->x[3 * r], (double)j * rs->interval,
                            &ve[((size_t)r * nk + j) * 3]);
  double mis_p[NREC], mis_e[NREC], worst = 0;
  for (int r = 0; ve && r < NREC; ++r) {
    mis_p[r] = kin_misfit(vk, vp, nk, r), mis_e[r] = kin_misfit(vk, ve, nk, r);
    worst = fmax(worst, mis_p[r]);
  }
  const double all_p = ve ? kin_misfit(vk, vp, nk, -1) : INFINITY, all_e = ve ? kin_misfit(vk, ve, nk, -1) : INFINITY;
  const double point_e = ve ? kin_misfit(vp, ve, nk, -1) : INFINITY;
  FILE *dump = o.dump ? fopen(o.dump, "w") : NULL;
  for (int r = 0; dump && r < NREC; ++r)
    for (int64_t j = 0; j < nk; ++j) {
      const size_t k = ((size_t)r * nk + j) * 3;
      fprintf(dump, "%.6e %d %.9e %.9e %.9e %.9e %.9e %.9e %.9e %.9e %.9e\n", (double)j * rs->interval, r + 1, vk[k],
              vk[k + 1], vk[k + 2], vp[k], vp[k + 1], vp[k + 2], ve[k], ve[k + 1], ve[k + 2]);
    }
  if (dump) fclose(dump);
  /* the combined misfit: a receiver near a nodal plane of the radiation pattern has little signal, and its own
   * relative misfit says little */
  const int pass = ve && all_p <= o.tolerance && slip_err <= 1e-14 && npoints > 0;
  if (o.json) {
    printf("{\"test\": \"kinematic\", \"law\": \"imposed_slip_rate_yoffe\", \"tau_S\": %g, \"tau_R\": %g, \"order\": "
           "%d, \"cells\": %d, \"refine\": %d, \"elements\": %lld, \"clusters\": %d, \"patch\": %g, \"M0\": %g, "
           "\"fault_points\": %lld, \"max_slip_error\": %.3e, \"misfit\": [",
           o.tau_s, o.tau_r, o.order, o.cells, o.refine, (long long)ncell, nclusters, h, M0, (long long)npoints,
           slip_err);
    for (int r = 0; r < NREC; ++r) printf("%s%.4e", r ? ", " : "", mis_p[r]);
    printf("], \"max_misfit\": %.4e, \"combined_misfit\": %.4e, \"misfit_exact\": %.4e, \"point_source_misfit_exact\": "
           "%.4e, \"tolerance\": %.4g, \"pass\": %s}\n",
           worst, all_p, all_e, point_e, o.tolerance, pass ? "true" : "false");
  } else {
    printf("kinematic patch (regularised Yoffe, tau_S %g, tau_R %g) of %g x %g in a full space: order %d, %lld "
           "elements, %d cluster%s; point source M0 = mu A D = %g\n",
           o.tau_s, o.tau_r, h, h, o.order, (long long)ncell, nclusters, nclusters == 1 ? "" : "s", M0);
    printf("  slip of the %lld fault points against the final slip: largest relative error %.3e\n", (long long)npoints,
           slip_err);
    for (int r = 0; r < NREC; ++r)
      printf("  receiver %d at (%7.4f, %7.4f, %7.4f): misfit against the point source %.3e (closed form %.3e)\n", r + 1,
             rs->x[3 * r], rs->x[3 * r + 1], rs->x[3 * r + 2], mis_p[r], mis_e[r]);
    printf("combined misfit %.3e (largest of one receiver %.3e; against the closed form %.3e, the point source's own "
           "%.3e), tolerance %.3g: %s\n",
           all_p, worst, all_e, point_e, o.tolerance, pass ? "PASS" : "FAIL");
  }
  free(vk), free(vp), free(ve);
  sq_sim_destroy(s);
  sq_sim_starpu_stop();
  return pass ? SQ_SUCCESS : SQ_ERR_NUMERIC;
}
