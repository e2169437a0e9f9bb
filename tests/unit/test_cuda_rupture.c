/**
 * @file test_cuda_rupture.c  Check suite for the CUDA rupture kernel (src/cuda/rupture_cuda.cu) on the
 * slipping fault of tests/unit/test_fault.c (tests/meshes/fault.msh, fault.geo meshed with -clmax 0.3), in
 * the manner of thesis Table 7.2: per-quantity relative errors of the fault state (slip rate, slip,
 * traction, normal stress, mu, rupture time) and of the dofs, GPU against CPU.
 * (1) kernel: one rupture step of sq_cuda_rupture against sq_fault_update from the same state (after
 *     three serial steps, the nucleation patch slipping), orders 2-7, both precisions; then the same on
 *     a tile where every other face appears twice (elements with two faces: the in-order pass);
 *     and the rows of on-fault stations the kernel writes in a step against sq_fault_record_stations;
 * (2) runs: the StarPU graph on the GPU alone (every task on the CUDA worker) against a CPU-only run,
 *     order 3, both precisions, 40 steps; also in a viscoelastic medium (runs_attenuation: the sq_ader_ane and
 *     sq_local_ane tasks beside the rupture tasks, the memory variables compared too).
 * Double precision must agree to 1e-10 (relative to each quantity's largest value); single precision
 * is printed (and its fault state, double precision from the same inputs, checked in (1)).
 * SQ_RUPTURE_BENCH=1 also measures the kernel's throughput in faces per second (RUPTURE_THROUGHPUT
 * lines) on copies of the fault's faces with distinct elements.
 * Exits 77 (skipped) when built without CUDA or when no GPU is visible.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <starpu.h>

#include "sq_check.h"
#include "sq_fault.h"
#include "sq_graph.h"
#include "sq_mesh_io.h"

#ifndef SQ_USE_CUDA
int main(void) {
  printf("test_cuda_rupture: built without CUDA: skipped\n");
  return 77;
}
#else

#include "sq_attenuation.h"
#include "sq_cuda.h"
#include "sq_cuda_test_util.h"

/* ---- the slipping fault of test_fault.c ------------------------------------------------------------- */

static const sq_material unit = {.rho = 1.0, .lambda = 2.0, .mu = 1.0};

/* The friction set-up of a run: the law and, for LSW, the forced rupture time of the nucleation patch
 * (test_fault.c: 0); the rate-and-state laws nucleate with extra shear in the same patch instead. */
typedef struct setup {
  sq_friction_law law;
  double forced_time;
  int tp; /**< rate and state: with thermal pressurization */
} setup;
/* runs_law: the rate-and-state runs with thermal pressurization (runs_thermal_pressurization) */
static int tp_on;

static int init_one(void *ctx, const double x[3], const double frame[9], sq_fault_point *pt) {
  const setup *s = ctx;
  (void)frame;
  memset(pt, 0, sizeof(*pt));
  const int patch = fabs(x[1]) <= 0.2 && fabs(x[2] + 0.45) <= 0.15;
  pt->traction0[0] = -1.0;
  pt->traction0[1] = 0.5;
  if (s->law == SQ_FRICTION_LSW) {
    pt->param = (sq_friction_params){.mu_s = 0.6, .mu_d = 0.3, .d_c = 0.02, .forced_time = s->forced_time, .t0 = 0.05};
    if (!patch) pt->param.forced_time = SQ_FRICTION_NEVER;
    return SQ_SUCCESS;
  }
  if (sq_friction_is_kinematic(s->law)) { /* imposed slip in the patch, onset growing along the fault */
    pt->param = (sq_friction_params){.slip_strike = patch ? 0.01 : 0.0,
                                     .slip_dip = patch ? -0.004 : 0.0,
                                     .onset = 0.01 * fabs(x[1]),
                                     .tau_s = 0.01,
                                     .rise_time = 0.04};
    return SQ_SUCCESS;
  }
  pt->param = (sq_friction_params){.a = 0.01, .b = 0.014, .L = 0.002, .f0 = 0.6, .V0 = 1e-6, .f_w = 0.2, .V_w = 0.1};
  pt->state.slip_rate[0] = 1e-9; /* initial slip rate, read by sq_fault_create */
  if (patch) pt->nucleation[1] = 0.4;
  if (s->tp) {
    pt->param.tp_alpha_th = 1e-3, pt->param.tp_alpha_hy = 4e-3 * (1.0 + x[1] * x[1]), pt->param.tp_rho_c = 1.0;
    pt->param.tp_lambda = 0.5, pt->param.tp_half_width = 0.01, pt->param.tp_T0 = 1.0, pt->param.tp_points = 60;
  }
  return SQ_SUCCESS;
}

/* sq_fault_init_fn: every point in one call */
static int init_point(void *ctx, int64_t n, const double *x, const double *frame, const int *group,
                      sq_fault_point *pt) {
  for (int64_t p = 0; p < n; ++p) {
    (void)group;
    const int rc = init_one(ctx, &x[3 * p], &frame[9 * p], &pt[p]);
    if (rc) return rc;
  }
  return SQ_SUCCESS;
}

typedef struct run {
  sq_mesh *mesh;
  sq_disc *disc;
  sq_fault *fault;
  sq_material *mat;
} run;

/* > 0: the runs made next are bimaterial (the "+" side x > 0 softer) with the Prakash-Clifton regularisation of
 * this length (V* = 1); runs_bimaterial sets it */
