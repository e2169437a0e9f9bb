/** @file runtime.c  Registration of the solver's arrays with StarPU, tile by tile. */
#include <errno.h>
#include <starpu_mpi.h>
#include <stdlib.h>
#include <string.h>

#include "sq_codelets.h"
#ifdef SQ_USE_CUDA
#include "sq_cuda.h"
#endif
#include "sq_fault.h"

static void register_block(starpu_data_handle_t *h, void *base, int64_t begin, int64_t n, size_t elem_bytes) {
  starpu_vector_data_register(h, STARPU_MAIN_RAM, (uintptr_t)((char *)base + (size_t)begin * elem_bytes), (uint32_t)n,
                              elem_bytes);
}

int sq_host_pin(void *ptr, size_t bytes) {
  /* pageable copies to and from a GPU are synchronous and staged through a bounce buffer: the data
   * that crosses PCIe often (halo rows, the solution) is page-locked instead */
  if (starpu_cuda_worker_get_count() == 0 || bytes == 0) return 0;
  return starpu_memory_pin(ptr, bytes) == 0;
}

void sq_runtime_set_cpu_task_threads(int nthreads) {
  sq_kernel_set_threads(nthreads);
  if (sq_kernel_threads() > 1) setenv("STARPU_WORKERS_NOBIND", "1", 1); /* a bound worker's team shares one core */
}

/* Page-lock, where GPU workers exist:
 * - the whole dofs array: the solution comes back to the host for every snapshot, checkpoint and at
 *   the end (pinned, 1.7 GB came back from an H100 in 0.035 s);
 * - with CPU workers too, the whole tint, LTS buffer and derivative arrays, which then cross between
 *   host and GPU every step;
 * - else, with several ranks, the rows of the ghost tiles in the arrays that receive halo messages (maximal
 *   runs of consecutive ghost tiles; a run that shares a page with one already pinned stays pageable). */
static int pin_host_rows(sq_runtime *rt) {
  const sq_disc *d = rt->disc;
  if (starpu_cuda_worker_get_count() == 0) return SQ_SUCCESS;
  const size_t eb = sq_disc_elem_bytes(d);
  SQ_CALL(SQ_CALLOC(rt->pinned, 3 * (size_t)d->ntile + 2));
  if (sq_host_pin(d->dofs, (size_t)d->nelem * eb)) rt->pinned[rt->npinned++] = d->dofs;
  void *base[3] = {d->tint, d->buffer, d->derivs};
  const size_t row[3] = {eb, eb, eb * d->opt.order};
  if (starpu_cpu_worker_get_count() > 0) {
    /* CPU and GPU workers: any tile's predictor data may cross to the other side, every step (64k
     * elements, order 6 single precision, H100, dmda: 7.61 M updates/s pageable, 8.16 pinned) */
    for (int k = 0; k < 3; ++k)
      if (base[k] && sq_host_pin(base[k], (size_t)d->nelem * row[k])) rt->pinned[rt->npinned++] = base[k];
    return SQ_SUCCESS;
  }
  if (d->opt.nranks < 2) return SQ_SUCCESS;
  for (int t = 0; t < d->ntile;) {
    if (d->tile[t].layer != SQ_LAYER_GHOST) {
      ++t;
      continue;
    }
    int u = t + 1;
    while (u < d->ntile && d->tile[u].layer == SQ_LAYER_GHOST && d->tile[u].begin == d->tile[u - 1].end) ++u;
    for (int k = 0; k < 3; ++k) {
      if (!base[k]) continue;
      char *p = (char *)base[k] + (size_t)d->tile[t].begin * row[k];
      if (sq_host_pin(p, (size_t)(d->tile[u - 1].end - d->tile[t].begin) * row[k])) rt->pinned[rt->npinned++] = p;
    }
    t = u;
  }
  return SQ_SUCCESS;
}

