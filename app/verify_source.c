/**
 * @file verify_source.c  `starquake verify pointsource`: a point source (general moment tensor, or a
 * single force) in a homogeneous full space, sampled by receivers at several azimuths, against the
 * closed-form solution of Aki & Richards (eq. 4.29 / 4.23, src/fullspace.c).  The box has absorbing
 * boundaries far enough that no reflection reaches a receiver before the end time.  Prints the
 * relative L2 misfit of the velocity seismograms and fails above --tolerance.  With --attenuation the medium
 * is viscoelastic (Qp 20, Qs 10, 3 mechanisms over 0.1-10 Hz) and the closed form is the frequency-domain
 * solution with complex velocities (sq_fullspace_velocity_visco); the misfit of the elastic closed form is
 * printed beside it, to show that the check sees the attenuation.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sq_app.h"
#include "sq_sim_setup.h"

typedef struct ps_opts {
  int order, cells, refine, lts_rate, json, update_only, force, tile_size, attenuation;
  double half_width, tolerance, width, radius, cfl;
  sq_precision precision;
  const char *dump; /**< file for "t receiver v1 v2 v3 v1_exact v2_exact v3_exact" rows */
} ps_opts;

static int ps_parse(int argc, char **argv, ps_opts *o) {
  for (int i = 0; i < argc; ++i) {
    const char *a = argv[i];
    const int more = i + 1 < argc;
    if (!strcmp(a, "--size") && more) {
      const char *v = argv[++i];
      SQ_CHECK(!strcmp(v, "quick") || !strcmp(v, "long"), SQ_ERR_INPUT, "--size must be quick or long (got '%s')", v);
      if (!strcmp(v, "long")) o->order = 5, o->cells = 10, o->tolerance = 0.02; /* docs/VERIFICATION.md */
    } else if (!strcmp(a, "--order") && more) o->order = atoi(argv[++i]);
    else if (!strcmp(a, "--cells") && more) o->cells = atoi(argv[++i]);
    else if (!strcmp(a, "--refine") && more) o->refine = atoi(argv[++i]);
    else if (!strcmp(a, "--lts-rate") && more) o->lts_rate = atoi(argv[++i]);
    else if (!strcmp(a, "--tile-size") && more) o->tile_size = atoi(argv[++i]);
    else if (!strcmp(a, "--half-width") && more) o->half_width = atof(argv[++i]);
    else if (!strcmp(a, "--tolerance") && more) o->tolerance = atof(argv[++i]);
    else if (!strcmp(a, "--width") && more) o->width = atof(argv[++i]);
    else if (!strcmp(a, "--radius") && more) o->radius = atof(argv[++i]);
    else if (!strcmp(a, "--cfl") && more) o->cfl = atof(argv[++i]);
    else if (!strcmp(a, "--precision") && more) o->precision = !strcmp(argv[++i], "single") ? SQ_F32 : SQ_F64;
    else if (!strcmp(a, "--update-only")) o->update_only = 1;
    else if (!strcmp(a, "--force")) o->force = 1;
    else if (!strcmp(a, "--attenuation")) o->attenuation = 1;
    else if (!strcmp(a, "--json")) o->json = 1;
    else if (!strcmp(a, "--dump") && more) o->dump = argv[++i];
    else return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "verify pointsource: unknown or incomplete option '%s'", a);
  }
  SQ_CHECK(o->order >= SQ_ORDER_MIN && o->order <= SQ_ORDER_MAX, SQ_ERR_INPUT, "--order must be in %d..%d",
           SQ_ORDER_MIN, SQ_ORDER_MAX);
  SQ_CHECK(o->cells >= 2 && o->cells <= 200, SQ_ERR_INPUT, "--cells must be in 2..200");
  SQ_CHECK(o->refine == 1 || (o->refine >= 2 && o->refine <= 16), SQ_ERR_INPUT, "--refine must be 1 or 2..16");
  return SQ_SUCCESS;
}