static double bimaterial_pc_length;
static const sq_material soft = {.rho = 0.8, .lambda = 1.0, .mu = 0.5};
/* 1: the runs made next are viscoelastic (Qp 20, Qs 10, 3 mechanisms over 1 Hz, ratio 100: the fastest
 * mechanism relaxes at 62.8 /s, omega dt < 1); runs_attenuation sets it */
static int attenuation_on;

/* Viscoelastic attenuation on every cell of r, whose materials are already the unrelaxed moduli (run_create_law,
 * as a run does: sim/attenuation.c): the disc takes the coefficients of the fit. */
static void attenuate(run *r) {
  sq_atten_band band;
  ck_assert_int_eq(sq_atten_band_init(3, 1.0, 100, &band), SQ_SUCCESS);
  double *coef = malloc(sizeof(double) * SQ_ANE_NCOEF * r->mesh->ncell);
  for (int64_t c = 0; c < r->mesh->ncell; ++c) {
    sq_visco v;
    ck_assert_int_eq(sq_visco_init_unrelaxed(&band, &r->mat[c], 20, 10, &v), SQ_SUCCESS);
    sq_visco_coefficients(&band, &v, coef + c * SQ_ANE_NCOEF);
  }
  ck_assert_int_eq(sq_disc_set_attenuation(r->disc, 3, coef), SQ_SUCCESS);
  free(coef);
}

static void run_create_law(run *r, int order, sq_precision prec, int tile, double forced_time, sq_friction_law law) {
  char path[4096]; /* SQ_SRCDIR in the environment: the source tree moved (the GPU host) */
  snprintf(path, sizeof(path), "%s/tests/meshes/fault.msh", getenv("SQ_SRCDIR") ? getenv("SQ_SRCDIR") : SQ_SRCDIR);
  ck_assert_int_eq(sq_mesh_read(path, &r->mesh), 0);
  r->mat = malloc(sizeof(sq_material) * r->mesh->ncell);
  for (int64_t c = 0; c < r->mesh->ncell; ++c) {
    double x = 0;
    for (int v = 0; v < 4; ++v) x += 0.25 * r->mesh->vert[r->mesh->cell_vert[c * 4 + v] * 3];
    r->mat[c] = bimaterial_pc_length > 0 && x > 0 ? soft : unit;
    if (attenuation_on) { /* the unrelaxed moduli of the fit at 1 Hz */
      sq_atten_band band;
      sq_visco v;
      ck_assert_int_eq(sq_atten_band_init(3, 1.0, 100, &band), SQ_SUCCESS);
      ck_assert_int_eq(sq_visco_init(&band, &r->mat[c], 20, 10, &v, &r->mat[c]), SQ_SUCCESS);
    }
  }
  const sq_disc_options opt = {
      .order = order, .precision = prec, .cfl = 0.5, .tile_size = tile, .lts_rate = 1, .max_clusters = 4, .rupture = 1};
  ck_assert_int_eq(sq_disc_create(r->mesh, r->mat, &opt, &r->disc), 0);
  if (attenuation_on) attenuate(r);
  const sq_fault_options fo = {.law = law,
                               .reference = {1.0, 0.0, -0.5},
                               .nucleation_time = 0.02,
                               .pc_v_star = 1.0,
                               .pc_length = bimaterial_pc_length};
  setup su = {.law = law, .forced_time = forced_time, .tp = tp_on};
  ck_assert_int_eq(sq_fault_create(r->disc, &fo, init_point, &su, &r->fault), 0);
  ck_assert_int_gt(r->fault->nface, 10);
  sq_planewave pw;
  const sq_wave_kind kind[1] = {SQ_WAVE_S1};
  const int dir[1] = {1};
  const double amp[1] = {0.05}, k[3] = {1, 0, 0};
  sq_planewave_init(&pw, &unit, k, 1, -0.25, 0.15, 1, kind, dir, amp);
  sq_disc_project(r->disc, sq_planewave_eval, &pw, 0.0);
}

static void run_create(run *r, int order, sq_precision prec, int tile, double forced_time) {
  run_create_law(r, order, prec, tile, forced_time, SQ_FRICTION_LSW);
}

static void run_destroy(run *r) {
  sq_fault_destroy(r->fault);
  sq_disc_destroy(r->disc);
  sq_mesh_destroy(r->mesh);
  free(r->mat);
}

/* ---- per-quantity errors ------------------------------------------------------------------------------ */

enum { Q_SLIP_RATE, Q_SLIP, Q_TRACTION, Q_NORMAL, Q_MU, Q_RUPTURE_TIME, Q_DOFS, NQUANT };
static const char *quant_name[NQUANT] = {"slip rate", "slip",         "traction", "normal stress",
                                         "mu",        "rupture time", "dofs"};

