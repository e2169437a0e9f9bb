/**
 * @file test_cuda.c  Check suite for the CUDA codelets: (1) every launcher against its CPU kernel,
 * orders 2-7, both precisions; (2) a three-cluster LTS run on the GPU alone (plain, with merged
 * predictors, and with the fused predictor and whole-step tasks) against the CPU-only run; (3) a
 * mixed CPU + GPU run whose tasks land on both kinds of worker; (4) the runs of (2) and (3) again
 * with point sources and receivers, whose tasks then run on the GPU too; (5) the anelastic kernels of
 * attenuation against their CPU kernels; (6) the runs of (4) in a viscoelastic medium; (7) the split sparse `local`
 * against its CPU kernel at every order and precision.  Tolerances: relative L2 <= 1e-12 in double, 1e-5 in single
 * precision. Exits 77 (skipped) when built without CUDA or when no GPU is visible.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <starpu.h>

#include "sq_check.h"
#include "sq_test_data.h"
#include "sq_graph.h"
#include "sq_locate.h"
#include "sq_receiver.h"
#include "sq_source.h"

#ifndef SQ_USE_CUDA
int main(void) {
  printf("test_cuda: built without CUDA: skipped\n");
  return 77;
}
#else

#include <cuda_runtime.h>

#include "sq_cuda.h"

static double tolerance(sq_precision p) { return p == SQ_F64 ? 1e-12 : 1e-5; }

/* ||a - b|| / ||b|| over len reals of precision p (a non-finite value gives infinity). */
static double rel_l2(sq_precision p, const void *a, const void *b, size_t len) {
  double num = 0, den = 0;
  for (size_t i = 0; i < len; ++i) {
    const double x = p == SQ_F64 ? ((const double *)a)[i] : ((const float *)a)[i];
    const double y = p == SQ_F64 ? ((const double *)b)[i] : ((const float *)b)[i];
    if (!isfinite(x)) return INFINITY;
    num += (x - y) * (x - y);
    den += y * y;
  }
  return den > 0 ? sqrt(num / den) : sqrt(num);
}

static void check_close(const char *what, int order, sq_precision p, const void *got, const void *ref, size_t len) {
  const double err = rel_l2(p, got, ref, len);
  printf("  %-14s O%d %s  rel L2 %.3e\n", what, order, prec_name(p), err);
  ck_assert_msg(err <= tolerance(p), "%s order %d %s: relative L2 difference %.3e > %.1e", what, order, prec_name(p),
                err, tolerance(p));
}

/* ---- device buffers ------------------------------------------------------------------------- */

#define CUDA_OK(expr)                                                                                                  \
  do {                                                                                                                 \
    cudaError_t err_ = (expr);                                                                                         \
    ck_assert_msg(err_ == cudaSuccess, "%s: %s", #expr, cudaGetErrorString(err_));                                     \
  } while (0)

static void *dev_copy(const void *host, size_t bytes) {
  void *d;
  CUDA_OK(cudaMalloc(&d, bytes ? bytes : 1));
  if (host) CUDA_OK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
  else CUDA_OK(cudaMemset(d, 0xff, bytes)); /* poison: NaN in both precisions */
  return d;
}

static void *host_copy(const void *dev, size_t bytes) {
  void *h = malloc(bytes);
  ck_assert(h);
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaMemcpy(h, dev, bytes, cudaMemcpyDeviceToHost));
  return h;
}

/* ---- meshes ------------------------------------------------------------------------------------ */

static const sq_material base = {.rho = 1.0, .lambda = 2.0, .mu = 1.0};

/* Jittered periodic box; lts: speeds vary x1 .. x16 so that rate 2 gives >= 3 clusters (as test_lts). */
static sq_disc *make_disc(int cubes, int order, sq_precision prec, int lts, int tile, sq_mesh **mesh) {
  sq_box_params bp;
  sq_box_params_default(&bp);
  bp.n[0] = bp.n[1] = bp.n[2] = cubes;
  bp.jitter = 0.15;
  ck_assert_int_eq(sq_mesh_box(&bp, mesh), 0);
  sq_material *m = malloc(sizeof(sq_material) * (*mesh)->ncell);
  for (int64_t c = 0; c < (*mesh)->ncell; ++c) {
    const double *x = &(*mesh)->centroid[c * 3];
    const double s = lts ? 1.0 + 15.0 * exp(-20.0 * ((x[0] - 0.5) * (x[0] - 0.5) + (x[1] - 0.4) * (x[1] - 0.4))) : 1.0;
    m[c] = base;
    m[c].lambda *= s * s;
    m[c].mu *= s * s;
  }
  sq_disc_options opt = {
      .order = order, .precision = prec, .cfl = 0.5, .tile_size = tile, .lts_rate = lts ? 2 : 1, .max_clusters = 20};
  sq_disc *d;
  ck_assert_int_eq(sq_disc_create(*mesh, m, &opt, &d), 0);
  free(m);
  return d;
}

