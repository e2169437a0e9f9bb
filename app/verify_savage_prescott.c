/**
 * @file verify_savage_prescott.c  `starquake verify savage-prescott`: the Maxwell viscoelastic time stepping
 * (src/sq_qs_visco.h) against Savage & Prescott's (1978) series (src/sq_savage_prescott.h): an infinitely long
 * vertical strike-slip fault with slip b from the surface to depth D = H/2 through an elastic layer of thickness
 * H = 1 over a Maxwell half-space of the same shear modulus (mu = lambda = 1, eta = 1/2: tau = 2 eta / mu = 1).
 *
 * The set-up (anti-plane, by symmetry): the half x >= 0 of a slab [0, L] x [0, h_y] x [-Z, 0], meshed with the
 * box generator, graded towards the fault (spacings 0.5/k near it up to 4/k far away).  The fault plane x = 0 is
 * the antisymmetry plane: u = (0, b/2, 0) on the fault (z > -D), u = 0 below it (b/4 at the fault's bottom edge,
 * the mean of the step).  The slab's faces y = 0 and y = h_y hold u_x = u_z = 0 with a free u_y (the field is
 * independent of y: an infinitely long fault), the far side x = L and the bottom z = -Z are rollers (no
 * shear traction on the anti-plane field), the top free.  The truncation adds reflections of the field at
 * 2 L - x and below -2 Z; --length and --depth move them away.
 *
 * The measure: the surface velocity v = du_y/dt (central difference of two steps around t) at the surface nodes
 * with 0 < x <= --profile, at each time of --times (units of tau), against the series; the error of a profile
 * is its largest misfit relative to the profile's largest velocity; max_rel_error the largest over the times.
 * The elastic displacement at t = 0 is checked the same way against b/pi atan(D/x) (elastic_rel_error).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sq_app.h"
#include "sq_qs_visco.h"
#include "sq_savage_prescott.h"

enum { MAX_TIMES = 8, TAG_FAULT = 7, TAG_FAR = 8, TAG_SLAB = 9, TAG_BOTTOM = 10, TAG_TOP = 1 };

static const double SP_H = 1, SP_D = 0.5, SP_B = 1, SP_MU = 1, SP_LAMBDA = 1, SP_ETA = 0.5;

static double wall_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* The antisymmetry plane x = 0: b/2 on the fault, 0 below, the mean at its bottom edge. */
static void fault_plane(void *ctx, const double x[3], double u[3]) {
  (void)ctx;
  u[0] = u[2] = 0;
  u[1] = fabs(x[2] + SP_D) < 1e-9 ? SP_B / 4 : x[2] > -SP_D ? SP_B / 2 : 0;
}

typedef struct sp_result {
  double max_rel_error, elastic_rel_error, err[MAX_TIMES], vmax[MAX_TIMES], seconds;
  int64_t ncell, ndof, nsurf, nstep;
  sq_qs_visco_stats st;
} sp_result;