int sq_runtime_create(sq_disc *d, sq_runtime **out) {
  sq_runtime *rt;
  SQ_CALL(SQ_CALLOC(rt, 1));
  rt->disc = d;
  for (int k = 0; k < SQ_NTASK_KINDS; ++k) rt->prof[k].rt = rt, rt->prof[k].kind = k;
  const int nt = d->ntile;
  SQ_CALL(SQ_CALLOC(rt->dofs, nt));
  SQ_CALL(SQ_CALLOC(rt->tint, nt));
  SQ_CALL(SQ_CALLOC(rt->star, nt));
  SQ_CALL(SQ_CALLOC(rt->flux_local, nt));
  SQ_CALL(SQ_CALLOC(rt->flux_nb, nt));
  SQ_CALL(SQ_CALLOC(rt->link, nt));
  SQ_CALL(SQ_CALLOC(rt->derivs, nt));
  SQ_CALL(SQ_CALLOC(rt->buffer, nt));
  const size_t rs = sq_real_size(d->opt.precision), eb = sq_disc_elem_bytes(d);
  SQ_CALL(sq_halo_create(rt)); /* first: it may ask copy tiles to keep more LTS data */
  starpu_vector_data_register(&rt->pack, STARPU_MAIN_RAM, (uintptr_t)d->pack, 1, d->pack_bytes);
  for (int t = 0; t < nt; ++t) {
    const int64_t b = d->tile[t].begin, n = d->tile[t].end - b;
    register_block(&rt->dofs[t], d->dofs, b, n, eb);
    register_block(&rt->tint[t], d->tint, b, n, eb);
    register_block(&rt->star[t], d->star, b, n, 243 * rs);
    register_block(&rt->flux_local[t], d->flux_local, b, n, 324 * rs);
    register_block(&rt->flux_nb[t], d->flux_nb, b, n, 324 * rs);
    register_block(&rt->link[t], d->link, b, n, 4 * sizeof(sq_face_link));
    if (d->tile[t].needs_derivs) register_block(&rt->derivs[t], d->derivs, b, n, eb * d->opt.order);
    if (d->tile[t].needs_buffer) register_block(&rt->buffer[t], d->buffer, b, n, eb);
  }
  SQ_CALL(pin_host_rows(rt));
#ifdef SQ_USE_CUDA
  /* neighbour tasks with more slots than the CUDA kernel takes run on CPU workers only: say so */
  int wide = 0;
  for (int t = 0; t < nt; ++t) wide += d->tile[t].layer != SQ_LAYER_GHOST && d->tile[t].nneighbor > SQ_CUDA_MAX_SLOTS;
  if (wide && starpu_cuda_worker_get_count() > 0 && d->opt.rank == 0 && sq_verbosity >= 1)
    fprintf(stderr,
            "starquake: warning: %d of %d tiles read more than %d neighbour tiles, so their neighbour tasks run on "
            "CPU workers only (with STARPU_NCPU=0 they cannot run); a larger runtime.tile_size (e.g. 4096) fixes "
            "this\n", wide, nt, SQ_CUDA_MAX_SLOTS);
#endif
  *out = rt;
  return SQ_SUCCESS;
}

#ifdef SQ_USE_CUDA
void sq_cuda_stage_rows(int to_device, void *dev, void *host, size_t row_bytes, int ne, const int32_t *elems,
                        cudaStream_t stream) {
  for (int j = 0; j < ne;) {
    int k = j + 1; /* a run of consecutive elements moves in one copy */
    while (k < ne && elems[k] == elems[k - 1] + 1) ++k;
    char *d = (char *)dev + (size_t)elems[j] * row_bytes, *h = (char *)host + (size_t)j * row_bytes;
    const size_t bytes = (size_t)(k - j) * row_bytes;
    const cudaError_t err = to_device ? cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, stream)
                                      : cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, stream);
    if (err != cudaSuccess) {
      fprintf(stderr, "starquake: CUDA copy of %zu bytes failed: %s\n", bytes, cudaGetErrorString(err));
      abort();
    }
    j = k;
  }
}

void sq_cuda_stage_wait(cudaStream_t stream, const char *what) {
  const cudaError_t err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess) {
    fprintf(stderr, "starquake: %s on the GPU failed: %s\n", what, cudaGetErrorString(err));
    abort();
  }
}
#endif