/* ---- (1) kernels ----------------------------------------------------------------------------- */

static void kernels_one(int cubes, int order, sq_precision p) {
  sq_mesh *mesh;
  sq_disc *d = make_disc(cubes, order, p, 0, 1 << 20, &mesh); /* 6 cubes^3 elements */
  const int64_t n = d->nelem;
  const int B = d->nbasis;
  const size_t rs = sq_real_size(p), nq = (size_t)B * 9, len = n * nq, blk = len * rs;
  const double dt = d->cluster_dt[0];
  void *dofs = malloc(blk), *zero = calloc(len, rs);
  fill_random(p, dofs, len, 1.0);
  void *g_pack = dev_copy(d->pack, d->pack_bytes), *g_dofs = dev_copy(dofs, blk);
  void *g_star = dev_copy(d->star, n * 243 * rs), *g_flocal = dev_copy(d->flux_local, n * 324 * rs);
  void *g_fnb = dev_copy(d->flux_nb, n * 324 * rs);

  /* ader: with derivatives and an accumulated buffer; without derivatives, buffer reset */
  void *tint = malloc(blk), *derivs = malloc(blk * order), *buf = malloc(blk);
  fill_random(p, buf, len, 1.0);
  void *g_tint = dev_copy(NULL, blk), *g_derivs = dev_copy(NULL, blk * order), *g_buf = dev_copy(buf, blk);
  sq_kernel_ader(p, order, n, d->pack, dofs, d->star, dt, tint, derivs);
  sq_kernel_accumulate(p, order, n, tint, 0, buf);
  sq_cuda_ader(p, order, n, g_pack, g_dofs, g_star, dt, g_tint, g_derivs, g_buf, 0, NULL);
  void *h = host_copy(g_tint, blk);
  check_close("ader tint", order, p, h, tint, len);
  free(h);
  h = host_copy(g_derivs, blk * order);
  check_close("ader derivs", order, p, h, derivs, len * order);
  free(h);
  h = host_copy(g_buf, blk);
  check_close("ader buffer+=", order, p, h, buf, len);
  free(h);
  void *g_tint2 = dev_copy(NULL, blk), *g_buf2 = dev_copy(NULL, blk);
  sq_cuda_ader(p, order, n, g_pack, g_dofs, g_star, dt, g_tint2, NULL, g_buf2, 1, NULL);
  h = host_copy(g_buf2, blk);
  check_close("ader buffer=", order, p, h, tint, len);
  free(h);

  /* local, from random dofs (accumulates) and from zero dofs (the increment alone) */
  for (int z = 0; z < 2; ++z) {
    void *q = dup_bytes(z ? zero : dofs, blk), *g_q = dev_copy(q, blk);
    sq_kernel_local(p, order, n, d->pack, tint, d->star, d->flux_local, q);
    sq_cuda_local(p, order, n, g_pack, g_tint, g_star, g_flocal, g_q, NULL);
    h = host_copy(g_q, blk);
    check_close(z ? "local incr" : "local", order, p, h, q, len);
    free(h), free(q);
    cudaFree(g_q);
  }

  /* fused predictor: ader + buffer + local */
  {
    void *q = dup_bytes(dofs, blk), *b2 = dup_bytes(buf, blk), *g_q = dev_copy(q, blk), *g_b2 = dev_copy(b2, blk);
    void *g_t3 = dev_copy(NULL, blk), *g_d3 = dev_copy(NULL, blk * order);
    sq_kernel_accumulate(p, order, n, tint, 0, b2);
    sq_kernel_local(p, order, n, d->pack, tint, d->star, d->flux_local, q);
    sq_cuda_predict(p, order, n, g_pack, g_q, g_star, g_flocal, dt, g_t3, g_d3, g_b2, 0, NULL);
    h = host_copy(g_q, blk);
    check_close("predict dofs", order, p, h, q, len);
    free(h);
    h = host_copy(g_t3, blk);
    check_close("predict tint", order, p, h, tint, len);
    free(h);
    h = host_copy(g_d3, blk * order);
    check_close("predict derivs", order, p, h, derivs, len * order);
    free(h);
    h = host_copy(g_b2, blk);
    check_close("predict buffer", order, p, h, b2, len);
    free(h), free(q), free(b2);
    cudaFree(g_q), cudaFree(g_b2), cudaFree(g_t3), cudaFree(g_d3);
  }

  /* neighbour: random links over all 48 flux variants, two tint-like slots and one derivatives slot */
  {
    sq_face_link *links = malloc(sizeof(*links) * n * 4);
    for (int64_t i = 0; i < n * 4; ++i) {
      const int kind = i < 48 ? SQ_LINK_TINT : (int)((rnd() + 1.0) * 1.5) % 3;
      links[i] = (sq_face_link){.kind = kind,
                                .flux = i < 48 ? (int)i : (int)((rnd() + 1.0) * 24.0) % 48,
                                .slot = kind == SQ_LINK_DERIVS ? 2 : (int)((rnd() + 1.0)) % 2,
                                .index = (int)((rnd() + 1.0) * 0.5 * n) % (int)n};
    }
    void *slot0 = malloc(blk), *slot1 = malloc(blk);
    fill_random(p, slot0, len, 1.0);
    fill_random(p, slot1, len, 1.0);
    const void *nb_data[3] = {slot0, slot1, derivs};
    const double t0[3] = {0, 0, 0.5 * dt}, t1[3] = {0, 0, dt};
    void *g_links = dev_copy(links, sizeof(*links) * n * 4);
    sq_cuda_slots slots = {.nslot = 3};
    slots.data[0] = dev_copy(slot0, blk);
    slots.data[1] = dev_copy(slot1, blk);
    slots.data[2] = g_derivs;
    for (int s = 0; s < 3; ++s) slots.t0[s] = t0[s], slots.t1[s] = t1[s];
    for (int z = 0; z < 2; ++z) {
      void *q = dup_bytes(z ? zero : dofs, blk), *g_q = dev_copy(q, blk);
      sq_kernel_neighbor(p, order, n, d->pack, links, d->flux_nb, nb_data, t0, t1, q);
      sq_cuda_neighbor(p, order, n, g_pack, g_links, g_fnb, &slots, g_q, NULL);
      h = host_copy(g_q, blk);
      check_close(z ? "neighbor incr" : "neighbor", order, p, h, q, len);
      free(h), free(q);
      cudaFree(g_q);
    }
    cudaFree((void *)slots.data[0]), cudaFree((void *)slots.data[1]), cudaFree(g_links);
    free(slot0), free(slot1), free(links);
  }
  cudaFree(g_pack), cudaFree(g_dofs), cudaFree(g_star), cudaFree(g_flocal), cudaFree(g_fnb);
  cudaFree(g_tint), cudaFree(g_derivs), cudaFree(g_buf), cudaFree(g_tint2), cudaFree(g_buf2);
  free(dofs), free(zero), free(tint), free(derivs), free(buf);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
}