/* Max over points of |got - ref| / max over points of |ref|, per quantity; vectors by their norm. */
static void state_errors(const sq_fault_point *got, const sq_fault_point *ref, int64_t n, double err[NQUANT],
                         int64_t *rupture_mismatch) {
  double num[NQUANT] = {0}, den[NQUANT] = {0};
  *rupture_mismatch = 0;
  for (int64_t i = 0; i < n; ++i) {
    const sq_friction_state *a = &got[i].state, *b = &ref[i].state;
    const double d[Q_DOFS] = {hypot(a->slip_rate[0] - b->slip_rate[0], a->slip_rate[1] - b->slip_rate[1]),
                              hypot(a->slip[0] - b->slip[0], a->slip[1] - b->slip[1]),
                              hypot(a->traction[0] - b->traction[0], a->traction[1] - b->traction[1]),
                              fabs(a->normal_stress - b->normal_stress),
                              fabs(a->mu - b->mu),
                              fabs(a->rupture_time - b->rupture_time)};
    const double m[Q_DOFS] = {hypot(b->slip_rate[0], b->slip_rate[1]),
                              hypot(b->slip[0], b->slip[1]),
                              hypot(b->traction[0], b->traction[1]),
                              fabs(b->normal_stress),
                              fabs(b->mu),
                              fabs(b->rupture_time)};
    for (int q = 0; q < Q_DOFS; ++q) {
      num[q] = isfinite(d[q]) ? fmax(num[q], d[q]) : INFINITY;
      den[q] = fmax(den[q], m[q]);
    }
    *rupture_mismatch += (a->rupture_time >= 0) != (b->rupture_time >= 0);
  }
  for (int q = 0; q < Q_DOFS; ++q) err[q] = den[q] > 0 ? num[q] / den[q] : num[q];
}

static double dofs_error(sq_precision p, const void *got, const void *ref, size_t len) {
  double num = 0, den = 0;
  for (size_t i = 0; i < len; ++i) {
    const double x = p == SQ_F64 ? ((const double *)got)[i] : ((const float *)got)[i];
    const double y = p == SQ_F64 ? ((const double *)ref)[i] : ((const float *)ref)[i];
    num = isfinite(x) ? fmax(num, fabs(x - y)) : INFINITY;
    den = fmax(den, fabs(y));
  }
  return den > 0 ? num / den : num;
}

static void report(const char *what, int order, sq_precision p, const double err[NQUANT], int64_t mismatch,
                   double state_tol, double dofs_tol) {
  printf("RUPTURE_ERRORS %-6s O%d %s", what, order, prec_name(p));
  for (int q = 0; q < NQUANT; ++q) printf("  %s %.2e", quant_name[q], err[q]);
  printf("  rupture-status mismatches %lld\n", (long long)mismatch);
  for (int q = 0; q < NQUANT; ++q) {
    const double tol = q == Q_DOFS ? dofs_tol : state_tol;
    ck_assert_msg(err[q] <= tol, "%s O%d %s: %s relative error %.3e > %.1e", what, order, prec_name(p), quant_name[q],
                  err[q], tol);
  }
  if (state_tol < INFINITY) ck_assert_int_eq(mismatch, 0);
}

/* ---- (1) the kernel alone ---------------------------------------------------------------------------- */

/*
 * Three serial CPU steps, then the derivatives of the next step; returns its t0 and dt.  The set-up has
 * forced_time = -0.04: the nucleation patch is weakened to mu = 0.36 at t = 0 and slips from the first
 * step on, and mu keeps weakening with time and slip (both branches of eq. 2.23).
 */
/* Tile @p tl's element slots: the host's derivatives and @p dofs (dv, dq) and the device's (slots). */
static void tile_slots(const sq_disc *d, const sq_fault_tile *tl, int order, void *dofs, const void *g_derivs,
                       void *g_dofs, const void **dv, void **dq, sq_cuda_rupture_slots *slots) {
  const size_t eb = sq_disc_elem_bytes(d);
  slots->nslot = tl->nslot;
  for (int s = 0; s < tl->nslot; ++s) {
    const size_t e0 = (size_t)d->tile[tl->slot[s]].begin;
    dv[s] = (const char *)d->derivs + e0 * eb * order;
    dq[s] = (char *)dofs + e0 * eb;
    slots->derivs[s] = (const char *)g_derivs + e0 * eb * order;
    slots->dofs[s] = (char *)g_dofs + e0 * eb;
  }
}

static const double kernel_forced_time = -0.04;
static void advance(run *r, double *t0, double *dt) {
  *dt = r->disc->cluster_dt[0];
  const int nsteps = 3;
  for (int i = 0; i < nsteps; ++i) {
    sq_disc_predict_serial(r->disc, *dt);
    ck_assert_int_eq(sq_fault_step_serial(r->fault, r->disc, i * *dt, *dt), 0);
    sq_disc_correct_serial(r->disc);
  }
  sq_disc_predict_serial(r->disc, *dt);
  *t0 = nsteps * *dt;
}

