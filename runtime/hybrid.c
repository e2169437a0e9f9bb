/**
 * @file hybrid.c  The default split of the element work between CPU and GPU workers: the rule that turns
 * each kind's rate into the CPU's share of the elements (sq_hybrid_split, no StarPU), the rates read back
 * from the calibrated performance models of the element tasks, and the defaults of a run (tile sizes,
 * share) derived from them (docs/PERFORMANCE.md, "CPU and GPU together").
 */
#include <math.h>
#include <string.h>

#include "sq_runtime_impl.h"

/* The step time of the split with a CPU share s: the CPU's part, and the GPU's part plus the data that
 * crosses between the two regions each step.  StarPU moves whole tiles: the time-integrated DOFs of the GPU
 * tiles next to the CPU's region go down (two whole GPU tiles, one per side of the region), and as many
 * elements of CPU tiles at most go up.  The transfers are counted on the GPU's critical path: its
 * neighbour tasks at the border wait for them. */
static void split_times(const sq_hybrid_input *in, double s, double *t_cpu, double *t_gpu) {
  const double n = (double)in->nelem, ncpu = s * n, ngpu = n - ncpu, border = 2.0 * in->gpu_tile;
  double moved = 0.0;
  if (ncpu > 0.0) moved = fmin(ncpu, border) + fmin(border, ngpu);
  *t_cpu = ncpu / in->rate_cpu;
  *t_gpu = ngpu / in->rate_gpu + moved * in->elem_bytes / in->link_bytes_per_s;
}

void sq_hybrid_split(const sq_hybrid_input *in, sq_hybrid_plan *out) {
  memset(out, 0, sizeof(*out));
  out->speedup = 1.0;
  if (!(in->rate_gpu > 0.0) || !(in->rate_cpu > 0.0) || in->nelem <= 0) {
    out->reason = "no calibrated rate for one kind of worker: GPUs only";
    return;
  }
  out->ideal_share = in->rate_cpu / (in->rate_cpu + in->rate_gpu);
  out->sum_ratio = in->rate_gpu / (in->rate_cpu + in->rate_gpu);
  if (!(in->elem_bytes > 0.0) || !(in->link_bytes_per_s > 0.0)) {
    out->reason = "no host-GPU bandwidth: GPUs only";
    return;
  }
  /* the balance of the two kinds' times: t_cpu - t_gpu grows with s */
  double lo = 0.0, hi = 1.0, tc, tg;
  split_times(in, hi, &tc, &tg);
  if (tc > tg)
    for (int it = 0; it < 60; ++it) {
      const double mid = 0.5 * (lo + hi);
      split_times(in, mid, &tc, &tg);
      if (tc > tg) hi = mid;
      else lo = mid;
    }
  const double s = hi;
  split_times(in, s, &tc, &tg);
  const double t0 = (double)in->nelem / in->rate_gpu, t = fmax(tc, tg);
  const double gain = t0 / t;
  if (gain < 1.0 + SQ_HYBRID_MIN_GAIN) {
    /* even without transfers the split would gain 1 / (1 - ideal share) */
    out->reason = 1.0 / (1.0 - out->ideal_share) < 1.0 + SQ_HYBRID_MIN_GAIN
                      ? "the CPUs' share of the sum is too small: GPUs only"
                      : "the transfers would eat the CPUs' share: GPUs only";
    return;
  }
  out->cpu_share = s;
  out->speedup = gain;
  out->reason = "CPUs and GPUs, in proportion to their rates";
}

int sq_hybrid_gpu_tile(int64_t nelem, int ngpu, int lts) {
  const int64_t n = ngpu > 1 ? ngpu : 1, per_gpu = (nelem + n - 1) / n, tile = lts ? (per_gpu + 1) / 2 : per_gpu;
  return (int)(tile < SQ_GPU_TILE_MIN ? SQ_GPU_TILE_MIN : tile > SQ_GPU_TILE_MAX ? SQ_GPU_TILE_MAX : tile);
}

/* ---- rates from the performance models ------------------------------------------------------------- */

/* The least time per element (µs) among the entries of @p m on @p arch sampled at least
 * SQ_HYBRID_MIN_SAMPLES times for this order and precision (sq_perf_size_key); -1: none. */
static double best_us_per_element(struct starpu_perfmodel *m, struct starpu_perfmodel_arch *arch, size_t code) {
  struct starpu_perfmodel_per_arch *pa = starpu_perfmodel_get_model_per_arch(m, arch, 0);
  double best = -1.0;
  if (!pa) return best;
  for (struct starpu_perfmodel_history_list *l = pa->list; l; l = l->next) {
    const struct starpu_perfmodel_history_entry *e = l->entry;
    if (!e || e->nsample < SQ_HYBRID_MIN_SAMPLES || e->size < SQ_PERF_KEY_BASE || e->size % SQ_PERF_KEY_BASE != code)
      continue;
    const double us = e->mean / (double)(e->size / SQ_PERF_KEY_BASE);
    if (best < 0 || us < best) best = us;
  }
  return best;
}