START_TEST(kernels_vs_cpu) {
  for (int order = SQ_ORDER_MIN; order <= SQ_ORDER_MAX; ++order) {
    kernels_one(3, order, SQ_F64); /* 162 elements */
    kernels_one(3, order, SQ_F32);
  }
}
END_TEST

/* sq_cuda_load_kernels launches nothing (every pointer it passes is NULL: a launch would fault, and the device's
 * sticky error would show at the synchronisation), leaves no error behind, and the launchers launch again after it:
 * the kernels then match the CPU. */
START_TEST(load_kernels_launch_nothing) {
  const int64_t sizes[] = {1, 162, 6000, 24576, 100000};
  for (int order = SQ_ORDER_MIN; order <= SQ_ORDER_MAX; ++order)
    for (int k = 0; k < 2; ++k) {
      const sq_precision p = k ? SQ_F32 : SQ_F64;
      sq_cuda_load_kernels(p, order, sizes, (int)(sizeof(sizes) / sizeof(sizes[0])));
      ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
      ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
      kernels_one(3, order, p);
    }
}
END_TEST

/* The split sparse `local` (local_split_kernel, src/cuda/cuda_sparse.cuh) and the tensor-core `local`
 * (local_tensor_kernel, src/cuda/cuda_tensor.cuh; double precision) against sq_kernel_local at every order, whether
 * sq_cuda_local takes them there or not: from random dofs and from zero dofs (the increment). */
static void local_variant_one(int cubes, int order, sq_precision p, int tensor) {
  sq_mesh *mesh;
  sq_disc *d = make_disc(cubes, order, p, 0, 1 << 20, &mesh); /* 6 cubes^3 elements */
  const int64_t n = d->nelem;
  const size_t rs = sq_real_size(p), len = n * (size_t)d->nbasis * 9, blk = len * rs;
  void *tint = malloc(blk), *dofs = malloc(blk), *zero = calloc(len, rs);
  fill_random(p, tint, len, 1.0);
  fill_random(p, dofs, len, 1.0);
  void *g_pack = dev_copy(d->pack, d->pack_bytes), *g_tint = dev_copy(tint, blk);
  void *g_star = dev_copy(d->star, n * 243 * rs), *g_flocal = dev_copy(d->flux_local, n * 324 * rs);
  for (int z = 0; z < 2; ++z) {
    void *q = dup_bytes(z ? zero : dofs, blk), *g_q = dev_copy(q, blk);
    sq_kernel_local(p, order, n, d->pack, tint, d->star, d->flux_local, q);
    if (tensor) sq_cuda_local_tensor(order, n, g_pack, g_tint, g_star, g_flocal, g_q, NULL);
    else sq_cuda_local_split(p, order, n, g_pack, g_tint, g_star, g_flocal, g_q, NULL);
    void *h = host_copy(g_q, blk);
    check_close(tensor ? (z ? "tensor incr" : "local tensor") : (z ? "split incr" : "local split"), order, p, h, q,
                len);
    free(h), free(q);
    cudaFree(g_q);
  }
  cudaFree(g_pack), cudaFree(g_tint), cudaFree(g_star), cudaFree(g_flocal);
  free(tint), free(dofs), free(zero);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
}

