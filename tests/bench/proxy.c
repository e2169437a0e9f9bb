/**
 * @file proxy.c  `starquake-proxy`: throughput of the wave-propagation kernels as StarPU tasks on a
 * periodic box mesh (global time stepping), on CPU workers, a GPU, or both.
 *
 *   starquake-proxy ELEMENTS STEPS KERNEL ORDER PRECISION WORKERS [TILE]
 *
 * ELEMENTS, KERNEL, ORDER and PRECISION take comma lists (ORDER also a range such as 2-7); every
 * combination runs in one StarPU session.  STEPS 0 picks the number of timed steps so that each
 * point takes about SQ_PROXY_SECONDS (default 0.5 s).  Prints, per point, element updates per
 * second, GFLOP/s from the FLOP model of docs/PERFORMANCE.md (dense, and on non-zeros only: gflops_nz,
 * sq_ref_flops_nonzero), estimated GB/s from its byte model,
 * both against the peaks in SQ_PEAK_SP_GFLOPS, SQ_PEAK_DP_GFLOPS and SQ_PEAK_GBS (defaults: the
 * H100 figures of shared/device/README.md), the bytes StarPU moved between memory nodes per timed
 * step, and how many tasks ran on CPU and GPU workers (counted by StarPU's task profiling, which costs
 * a few microseconds per task: on for WORKERS=both, else only with SQ_PROXY_PROFILING=1; -1 without) and, counted
 * so too, cpu_busy: the share of the CPU workers' time spent executing tasks.
 * Scheduler: STARPU_SCHED, else dmdas for WORKERS=both and lws otherwise.  WORKERS=both takes the run's
 * defaults (runtime/hybrid.c): without TILE each GPU's part in one tile, and a CPU share only where the
 * calibrated perf models of both kinds make it pay; SQ_CPU_SHARE and SQ_CPU_TILE override.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include <time.h>

#include "sq_graph.h"

enum kernel_kind { K_ALL, K_ADER, K_LOCAL, K_NEIGHBOR, K_PREDICT, K_N };
static const char *kernel_names[K_N] = {"all", "ader", "local", "neighbor", "predict"};
typedef enum { W_CPU, W_GPU, W_BOTH } workers_kind;

static double wall_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* ---- models (docs/PERFORMANCE.md) ------------------------------------------------------------ */

/**
 * FLOPs per element of the ADER predictor, dense 2mnk per product, with the hierarchical
 * truncation: step i multiplies the nb(O-i+1) non-zero rows of D^{i-1} into nb(O-i) rows.  The GPU
 * kernel forms (K D) A^T on the nb(O-i) output rows, the CPU kernel K (D A^T) on the nb(O-i+1)
 * input rows; both add the Taylor term 2 nb(O-i) 9 and the initial dt Q (9 B).
 */
static double flops_ader(int order, int gpu_order) {
  double f = 9.0 * sq_nbasis(order);
  for (int i = 1; i < order; ++i) {
    const double nin = sq_nbasis(order - i + 1), nout = sq_nbasis(order - i);
    f += 3.0 * (2.0 * nout * nin * 9.0 + 2.0 * (gpu_order ? nout : nin) * 81.0) + 2.0 * nout * 9.0;
  }
  return f;
}
/** One full product X (Q M^T): 2 B 81 + 2 B^2 9. */
static double flops_product(int order) {
  const double B = sq_nbasis(order);
  return 2.0 * B * 81.0 + 2.0 * B * B * 9.0;
}
/** FLOPs per element of the neighbour flux, on the CPU and the GPU: four products X (Q M^T). */
static double flops_neighbor(int order) { return 4.0 * flops_product(order); }
static double flops_kernel(int k, int order, int gpu_order) {
  switch (k) {
  case K_ADER: return flops_ader(order, gpu_order);
  case K_LOCAL: return 7.0 * flops_product(order);
  case K_NEIGHBOR: return flops_neighbor(order);
  case K_PREDICT: return flops_ader(order, gpu_order) + 7.0 * flops_product(order);
  default: return flops_ader(order, gpu_order) + 7.0 * flops_product(order) + flops_neighbor(order);
  }
}
/** FLOPs per element of a kernel counted on non-zeros only (sq_ref_flops_nonzero: the least work of an update). */
static double flops_kernel_nonzero(int k, const sq_ref *ref) {
  double f[3];
  sq_ref_flops_nonzero(ref, f);
  switch (k) {
  case K_ADER: return f[0];
  case K_LOCAL: return f[1];
  case K_NEIGHBOR: return f[2];
  case K_PREDICT: return f[0] + f[1];
  default: return f[0] + f[1] + f[2];
  }
}
/**
 * Bytes per element that a kernel must move at least (every input read once, every output written
 * once; reference matrices and the neighbours' re-reads not counted).
 */