int sq_runtime_place_tiles_on_gpus(sq_runtime *rt) {
  const sq_disc *d = rt->disc;
  SQ_FREE(rt->tile_gpu);
  SQ_FREE(rt->gpu_workers);
  const unsigned nw = starpu_worker_get_count();
  int devid[STARPU_NMAXWORKERS], ngpu = 0; /* the distinct CUDA devices, in worker order */
  for (unsigned w = 0; w < nw; ++w) {
    if (starpu_worker_get_type((int)w) != STARPU_CUDA_WORKER) continue;
    const int dev = starpu_worker_get_devid((int)w);
    int g = 0;
    while (g < ngpu && devid[g] != dev) ++g;
    if (g == ngpu) devid[ngpu++] = dev;
  }
  if (ngpu < 2 || d->ntile == 0) return 0;
  rt->gpu_words = (nw + 31) / 32;
  if (SQ_CALLOC(rt->gpu_workers, (size_t)ngpu * rt->gpu_words) || SQ_CALLOC(rt->tile_gpu, d->ntile)) {
    SQ_FREE(rt->gpu_workers);
    return 0;
  }
  for (unsigned w = 0; w < nw; ++w) /* a GPU's own workers, and every CPU worker (StarPU may still use CPUs) */
    for (int g = 0; g < ngpu; ++g)
      if (starpu_worker_get_type((int)w) != STARPU_CUDA_WORKER || starpu_worker_get_devid((int)w) == devid[g])
        rt->gpu_workers[(size_t)g * rt->gpu_words + w / 32] |= 1u << (w % 32);
  for (int t = 0; t < d->ntile; ++t) /* tiles kept on CPU workers (runtime.cpu_share) stay out */
    rt->tile_gpu[t] = (int16_t)(rt->tile_where && rt->tile_where[t] == STARPU_CPU ? -1 : 0);
  if (sq_disc_split_parts(d, ngpu, rt->tile_gpu)) {
    SQ_FREE(rt->gpu_workers);
    SQ_FREE(rt->tile_gpu);
    return 0;
  }
  return ngpu;
}

double sq_runtime_split_tiles(sq_runtime *rt, double cpu_share) {
  const sq_disc *d = rt->disc;
  SQ_FREE(rt->tile_where);
  if (!(cpu_share >= 0.0) || starpu_cuda_worker_get_count() == 0 || starpu_cpu_worker_get_count() == 0) return -1.0;
  if (SQ_CALLOC(rt->tile_where, d->ntile)) return -1.0;
  int64_t on_cpu = 0, owned = 0;
  for (int l = 0; l < d->ncluster; ++l) {
    int64_t total = 0, before = 0;
    for (int t = 0; t < d->ntile; ++t)
      if (d->tile[t].cluster == l && d->tile[t].layer != SQ_LAYER_GHOST) total += d->tile[t].end - d->tile[t].begin;
    for (int t = 0; t < d->ntile; ++t) {
      const sq_tile *tl = &d->tile[t];
      if (tl->cluster != l) continue;
      if (tl->layer == SQ_LAYER_GHOST) {
        rt->tile_where[t] = -1;
        continue;
      }
      const int64_t n = tl->end - tl->begin;
      int cpu = (double)before + 0.5 * (double)n < cpu_share * (double)total;
#ifdef SQ_USE_CUDA
      cpu |= tl->nneighbor > SQ_CUDA_MAX_SLOTS;
#endif
      rt->tile_where[t] = cpu ? STARPU_CPU : STARPU_CUDA;
      before += n;
      owned += n;
      on_cpu += cpu ? n : 0;
    }
  }
  return owned > 0 ? (double)on_cpu / (double)owned : 0.0;
}

int sq_runtime_wait(sq_runtime *rt) {
  int ret = rt->disc->opt.nranks > 1 ? starpu_mpi_wait_for_all(MPI_COMM_WORLD) : starpu_task_wait_for_all();
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "starpu_task_wait_for_all failed (%d)", ret);
  for (int t = 0; rt->fault && t < rt->fault->ntile; ++t) { /* fault state (small) for the station rows */
    ret = starpu_data_acquire(rt->fault_points[t], STARPU_R);
    SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "starpu_data_acquire failed (%d) on fault tile %d", ret, t);
    starpu_data_release(rt->fault_points[t]);
  }
  return SQ_SUCCESS;
}

int sq_runtime_sync(sq_runtime *rt) {
  SQ_CALL(sq_runtime_wait(rt));
  for (int t = 0; t < rt->disc->ntile; ++t) {
    if (rt->disc->tile[t].layer == SQ_LAYER_GHOST) continue;
    const int ret = starpu_data_acquire(rt->dofs[t], STARPU_R);
    SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "starpu_data_acquire failed (%d) on tile %d", ret, t);
    starpu_data_release(rt->dofs[t]);
  }
  SQ_CALL(sq_runtime_sync_plasticity(rt)); /* plastic strain for outputs and checkpoints */
  return SQ_SUCCESS;
}