START_TEST(local_split_vs_cpu) {
  for (int order = SQ_ORDER_MIN; order <= SQ_ORDER_MAX; ++order)
    for (int cubes = 3; cubes <= 10; cubes += 7) { /* 162 and 6 000 elements */
      local_variant_one(cubes, order, SQ_F64, 0);
      local_variant_one(cubes, order, SQ_F32, 0);
    }
}
END_TEST

START_TEST(local_tensor_vs_cpu) {
  for (int order = SQ_ORDER_MIN; order <= SQ_ORDER_MAX; ++order)
    for (int cubes = 3; cubes <= 10; cubes += 7) local_variant_one(cubes, order, SQ_F64, 1);
}
END_TEST

/* A tile large enough that `local` and the predictor take the sparse kernels at the orders where small tiles keep
 * the cell or fine-row ones (small_tile_keeps_rows, src/cuda/cuda_sparse.cuh): 131 712 elements. */
START_TEST(kernels_vs_cpu_large) {
  for (int order = SQ_ORDER_MIN; order <= 3; ++order) {
    kernels_one(28, order, SQ_F64);
    kernels_one(28, order, SQ_F32);
  }
}
END_TEST

/* Viscoelastic attenuation on every cell of @p d (Qp 20, Qs 10, 3 mechanisms over 2.5 Hz, ratio 100). */
static void attenuate_disc(sq_disc *d, const sq_mesh *mesh) {
  sq_atten_band band;
  sq_visco v;
  sq_material u;
  ck_assert_int_eq(sq_atten_band_init(3, 2.5, 100, &band), SQ_SUCCESS);
  ck_assert_int_eq(sq_visco_init(&band, &base, 20, 10, &v, &u), SQ_SUCCESS);
  double *coef = malloc(sizeof(double) * SQ_ANE_NCOEF * mesh->ncell);
  for (int64_t c = 0; c < mesh->ncell; ++c) sq_visco_coefficients(&band, &v, coef + c * SQ_ANE_NCOEF);
  ck_assert_int_eq(sq_disc_set_attenuation(d, 3, coef), SQ_SUCCESS);
  free(coef);
}

/* The anelastic kernels (viscoelastic attenuation, Qp 20, Qs 10, 3 mechanisms): the predictor with derivatives
 * and an accumulated LTS buffer, the memory variables' update and the anelastic part of the local update. */
static void ane_one(int order, sq_precision p) {
  sq_mesh *mesh;
  sq_disc *d = make_disc(3, order, p, 0, 1 << 20, &mesh);
  attenuate_disc(d, mesh);
  const int64_t n = d->nelem;
  const size_t rs = sq_real_size(p), len = n * (size_t)d->nbasis * 9, blk = len * rs;
  const size_t alen = n * sq_disc_ane_bytes(d) / rs, ablk = alen * rs;
  const double dt = d->cluster_dt[0];
  void *dofs = malloc(blk), *tint = malloc(blk), *derivs = malloc(blk * order), *buf = malloc(blk);
  fill_random(p, dofs, len, 1.0);
  fill_random(p, buf, len, 1.0);
  fill_random(p, d->ane, alen, 0.1);
  void *g_pack = dev_copy(d->pack, d->pack_bytes), *g_dofs = dev_copy(dofs, blk),
       *g_star = dev_copy(d->star, n * 243 * rs);
  void *g_coef = dev_copy(d->ane_coef, n * SQ_ANE_NCOEF * rs), *g_ane = dev_copy(d->ane, ablk);
  void *g_tint = dev_copy(NULL, blk), *g_derivs = dev_copy(NULL, blk * order), *g_buf = dev_copy(buf, blk);
  sq_kernel_ader_ane(p, order, 3, n, d->pack, dofs, d->star, d->ane_coef, dt, tint, derivs, d->ane);
  sq_kernel_accumulate(p, order, n, tint, 0, buf);
  sq_kernel_ane_source(p, order, 3, n, d->ane, dofs);
  sq_cuda_ader_ane(p, order, 3, n, g_pack, g_dofs, g_star, g_coef, dt, g_tint, g_derivs, g_ane, g_buf, 0, NULL);
  sq_cuda_ane_source(p, order, 3, n, g_ane, g_dofs, NULL);
  const void *dev[5] = {g_tint, g_derivs, g_buf, g_ane, g_dofs}, *cpu[5] = {tint, derivs, buf, d->ane, dofs};
  const size_t lens[5] = {len, len * order, len, alen, len};
  const char *what[5] = {"ane tint", "ane derivs", "ane buffer", "ane memory", "ane dofs"};
  for (int i = 0; i < 5; ++i) {
    void *h = host_copy(dev[i], lens[i] * rs);
    check_close(what[i], order, p, h, cpu[i], lens[i]);
    free(h);
  }
  cudaFree(g_pack), cudaFree(g_dofs), cudaFree(g_star), cudaFree(g_coef), cudaFree(g_ane);
  cudaFree(g_tint), cudaFree(g_derivs), cudaFree(g_buf);
  free(dofs), free(tint), free(derivs), free(buf);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
}