static double bytes_kernel(int k, int order, size_t rs) {
  const double nq = 9.0 * sq_nbasis(order) * rs, star = 243.0 * rs, flux = 324.0 * rs, links = 4 * 16.0;
  const double ader = 2 * nq + star, local = 3 * nq + star + flux, neighbor = 3 * nq + flux + links;
  switch (k) {
  case K_ADER: return ader;
  case K_LOCAL: return local;
  case K_NEIGHBOR: return neighbor;
  case K_PREDICT: return 3 * nq + star + flux;
  default: return ader + local + neighbor;
  }
}

/* ---- runtime helpers -------------------------------------------------------------------------- */

static long long bus_bytes(void) {
  long long total = 0;
  for (int b = 0; b < starpu_bus_get_count(); ++b) {
    struct starpu_profiling_bus_info info;
    if (starpu_bus_get_profiling_info(b, &info) == 0) total += info.transferred_bytes;
  }
  return total;
}

/* Tasks per worker kind since the last call, and the seconds CPU workers spent executing them (-1: not counted). */
static void task_counts(long long *cpu, long long *gpu, double *cpu_exec) {
  *cpu = *gpu = -1;
  *cpu_exec = -1;
  if (starpu_profiling_status_get() != STARPU_PROFILING_ENABLE) return; /* not counted */
  *cpu = *gpu = 0;
  *cpu_exec = 0;
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w) {
    struct starpu_profiling_worker_info info;
    if (starpu_profiling_worker_get_info((int)w, &info)) continue;
    if (starpu_worker_get_type((int)w) == STARPU_CUDA_WORKER) *gpu += info.executed_tasks;
    else *cpu += info.executed_tasks, *cpu_exec += 1e-6 * starpu_timing_timespec_to_us(&info.executing_time);
  }
}

/* Submit one time step of kernel k (not "all") over every tile. */
static int submit_step(sq_runtime *rt, int k, double dt) {
  const sq_disc *d = sq_runtime_disc(rt);
  for (int t = 0; t < d->ntile; ++t) {
    const sq_buffer_mode none = SQ_BUFFER_NONE;
    switch (k) {
    case K_ADER: SQ_CALL(sq_insert_ader(rt, t, dt, SQ_BUFFER_NONE, 0)); break;
    case K_LOCAL: SQ_CALL(sq_insert_local(rt, t, 0)); break;
    case K_NEIGHBOR: SQ_CALL(sq_insert_neighbor(rt, t, dt, 0, 0)); break;
    default: SQ_CALL(sq_insert_merged_predict(rt, 1, &t, &dt, &none, 0)); break;
    }
  }
  return SQ_SUCCESS;
}

/* Submit `count` time steps of kernel k over every tile. */
static int submit_steps(sq_runtime *rt, int k, double dt, int64_t count) {
  if (k == K_ALL) { /* SQ_FUSE_PREDICTOR=1: ader + local as one task; SQ_FUSE_STEPS=1: whole steps, and
                     * SQ_STEPS_PER_TASK=N of them per task (runtime.steps_per_task) */
    const char *fuse = getenv("SQ_FUSE_PREDICTOR"), *steps = getenv("SQ_FUSE_STEPS");
    const char *per = getenv("SQ_STEPS_PER_TASK");
    const sq_graph_options opt = {.fuse_predictor = fuse && !strcmp(fuse, "1"),
                                  .fuse_steps = steps && !strcmp(steps, "1"),
                                  .steps_per_task = per ? atoi(per) : 1};
    double *times;
    SQ_CALL(SQ_CALLOC(times, (size_t)count + 1));
    for (int64_t i = 0; i <= count; ++i) times[i] = (double)i * dt;
    const int ierr = sq_graph_sync_intervals(rt, dt, count, times, &opt, NULL);
    SQ_FREE(times);
    return ierr;
  }
  for (int64_t s = 0; s < count; ++s) SQ_CALL(submit_step(rt, k, dt));
  return SQ_SUCCESS;
}