void sq_runtime_destroy(sq_runtime *rt) {
  if (!rt) return;
  starpu_task_wait_for_all();
  sq_halo_destroy(rt);
  sq_runtime_detach_sources(rt);
  sq_runtime_detach_receivers(rt);
  sq_runtime_detach_fault(rt);
  sq_runtime_detach_plasticity(rt);
  for (int t = 0; t < rt->disc->ntile; ++t) {
    starpu_data_unregister(rt->dofs[t]);
    starpu_data_unregister(rt->tint[t]);
    starpu_data_unregister(rt->star[t]);
    starpu_data_unregister(rt->flux_local[t]);
    starpu_data_unregister(rt->flux_nb[t]);
    starpu_data_unregister(rt->link[t]);
    if (rt->derivs[t]) starpu_data_unregister(rt->derivs[t]);
    if (rt->buffer[t]) starpu_data_unregister(rt->buffer[t]);
  }
  starpu_data_unregister(rt->pack);
  for (int i = 0; i < rt->npinned; ++i) starpu_memory_unpin(rt->pinned[i], 0);
  SQ_FREE(rt->pinned);
  SQ_FREE(rt->tile_where);
  SQ_FREE(rt->tile_gpu);
  SQ_FREE(rt->gpu_workers);
  SQ_FREE(rt->dofs);
  SQ_FREE(rt->tint);
  SQ_FREE(rt->star);
  SQ_FREE(rt->flux_local);
  SQ_FREE(rt->flux_nb);
  SQ_FREE(rt->link);
  SQ_FREE(rt->derivs);
  SQ_FREE(rt->buffer);
  SQ_FREE(rt->trace);
  SQ_FREE(rt->frozen_total);
  SQ_FREE(rt->frozen_exec);
  SQ_FREE(rt);
}

static int64_t ns_of(const struct timespec *t) { return (int64_t)t->tv_sec * 1000000000LL + t->tv_nsec; }

static void profile_task_done(void *arg) {
  sq_task_profile *p = arg;
  const struct starpu_task *task = starpu_task_get_current();
  if (!task || !task->profiling_info) return;
  const struct starpu_profiling_task_info *info = task->profiling_info;
  const int64_t start = ns_of(&info->start_time), end = ns_of(&info->end_time);
  __atomic_fetch_add(&p->count, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&p->nanoseconds, end - start, __ATOMIC_RELAXED);
  sq_runtime *rt = p->rt;
  if (rt->trace) {
    const int64_t i = __atomic_fetch_add(&rt->trace_count, 1, __ATOMIC_RELAXED);
    if (i < rt->trace_capacity)
      rt->trace[i] = (sq_trace_event){.submit = ns_of(&info->submit_time), .start = start, .end = end,
                                      .tile = (int32_t)task->tag_id, .worker = (int16_t)info->workerid,
                                      .kind = (int8_t)p->kind};
  }
}

void (*sq_profile_callback(const sq_runtime *rt))(void *) { return rt->profile ? profile_task_done : NULL; }

void *sq_profile_arg(sq_runtime *rt, enum sq_task_kind kind) { return &rt->prof[kind]; }

void sq_runtime_profile_reset(sq_runtime *rt) {
  for (int k = 0; k < SQ_NTASK_KINDS; ++k) rt->prof[k].count = rt->prof[k].nanoseconds = 0;
  rt->trace_count = 0;
  const unsigned nw = starpu_worker_get_count();
  for (unsigned w = 0; w < nw; ++w) starpu_profiling_worker_get_info((int)w, NULL); /* NULL: reset only */
}

/* A worker's profiled time so far and the part of it spent executing tasks, in seconds: 0, or -1 where
 * StarPU has no profile of the worker. */
static int worker_seconds(unsigned w, double *total, double *executing) {
  struct starpu_profiling_worker_info info;
  if (starpu_profiling_worker_get_info((int)w, &info)) return -1;
  *total = starpu_timing_timespec_to_us(&info.total_time) * 1e-6;
  *executing = starpu_timing_timespec_to_us(&info.executing_time) * 1e-6;
  return 0;
}

