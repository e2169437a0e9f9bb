/**
 * @file test_hybrid.c  Check suite for the default CPU/GPU split (runtime/hybrid.c): the share rule for given
 * rates, the perf-model size key, the defaults on CPU workers, and that the split's tiling (large tiles, the
 * CPU part in small ones) leaves GTS and LTS results bit for bit unchanged.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sq_check.h"
#include "sq_test_data.h"
#include "sq_graph.h"
#include "sq_runtime_impl.h"

/* order 6 single precision: 56 basis functions x 9 quantities x 4 bytes */
static const double elem_f32_o6 = 56.0 * 9.0 * 4.0;

/* The H100 + 16 cores at order 6, single precision: the CPUs are 3.5 % of the sum, so the GPU alone. */
START_TEST(tiny_cpu_share_gives_gpu_alone) {
  const sq_hybrid_input in = {.rate_cpu = 8.5e5,
                              .rate_gpu = 2.37e7,
                              .nelem = 63888,
                              .elem_bytes = elem_f32_o6,
                              .link_bytes_per_s = 2.5e10,
                              .gpu_tile = 16384};
  sq_hybrid_plan p;
  sq_hybrid_split(&in, &p);
  ck_assert_double_eq(p.cpu_share, 0.0);
  ck_assert_double_eq(p.speedup, 1.0);
  ck_assert_double_eq_tol(p.ideal_share, 8.5e5 / (8.5e5 + 2.37e7), 1e-15);
  ck_assert_double_eq_tol(p.sum_ratio, 2.37e7 / (8.5e5 + 2.37e7), 1e-15);
  ck_assert(p.sum_ratio >= 0.9); /* the GPU alone already reaches 0.9 of the sum */
  ck_assert_ptr_nonnull(strstr(p.reason, "too small"));
  /* even with a free link the share stays below the gain worth having */
  sq_hybrid_input free_link = in;
  free_link.link_bytes_per_s = 1e30;
  sq_hybrid_split(&free_link, &p);
  ck_assert_double_eq(p.cpu_share, 0.0);
}
END_TEST

/* Unknown rates (models not calibrated): the GPU alone. */
START_TEST(unknown_rates_give_gpu_alone) {
  sq_hybrid_input in = {.rate_cpu = 0,
                        .rate_gpu = 2e7,
                        .nelem = 100000,
                        .elem_bytes = elem_f32_o6,
                        .link_bytes_per_s = 2e10,
                        .gpu_tile = 16384};
  sq_hybrid_plan p;
  sq_hybrid_split(&in, &p);
  ck_assert_double_eq(p.cpu_share, 0.0);
  in.rate_cpu = 1e7, in.rate_gpu = -1;
  sq_hybrid_split(&in, &p);
  ck_assert_double_eq(p.cpu_share, 0.0);
  in.rate_gpu = 1e7, in.link_bytes_per_s = 0; /* no bandwidth measured */
  sq_hybrid_split(&in, &p);
  ck_assert_double_eq(p.cpu_share, 0.0);
}
END_TEST

/* A CPU side half as fast as the GPU (a second, slower GPU; many cores): the share balances the two times,
 * transfers included, a little above the ideal share (the GPU side pays for the transfers). */
START_TEST(comparable_rates_split_in_proportion) {
  const sq_hybrid_input in = {.rate_cpu = 1e7,
                              .rate_gpu = 2e7,
                              .nelem = 1000000,
                              .elem_bytes = elem_f32_o6,
                              .link_bytes_per_s = 2.5e10,
                              .gpu_tile = 16384};
  sq_hybrid_plan p;
  sq_hybrid_split(&in, &p);
  ck_assert_double_eq_tol(p.ideal_share, 1.0 / 3.0, 1e-15);
  ck_assert(p.cpu_share > p.ideal_share && p.cpu_share < p.ideal_share + 0.05);
  /* the times balance: CPU part = GPU part + two tiles' worth each way over the link */
  const double n = 1e6, s = p.cpu_share, moved = 2.0 * 2.0 * 16384;
  const double t_cpu = s * n / 1e7, t_gpu = (1 - s) * n / 2e7 + moved * elem_f32_o6 / 2.5e10;
  ck_assert_double_eq_tol(t_cpu, t_gpu, 1e-9 * t_cpu);
  ck_assert_double_eq_tol(p.speedup, (n / 2e7) / t_cpu, 1e-6);
  ck_assert(p.speedup > 1.3 && p.speedup < 1.5); /* ideal: 1.5 */
  /* the faster the CPUs, the larger their share; the slower the link, the smaller the gain */
  sq_hybrid_input faster = in;
  faster.rate_cpu = 1.5e7;
  sq_hybrid_plan pf;
  sq_hybrid_split(&faster, &pf);
  ck_assert(pf.cpu_share > p.cpu_share);
  sq_hybrid_input slow_link = in;
  slow_link.link_bytes_per_s = 2.5e9;
  sq_hybrid_plan ps;
  sq_hybrid_split(&slow_link, &ps);
  ck_assert(ps.speedup < p.speedup);
}
END_TEST