static int wait_all(void) {
  const int ret = starpu_task_wait_for_all();
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "starpu_task_wait_for_all failed (%d)", ret);
  return SQ_SUCCESS;
}

/* ---- arguments -------------------------------------------------------------------------------- */

typedef struct proxy_opts {
  int nelem_list, norder, nprec, nkernel;
  int64_t elems[32];
  int orders[8];
  sq_precision precs[2];
  int kernels[K_N];
  int64_t steps;
  workers_kind workers;
  int tile;
  double peak_sp, peak_dp, peak_bw, seconds;
  const char *peak_source;
} proxy_opts;

static int parse_list(const char *arg, const char *what, int (*one)(const char *, proxy_opts *), proxy_opts *o) {
  char buf[512];
  snprintf(buf, sizeof(buf), "%s", arg);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
    SQ_CHECK(one(tok, o) == 0, SQ_ERR_INPUT, "bad %s '%s'", what, tok);
  return SQ_SUCCESS;
}
static int one_elems(const char *s, proxy_opts *o) {
  char *end;
  const double v = strtod(s, &end);
  double mult = 1;
  if (*end == 'k' || *end == 'K') mult = 1e3, ++end;
  else if (*end == 'M' || *end == 'm') mult = 1e6, ++end;
  if (*end || v <= 0 || o->nelem_list >= 32) return 1;
  o->elems[o->nelem_list++] = (int64_t)(v * mult);
  return 0;
}
static int one_order(const char *s, proxy_opts *o) {
  int lo, hi;
  if (sscanf(s, "%d-%d", &lo, &hi) != 2) {
    char *end;
    lo = hi = (int)strtol(s, &end, 10);
    if (*end) return 1;
  }
  if (lo < SQ_ORDER_MIN || hi > SQ_ORDER_MAX || lo > hi) return 1;
  for (int i = lo; i <= hi && o->norder < 8; ++i) o->orders[o->norder++] = i;
  return 0;
}
static int one_prec(const char *s, proxy_opts *o) {
  if (o->nprec >= 2) return 1;
  if (!strcmp(s, "single") || !strcmp(s, "s") || !strcmp(s, "f32")) o->precs[o->nprec++] = SQ_F32;
  else if (!strcmp(s, "double") || !strcmp(s, "d") || !strcmp(s, "f64")) o->precs[o->nprec++] = SQ_F64;
  else return 1;
  return 0;
}
static int one_kernel(const char *s, proxy_opts *o) {
  for (int k = 0; k < K_N; ++k)
    if (!strcmp(s, kernel_names[k]) && o->nkernel < K_N) {
      o->kernels[o->nkernel++] = k;
      return 0;
    }
  return 1;
}

static void usage(void) {
  printf(
      "usage: starquake-proxy ELEMENTS STEPS KERNEL ORDER PRECISION WORKERS [TILE]\n"
      "  ELEMENTS   about this many tetrahedra (periodic box, 6 per cube); list: 1k,64k,1M\n"
      "  STEPS      timed time steps; 0: enough for about SQ_PROXY_SECONDS (0.5) per point\n"
      "  KERNEL     all|ader|local|neighbor|predict (predict: fused ader + local); list allowed\n"
      "  ORDER      2..7; list (2,4) or range (2-7)\n"
      "  PRECISION  single|double; list allowed\n"
      "  WORKERS    cpu|gpu|both\n"
      "  TILE       elements per tile (default: 1024 for cpu, 262144 for gpu, the run's default for both)\n"
      "env: STARPU_SCHED, SQ_PEAK_SP_GFLOPS, SQ_PEAK_DP_GFLOPS, SQ_PEAK_GBS, SQ_PEAK_SOURCE, SQ_PROXY_SECONDS,\n"
      "     SQ_PROXY_PROFILING (1: count the tasks per worker kind; default only for WORKERS=both),\n"
      "     SQ_CPU_SHARE, SQ_CPU_TILE (runtime.cpu_share, runtime.cpu_tile_size; SQ_CPU_SHARE=-1: StarPU places all),\n"
      "     SQ_CPU_TASK_THREADS (OpenMP threads per CPU task, runtime.cpu_task_threads; default 1),\n"
      "     for KERNEL=all: SQ_FUSE_PREDICTOR=1 (runtime.fuse_predictor), SQ_FUSE_STEPS=1 (runtime.fuse_steps),\n"
      "     SQ_STEPS_PER_TASK=N (runtime.steps_per_task; with SQ_FUSE_STEPS=1 and one tile)\n");
}