static int sp_mesh(int k, double L, double Z, sq_mesh **m) {
  sq_box_params bp;
  sq_box_params_default(&bp);
  const double h0 = 4.0 / k;
  bp.n[0] = (int)lround(L / h0);
  bp.n[1] = 1;
  bp.n[2] = (int)lround(Z / h0);
  bp.lo[0] = 0;
  bp.hi[0] = L;
  bp.lo[1] = 0;
  bp.hi[1] = 0.5 / k;
  bp.lo[2] = -Z;
  bp.hi[2] = 0;
  for (int i = 0; i < 6; ++i) bp.bc[i] = SQ_BC_FREE;
  /* grading: spacing h0 / 2 in [0, 24] x [-12, 0], h0 / 4 in [0, 8] x [-8, 0], h0 / 8 in [0, 4] x [-4, 0] */
  const double zx[3] = {24, 8, 4}, zz[3] = {12, 8, 4};
  const int zf[3] = {2, 4, 8};
  bp.nzones = 3;
  for (int z = 0; z < 3; ++z) {
    bp.zone_lo[z][0] = 0;
    bp.zone_hi[z][0] = zx[z];
    bp.zone_lo[z][1] = -1;
    bp.zone_hi[z][1] = 1;
    bp.zone_lo[z][2] = -zz[z];
    bp.zone_hi[z][2] = 0;
    bp.zone_factor[z] = zf[z];
  }
  SQ_CALL(sq_mesh_box(&bp, m));
  sq_mesh *mm = *m;
  for (int64_t c = 0; c < mm->ncell; ++c)
    for (int f = 0; f < 4; ++f) {
      if (mm->face_neighbor[4 * c + f] >= 0) continue;
      const double *nn = mm->face_normal + 12 * c + 3 * f;
      mm->face_bc[4 * c + f] = nn[0] < -0.5        ? TAG_FAULT
                               : nn[0] > 0.5       ? TAG_FAR
                               : fabs(nn[1]) > 0.5 ? TAG_SLAB
                               : nn[2] < -0.5      ? TAG_BOTTOM
                                                   : TAG_TOP;
    }
  return SQ_SUCCESS;
}