START_TEST(ane_kernels_vs_cpu) {
  for (int order = SQ_ORDER_MIN; order <= SQ_ORDER_MAX; ++order) {
    ane_one(order, SQ_F64);
    ane_one(order, SQ_F32);
  }
}
END_TEST

/* ---- (2), (3) whole LTS runs ------------------------------------------------------------------ */

typedef enum { WORKERS_CPU, WORKERS_GPU, WORKERS_BOTH } workers;

static int start_starpu(workers w, const char *sched) {
  struct starpu_conf conf;
  starpu_conf_init(&conf);
  conf.sched_policy_name = sched;
  conf.ncuda = w == WORKERS_CPU ? 0 : 1;
  conf.ncpus = w == WORKERS_GPU ? 0 : (w == WORKERS_BOTH ? 3 : 2);
  conf.nopencl = 0;
  const int ret = starpu_init(&conf);
  ck_assert_msg(ret == 0, "starpu_init failed (%d)", ret);
  starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
  return (int)starpu_cuda_worker_get_count();
}

/* Per worker kind, the tasks executed since the last call (profiling counters, reset on reading). */
static void task_counts(int64_t *cpu, int64_t *gpu) {
  *cpu = *gpu = 0;
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w) {
    struct starpu_profiling_worker_info info;
    ck_assert_int_eq(starpu_profiling_worker_get_info((int)w, &info), 0);
    if (starpu_worker_get_type((int)w) == STARPU_CUDA_WORKER) *gpu += info.executed_tasks;
    else *cpu += info.executed_tasks;
  }
}

/* Bytes moved over all buses since the last call (the counters reset on reading). */
static long long bus_bytes(void) {
  long long total = 0;
  for (int b = 0; b < starpu_bus_get_count(); ++b) {
    struct starpu_profiling_bus_info info;
    if (starpu_bus_get_profiling_info(b, &info) == 0) total += info.transferred_bytes;
  }
  return total;
}

/* A three-cluster LTS run of >= 50 fine steps; returns the dofs (caller frees) and the task counts. */
/* Point sources and receivers of the runs with points (4): a moment tensor, a force and a slipping patch with a
 * sampled slip rate, three receivers. */
typedef struct run_points {
  sq_source_list list;
  sq_source_set *set;
  sq_receiver_set *rec;
  double *samples; /* out: every sample, nsample x 3 x 9 */
  size_t nsample;
} run_points;

static void points_create(sq_disc *d, sq_mesh *mesh, double t_end, run_points *pt) {
  sq_locator *loc;
  ck_assert_int_eq(sq_locator_create(mesh, &loc), 0);
  sq_point_source src;
  memset(&src, 0, sizeof(src));
  src.kind = SQ_SOURCE_MOMENT;
  src.x[0] = 0.48, src.x[1] = 0.41, src.x[2] = 0.52; /* in the fast (small-step) region */
  src.moment[3] = 1.0, src.moment[0] = 0.5;
  src.stf.kind = SQ_STF_GAUSSIAN, src.stf.delay = 0.3 * t_end, src.stf.width = 0.1 * t_end;
  ck_assert_int_eq(sq_source_list_push(&pt->list, &src), 0);
  memset(&src, 0, sizeof(src));
  src.kind = SQ_SOURCE_FORCE;
  src.x[0] = 0.13, src.x[1] = 0.85, src.x[2] = 0.3; /* in the slow region */
  src.force[2] = 2.0;
  src.stf.kind = SQ_STF_RICKER, src.stf.delay = 0.4 * t_end, src.stf.frequency = 3.0 / t_end;
  ck_assert_int_eq(sq_source_list_push(&pt->list, &src), 0);
  /* a slipping patch with a sampled slip rate, as an NRF sub-fault gives (io/nrf.c): an opening, so that
   * lambda and mu of the element enter */
  memset(&src, 0, sizeof(src));
  src.kind = SQ_SOURCE_SLIP;
  src.x[0] = 0.7, src.x[1] = 0.3, src.x[2] = 0.6;
  src.area = 0.5, src.normal[0] = 0.6, src.normal[2] = 0.8, src.slip[0] = 0.6, src.slip[2] = 0.8;
  src.stf.kind = SQ_STF_TABLE, src.stf.onset = 0.1 * t_end, src.stf.nsample = 5;
  src.stf.time = malloc(5 * sizeof(double)), src.stf.value = malloc(5 * sizeof(double));
  ck_assert(src.stf.time && src.stf.value);
  for (int k = 0; k < 5; ++k) src.stf.time[k] = k * 0.1 * t_end, src.stf.value[k] = k == 2 ? 2.0 : (k % 2);
  ck_assert_int_eq(sq_source_list_push(&pt->list, &src), 0);
  ck_assert_int_eq(sq_source_set_create(d, loc, &pt->list, &pt->set), 0);
  const double x[9] = {0.5, 0.42, 0.5, 0.2, 0.8, 0.35, 0.9, 0.1, 0.7};
  const char *origin[3] = {"test:1", "test:2", "test:3"};
  ck_assert_int_eq(sq_receiver_set_create(d, loc, 3, x, origin, t_end / 40, 0, &pt->rec), 0);
  sq_locator_destroy(loc);
  pt->samples = NULL;
  pt->nsample = 0;
}