static double env_double(const char *name, double fallback) {
  const char *v = getenv(name);
  return v && *v ? atof(v) : fallback;
}

static int parse_args(int argc, char **argv, proxy_opts *o) {
  memset(o, 0, sizeof(*o));
  SQ_CHECK(argc == 7 || argc == 8, SQ_ERR_INPUT, "expected 6 or 7 arguments, got %d (run with --help)", argc - 1);
  SQ_CALL(parse_list(argv[1], "element count", one_elems, o));
  char *end;
  o->steps = strtoll(argv[2], &end, 10);
  SQ_CHECK(!*end && o->steps >= 0, SQ_ERR_INPUT, "bad step count '%s'", argv[2]);
  SQ_CALL(parse_list(argv[3], "kernel", one_kernel, o));
  SQ_CALL(parse_list(argv[4], "order", one_order, o));
  SQ_CALL(parse_list(argv[5], "precision", one_prec, o));
  if (!strcmp(argv[6], "cpu")) o->workers = W_CPU;
  else if (!strcmp(argv[6], "gpu")) o->workers = W_GPU;
  else if (!strcmp(argv[6], "both")) o->workers = W_BOTH;
  else return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "bad workers '%s': cpu, gpu or both", argv[6]);
  /* no TILE: 262144 for the GPU alone, 1024 for CPUs; both: the run's default (runtime/hybrid.c) */
  o->tile = argc == 8 ? atoi(argv[7]) : (o->workers == W_GPU ? 262144 : o->workers == W_CPU ? 1024 : 0);
  SQ_CHECK(argc < 8 || o->tile >= 1, SQ_ERR_INPUT, "bad tile size '%s'", argv[7]);
  o->peak_sp = env_double("SQ_PEAK_SP_GFLOPS", 51400);
  o->peak_dp = env_double("SQ_PEAK_DP_GFLOPS", 62100);
  o->peak_bw = env_double("SQ_PEAK_GBS", 2960);
  o->peak_source = getenv("SQ_PEAK_SOURCE") ? getenv("SQ_PEAK_SOURCE") : "shared/device/README.md (H100, PyTorch)";
  o->seconds = env_double("SQ_PROXY_SECONDS", 0.5);
  return SQ_SUCCESS;
}

/* ---- one point ---------------------------------------------------------------------------------- */

static void fill_dofs(sq_disc *d) {
  const int64_t len = d->nelem * d->nbasis * 9;
  uint64_t s = 0x2545f4914f6cdd1dull;
  for (int64_t i = 0; i < len; ++i) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    const double v = ((double)(s >> 11) / 9007199254740992.0 - 0.5) * 1e-2;
    if (d->opt.precision == SQ_F64) ((double *)d->dofs)[i] = v;
    else ((float *)d->dofs)[i] = (float)v;
  }
}