/* Transfers that cost more than the CPUs add: the GPU alone, though the CPUs' ideal share is large. */
START_TEST(transfers_can_veto_the_split) {
  const sq_hybrid_input in = {.rate_cpu = 5e6,
                              .rate_gpu = 2e7,
                              .nelem = 65536,
                              .elem_bytes = elem_f32_o6,
                              .link_bytes_per_s = 1e9,
                              .gpu_tile = 16384};
  sq_hybrid_plan p;
  sq_hybrid_split(&in, &p);
  ck_assert_double_eq_tol(p.ideal_share, 0.2, 1e-15);
  ck_assert_double_eq(p.cpu_share, 0.0);
  ck_assert_ptr_nonnull(strstr(p.reason, "transfers"));
  ck_assert_double_eq(p.speedup, 1.0);
}
END_TEST

/* The perf-model size: the element count and a code of order and precision, distinct for every pair. */
START_TEST(perf_size_key_unique) {
  int seen[SQ_PERF_KEY_BASE] = {0};
  for (int order = SQ_ORDER_MIN; order <= SQ_ORDER_MAX; ++order)
    for (int p = 0; p < 2; ++p) {
      const sq_precision prec = p ? SQ_F64 : SQ_F32;
      const size_t k0 = sq_perf_size_key(0, order, prec), k = sq_perf_size_key(16384, order, prec);
      ck_assert_uint_lt(k0, SQ_PERF_KEY_BASE);
      ck_assert_int_eq(seen[k0]++, 0);
      ck_assert_uint_eq(k / SQ_PERF_KEY_BASE, 16384);
      ck_assert_uint_eq(k % SQ_PERF_KEY_BASE, k0);
    }
}
END_TEST

/* CPU workers only: the CPU tile by default, given settings kept, no split. */
START_TEST(defaults_on_cpu_workers) {
  sq_hybrid_request req = {.order = 4, .precision = SQ_F64, .nelem = 10000, .cpu_share = -1};
  sq_hybrid_defaults h;
  ck_assert_int_eq(sq_runtime_hybrid_defaults(&req, &h), 0);
  ck_assert_int_eq(h.tile_size, SQ_CPU_TILE_DEFAULT);
  ck_assert_int_eq(h.cpu_tile_size, SQ_CPU_SHARE_TILE_DEFAULT);
  ck_assert(h.cpu_share < 0);
  double rc, rg;
  ck_assert_int_eq(sq_runtime_kind_rates(4, SQ_F64, &rc, &rg), 0); /* no CUDA worker: no rates */
  ck_assert_double_eq(rc, 0.0);
  req.tile_size = 77, req.cpu_tile_size = 9, req.cpu_share = 0.25;
  ck_assert_int_eq(sq_runtime_hybrid_defaults(&req, &h), 0);
  ck_assert_int_eq(h.tile_size, 77);
  ck_assert_int_eq(h.cpu_tile_size, 9);
  ck_assert_double_eq(h.cpu_share, 0.25);
}
END_TEST

/* The GPU tile: one per GPU (GTS), two per GPU (LTS), within the bounds. */
START_TEST(gpu_tile_rule) {
  ck_assert_int_eq(sq_hybrid_gpu_tile(63888, 1, 0), 63888);
  ck_assert_int_eq(sq_hybrid_gpu_tile(63888, 1, 1), 31944);
  ck_assert_int_eq(sq_hybrid_gpu_tile(63889, 1, 1), 31945);
  ck_assert_int_eq(sq_hybrid_gpu_tile(4000, 1, 0), SQ_GPU_TILE_MIN);
  ck_assert_int_eq(sq_hybrid_gpu_tile(4000000, 1, 0), SQ_GPU_TILE_MAX);
  ck_assert_int_eq(sq_hybrid_gpu_tile(511104, 1, 0), SQ_GPU_TILE_MAX); /* 512k: two tiles */
  ck_assert_int_eq(sq_hybrid_gpu_tile(200000, 2, 0), 100000);
  ck_assert_int_eq(sq_hybrid_gpu_tile(200000, 2, 1), 50000);
  ck_assert_int_eq(sq_hybrid_gpu_tile(200000, 0, 0), 200000); /* no GPU count: as one */
}
END_TEST

/* ---- results with the split's tiling ------------------------------------------------------------------ */

static const sq_material base = {.rho = 1.0, .lambda = 2.0, .mu = 1.0};

/* Two sync intervals on a jittered periodic box with strongly varying speeds (rate 2: several LTS clusters;
 * rate 1: GTS), tiles of `tile`, the first `share` of each cluster in tiles of `small`; the dofs' hash. */