static void kernel_one(int order, sq_precision p) {
  run r;
  run_create(&r, order, p, 64, kernel_forced_time);
  double t0, dt;
  advance(&r, &t0, &dt);
  const sq_disc *d = r.disc;
  const sq_fault *f = r.fault;
  ck_assert(f->tp == NULL); /* linear slip weakening: no thermal-pressurization state to pass */
  const size_t eb = sq_disc_elem_bytes(d), dofs_bytes = (size_t)d->nelem * eb;
  const size_t derivs_bytes = dofs_bytes * order, pts_bytes = sizeof(sq_fault_point) * f->nface * f->npoint;
  void *g_derivs = dev_copy(d->derivs, derivs_bytes), *g_dofs = dev_copy(d->dofs, dofs_bytes);
  void *g_ref = dev_copy(f->ref, sizeof(double) * f->ref_len);
  void *g_faces = dev_copy(f->face, sizeof(sq_fault_face) * f->nface), *g_points = dev_copy(f->point, pts_bytes);
  sq_fault_point *pts = malloc(pts_bytes), *pts_gpu = malloc(pts_bytes);
  void *dofs = malloc(dofs_bytes), *dofs_gpu = malloc(dofs_bytes);
  ck_assert(pts && pts_gpu && dofs && dofs_gpu);
  memcpy(pts, f->point, pts_bytes);
  memcpy(dofs, d->dofs, dofs_bytes);
  int64_t ruptured = 0;
  for (int64_t i = 0; i < f->nface * f->npoint; ++i) ruptured += pts[i].state.rupture_time >= 0;
  for (int t = 0; t < f->ntile; ++t) {
    const sq_fault_tile *tl = &f->tile[t];
    ck_assert_int_le(tl->nslot, SQ_CUDA_MAX_SLOTS);
    const void *dv[SQ_CUDA_MAX_SLOTS];
    void *dq[SQ_CUDA_MAX_SLOTS];
    sq_cuda_rupture_slots slots;
    tile_slots(d, tl, order, dofs, g_derivs, g_dofs, dv, dq, &slots);
    int64_t bad = -1;
    ck_assert_int_eq(sq_fault_update(p, order, f->npoint, f->ref, &f->opt, tl->end - tl->begin, f->face + tl->begin,
                                     pts + tl->begin * f->npoint, NULL, dv, dq, t0, dt, &bad),
                     0);
    sq_cuda_rupture(p, order, f->npoint, tl->end - tl->begin, g_ref, (const sq_fault_face *)g_faces + tl->begin,
                    (sq_fault_point *)g_points + tl->begin * f->npoint, NULL, &slots, &f->opt, t0, dt, 0, NULL, NULL);
  }
  host_copy(pts_gpu, g_points, pts_bytes);
  host_copy(dofs_gpu, g_dofs, dofs_bytes);
  double err[NQUANT];
  int64_t mismatch;
  state_errors(pts_gpu, pts, f->nface * f->npoint, err, &mismatch);
  err[Q_DOFS] = dofs_error(p, dofs_gpu, dofs, dofs_bytes / sq_real_size(p));
  printf("  kernel O%d %s: %lld faces, %lld of %lld points ruptured, t0 %.4f dt %.4g\n", order, prec_name(p),
         (long long)f->nface, (long long)ruptured, (long long)(f->nface * f->npoint), t0, dt);
  ck_assert_int_gt(ruptured, 0);
  /* the fault arithmetic is double in both precisions; single-precision dofs round the same update */
  report("kernel", order, p, err, mismatch, 1e-10, p == SQ_F64 ? 1e-10 : 1e-6);

  /* on-fault stations (one on a quadrature point, two between points, two on one face): the rows the
   * kernel writes in a step against sq_fault_record_stations after sq_fault_update, from the same state */
  {
    sq_fault *fw = r.fault;
    const double at[3][2] = {{fw->chi[6], fw->chi[7]}, {0.21, 0.33}, {0.6, 0.1}};
    for (int k = 0; k < 3; ++k) ck_assert_int_eq(sq_fault_add_station(fw, k < 2 ? fw->nface / 2 : 0, at[k], k), 0);
    const int ns = fw->nlocal_station;
    const size_t rb = sizeof(double) * SQ_FAULT_LOG_COLS * ns;
    double *rc = calloc(1, rb), *rg = malloc(rb);
    ck_assert(rc && rg);
    memcpy(pts, f->point, pts_bytes);
    memcpy(dofs, d->dofs, dofs_bytes);
    CUDA_OK(cudaMemcpy(g_points, f->point, pts_bytes, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(g_dofs, d->dofs, dofs_bytes, cudaMemcpyHostToDevice));
    void *g_st = dev_copy(fw->station, sizeof(sq_fault_station) * ns), *g_rows = dev_copy(rc, rb);
    for (int t = 0; t < f->ntile; ++t) {
      const sq_fault_tile *tl = &f->tile[t];
      const void *dv[SQ_CUDA_MAX_SLOTS];
      void *dq[SQ_CUDA_MAX_SLOTS];
      sq_cuda_rupture_slots slots;
      tile_slots(d, tl, order, dofs, g_derivs, g_dofs, dv, dq, &slots);
      const int sb = tl->station_begin, nst = tl->station_end - sb;
      int64_t bad = -1;
      ck_assert_int_eq(sq_fault_update(p, order, f->npoint, f->ref, &f->opt, tl->end - tl->begin, f->face + tl->begin,
                                       pts + tl->begin * f->npoint, NULL, dv, dq, t0, dt, &bad),
                       0);
      sq_fault_record_stations(f->npoint, nst, fw->station + sb, tl->begin, pts + tl->begin * f->npoint, t0 + dt,
                               rc + (size_t)sb * SQ_FAULT_LOG_COLS);
      const sq_cuda_rupture_stations st = {.stations = (const sq_fault_station *)g_st + sb,
                                           .nstation = nst,
                                           .face0 = tl->begin,
                                           .rows = (double *)g_rows + (size_t)sb * SQ_FAULT_LOG_COLS};
      sq_cuda_rupture(p, order, f->npoint, tl->end - tl->begin, g_ref, (const sq_fault_face *)g_faces + tl->begin,
                      (sq_fault_point *)g_points + tl->begin * f->npoint, NULL, &slots, &f->opt, t0, dt, 0,
                      nst > 0 ? &st : NULL, NULL);
    }
    host_copy(rg, g_rows, rb);
    double step = 0.0, scale[SQ_FAULT_LOG_COLS] = {0};
    for (int k = 0; k < ns; ++k)
      for (int c = 0; c < SQ_FAULT_LOG_COLS; ++c) scale[c] = fmax(scale[c], fabs(rc[k * SQ_FAULT_LOG_COLS + c]));
    for (int k = 0; k < ns; ++k)
      for (int c = 0; c < SQ_FAULT_LOG_COLS; ++c)
        step = fmax(step, fabs(rg[k * SQ_FAULT_LOG_COLS + c] - rc[k * SQ_FAULT_LOG_COLS + c]) /
                              (scale[c] > 0 ? scale[c] : 1.0));
    const sq_fault_station *on_point = fw->station[0].id == 0 ? &fw->station[0] : &fw->station[1];
    ck_assert_int_eq(on_point->point, 3);
    printf("  stations O%d %s: %d stations, rows of the step GPU vs CPU %.3e (relative to each column's largest "
           "value)\n",
           order, prec_name(p), ns, step);
    ck_assert_msg(step <= 1e-10, "station rows of the step: GPU differs from CPU by %g", step);
    cudaFree(g_st), cudaFree(g_rows);
    free(rc), free(rg);
  }

  /* shared elements: every other face of tile 0 twice, so that its elements have two faces; those go
   * through the kernel's in-order pass, the others through the parallel one */
  const sq_fault_tile *tl = &f->tile[0];
  const int64_t np = f->npoint;
  sq_fault_face *twice = malloc(sizeof(*twice) * 2 * (tl->end - tl->begin));
  sq_fault_point *tp = malloc(sizeof(*tp) * 2 * (tl->end - tl->begin) * np), *tp_gpu;
  int64_t n2 = 0;
  for (int64_t i = tl->begin; i < tl->end; ++i)
    for (int k = 0; k < 1 + (i % 2 == 0); ++k) {
      twice[n2] = f->face[i];
      memcpy(tp + n2++ * np, f->point + i * np, sizeof(*tp) * np);
    }
  tp_gpu = malloc(sizeof(*tp) * n2 * np);
  void *g_twice = dev_copy(twice, sizeof(*twice) * n2), *g_tp = dev_copy(tp, sizeof(*tp) * n2 * np);
  memcpy(dofs, d->dofs, dofs_bytes);
  CUDA_OK(cudaMemcpy(g_dofs, d->dofs, dofs_bytes, cudaMemcpyHostToDevice));
  const void *dv[SQ_CUDA_MAX_SLOTS];
  void *dq[SQ_CUDA_MAX_SLOTS];
  sq_cuda_rupture_slots slots = {.nslot = tl->nslot};
  for (int s = 0; s < tl->nslot; ++s) {
    const size_t e0 = (size_t)d->tile[tl->slot[s]].begin;
    dv[s] = (const char *)d->derivs + e0 * eb * order;
    dq[s] = (char *)dofs + e0 * eb;
    slots.derivs[s] = (const char *)g_derivs + e0 * eb * order;
    slots.dofs[s] = (char *)g_dofs + e0 * eb;
  }
  int64_t bad = -1;
  ck_assert_int_eq(sq_fault_update(p, order, (int)np, f->ref, &f->opt, n2, twice, tp, NULL, dv, dq, t0, dt, &bad), 0);
  sq_cuda_rupture(p, order, (int)np, n2, g_ref, g_twice, g_tp, NULL, &slots, &f->opt, t0, dt, 1, NULL, NULL);
  host_copy(tp_gpu, g_tp, sizeof(*tp) * n2 * np);
  host_copy(dofs_gpu, g_dofs, dofs_bytes);
  state_errors(tp_gpu, tp, n2 * np, err, &mismatch);
  err[Q_DOFS] = dofs_error(p, dofs_gpu, dofs, dofs_bytes / sq_real_size(p));
  report("shared", order, p, err, mismatch, 1e-10, p == SQ_F64 ? 1e-10 : 1e-6);
  cudaFree(g_twice), cudaFree(g_tp);
  free(twice), free(tp), free(tp_gpu);

  cudaFree(g_derivs), cudaFree(g_dofs), cudaFree(g_ref), cudaFree(g_faces), cudaFree(g_points);
  free(pts), free(pts_gpu), free(dofs), free(dofs_gpu);
  run_destroy(&r);
}

START_TEST(kernel_vs_cpu) {
  for (int order = SQ_ORDER_MIN; order <= SQ_ORDER_MAX; ++order) {
    kernel_one(order, SQ_F64);
    kernel_one(order, SQ_F32);
  }
}
END_TEST

/* ---- throughput (SQ_RUPTURE_BENCH=1) ------------------------------------------------------------------- */

/*
 * The fault's faces copied `copies` times, every face side with its own element (no shared elements,
 * as on a planar fault) in one slot: derivatives and dofs are gathered per face side and replicated on
 * the device.  Times the kernel alone (CUDA events) and, for reference, sq_fault_update on one core.
 */
static void bench_one(int order, sq_precision p, int64_t target_faces) {
  run r;
  run_create(&r, order, p, 1 << 20, kernel_forced_time);
  double t0, dt;
  advance(&r, &t0, &dt);
  const sq_disc *d = r.disc;
  const sq_fault *f = r.fault;
  const int64_t nf = f->nface, np = f->npoint, copies = (target_faces + nf - 1) / nf, n = nf * copies;
  const size_t eb = sq_disc_elem_bytes(d), db = eb * order;
  char *der = malloc(2 * nf * db), *q = malloc(2 * nf * eb);
  sq_fault_face *faces = malloc(sizeof(*faces) * n);
  ck_assert(der && q && faces);
  for (int64_t c = 0; c < copies; ++c)
    for (int64_t i = 0; i < nf; ++i) {
      sq_fault_face *fc = &faces[c * nf + i];
      *fc = f->face[i];
      for (int s = 0; s < 2; ++s) {
        if (c == 0) {
          memcpy(der + (2 * i + s) * db, (const char *)d->derivs + f->face[i].elem[s] * db, db);
          memcpy(q + (2 * i + s) * eb, (const char *)d->dofs + f->face[i].elem[s] * eb, eb);
        }
        fc->slot[s] = 0;
        fc->index[s] = (int32_t)(2 * (c * nf + i) + s);
        fc->elem[s] = 2 * (c * nf + i) + s;
        fc->owned[s] = 1;
      }
    }
  void *g_der, *g_q, *g_pts;
  CUDA_OK(cudaMalloc(&g_der, 2 * n * db));
  CUDA_OK(cudaMalloc(&g_q, 2 * n * eb));
  CUDA_OK(cudaMalloc(&g_pts, sizeof(sq_fault_point) * n * np));
  CUDA_OK(cudaMemcpy(g_der, der, 2 * nf * db, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(g_q, q, 2 * nf * eb, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(g_pts, f->point, sizeof(sq_fault_point) * nf * np, cudaMemcpyHostToDevice));
  for (int64_t c = 1; c < copies; ++c) { /* replicas on the device */
    CUDA_OK(cudaMemcpy((char *)g_der + c * 2 * nf * db, g_der, 2 * nf * db, cudaMemcpyDeviceToDevice));
    CUDA_OK(cudaMemcpy((char *)g_q + c * 2 * nf * eb, g_q, 2 * nf * eb, cudaMemcpyDeviceToDevice));
    CUDA_OK(cudaMemcpy((sq_fault_point *)g_pts + c * nf * np, g_pts, sizeof(sq_fault_point) * nf * np,
                       cudaMemcpyDeviceToDevice));
  }
  void *g_ref = dev_copy(f->ref, sizeof(double) * f->ref_len), *g_faces = dev_copy(faces, sizeof(*faces) * n);
  sq_cuda_rupture_slots slots = {.nslot = 1};
  slots.derivs[0] = g_der, slots.dofs[0] = g_q;
  cudaEvent_t e0, e1;
  CUDA_OK(cudaEventCreate(&e0));
  CUDA_OK(cudaEventCreate(&e1));
  sq_cuda_rupture(p, order, (int)np, n, g_ref, g_faces, g_pts, NULL, &slots, &f->opt, t0, dt, 0, NULL,
                  NULL); /* warm-up */
  const int reps = 10;
  CUDA_OK(cudaEventRecord(e0, NULL));
  for (int k = 0; k < reps; ++k)
    sq_cuda_rupture(p, order, (int)np, n, g_ref, g_faces, g_pts, NULL, &slots, &f->opt, t0 + (k + 1) * dt, dt, 0, NULL,
                    NULL);
  CUDA_OK(cudaEventRecord(e1, NULL));
  CUDA_OK(cudaEventSynchronize(e1));
  float ms = 0;
  CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
  const double gpu = n * reps / (1e-3 * ms);
  /* CPU reference: the fault's own faces (one tile), one core */
  sq_fault_point *pts = malloc(sizeof(sq_fault_point) * nf * np);
  memcpy(pts, f->point, sizeof(sq_fault_point) * nf * np);
  const void *dv[1] = {der};
  void *dq[1] = {q};
  int cpu_reps = 0;
  const double c0 = now();
  double c1 = c0;
  while (c1 - c0 < 0.2) {
    int64_t bad = -1;
    sq_fault_update(p, order, (int)np, f->ref, &f->opt, nf, faces, pts, NULL, dv, dq, t0 + cpu_reps * dt, dt, &bad);
    ++cpu_reps;
    c1 = now();
  }
  const double cpu = nf * cpu_reps / (c1 - c0);
  printf("RUPTURE_THROUGHPUT order=%d prec=%s faces=%lld gpu_faces_per_s=%.4e gpu_us_per_launch=%.1f "
         "cpu1_faces_per_s=%.4e\n",
         order, prec_name(p), (long long)n, gpu, 1e3 * ms / reps, cpu);
  cudaEventDestroy(e0), cudaEventDestroy(e1);
  cudaFree(g_der), cudaFree(g_q), cudaFree(g_pts), cudaFree(g_ref), cudaFree(g_faces);
  free(der), free(q), free(faces), free(pts);
  run_destroy(&r);
}

START_TEST(throughput) {
  const char *env = getenv("SQ_RUPTURE_BENCH");
  if (!env || !atoi(env)) return;
  const int64_t faces = getenv("SQ_RUPTURE_BENCH_FACES") ? atoll(getenv("SQ_RUPTURE_BENCH_FACES")) : 32768;
  for (int order = SQ_ORDER_MIN; order <= SQ_ORDER_MAX; ++order) {
    bench_one(order, SQ_F64, faces);
    bench_one(order, SQ_F32, faces);
  }
}
END_TEST

/* ---- (2) whole runs: GPU alone against CPU alone ------------------------------------------------------- */

/* @p fetched (or NULL): the host's friction state right after sq_runtime_sync_fault, while the runtime still holds
 * the data (a fault snapshot reads it so, between chunks). */
static void graph_run(run *r, int nsteps, int64_t *ncpu, int64_t *ngpu, sq_fault_point *fetched) {
  sq_runtime *rt;
  ck_assert_int_eq(sq_runtime_create(r->disc, &rt), 0);
  ck_assert_int_eq(sq_runtime_attach_fault(rt, r->fault), 0);
  int64_t c, g;
  task_counts(&c, &g);
  const double dt = r->disc->cluster_dt[r->disc->ncluster - 1];
  for (int i = 0; i < nsteps; ++i) {
    const sq_graph_options opt = {.t_begin = i * dt, .t_end = (i + 1) * dt};
    ck_assert_int_eq(sq_graph_sync_interval(rt, dt, &opt, NULL), 0);
  }
  ck_assert_int_eq(sq_runtime_wait(rt), 0);
  if (fetched) {
    ck_assert_int_eq(sq_runtime_sync_fault(rt), 0);
    memcpy(fetched, r->fault->point, sizeof(sq_fault_point) * (size_t)(r->fault->nface * r->fault->npoint));
  }
  ck_assert_int_eq(sq_runtime_sync(rt), 0);
  task_counts(ncpu, ngpu);
  sq_runtime_destroy(rt);
}

static void runs_law(sq_precision p, sq_friction_law law) {
  const int order = 3, nsteps = 40;
  run cpu, gpu;
  int64_t nc, ng;
  run_create_law(&cpu, order, p, 16, 0.0, law);
  run_create_law(&gpu, order, p, 16, 0.0, law);
  for (int k = 0; k < 3; ++k) { /* on-fault stations: recorded by the rupture tasks, on the GPU in the GPU run */
    const double at[3][2] = {{0.21, 0.33}, {0.6, 0.1}, {0.1, 0.8}};
    for (run *x = &cpu; x; x = x == &cpu ? &gpu : NULL)
      ck_assert_int_eq(sq_fault_add_station(x->fault, k < 2 ? x->fault->nface / 2 : 0, at[k], k), 0);
  }
  start_starpu(0);
  graph_run(&cpu, nsteps, &nc, &ng, NULL);
  ck_assert_int_eq(ng, 0);
  starpu_shutdown();
  ck_assert_int_ge(start_starpu(1), 1);
  sq_fault_point *fetched = malloc(sizeof(sq_fault_point) * (size_t)(gpu.fault->nface * gpu.fault->npoint));
  ck_assert_ptr_nonnull(fetched);
  graph_run(&gpu, nsteps, &nc, &ng, fetched);
  starpu_shutdown();
  ck_assert_int_eq(nc, 0); /* every task, the rupture tasks included, ran on the GPU */
  ck_assert_int_gt(ng, 0);
  const sq_fault *f = cpu.fault;
  const int64_t npt = f->nface * f->npoint;
  /* the friction state fetched between chunks is the GPU's, as the runtime's release at the end gives it */
  ck_assert(memcmp(fetched, gpu.fault->point, sizeof(sq_fault_point) * (size_t)npt) == 0);
  free(fetched);
  int64_t ruptured = 0;
  for (int64_t i = 0; i < npt; ++i) ruptured += f->point[i].state.rupture_time >= 0;
  printf("  run O%d %s %s: %d fault tiles, %d steps to t = %.3f, %lld of %lld points ruptured, tasks gpu %lld\n", order,
         prec_name(p), sq_friction_law_name(law), f->ntile, nsteps, nsteps * cpu.disc->cluster_dt[0],
         (long long)ruptured, (long long)npt, (long long)ng);
  ck_assert_int_gt(ruptured, 0);
  double err[NQUANT];
  int64_t mismatch;
  state_errors(gpu.fault->point, f->point, npt, err, &mismatch);
  err[Q_DOFS] = dofs_error(p, gpu.disc->dofs, cpu.disc->dofs, (size_t)cpu.disc->nelem * cpu.disc->nbasis * 9);
  /* single precision: the element kernels round differently on the GPU; printed, not bounded */
  report("run", order, p, err, mismatch, p == SQ_F64 ? 1e-10 : INFINITY, p == SQ_F64 ? 1e-10 : INFINITY);
  for (int q = 0; q < NQUANT; ++q) ck_assert(isfinite(err[q]));
  if (attenuation_on) { /* the memory variables (and the kept anelastic source) of every element */
    const size_t alen = (size_t)cpu.disc->nelem * sq_disc_ane_bytes(cpu.disc) / sq_real_size(p);
    const double ae = dofs_error(p, gpu.disc->ane, cpu.disc->ane, alen);
    double amax = 0.0; /* the memory variables moved: the anelastic tasks ran */
    for (size_t i = 0; i < alen; ++i)
      amax = fmax(amax, fabs(p == SQ_F64 ? ((const double *)cpu.disc->ane)[i] : ((const float *)cpu.disc->ane)[i]));
    ck_assert_double_gt(amax, 0.0);
    printf("  run O%d %s %s with attenuation: memory variables GPU vs CPU, max relative difference %.3e\n", order,
           prec_name(p), sq_friction_law_name(law), ae);
    ck_assert_msg(ae <= 1e-10, "memory variables: GPU differs from CPU by %g", ae);
  }
  double st_err = 0.0;
  for (int k = 0; k < 3; ++k) {
    const sq_fault_station_log *lc = &cpu.fault->log[k], *lg = &gpu.fault->log[k];
    ck_assert_int_eq(lc->n, nsteps);
    ck_assert_int_eq(lg->n, nsteps);
    for (int c = 0; c < SQ_FAULT_LOG_COLS; ++c) {
      double scale = 0.0, diff = 0.0;
      for (int64_t i = 0; i < lc->n; ++i) {
        scale = fmax(scale, fabs(lc->rows[i * SQ_FAULT_LOG_COLS + c]));
        diff = fmax(diff, fabs(lg->rows[i * SQ_FAULT_LOG_COLS + c] - lc->rows[i * SQ_FAULT_LOG_COLS + c]));
      }
      st_err = fmax(st_err, scale > 0 ? diff / scale : diff);
    }
  }
  printf("  run O%d %s %s: station rows GPU vs CPU, max relative difference %.3e\n", order, prec_name(p),
         sq_friction_law_name(law), st_err);
  if (p == SQ_F64) ck_assert_msg(st_err <= 1e-10, "station rows: GPU differs from CPU by %g", st_err);
  if (tp_on) { /* thermal pressurization: temperature and pore pressure of every point */
    double dmax = 0.0, rise = 0.0;
    for (int64_t i = 0; i < npt; ++i) {
      const sq_friction_state *c = &f->point[i].state, *g = &gpu.fault->point[i].state;
      rise = fmax(rise, c->temperature - 1.0);
      dmax = fmax(dmax, fmax(fabs(g->temperature - c->temperature) / c->temperature,
                             fabs(g->pressure - c->pressure) / fmax(fabs(c->pressure), 1e-300)));
    }
    printf("  run O%d %s %s with thermal pressurization: largest temperature rise %.3e, GPU vs CPU %.3e\n", order,
           prec_name(p), sq_friction_law_name(law), rise, dmax);
    ck_assert_double_gt(rise, 0.0);
    ck_assert_msg(dmax <= 1e-10, "thermal pressurization: GPU differs from CPU by %g", dmax);
  }
  run_destroy(&cpu);
  run_destroy(&gpu);
}

START_TEST(runs_f64) { runs_law(SQ_F64, SQ_FRICTION_LSW); }
END_TEST

START_TEST(runs_f32) { runs_law(SQ_F32, SQ_FRICTION_LSW); }
END_TEST

/* the rate-and-state laws (aging, slip, fast velocity weakening) on the GPU against the CPU, f64 */
START_TEST(runs_rate_state) {
  runs_law(SQ_F64, SQ_FRICTION_RS_AGING);
  runs_law(SQ_F64, SQ_FRICTION_RS_SLIP);
  runs_law(SQ_F64, SQ_FRICTION_RS_FVW);
}
END_TEST

/* fast velocity weakening with thermal pressurization on the GPU against the CPU, f64 */
START_TEST(runs_thermal_pressurization) {
  tp_on = 1;
  runs_law(SQ_F64, SQ_FRICTION_RS_FVW);
  tp_on = 0;
}
END_TEST

/* the kinematic sources (imposed slip rates) on the GPU against the CPU, f64 */
START_TEST(runs_kinematic) {
  runs_law(SQ_F64, SQ_FRICTION_KINEMATIC_YOFFE);
  runs_law(SQ_F64, SQ_FRICTION_KINEMATIC_GAUSSIAN);
  runs_law(SQ_F64, SQ_FRICTION_KINEMATIC_DELTA);
}
END_TEST

/* bimaterial faults with the Prakash-Clifton regularised normal stress (its sigma* is friction state), linear
 * slip weakening and the aging law, on the GPU against the CPU, f64; and the kernel alone, orders 2..7 */
START_TEST(runs_bimaterial) {
  bimaterial_pc_length = 0.05;
  runs_law(SQ_F64, SQ_FRICTION_LSW);
  runs_law(SQ_F64, SQ_FRICTION_RS_AGING);
  for (int order = SQ_ORDER_MIN; order <= SQ_ORDER_MAX; ++order) kernel_one(order, SQ_F64);
  bimaterial_pc_length = 0;
}
END_TEST

/* linear slip weakening and the aging law in a viscoelastic medium on the GPU against the CPU, f64 */
START_TEST(runs_attenuation) {
  attenuation_on = 1;
  runs_law(SQ_F64, SQ_FRICTION_LSW);
  runs_law(SQ_F64, SQ_FRICTION_RS_AGING);
  attenuation_on = 0;
}
END_TEST

int main(void) {
  if (sq_test_cuda_start("test_cuda_rupture")) return 77;
  const TTest *tests[] = {
      kernel_vs_cpu,  runs_f64,        runs_f32,         runs_rate_state, runs_thermal_pressurization,
      runs_kinematic, runs_bimaterial, runs_attenuation, throughput,      NULL};
  Suite *s = sq_test_suite("cuda_rupture", 600, tests);
  return sq_test_run(s, 0);
}

#endif