static int run_point(const proxy_opts *o, const sq_mesh *mesh, const sq_material *mat, int order, sq_precision prec) {
  /* the run's defaults (runtime/hybrid.c: tile sizes, the CPUs' share from the calibrated rates); SQ_CPU_SHARE
   * (runtime.cpu_share) and SQ_CPU_TILE (runtime.cpu_tile_size) override; SQ_CPU_SHARE=-1: no split, StarPU
   * places every task */
  const char *share_env = getenv("SQ_CPU_SHARE"), *cpu_tile_env = getenv("SQ_CPU_TILE");
  const sq_hybrid_request req = {.order = order,
                                 .precision = prec,
                                 .nelem = mesh->ncell,
                                 .tile_size = o->tile,
                                 .cpu_tile_size = cpu_tile_env ? atoi(cpu_tile_env) : 0,
                                 .cpu_share = share_env ? atof(share_env) : -1.0};
  sq_hybrid_defaults h;
  SQ_CALL(sq_runtime_hybrid_defaults(&req, &h));
  const double cpu_share = share_env && atof(share_env) < 0 ? -1.0 : h.cpu_share;
  if (o->workers == W_BOTH && !share_env)
    printf("# default split: %s (rates: CPUs %.4g, GPUs %.4g updates/s; share %.4f, modelled gain %.3fx)\n",
           h.plan.reason, h.rate_cpu, h.rate_gpu, h.cpu_share, h.plan.speedup);
  sq_disc_options dopt = {.order = order,
                          .precision = prec,
                          .cfl = 0.5,
                          .tile_size = h.tile_size,
                          .lts_rate = 1,
                          .max_clusters = 1,
                          .small_share = cpu_share > 0 ? cpu_share : 0.0,
                          .small_tile_size = cpu_share > 0 ? h.cpu_tile_size : 0};
  sq_disc *d;
  SQ_CALL(sq_disc_create(mesh, mat, &dopt, &d));
  fill_dofs(d);
  sq_runtime *rt;
  SQ_CALL(sq_runtime_create(d, &rt));
  /* SQ_CPU_SHARE: static CPU/GPU split of the tiles (runtime.cpu_share), for "both" */
  const double placed = sq_runtime_split_tiles(rt, cpu_share);
  if (placed >= 0)
    printf("# static split: %.1f %% of the elements on CPU workers (SQ_CPU_SHARE=%g)\n", 100.0 * placed, cpu_share);
  /* SQ_GPU_AFFINITY=0: StarPU places tiles on the GPUs freely (runtime.gpu_affinity: false) */
  const char *affinity = getenv("SQ_GPU_AFFINITY");
  const int parts = affinity && !strcmp(affinity, "0") ? 0 : sq_runtime_place_tiles_on_gpus(rt);
  if (parts > 0) printf("# tiles split into %d contiguous parts, one per GPU\n", parts);
  const double dt = d->cluster_dt[0];
  const int gpu_model = o->workers != W_CPU;
  unsigned ncpu = starpu_cpu_worker_get_count(), ngpu = starpu_cuda_worker_get_count();
  for (int ki = 0; ki < o->nkernel; ++ki) {
    const int k = o->kernels[ki];
    /* warm-up: data upload, tint for local/neighbor, perf-model calibration (dmda/dmdas want ~10 samples) */
    const int warm = o->workers == W_BOTH ? 3 + 30 / (d->ntile > 0 ? d->ntile : 1) : 2;
    SQ_CALL(submit_steps(rt, K_ALL, dt, 1));
    SQ_CALL(submit_steps(rt, k, dt, warm - 1));
    SQ_CALL(wait_all());
    int64_t steps = o->steps;
    if (steps == 0) { /* probe steps decide: 10 in a row, as the timed ones run (one alone would add a
                       * whole submit-and-wait latency to a step of a few tens of microseconds) */
      const int probe = 10;
      const double t0 = wall_now();
      SQ_CALL(submit_steps(rt, k, dt, probe));
      SQ_CALL(wait_all());
      const double t1 = (wall_now() - t0) / probe;
      steps = (int64_t)ceil(o->seconds / (t1 > 1e-7 ? t1 : 1e-7));
      steps = steps < 3 ? 3 : steps > 50000 ? 50000 : steps;
    }
    long long c, g;
    double cpu_exec;
    task_counts(&c, &g, &cpu_exec);
    bus_bytes();
    const double t0 = wall_now();
    SQ_CALL(submit_steps(rt, k, dt, steps));
    SQ_CALL(wait_all());
    const double secs = wall_now() - t0;
    const long long moved = bus_bytes();
    task_counts(&c, &g, &cpu_exec);
    const double upd = (double)d->nelem * steps / secs;
    const double gflops = upd * flops_kernel(k, order, gpu_model) * 1e-9;
    const double gflops_nz = upd * flops_kernel_nonzero(k, d->ref) * 1e-9;
    const double gbs = upd * bytes_kernel(k, order, sq_real_size(prec)) * 1e-9;
    const double peak = prec == SQ_F64 ? o->peak_dp : o->peak_sp;
    const char *wname = o->workers == W_CPU ? "cpu" : o->workers == W_GPU ? "gpu" : "both";
    printf("RESULT kernel=%s order=%d prec=%s elems=%lld workers=%s ncpu=%u ngpu=%u sched=%s tile=%d steps=%lld "
           "time=%.4f upd_per_s=%.4e gflops=%.1f pct_peak_flops=%.1f gflops_nz=%.1f pct_peak_nz=%.1f gbs=%.1f "
           "pct_peak_bw=%.1f "
           "gflops_per_cpu=%.2f bus_bytes_per_step=%.0f tasks_cpu=%lld tasks_gpu=%lld cpu_share=%.3f cpu_tile=%d "
           "cpu_task_threads=%d cpu_busy=%.3f\n",
           kernel_names[k], order, prec == SQ_F64 ? "double" : "single", (long long)d->nelem, wname, ncpu, ngpu,
           getenv("STARPU_SCHED") ? getenv("STARPU_SCHED") : "default", dopt.tile_size, (long long)steps, secs, upd,
           gflops, 100.0 * gflops / peak, gflops_nz, 100.0 * gflops_nz / peak, gbs, 100.0 * gbs / o->peak_bw,
           ncpu && !ngpu ? gflops / (ncpu * sq_kernel_threads()) : 0.0, (double)moved / steps, c, g, placed,
           dopt.small_tile_size > 0 ? dopt.small_tile_size : dopt.tile_size, sq_kernel_threads(),
           cpu_exec >= 0 && ncpu ? cpu_exec / (secs * ncpu) : -1.0);
    fflush(stdout);
  }
  sq_runtime_destroy(rt);
  sq_disc_destroy(d);
  return SQ_SUCCESS;
}