static uint64_t run_tiled(int rate, int tile, double share, int small, int *ncluster) {
  sq_box_params bp;
  sq_box_params_default(&bp);
  bp.n[0] = bp.n[1] = bp.n[2] = 4;
  bp.jitter = 0.15;
  sq_mesh *mesh;
  ck_assert_int_eq(sq_mesh_box(&bp, &mesh), 0);
  sq_material *m = malloc(sizeof(sq_material) * mesh->ncell);
  for (int64_t c = 0; c < mesh->ncell; ++c) {
    const double *x = &mesh->centroid[c * 3];
    const double s = 1.0 + 15.0 * exp(-20.0 * ((x[0] - 0.5) * (x[0] - 0.5) + (x[1] - 0.4) * (x[1] - 0.4)));
    m[c] = base;
    m[c].lambda *= s * s;
    m[c].mu *= s * s;
  }
  const sq_disc_options opt = {.order = 3,
                               .precision = SQ_F64,
                               .cfl = 0.5,
                               .tile_size = tile,
                               .lts_rate = rate,
                               .max_clusters = 20,
                               .small_share = share,
                               .small_tile_size = small};
  sq_disc *d;
  ck_assert_int_eq(sq_disc_create(mesh, m, &opt, &d), 0);
  free(m);
  project_p_wave(d, &base);
  sq_runtime *rt;
  ck_assert_int_eq(sq_runtime_create(d, &rt), 0);
  ck_assert(sq_runtime_split_tiles(rt, share) < 0); /* CPU workers only: no split, the same tasks */
  const sq_graph_options gopt = {.steps_per_task = 1};
  for (int s = 0; s < 2; ++s)
    ck_assert_int_eq(sq_graph_sync_interval(rt, d->cluster_dt[d->ncluster - 1], &gopt, NULL), 0);
  ck_assert_int_eq(sq_runtime_sync(rt), 0);
  sq_runtime_destroy(rt);
  ck_assert_int_lt(sq_disc_find_nonfinite(d), 0);
  const uint64_t h = sq_disc_hash(d);
  *ncluster = d->ncluster;
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
  return h;
}

START_TEST(split_tiling_bitwise) {
  int L;
  for (int rate = 1; rate <= 2; ++rate) {
    const uint64_t plain = run_tiled(rate, SQ_CPU_TILE_DEFAULT, 0.0, 0, &L);
    ck_assert_int_eq(L > 1, rate > 1); /* LTS: several clusters */
    /* large GPU tiles with the first fifth (or third) of every cluster in small CPU tiles */
    ck_assert_uint_eq(run_tiled(rate, SQ_GPU_TILE_MAX, 0.2, 7, &L), plain);
    ck_assert_uint_eq(run_tiled(rate, SQ_GPU_TILE_MAX, 1.0 / 3.0, 16, &L), plain);
    ck_assert_uint_eq(run_tiled(rate, SQ_GPU_TILE_MAX, 0.0, 0, &L), plain);
  }
}
END_TEST

static struct starpu_conf conf;

/* The rates read back from the perf models that the runs of split_tiling_bitwise (order 3, double, CPU
 * workers) calibrated: StarPU writes them at its shutdown, the next start reads them. */
START_TEST(models_give_rates) {
  ck_assert_double_eq(sq_runtime_kind_us_per_element(0, 3, SQ_F64), -1.0); /* nothing on disk yet */
  starpu_shutdown();
  ck_assert_int_eq(starpu_init(&conf), 0);
  const double us = sq_runtime_kind_us_per_element(0, 3, SQ_F64);
  ck_assert(us > 0 && us < 1e4);                                           /* a time per element was read */
  ck_assert_double_eq(sq_runtime_kind_us_per_element(0, 3, SQ_F32), -1.0); /* another precision: none */
  ck_assert_double_eq(sq_runtime_kind_us_per_element(0, 4, SQ_F64), -1.0); /* another order: none */
  ck_assert_double_eq(sq_runtime_kind_us_per_element(1, 3, SQ_F64), -1.0); /* no CUDA worker */
}
END_TEST

int main(void) {
  setenv("STARPU_SILENT", "1", 0);
  /* perf models of this run only: a fresh StarPU home, every task sampled and the models saved */
  char home[] = "/tmp/sq-test-hybrid-XXXXXX";
  if (!mkdtemp(home)) return 1;
  setenv("STARPU_HOME", home, 1);
  setenv("STARPU_CALIBRATE", "1", 1);
  unsetenv("STARPU_PERF_MODEL_DIR");
  starpu_conf_init(&conf);
  conf.sched_policy_name = "lws";
  conf.ncuda = 0;
  if (starpu_init(&conf) != 0) return 1;
  const TTest *tests[] = {tiny_cpu_share_gives_gpu_alone,
                          unknown_rates_give_gpu_alone,
                          comparable_rates_split_in_proportion,
                          transfers_can_veto_the_split,
                          perf_size_key_unique,
                          defaults_on_cpu_workers,
                          gpu_tile_rule,
                          split_tiling_bitwise,
                          models_give_rates,
                          NULL};
  Suite *s = sq_test_suite("hybrid", 300, tests);
  const int status = sq_test_run(s, 0);
  starpu_shutdown();
  char cmd[64];
  snprintf(cmd, sizeof(cmd), "rm -rf %s", home);
  if (system(cmd) != 0) fprintf(stderr, "test_hybrid: could not remove %s\n", home);
  return status;
}