static int run(int k, double L, double Z, double dt, int ntime, const double *times, double profile, int predictor,
               int multistep, int verbose, FILE *dump, sp_result *res) {
  sq_mesh *m = NULL;
  SQ_CALL(sp_mesh(k, L, Z, &m));
  sq_qs_mesh *qm = NULL;
  sq_qs_visco *v = NULL;
  double *lam = malloc(sizeof(double) * m->ncell), *mu = malloc(sizeof(double) * m->ncell);
  double *eta = malloc(sizeof(double) * m->ncell);
  double *u = NULL, *uprev = NULL, *surf_v = NULL;
  int64_t *surf = NULL;
  int ierr = lam && mu && eta ? SQ_SUCCESS : sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "verify savage-prescott");
  for (int64_t c = 0; !ierr && c < m->ncell; ++c) {
    lam[c] = SP_LAMBDA;
    mu[c] = SP_MU;
    eta[c] = m->centroid[3 * c + 2] < -SP_H ? SP_ETA : INFINITY;
  }
  if (!ierr) ierr = sq_qs_mesh_create(m, lam, mu, 1024, &qm);
  sq_qs_bc_kind kind[256] = {0};
  kind[TAG_FAULT] = SQ_QS_DIRICHLET;
  kind[TAG_FAR] = kind[TAG_BOTTOM] = SQ_QS_ROLLER;
  kind[TAG_SLAB] = kind[TAG_TOP] = SQ_QS_FREE;
  if (!ierr) ierr = sq_qs_set_bc(qm, kind, fault_plane, NULL);
  if (!ierr) /* the slab's faces: u_x = u_z = 0, u_y free */
    for (int64_t p = 0; p < qm->nnode; ++p) {
      const double y = qm->xyz[3 * p + 1];
      if (fabs(y) > 1e-9 && fabs(y - m->bbox_hi[1]) > 1e-9) continue;
      for (int i = 0; i < 3; i += 2) {
        qm->fixed[3 * p + i] = 1;
        qm->ubc[3 * p + i] = 0;
      }
    }
  sq_qs_visco_opts o;
  sq_qs_visco_opts_default(&o);
  o.dt = dt;
  o.predictor = predictor;
  o.multistep = predictor ? multistep : 1;
  o.solver.verbose = verbose > 1;
  if (!ierr) ierr = sq_qs_visco_create(qm, eta, &o, &v);
  if (!ierr) ierr = SQ_CALLOC(u, 3 * qm->nnode);
  if (!ierr) ierr = SQ_CALLOC(uprev, 3 * qm->nnode);
  if (!ierr) ierr = SQ_CALLOC(surf, qm->nnode);
  if (!ierr) ierr = SQ_CALLOC(surf_v, qm->nnode);
  int64_t ns = 0;
  if (!ierr) /* the surface profile: y = 0, z = 0, 0 < x <= profile */
    for (int64_t p = 0; p < qm->nnode; ++p) {
      const double *x = qm->xyz + 3 * p;
      if (fabs(x[1]) < 1e-9 && fabs(x[2]) < 1e-9 && x[0] > 1e-9 && x[0] <= profile + 1e-9) surf[ns++] = p;
    }
  const double tau = sq_savage_prescott_tau(SP_ETA, SP_MU);
  const sq_savage_prescott sp = {.H = SP_H, .D = SP_D, .b = SP_B, .tau = tau};
  const double t0 = wall_now();
  if (!ierr) ierr = sq_qs_visco_elastic(v, NULL, u);
  if (!ierr) {
    double emax = 0, amax = 0;
    for (int64_t s = 0; s < ns; ++s) {
      const double *x = qm->xyz + 3 * surf[s];
      const double ue = SP_B / M_PI * atan(SP_D / x[0]);
      emax = fmax(emax, fabs(u[3 * surf[s] + 1] - ue));
      amax = fmax(amax, fabs(ue));
    }
    res->elastic_rel_error = emax / amax;
  }
  /* step to each time: v(t) ~ (u(t + dt) - u(t - dt)) / (2 dt) */
  res->max_rel_error = 0;
  int step = 0;
  for (int it = 0; it < ntime && !ierr; ++it) {
    const int target = (int)lround(times[it] * tau / dt);
    while (!ierr && step < target + 1) {
      if (step == target - 1) memcpy(uprev, u, sizeof(double) * 3 * (size_t)qm->nnode);
      ierr = sq_qs_visco_step(v, NULL, u);
      ++step;
      if (verbose && !ierr && step % 10 == 0) {
        sq_qs_visco_stats st;
        sq_qs_visco_get_stats(v, &st);
        fprintf(stderr, "verify savage-prescott: step %d, t = %.3g tau, inner iterations %lld\n", step, step * dt / tau,
                (long long)st.inner_iters);
      }
    }
    if (ierr) break;
    double emax = 0, vmax = 0;
    for (int64_t s = 0; s < ns; ++s) {
      const int64_t p = surf[s];
      const double vn = (u[3 * p + 1] - uprev[3 * p + 1]) / (2 * dt);
      double ve;
      sq_savage_prescott_eval(&sp, qm->xyz[3 * p], target * dt, 1e-12, NULL, &ve);
      /* the half-space x > 0 of the series' convention: u(x) = b/pi atan(D/x) + ... */
      emax = fmax(emax, fabs(vn - ve));
      vmax = fmax(vmax, fabs(ve));
      if (dump) fprintf(dump, "%d %.6g %.9e %.9e %.9e\n", k, qm->xyz[3 * p], target * dt / tau, vn, ve);
    }
    res->err[it] = emax / vmax;
    res->vmax[it] = vmax;
    res->max_rel_error = fmax(res->max_rel_error, res->err[it]);
  }
  res->seconds = wall_now() - t0;
  if (!ierr) {
    sq_qs_visco_get_stats(v, &res->st);
    res->ncell = m->ncell;
    res->ndof = 3 * qm->nnode;
    res->nsurf = ns;
    res->nstep = step;
  }
  sq_qs_visco_destroy(v);
  SQ_FREE(u);
  SQ_FREE(uprev);
  SQ_FREE(surf);
  SQ_FREE(surf_v);
  free(lam);
  free(mu);
  free(eta);
  sq_qs_mesh_destroy(qm);
  sq_mesh_destroy(m);
  return ierr;
}