int main(int argc, char **argv) {
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    usage();
    return 0;
  }
  proxy_opts o;
  if (parse_args(argc, argv, &o)) {
    usage();
    return 1;
  }
  setenv("STARPU_SILENT", "1", 0);
  struct starpu_conf conf;
  starpu_conf_init(&conf);
  /* SQ_CPU_TASK_THREADS (runtime.cpu_task_threads): an OpenMP team per CPU task, on unbound workers */
  sq_runtime_set_cpu_task_threads(getenv("SQ_CPU_TASK_THREADS") ? atoi(getenv("SQ_CPU_TASK_THREADS")) : 1);
  if (o.workers == W_CPU) conf.ncuda = 0;
  if (o.workers == W_GPU) conf.ncpus = 0;
  if (o.workers != W_CPU && conf.ncuda == 0) conf.ncuda = 1; /* STARPU_NCUDA=0 in the environment */
  conf.nopencl = 0;
  if (!getenv("STARPU_SCHED")) {
    conf.sched_policy_name = o.workers == W_BOTH ? "dmdas" : "lws";
    setenv("STARPU_SCHED", conf.sched_policy_name, 1); /* only for the report */
  }
  if (starpu_init(&conf) != 0) {
    fprintf(stderr, "starquake-proxy: starpu_init failed: check STARPU_* environment variables\n");
    return 1;
  }
  if (o.workers != W_CPU && starpu_cuda_worker_get_count() == 0) {
    fprintf(stderr, "starquake-proxy: workers=%s but StarPU found no CUDA device\n", argv[6]);
    starpu_shutdown();
    return 1;
  }
  /* StarPU's per-task profiling counts the tasks per worker kind (the bus statistics need none): wanted
   * where CPUs and GPUs share the work, an overhead of its own on the latency of small GPU tasks */
  const char *prof = getenv("SQ_PROXY_PROFILING");
  if (prof && *prof ? strcmp(prof, "0") != 0 : o.workers == W_BOTH)
    starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
  printf("# starquake-proxy: peaks SP %.0f GFLOP/s, DP %.0f GFLOP/s, memory %.0f GB/s (%s)\n", o.peak_sp, o.peak_dp,
         o.peak_bw, o.peak_source);
  printf("# CPU element products: %s (double), %s (single)\n", sq_kernel_gemm_name(SQ_F64),
         sq_kernel_gemm_name(SQ_F32));
  int err = 0;
  for (int ie = 0; ie < o.nelem_list && !err; ++ie) {
    sq_box_params bp;
    sq_box_params_default(&bp);
    int c = (int)lround(cbrt((double)o.elems[ie] / 6.0));
    c = c < 2 ? 2 : c;
    bp.n[0] = bp.n[1] = bp.n[2] = c;
    sq_mesh *mesh;
    if ((err = sq_mesh_box(&bp, &mesh))) break;
    sq_material *mat = malloc(sizeof(sq_material) * mesh->ncell);
    if (!mat) {
      err = SQ_ERR_MEMORY;
      break;
    }
    for (int64_t i = 0; i < mesh->ncell; ++i) mat[i] = (sq_material){.rho = 2.7, .lambda = 3.2, .mu = 3.2};
    for (int io = 0; io < o.norder && !err; ++io)
      for (int ip = 0; ip < o.nprec && !err; ++ip) err = run_point(&o, mesh, mat, o.orders[io], o.precs[ip]);
    free(mat);
    sq_mesh_destroy(mesh);
  }
  starpu_shutdown();
  return err ? 1 : 0;
}