static void points_destroy(run_points *pt) {
  sq_source_set_destroy(pt->set);
  sq_receiver_set_destroy(pt->rec);
  sq_source_list_clear(&pt->list);
}

/* >= 0: the runs split the tiles statically between CPU and GPU workers (sq_runtime_split_tiles) */
static double split_share = -1.0;

/* 1: the runs are viscoelastic (Qp 20, Qs 10, 3 mechanisms): with points, the source task then moves the memory
 * variables on the GPU as on the CPU */
static int attenuate = 0;

/* pt: NULL, or the run also has point sources and receivers, and returns the samples in pt. */
static void *lts_run(sq_precision p, workers w, int merge, int tile, int64_t *ncpu_tasks, int64_t *ngpu_tasks,
                     size_t *len, int *nclusters, run_points *pt) {
  sq_mesh *mesh;
  sq_disc *d = make_disc(4, 4, p, 1, tile, &mesh);
  ck_assert_int_ge(d->ncluster, 3);
  if (attenuate) attenuate_disc(d, mesh);
  project_p_wave(d, &base);
  const int64_t fine_per_sync = (int64_t)1 << (d->ncluster - 1);
  const int64_t nsync = (50 + fine_per_sync - 1) / fine_per_sync;
  const double t_end = (double)nsync * d->cluster_dt[d->ncluster - 1];
  if (pt) points_create(d, mesh, t_end, pt); /* before the runtime: receiver tiles keep derivatives */
  sq_runtime *rt;
  ck_assert_int_eq(sq_runtime_create(d, &rt), 0);
  if (split_share >= 0) ck_assert(sq_runtime_split_tiles(rt, split_share) > 0);
  if (pt) {
    ck_assert_int_eq(sq_runtime_attach_sources(rt, pt->set), 0);
    ck_assert_int_eq(sq_runtime_attach_receivers(rt, pt->rec), 0);
    ck_assert_int_eq(sq_receiver_set_reserve(pt->rec, t_end), 0);
    for (int64_t i = 0; i < pt->rec->capacity * 27; ++i) pt->rec->samples[i] = NAN; /* unwritten shows */
  }
  /* merge: bit 1 merged neighbour-cluster predictors, 2 fused predictor, 4 whole steps as one task, 8 the
   * fastest cluster's two sub-steps per whole-step task (steps_per_task), 16 and cluster 1's correction next to it
   * in that task (fuse_chain_correction), 32 and its next prediction too (fuse_chain_prediction), 64 that task's
   * kernels at the GPU's highest stream priority (sq_runtime_set_chain_priority) */
  sq_graph_options opt = {.merge_neighbor_clusters = merge & 1,
                          .fuse_predictor = (merge & 2) != 0,
                          .fuse_steps = (merge & 4) != 0,
                          .steps_per_task = merge & 8 ? 2 : 1,
                          .fuse_chain_correction = (merge & 16) != 0,
                          .fuse_chain_prediction = (merge & 32) != 0};
  sq_graph_stats st = {0};
  sq_runtime_set_chain_priority(rt, merge & 64);
  if ((merge & 4) && !pt) { /* some tile must take its whole step as one task */
    int fusable = 0;
    for (int t = 0; t < d->ntile; ++t) fusable += sq_step_fusable(rt, t);
    ck_assert_int_gt(fusable, 0);
  }
  int64_t c0, g0;
  task_counts(&c0, &g0);
  bus_bytes();
  /* the first interval uploads the data; after that, a GPU-only run should move (almost) nothing */
  const double dt_sync = d->cluster_dt[d->ncluster - 1];
  opt.t_begin = 0.0, opt.t_end = dt_sync;
  ck_assert_int_eq(sq_graph_sync_interval(rt, dt_sync, &opt, &st), 0);
  ck_assert_int_eq(starpu_task_wait_for_all(), 0);
  if ((merge & 16) && !pt) ck_assert_int_gt(st.folded, 0); /* else the comparison proves nothing */
  if ((merge & 32) && !pt) ck_assert_int_gt(st.folded_predict, 0);
  const long long first = bus_bytes();
  for (int64_t s = 1; s < nsync; ++s) {
    opt.t_begin = (double)s * dt_sync, opt.t_end = (double)(s + 1) * dt_sync; /* the sources' and receivers' times */
    ck_assert_int_eq(sq_graph_sync_interval(rt, dt_sync, &opt, NULL), 0);
  }
  ck_assert_int_eq(starpu_task_wait_for_all(), 0);
  const long long steady = bus_bytes();
  ck_assert_int_eq(sq_runtime_sync(rt), 0);
  task_counts(ncpu_tasks, ngpu_tasks);
  printf("  bus bytes: first interval %lld, later %lld intervals %lld (%.0f per interval), final sync %lld\n", first,
         (long long)(nsync - 1), steady, nsync > 1 ? (double)steady / (nsync - 1) : 0.0, bus_bytes());
  sq_runtime_destroy(rt);
  ck_assert_int_lt(sq_disc_find_nonfinite(d), 0);
  if (pt) {
    int64_t jb, je;
    sq_receiver_samples_in(pt->rec->interval, 0.0, t_end, &jb, &je);
    ck_assert_int_eq(jb, 0);
    ck_assert_int_ge(je, 40);
    pt->nsample = (size_t)je;
    pt->samples = dup_bytes(pt->rec->samples, sizeof(double) * pt->nsample * 3 * 9);
    points_destroy(pt);
  }
  *len = (size_t)d->nelem * d->nbasis * 9;
  *nclusters = d->ncluster;
  void *out = dup_bytes(d->dofs, *len * sq_real_size(p));
  printf("  run %-4s %s%s%s: %d clusters, %lld sync intervals (%lld fine steps), tasks cpu %lld gpu %lld\n",
         w == WORKERS_CPU   ? "cpu"
         : w == WORKERS_GPU ? "gpu"
                            : "both",
         prec_name(p),
         merge & 1 ? " merged"
         : merge   ? " fused"
                   : "",
         pt ? " sources+receivers" : "", d->ncluster, (long long)nsync, (long long)(nsync * fine_per_sync),
         (long long)*ncpu_tasks, (long long)*ngpu_tasks);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
  return out;
}