int sq_cmd_verify_savage_prescott(int argc, char **argv) {
  int json = 0, verbose = 0, k = 1, compare = 0, ntime = 3, multistep = 1;
  double dt = 0.1, tol = 0.02, L = 256, Z = 192, profile = 16, times[MAX_TIMES] = {1, 2, 5};
  const char *dump_path = NULL;
  for (int i = 0; i < argc; ++i) {
    const char *a = argv[i];
    const int more = i + 1 < argc;
    if (!strcmp(a, "--json")) json = 1;
    else if (!strcmp(a, "--verbose")) verbose = 1;
    else if (!strcmp(a, "--compare-predictor")) compare = 1;
    else if (!strcmp(a, "--size") && more) k = atoi(argv[++i]);
    else if (!strcmp(a, "--multistep") && more) multistep = atoi(argv[++i]);
    else if (!strcmp(a, "--dt") && more) dt = atof(argv[++i]);
    else if (!strcmp(a, "--tolerance") && more) tol = atof(argv[++i]);
    else if (!strcmp(a, "--length") && more) L = atof(argv[++i]);
    else if (!strcmp(a, "--depth") && more) Z = atof(argv[++i]);
    else if (!strcmp(a, "--profile") && more) profile = atof(argv[++i]);
    else if (!strcmp(a, "--dump") && more) dump_path = argv[++i];
    else if (!strcmp(a, "--times") && more) {
      char *s = argv[++i];
      ntime = 0;
      while (*s) {
        SQ_CHECK(ntime < MAX_TIMES, SQ_ERR_INPUT, "verify savage-prescott: at most %d times in --times", MAX_TIMES);
        char *end;
        const double t = strtod(s, &end);
        SQ_CHECK(end != s && t > 0 && (ntime == 0 || t > times[ntime - 1]), SQ_ERR_INPUT,
                 "verify savage-prescott: --times takes increasing positive times in units of tau, comma-separated "
                 "(got '%s')",
                 argv[i]);
        times[ntime++] = t;
        SQ_CHECK(*end == ',' || *end == 0, SQ_ERR_INPUT, "verify savage-prescott: bad --times '%s'", argv[i]);
        s = *end == ',' ? end + 1 : end;
      }
    } else
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "verify savage-prescott: unknown or incomplete option '%s'", a);
  }
  SQ_CHECK(k >= 1 && k <= 8, SQ_ERR_INPUT, "verify savage-prescott: --size must be 1..8 (got %d)", k);
  SQ_CHECK(multistep >= 1 && multistep <= SQ_QS_MAXVEC, SQ_ERR_INPUT,
           "verify savage-prescott: --multistep must be 1..%d (got %d)", SQ_QS_MAXVEC, multistep);
  SQ_CHECK(dt > 0 && dt <= 0.5, SQ_ERR_INPUT, "verify savage-prescott: --dt must be in (0, 0.5] tau (got %g)", dt);
  SQ_CHECK(tol > 0, SQ_ERR_INPUT, "verify savage-prescott: --tolerance must be > 0 (got %g)", tol);
  SQ_CHECK(L >= 24 && fabs(L / 4 - lround(L / 4)) < 1e-9, SQ_ERR_INPUT,
           "verify savage-prescott: --length must be a multiple of 4, at least 24 (got %g)", L);
  SQ_CHECK(Z >= 12 && fabs(Z / 4 - lround(Z / 4)) < 1e-9, SQ_ERR_INPUT,
           "verify savage-prescott: --depth must be a multiple of 4, at least 12 (got %g)", Z);
  SQ_CHECK(profile > 0 && profile <= L, SQ_ERR_INPUT,
           "verify savage-prescott: --profile must be in (0, --length] (got %g)", profile);
  for (int it = 0; it < ntime; ++it)
    SQ_CHECK(lround(times[it] / dt) >= 1 && fabs(times[it] / dt - lround(times[it] / dt)) < 1e-6, SQ_ERR_INPUT,
             "verify savage-prescott: time %g tau is not a whole number of steps of --dt %g", times[it], dt);
  FILE *dump = NULL;
  if (dump_path) {
    dump = fopen(dump_path, "w");
    SQ_CHECK(dump, SQ_ERR_IO, "verify savage-prescott: cannot write --dump file '%s'", dump_path);
    fprintf(dump, "# size x t_over_tau v v_savage_prescott (surface velocity, tau = 1)\n");
  }
  sp_result r[2];
  memset(r, 0, sizeof(r));
  int ierr = SQ_SUCCESS;
  const int nrun = compare ? 2 : 1;
  for (int pr = 0; pr < nrun && !ierr; ++pr) {
    const int predictor = pr == 0;
    if (!json)
      fprintf(stderr, "verify savage-prescott: size %d, dt %g tau, predictor %s ...\n", k, dt,
              predictor ? "on" : "off");
    ierr = run(k, L, Z, dt, ntime, times, profile, predictor, multistep, verbose, pr == 0 ? dump : NULL, &r[pr]);
  }
  if (dump) fclose(dump);
  if (ierr) return ierr;
  const int pass = r[0].max_rel_error <= tol && r[0].st.max_rel_residual <= 1e-10;
  if (json) {
    printf("{\"test\": \"savage-prescott\", \"max_rel_error\": %.6e, \"tolerance\": %g, \"pass\": %s, "
           "\"elastic_rel_error\": %.6e, \"size\": %d, \"dt\": %g, \"length\": %g, \"depth\": %g, \"profile\": %g, "
           "\"cells\": %lld, \"dofs\": %lld, \"surface_nodes\": %lld, \"steps\": %lld, \"multistep\": %d, "
           "\"times\": [",
           r[0].max_rel_error, tol, pass ? "true" : "false", r[0].elastic_rel_error, k, dt, L, Z, profile,
           (long long)r[0].ncell, (long long)r[0].ndof, (long long)r[0].nsurf, (long long)r[0].nstep, multistep);
    for (int it = 0; it < ntime; ++it)
      printf("%s{\"t\": %g, \"rel_error\": %.6e, \"v_max\": %.6e}", it ? ", " : "", times[it], r[0].err[it],
             r[0].vmax[it]);
    printf("], \"runs\": [");
    for (int pr = 0; pr < nrun; ++pr)
      printf("%s\n  {\"predictor\": %s, \"solves\": %d, \"outer_iterations\": %lld, \"inner_iterations\": %lld, "
             "\"coarse_iterations\": %lld, \"max_rel_residual\": %.3e, \"max_rel_error\": %.6e, \"seconds\": %.2f}",
             pr ? "," : "", pr == 0 ? "true" : "false", r[pr].st.nsolve, (long long)r[pr].st.outer_iters,
             (long long)r[pr].st.inner_iters, (long long)r[pr].st.coarse_iters, r[pr].st.max_rel_residual,
             r[pr].max_rel_error, r[pr].seconds);
    printf("]}\n");
  } else {
    printf("t/tau  rel_error  v_max\n");
    for (int it = 0; it < ntime; ++it) printf("%-5g  %.3e  %.4e\n", times[it], r[0].err[it], r[0].vmax[it]);
    for (int pr = 0; pr < nrun; ++pr)
      printf("predictor %-3s: %d solves, outer %lld, inner %lld, coarse %lld iterations, largest residual %.1e, "
             "%.1f s\n",
             pr == 0 ? "on" : "off", r[pr].st.nsolve, (long long)r[pr].st.outer_iters, (long long)r[pr].st.inner_iters,
             (long long)r[pr].st.coarse_iters, r[pr].st.max_rel_residual, r[pr].seconds);
    printf("verify savage-prescott: %s (largest relative velocity error %.3e, tolerance %g; elastic %.3e)\n",
           pass ? "PASS" : "FAIL", r[0].max_rel_error, tol, r[0].elastic_rel_error);
  }
  return pass ? SQ_SUCCESS : SQ_ERR_NUMERIC;
}