double sq_runtime_kind_us_per_element(int cuda, int order, sq_precision precision) {
  const enum starpu_worker_archtype want = cuda ? STARPU_CUDA_WORKER : STARPU_CPU_WORKER;
  int worker = -1;
  for (unsigned w = 0; w < starpu_worker_get_count() && worker < 0; ++w)
    if (starpu_worker_get_type((int)w) == want) worker = (int)w;
  if (worker < 0) return -1.0;
  struct starpu_perfmodel_arch *arch = starpu_worker_get_perf_archtype(worker, STARPU_NMAX_SCHED_CTXS);
  const size_t code = sq_perf_size_key(0, order, precision);
  static const char *const symbols[] = {"sq_ader", "sq_local", "sq_neighbor"};
  double us = 0.0;
  for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); ++i) {
    struct starpu_perfmodel m;
    memset(&m, 0, sizeof(m));
    if (starpu_perfmodel_load_symbol(symbols[i], &m)) return -1.0; /* never calibrated */
    const double t = best_us_per_element(&m, arch, code);
    starpu_perfmodel_unload_model(&m);
    if (t <= 0) return -1.0;
    us += t;
  }
  return us;
}

int sq_runtime_kind_rates(int order, sq_precision precision, double *rate_cpu, double *rate_gpu) {
  *rate_cpu = *rate_gpu = 0.0;
  int ncpu = 0;
  const int ndev = sq_runtime_cuda_devices(NULL, NULL);
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w) ncpu += starpu_worker_get_type((int)w) == STARPU_CPU_WORKER;
  if (ncpu == 0 || ndev == 0) return 0;
  const double us_cpu = sq_runtime_kind_us_per_element(0, order, precision);
  const double us_gpu = sq_runtime_kind_us_per_element(1, order, precision);
  if (us_cpu <= 0 || us_gpu <= 0) return 0;
  *rate_cpu = 1e6 * ncpu / us_cpu;
  *rate_gpu = 1e6 * ndev / us_gpu;
  return 1;
}

/* The host-GPU bandwidth StarPU measured for its bus model, in bytes/s (the slower direction); 0: unknown. */
static double link_bandwidth(void) {
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w) {
    if (starpu_worker_get_type((int)w) != STARPU_CUDA_WORKER) continue;
    const unsigned node = starpu_worker_get_memory_node(w);
    const double up = starpu_transfer_bandwidth(STARPU_MAIN_RAM, node),
                 down = starpu_transfer_bandwidth(node, STARPU_MAIN_RAM);
    const double mbs = fmin(up, down);
    return mbs > 0 && isfinite(mbs) ? 1e6 * mbs : 0.0;
  }
  return 0.0;
}

int sq_runtime_hybrid_defaults(const sq_hybrid_request *req, sq_hybrid_defaults *out) {
  memset(out, 0, sizeof(*out));
  out->cpu_share = -1.0;
  const int gpus = starpu_cuda_worker_get_count() > 0, cpus = starpu_cpu_worker_get_count() > 0;
  out->tile_size = req->tile_size > 0 ? req->tile_size
                   : gpus             ? sq_hybrid_gpu_tile(req->nelem, sq_runtime_cuda_devices(NULL, NULL), req->lts)
                                      : SQ_CPU_TILE_DEFAULT;
  out->cpu_tile_size = req->cpu_tile_size > 0 ? req->cpu_tile_size : SQ_CPU_SHARE_TILE_DEFAULT;
  if (req->cpu_share >= 0) { /* given: used as it is (sq_runtime_split_tiles) */
    out->cpu_share = req->cpu_share;
    out->plan.reason = "runtime.cpu_share as given";
    return SQ_SUCCESS;
  }
  if (!gpus || !cpus) return SQ_SUCCESS; /* one kind of worker: nothing to split */
  sq_hybrid_input in = {.nelem = req->nelem,
                        .elem_bytes = 9.0 * sq_nbasis(req->order) * (double)sq_real_size(req->precision),
                        .link_bytes_per_s = link_bandwidth(),
                        .gpu_tile = out->tile_size};
  sq_runtime_kind_rates(req->order, req->precision, &in.rate_cpu, &in.rate_gpu);
  out->rate_cpu = in.rate_cpu;
  out->rate_gpu = in.rate_gpu;
  sq_hybrid_split(&in, &out->plan);
  out->cpu_share = out->plan.cpu_share; /* 0: every element task on the GPUs */
  return SQ_SUCCESS;
}