/* Relative L2 of two sample series (double precision whatever the run's precision). */
static void check_samples(const char *what, sq_precision p, const run_points *got, const run_points *ref) {
  ck_assert_uint_eq(got->nsample, ref->nsample);
  double peak = 0.0; /* the sources must have reached the receivers, or the comparison proves nothing */
  for (size_t i = 0; i < ref->nsample * 27; ++i) {
    ck_assert_msg(isfinite(ref->samples[i]) && isfinite(got->samples[i]),
                  "%s: sample %zu of receiver %zu is not finite (cpu %g, this run %g): a slot was not written", what,
                  i / 27, i % 27 / 9, ref->samples[i], got->samples[i]);
    peak = fmax(peak, fabs(ref->samples[i]));
  }
  ck_assert_msg(peak > 0.0, "%s: reference samples are all zero", what);
  const double err = rel_l2(SQ_F64, got->samples, ref->samples, ref->nsample * 27);
  if (!(err <= tolerance(p))) /* say where: sample, receiver, quantity */
    for (size_t i = 0, shown = 0; i < ref->nsample * 27 && shown < 8; ++i)
      if (!(fabs(got->samples[i] - ref->samples[i]) <= tolerance(p) * peak))
        printf("  sample %zu receiver %zu quantity %zu: got %.17g, cpu %.17g\n", i / 27, i % 27 / 9, i % 9,
               got->samples[i], ref->samples[i]),
            ++shown;
  printf("  %-14s O4 %s  rel L2 %.3e (%zu samples x 3 receivers)\n", what, prec_name(p), err, ref->nsample);
  ck_assert_msg(err <= tolerance(p), "%s %s: relative L2 difference %.3e > %.1e", what, prec_name(p), err,
                tolerance(p));
}

/* A run's dofs, and with points its receivers, against the CPU reference; frees the run's copies. */
static void check_run(const char *what, sq_precision p, void *got, const void *ref, size_t len, run_points *pgot,
                      const run_points *pref) {
  check_close(what, 4, p, got, ref, len);
  free(got);
  if (!pref) return;
  char name[64];
  snprintf(name, sizeof(name), "%s receivers", what);
  check_samples(name, p, pgot, pref);
  free(pgot->samples);
}

