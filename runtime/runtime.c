/**
 * @file runtime.c  Registration of the solver's arrays with StarPU, tile by tile, the life cycle of the
 * runtime object and the queries graph/ asks of it.
 */
#include <errno.h>
#include <stdatomic.h>
#include <starpu_mpi.h>
#include <stdlib.h>
#include <string.h>

#include "sq_fault.h"
#include "sq_runtime_impl.h"
#ifdef SQ_USE_CUDA
#include "sq_cuda.h"
#endif

static void register_block(starpu_data_handle_t *h, void *base, int64_t begin, int64_t n, size_t elem_bytes) {
  starpu_vector_data_register(h, STARPU_MAIN_RAM, (uintptr_t)((char *)base + (size_t)begin * elem_bytes), (uint32_t)n,
                              elem_bytes);
}

void sq_runtime_set_cpu_task_threads(int nthreads) {
  sq_kernel_set_threads(nthreads);
  if (sq_kernel_threads() > 1) setenv("STARPU_WORKERS_NOBIND", "1", 1); /* a bound worker's team shares one core */
}

/* Page-lock, where GPU workers exist:
 * - the whole dofs array: the solution comes back to the host for every snapshot, checkpoint and at
 *   the end, and pinned memory copies at full bus speed;
 * - the element matrices (star, local and neighbour flux), the face links and the attenuation coefficients:
 *   the bulk of what goes up to the GPUs before the first step (sq_runtime_upload), which pageable memory
 *   would copy at a fraction of the bus speed, blocking the GPU's worker thread meanwhile;
 * - with CPU workers too, the whole tint, LTS buffer and derivative arrays, which then cross between
 *   host and GPU every step;
 * - else, with several ranks, the rows of the ghost tiles in the arrays that receive halo messages (maximal
 *   runs of consecutive ghost tiles; a run that shares a page with one already pinned stays pageable). */
static int pin_host_rows(sq_runtime *rt) {
  const sq_disc *d = rt->disc;
  if (starpu_cuda_worker_get_count() == 0) return SQ_SUCCESS;
  const size_t eb = sq_disc_elem_bytes(d);
  SQ_CALL(SQ_CALLOC(rt->pinned, 3 * (size_t)d->ntile + 7));
  if (sq_host_pin(d->dofs, (size_t)d->nelem * eb)) rt->pinned[rt->npinned++] = d->dofs;
  const size_t rs = sq_real_size(d->opt.precision), n = (size_t)d->nelem;
  void *inputs[5] = {d->star, d->flux_local, d->flux_nb, d->link, d->ane_coef};
  const size_t in_row[5] = {243 * rs, 324 * rs, 324 * rs, 4 * sizeof(sq_face_link), SQ_ANE_NCOEF * rs};
  for (int k = 0; k < 5; ++k)
    if (inputs[k] && sq_host_pin(inputs[k], n * in_row[k])) rt->pinned[rt->npinned++] = inputs[k];
  void *base[3] = {d->tint, d->buffer, d->derivs};
  const size_t row[3] = {eb, eb, eb * d->opt.order};
  if (starpu_cpu_worker_get_count() > 0) {
    /* CPU and GPU workers: any tile's predictor data may cross to the other side, every step */
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
  SQ_CALL(SQ_CALLOC(rt->ane, nt));
  SQ_CALL(SQ_CALLOC(rt->ane_coef, nt));
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
    if (d->ane && d->tile[t].layer != SQ_LAYER_GHOST) { /* memory variables never leave their element */
      register_block(&rt->ane[t], d->ane, b, n, sq_disc_ane_bytes(d));
      register_block(&rt->ane_coef[t], d->ane_coef, b, n, SQ_ANE_NCOEF * rs);
    }
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
            "this\n",
            wide, nt, SQ_CUDA_MAX_SLOTS);
#endif
  *out = rt;
  return SQ_SUCCESS;
}

int sq_runtime_wait(sq_runtime *rt) {
  int ret = rt->disc->opt.nranks > 1 ? starpu_mpi_wait_for_all(MPI_COMM_WORLD) : starpu_task_wait_for_all();
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "starpu_task_wait_for_all failed (%d)", ret);
  if (rt->wait_hook) SQ_CALL(rt->wait_hook(rt)); /* the on-fault stations' rows into their logs */
  return SQ_SUCCESS;
}

/* Make the host copies of the friction state (and the thermal-pressurization state) valid: @p mode STARPU_R
 * fetches them, STARPU_W makes the host arrays the only valid copies without fetching. */
static int fault_host_copies(sq_runtime *rt, enum starpu_data_access_mode mode) {
  for (int t = 0; rt->fault && t < rt->fault->ntile; ++t) {
    const int ret = starpu_data_acquire(rt->fault_points[t], mode);
    SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "starpu_data_acquire failed (%d) on fault tile %d", ret, t);
    starpu_data_release(rt->fault_points[t]);
    if (!rt->fault_tp) continue; /* thermal pressurization: its state too (checkpoints) */
    const int ret2 = starpu_data_acquire(rt->fault_tp[t], mode);
    SQ_CHECK(ret2 == 0, SQ_ERR_RUNTIME, "starpu_data_acquire failed (%d) on fault tile %d", ret2, t);
    starpu_data_release(rt->fault_tp[t]);
  }
  return SQ_SUCCESS;
}