int sq_cmd_verify_pointsource(int argc, char **argv) {
  /* the quick size (CI): 3072 elements, 2 LTS clusters; --size long: 16464 elements, order 5 */
  ps_opts o = {.order = 4,
               .cells = 6,
               .refine = 2,
               .lts_rate = 2,
               .half_width = 1.75,
               .tolerance = 0.25,
               .width = 0.15,
               .radius = 0.6,
               .cfl = 0.5,
               .precision = SQ_F64};
  SQ_CALL(ps_parse(argc, argv, &o));
  /* unit homogeneous medium: rho 1, lambda = mu = 1 (vp = sqrt 3, vs = 1; with attenuation, at 1 Hz) */
  const sq_material mat = {
      .rho = 1.0, .lambda = 1.0, .mu = 1.0, .qp = o.attenuation ? 20 : 0, .qs = o.attenuation ? 10 : 0};
  const double delay = 0.5, L = o.half_width;
  const double xs[3] = {0.0123, -0.0217, 0.0311};
  enum { NREC = 6 };
  const double dir[NREC][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}, {-1, 0.5, 0.3}, {0.3, -0.8, -0.5}};
  sq_config c;
  sq_config_default(&c);
  snprintf(c.path, sizeof(c.path), "(verify pointsource)");
  c.order = o.order;
  c.precision = o.precision;
  c.cfl = o.cfl;
  c.material_default = mat;
  if (o.attenuation) /* the band 0.1-10 Hz holds the source's spectrum (its velocity peaks near 1 Hz) */
    c.attenuation =
        (sq_attenuation_config){.enabled = 1, .mechanisms = 3, .central_frequency = 1, .frequency_ratio = 100};
  c.tile_size = o.tile_size > 0 ? o.tile_size : 128;
  c.lts_rate = o.lts_rate;
  c.end_time = delay + o.radius / sq_material_vs(&mat) + 3.0 * o.width;
  sq_box_params_default(&c.box);
  for (int d = 0; d < 3; ++d) c.box.n[d] = o.cells, c.box.lo[d] = -L, c.box.hi[d] = L;
  for (int f = 0; f < 6; ++f) c.box.bc[f] = SQ_BC_ABSORB;
  if (o.refine > 1) { /* refine around the source and the receivers */
    c.box.nzones = 1;
    c.box.zone_factor[0] = o.refine;
    for (int d = 0; d < 3; ++d) c.box.zone_lo[0][d] = -(o.radius + 0.2), c.box.zone_hi[0][d] = o.radius + 0.2;
  }
  c.nsources = 1;
  sq_source_config *sc = &c.sources[0];
  memcpy(sc->location, xs, sizeof(xs));
  sc->line = 0;
  if (o.force) {
    sc->type = SQ_SRCCFG_FORCE;
    sc->force[0] = 0.3, sc->force[1] = -0.5, sc->force[2] = 1.0;
  } else {
    sc->type = SQ_SRCCFG_MOMENT_TENSOR;
    const double m[6] = {0.4, -0.3, 0.2, 1.0, -0.5, 0.7};
    memcpy(sc->moment_tensor, m, sizeof(m));
  }
  sc->stf.kind = SQ_STFCFG_GAUSSIAN;
  sc->stf.delay = delay;
  sc->stf.width = o.width;
  c.nreceivers = NREC;
  for (int r = 0; r < NREC; ++r) {
    const double n = sqrt(dir[r][0] * dir[r][0] + dir[r][1] * dir[r][1] + dir[r][2] * dir[r][2]);
    for (int d = 0; d < 3; ++d) c.receiver_points[r][d] = xs[d] + o.radius * dir[r][d] / n;
  }
  c.receiver_interval = 0.005;

  sq_sim *s = NULL;
  int ierr = sq_sim_create(&c, 0, &s);
  double dt = 0;
  int64_t n = 0;
  if (!ierr) {
    s->source_set->predictor = !o.update_only;
    sq_sim_plan(s, c.end_time, &dt, &n);
    ierr = sq_receiver_set_reserve(s->receivers, c.end_time + dt);
  }
  if (!ierr) ierr = sq_sim_advance(s, n, dt, 1);
  if (ierr) {
    sq_sim_destroy(s);
    sq_sim_starpu_stop();
    return ierr;
  }
  /* misfit per receiver over the samples before the end time */
  const sq_receiver_set *rs = s->receivers;
  int64_t jb, je;
  sq_receiver_samples_in(rs->interval, 0.0, s->time, &jb, &je);
  const sq_point_source *src = &s->sources.src[0];
  /* the closed form at the receivers' samples 0 .. je - 1 (NREC x je x 3), and the elastic one */
  double *exact = malloc(sizeof(double) * 3 * (size_t)(je > 0 ? je : 1) * NREC);
  SQ_CHECK(exact, SQ_ERR_MEMORY, "verify pointsource: out of memory");
  sq_atten_band band;
  sq_visco visco;
  sq_material unrelaxed;
  if (o.attenuation) {
    ierr = sq_sim_attenuation_band(&c, &band);
    if (!ierr) ierr = sq_visco_init(&band, &mat, mat.qp, mat.qs, &visco, &unrelaxed);
  }
  for (int r = 0; r < NREC && !ierr; ++r) {
    double *ex = exact + (size_t)r * 3 * je;
    if (o.attenuation)
      ierr = sq_fullspace_velocity_visco(src, mat.rho, &band, &visco, &rs->x[3 * r], rs->interval, (int)je, ex);
    else
      for (int64_t j = 0; j < je; ++j)
        sq_fullspace_velocity(src, &mat, &rs->x[3 * r], (double)j * rs->interval, ex + 3 * j);
  }
  if (ierr) {
    free(exact);
    sq_sim_destroy(s);
    sq_sim_starpu_stop();
    return ierr;
  }
  double misfit[NREC], err_all = 0, norm_all = 0, worst = 0, el_err = 0, el_norm = 0;
  for (int r = 0; r < NREC; ++r) {
    double e2 = 0, n2 = 0;
    for (int64_t j = jb; j < je; ++j) {
      const double *v = exact + ((size_t)r * je + j) * 3;
      double ve[3];
      sq_fullspace_velocity(src, &mat, &rs->x[3 * r], (double)j * rs->interval, ve);
      const double *q = sq_receiver_set_slot(rs, j) + (size_t)r * 9;
      for (int d = 0; d < 3; ++d) {
        e2 += (q[6 + d] - v[d]) * (q[6 + d] - v[d]), n2 += v[d] * v[d];
        el_err += (q[6 + d] - ve[d]) * (q[6 + d] - ve[d]), el_norm += ve[d] * ve[d];
      }
    }
    misfit[r] = sqrt(e2 / n2);
    worst = fmax(worst, misfit[r]);
    err_all += e2, norm_all += n2;
  }
  const double elastic_misfit = sqrt(el_err / el_norm); /* the run against the elastic closed form */
  const double combined = sqrt(err_all / norm_all);
  FILE *dump = o.dump ? fopen(o.dump, "w") : NULL;
  for (int r = 0; dump && r < NREC; ++r)
    for (int64_t j = jb; j < je; ++j) {
      const double *v = exact + ((size_t)r * je + j) * 3;
      const double *q = sq_receiver_set_slot(rs, j) + (size_t)r * 9;
      fprintf(dump, "%.6e %d %.9e %.9e %.9e %.9e %.9e %.9e", (double)j * rs->interval, r + 1, q[6], q[7], q[8], v[0],
              v[1], v[2]);
      if (o.attenuation) { /* and the elastic closed form */
        double ve[3];
        sq_fullspace_velocity(src, &mat, &rs->x[3 * r], (double)j * rs->interval, ve);
        fprintf(dump, " %.9e %.9e %.9e", ve[0], ve[1], ve[2]);
      }
      fputc('\n', dump);
    }
  if (dump) fclose(dump);
  free(exact);
  const int pass = worst <= o.tolerance;
  if (o.json) {
    printf("{\"test\": \"pointsource\", \"source\": \"%s\", \"order\": %d, \"cells\": %d, \"refine\": %d, "
           "\"elements\": %lld, \"clusters\": %d, \"steps\": %lld, \"predictor\": %s, \"misfit\": [",
           o.force ? "force" : "moment_tensor", o.order, o.cells, o.refine, (long long)s->mesh->ncell,
           s->disc->ncluster, (long long)n, o.update_only ? "false" : "true");
    for (int r = 0; r < NREC; ++r) printf("%s%.4e", r ? ", " : "", misfit[r]);
    printf("], \"max_misfit\": %.4e, \"combined_misfit\": %.4e, \"tolerance\": %.4g, ", worst, combined, o.tolerance);
    if (o.attenuation)
      printf("\"attenuation\": {\"qp\": %g, \"qs\": %g, \"mechanisms\": %d, \"central_frequency\": %g, "
             "\"frequency_ratio\": %g}, \"elastic_misfit\": %.4e, ",
             mat.qp, mat.qs, c.attenuation.mechanisms, c.attenuation.central_frequency, c.attenuation.frequency_ratio,
             elastic_misfit);
    printf("\"pass\": %s}\n", pass ? "true" : "false");
  } else {
    printf("point source (%s) in a full space: order %d, %lld elements, %d cluster%s, %lld steps, source in the "
           "predictor: %s\n",
           o.force ? "single force" : "moment tensor", o.order, (long long)s->mesh->ncell, s->disc->ncluster,
           s->disc->ncluster == 1 ? "" : "s", (long long)n, o.update_only ? "no" : "yes");
    for (int r = 0; r < NREC; ++r)
      printf("  receiver %d at (%7.4f, %7.4f, %7.4f): relative L2 misfit of the velocity %.3e\n", r + 1, rs->x[3 * r],
             rs->x[3 * r + 1], rs->x[3 * r + 2], misfit[r]);
    if (o.attenuation)
      printf("viscoelastic medium (Qp %g, Qs %g, %d mechanisms, band %g Hz x/ sqrt %g); the elastic closed form "
             "misses the run by %.3e\n",
             mat.qp, mat.qs, c.attenuation.mechanisms, c.attenuation.central_frequency, c.attenuation.frequency_ratio,
             elastic_misfit);
    printf("max misfit %.3e (combined %.3e), tolerance %.3g: %s\n", worst, combined, o.tolerance,
           pass ? "PASS" : "FAIL");
  }
  sq_sim_destroy(s);
  sq_sim_starpu_stop();
  return pass ? SQ_SUCCESS : SQ_ERR_NUMERIC;
}