static void runs_one(sq_precision p, int points) {
  size_t len;
  int L;
  int64_t nc, ng;
  run_points pref = {0}, pgot = {0};
  run_points *got = points ? &pgot : NULL, *want = points ? &pref : NULL;
  start_starpu(WORKERS_CPU, "lws");
  void *ref = lts_run(p, WORKERS_CPU, 0, 32, &nc, &ng, &len, &L, want);
  ck_assert_int_eq(ng, 0);
  starpu_shutdown();

  ck_assert_int_ge(start_starpu(WORKERS_GPU, "lws"), 1);
  /* plain, merged predictors, and one tile per cluster with ader + local fused and the fastest cluster's
   * whole steps as one task, one or two sub-steps per task */
  const struct {
    const char *what;
    int how, tile;
  } gpu_runs[] = {
      {"run gpu", 0, 32},
      {"run gpu merged", 1, 32},
      {"run gpu fused", 2 | 4, 100000},
      {"run gpu fused, 2 sub-steps per task", 2 | 4 | 8, 100000},
      {"run gpu fused, 2 sub-steps and cluster 1's correction per task", 2 | 4 | 8 | 16, 100000},
      {"run gpu fused, 2 sub-steps, cluster 1's correction and prediction per task", 2 | 4 | 8 | 16 | 32, 100000},
      {"run gpu fused, the same at the highest stream priority", 2 | 4 | 8 | 16 | 32 | 64, 100000}};
  for (size_t i = 0; i < sizeof(gpu_runs) / sizeof(gpu_runs[0]); ++i) {
    void *gpu = lts_run(p, WORKERS_GPU, gpu_runs[i].how, gpu_runs[i].tile, &nc, &ng, &len, &L, got);
    ck_assert_int_eq(nc, 0);
    ck_assert_int_gt(ng, 0);
    check_run(gpu_runs[i].what, p, gpu, ref, len, got, want);
  }
  starpu_shutdown();

  /* eager hands every task to the first idle worker: with small tiles both kinds get work */
  ck_assert_int_ge(start_starpu(WORKERS_BOTH, "eager"), 1);
  void *both = lts_run(p, WORKERS_BOTH, 0, 8, &nc, &ng, &len, &L, got);
  ck_assert_msg(nc > 0 && ng > 0, "mixed run: tasks on cpu %lld, gpu %lld: expected both > 0", (long long)nc,
                (long long)ng);
  check_run("run cpu+gpu", p, both, ref, len, got, want);
  /* a static split: a third of each cluster's tiles on the CPU workers, the rest on the GPU */
  split_share = 1.0 / 3.0;
  both = lts_run(p, WORKERS_BOTH, 0, 8, &nc, &ng, &len, &L, got);
  split_share = -1.0;
  ck_assert_msg(nc > 0 && ng > 0, "split run: tasks on cpu %lld, gpu %lld: expected both > 0", (long long)nc,
                (long long)ng);
  check_run("run split", p, both, ref, len, got, want);
  starpu_shutdown();
  free(pref.samples);
  free(ref);
}

START_TEST(runs_f64) { runs_one(SQ_F64, 0); }
END_TEST

START_TEST(runs_f32) { runs_one(SQ_F32, 0); }
END_TEST

START_TEST(points_f64) { runs_one(SQ_F64, 1); }
END_TEST

START_TEST(points_f32) { runs_one(SQ_F32, 1); }
END_TEST

/* (6) viscoelastic runs with a moment tensor, a force and a slipping patch: the source task's anelastic part */
START_TEST(points_ane_f64) {
  attenuate = 1;
  runs_one(SQ_F64, 1);
  attenuate = 0;
}
END_TEST

/* A failed check leaves its test early (no fork): shut StarPU down for the next test. */
static void teardown(void) {
  if (starpu_is_initialized()) starpu_shutdown();
}

int main(void) {
  if (sq_test_cuda_start("test_cuda")) return 77;
  Suite *s = suite_create("cuda");
  TCase *tc = tcase_create("cuda");
  tcase_set_timeout(tc, 600);
  tcase_add_checked_fixture(tc, NULL, teardown);
  tcase_add_test(tc, kernels_vs_cpu);
  tcase_add_test(tc, kernels_vs_cpu_large);
  tcase_add_test(tc, load_kernels_launch_nothing);
  tcase_add_test(tc, local_split_vs_cpu);
  tcase_add_test(tc, local_tensor_vs_cpu);
  tcase_add_test(tc, ane_kernels_vs_cpu);
  tcase_add_test(tc, runs_f64);
  tcase_add_test(tc, runs_f32);
  tcase_add_test(tc, points_f64);
  tcase_add_test(tc, points_f32);
  tcase_add_test(tc, points_ane_f64);
  suite_add_tcase(s, tc);
  return sq_test_run(s, 0);
}

#endif