int sq_runtime_sync_fault(sq_runtime *rt) {
  SQ_CALL(sq_runtime_wait(rt));
  return fault_host_copies(rt, STARPU_R);
}

/* Make the host copies of the dofs, the fault state and the plastic state valid: read (@p write 0), or the
 * only valid ones, about to be overwritten by the caller (@p write 1: nothing is fetched). */
static int host_copies(sq_runtime *rt, int write) {
  SQ_CALL(sq_runtime_wait(rt));
  const enum starpu_data_access_mode mode = write ? STARPU_W : STARPU_R;
  for (int t = 0; t < rt->disc->ntile; ++t) {
    if (rt->disc->tile[t].layer == SQ_LAYER_GHOST && !write) continue;
    const int ret = starpu_data_acquire(rt->dofs[t], mode);
    SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "starpu_data_acquire failed (%d) on tile %d", ret, t);
    starpu_data_release(rt->dofs[t]);
    if (!rt->ane[t]) continue;
    const int ret2 = starpu_data_acquire(rt->ane[t], mode);
    SQ_CHECK(ret2 == 0, SQ_ERR_RUNTIME, "starpu_data_acquire failed (%d) on the memory variables of tile %d", ret2, t);
    starpu_data_release(rt->ane[t]);
  }
  SQ_CALL(fault_host_copies(rt, mode));
  if (rt->sync_hook) SQ_CALL(rt->sync_hook(rt, write)); /* plastic strain for outputs and checkpoints */
  return SQ_SUCCESS;
}

int sq_runtime_sync(sq_runtime *rt) { return host_copies(rt, 0); }

int sq_runtime_host_overwrite(sq_runtime *rt) { return host_copies(rt, 1); }

/* Set from a signal handler, read by every codelet body: an atomic flag, lock-free. */
static atomic_int cancelled;

void sq_runtime_cancel(void) { atomic_store(&cancelled, 1); }

int sq_runtime_cancelled(void) { return atomic_load_explicit(&cancelled, memory_order_relaxed); }

void sq_runtime_cancel_clear(void) { atomic_store(&cancelled, 0); }

void sq_runtime_destroy(sq_runtime *rt) {
  if (!rt) return;
  starpu_task_wait_for_all();
  sq_halo_destroy(rt);
  for (int i = 0; i < rt->nhook; ++i) rt->hook[i](rt); /* attached data first, in the order of attachment */
  for (int t = 0; t < rt->disc->ntile; ++t) {
    starpu_data_unregister(rt->dofs[t]);
    starpu_data_unregister(rt->tint[t]);
    starpu_data_unregister(rt->star[t]);
    starpu_data_unregister(rt->flux_local[t]);
    starpu_data_unregister(rt->flux_nb[t]);
    starpu_data_unregister(rt->link[t]);
    if (rt->derivs[t]) starpu_data_unregister(rt->derivs[t]);
    if (rt->buffer[t]) starpu_data_unregister(rt->buffer[t]);
    if (rt->ane[t]) starpu_data_unregister(rt->ane[t]);
    if (rt->ane_coef[t]) starpu_data_unregister(rt->ane_coef[t]);
  }
  starpu_data_unregister(rt->pack);
#ifdef SQ_USE_CUDA
  sq_runtime_side_release(rt);
#endif
  for (int i = 0; i < rt->npinned; ++i) starpu_memory_unpin(rt->pinned[i], 0);
  SQ_FREE(rt->pinned);
  sq_forward_destroy(rt);
  sq_tint_alt_destroy(rt);
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
  SQ_FREE(rt->ane);
  SQ_FREE(rt->ane_coef);
  SQ_FREE(rt->trace);
  SQ_FREE(rt->frozen_total);
  SQ_FREE(rt->frozen_exec);
  SQ_FREE(rt);
}

void sq_runtime_set_chain_priority(sq_runtime *rt, int on) { rt->chain_priority = on != 0; }

int sq_runtime_on_destroy(sq_runtime *rt, void (*detach)(sq_runtime *)) {
  for (int i = 0; i < rt->nhook; ++i)
    if (rt->hook[i] == detach) return SQ_SUCCESS;
  SQ_CHECK(rt->nhook < (int)(sizeof(rt->hook) / sizeof(rt->hook[0])), SQ_ERR_INTERNAL, "too many detach hooks");
  rt->hook[rt->nhook++] = detach;
  return SQ_SUCCESS;
}

sq_disc *sq_runtime_disc(const sq_runtime *rt) { return rt->disc; }
int sq_runtime_ntile(const sq_runtime *rt) { return rt->disc->ntile; }
int sq_runtime_attenuates(const sq_runtime *rt) { return rt->disc->ane != NULL; }
int sq_runtime_ncluster(const sq_runtime *rt) { return rt->disc->ncluster; }
int sq_runtime_lts_rate(const sq_runtime *rt) { return rt->disc->opt.lts_rate; }
int sq_runtime_tile_cluster(const sq_runtime *rt, int tile) { return rt->disc->tile[tile].cluster; }
int sq_runtime_tile_layer(const sq_runtime *rt, int tile) { return rt->disc->tile[tile].layer; }
int sq_runtime_tile_needs_buffer(const sq_runtime *rt, int tile) { return rt->disc->tile[tile].needs_buffer; }
int sq_runtime_tile_gpu(const sq_runtime *rt, int tile) { return sq_tile_gpu(rt, tile); }