int sq_runtime_profile_freeze(sq_runtime *rt) {
  const unsigned nw = starpu_worker_get_count();
  SQ_FREE(rt->frozen_total);
  SQ_FREE(rt->frozen_exec);
  SQ_CALL(SQ_CALLOC(rt->frozen_total, nw > 0 ? nw : 1));
  SQ_CALL(SQ_CALLOC(rt->frozen_exec, nw > 0 ? nw : 1));
  rt->frozen_workers = nw;
  for (unsigned w = 0; w < nw; ++w) worker_seconds(w, &rt->frozen_total[w], &rt->frozen_exec[w]);
  return SQ_SUCCESS;
}

int sq_runtime_trace_start(sq_runtime *rt, int64_t capacity) {
  SQ_CHECK(capacity > 0, SQ_ERR_INPUT, "a trace needs room for at least one task");
  SQ_FREE(rt->trace);
  SQ_CALL(SQ_CALLOC(rt->trace, capacity));
  rt->trace_capacity = capacity;
  rt->trace_count = 0;
  return SQ_SUCCESS;
}

static const char *const kind_names[SQ_NTASK_KINDS] = {"ader", "local", "neighbor", "merged", "step",
                                                       "halo_pack", "rupture", "plasticity", "other"};

int sq_runtime_trace_write(const sq_runtime *rt, const char *path) {
  SQ_CHECK(rt->trace, SQ_ERR_INPUT, "no trace was recorded");
  FILE *f = fopen(path, "w");
  SQ_CHECK(f, SQ_ERR_IO, "cannot write the trace '%s': %s", path, strerror(errno));
  const int64_t n = rt->trace_count < rt->trace_capacity ? rt->trace_count : rt->trace_capacity;
  int64_t t0 = INT64_MAX;
  for (int64_t i = 0; i < n; ++i) t0 = rt->trace[i].submit < t0 ? rt->trace[i].submit : t0;
  fprintf(f, "# starquake task trace: %lld tasks, times from t0 = %lld ns of CLOCK_MONOTONIC", (long long)n,
          (long long)t0);
  if (rt->trace_count > n) fprintf(f, " (%lld more not recorded: capacity)", (long long)(rt->trace_count - n));
  fprintf(f, "\nkind,tile,cluster,layer,worker,submit_us,start_us,end_us\n");
  const sq_disc *d = rt->disc;
  for (int64_t i = 0; i < n; ++i) {
    const sq_trace_event *e = &rt->trace[i];
    const int ok = e->tile >= 0 && e->tile < d->ntile;
    fprintf(f, "%s,%d,%d,%d,%d,%.3f,%.3f,%.3f\n", kind_names[e->kind], e->tile, ok ? d->tile[e->tile].cluster : -1,
            ok ? (int)d->tile[e->tile].layer : -1, e->worker, 1e-3 * (double)(e->submit - t0),
            1e-3 * (double)(e->start - t0), 1e-3 * (double)(e->end - t0));
  }
  const int bad = ferror(f);
  SQ_CHECK(!fclose(f) && !bad, SQ_ERR_IO, "writing the trace '%s' failed", path);
  return SQ_SUCCESS;
}

void sq_runtime_print_profile(const sq_runtime *rt, FILE *out) {
  const char *const *names = kind_names;
  double total = 0;
  for (int k = 0; k < SQ_NTASK_KINDS; ++k) total += 1e-9 * rt->prof[k].nanoseconds;
  fprintf(out, "  task time by kind (sum over workers):\n");
  for (int k = 0; k < SQ_NTASK_KINDS; ++k)
    if (rt->prof[k].count)
      fprintf(out, "    %-10s %8lld tasks %10.3f s  %5.1f%%\n", names[k], (long long)rt->prof[k].count,
              1e-9 * rt->prof[k].nanoseconds, total > 0 ? 100e-9 * rt->prof[k].nanoseconds / total : 0.0);
  const unsigned nw = starpu_worker_get_count();
  for (unsigned w = 0; w < nw; ++w) {
    double tot, exe;
    if (rt->frozen_total && w < rt->frozen_workers) tot = rt->frozen_total[w], exe = rt->frozen_exec[w];
    else if (worker_seconds(w, &tot, &exe)) continue;
    char name[64];
    starpu_worker_get_name((int)w, name, sizeof(name));
    fprintf(out, "    worker %-14s executing %8.3f s of %8.3f s: idle fraction %5.1f%%\n", name, exe, tot,
            tot > 0 ? 100.0 * (1.0 - exe / tot) : 0.0);
  }
}
