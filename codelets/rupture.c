/**
 * @file rupture.c  Codelet "rupture": one step of a block of fault faces (thesis §3.6.3, ch. 7).  The
 * task reads both sides' time derivatives (ghost tiles included: they arrive by the halo exchange),
 * updates the block's friction state and adds the imposed flux to the owned sides' dofs.  It is
 * inserted between a cluster's predictor and its neighbour fluxes, so StarPU orders it after both
 * sides' ader tasks and before the dofs are touched again.
 *
 * On-fault stations: a tile with stations also reads their descriptions (sq_fault_station, read-only)
 * and writes one row per station (sq_fault_station_row, on the worker that ran the step: the CPU body
 * after sq_fault_update, the CUDA kernel in the block of the station's face) into row `row` of its
 * sample buffer, SAMPLE_ROWS rows of nstation x SQ_FAULT_LOG_COLS doubles.  The
 * host moves the filled rows into the stations' logs (sq_fault.log) when sq_runtime_wait returns (the
 * wait hook), and, if a tile's buffer fills up between two waits, before its next task is inserted.
 * So no rupture tile is tied to a CPU worker, and after every wait the logs hold every row so far.
 */
#include "sq_runtime_impl.h"
#include "sq_fault.h"
#ifdef SQ_USE_CUDA
#include "sq_cuda.h"
#endif

/* Fixed buffers, then nslot derivative blocks, then the dofs of the owned slots (then the stations' buffers,
 * then the thermal-pressurization state of a run with it). */
enum { RP_REF, RP_FACES, RP_POINTS, RP_FIRST };

/** Rows a tile's sample buffer holds: the steps of its cluster between two waits before an early copy. */
#define SAMPLE_ROWS 1024

/** The on-fault stations' buffers, per fault tile (NULL entries: a tile without stations). */
typedef struct sq_fault_samples {
  starpu_data_handle_t *stations; /**< its sq_fault_station range (read-only) */
  starpu_data_handle_t *samples;  /**< SAMPLE_ROWS x nstation x SQ_FAULT_LOG_COLS doubles */
  double **host;                  /**< their host memory */
  int *rows;                      /**< rows that the tasks inserted so far fill */
} sq_fault_samples;

typedef struct rupture_args {
  sq_precision precision;
  int order, npoint, nslot;
  double t0, dt;
  sq_fault_options opt;
  int cuda_ok;         /* 0: the tile must run on a CPU worker (too many slots for the CUDA kernel) */
  int shared_elements; /* some owned element has several faces in the tile (CUDA: in face order) */
  int nstation;        /* stations of the tile: buffers station_buffer (descriptions), + 1 (samples) */
  int station_buffer;
  int row;           /* the row of the sample buffer this step fills */
  int64_t face0;     /* the tile's first face (the stations' faces are fault-wide numbers) */
  int tp_buffer;     /* buffer of the tile's thermal-pressurization states, or -1 (none) */
  int dofs_buffer[]; /* per slot: buffer index of its dofs, or -1 (ghost: read only) */
} rupture_args;

static void rupture_cpu(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const rupture_args *a = cl_arg;
  const void *derivs[a->nslot];
  void *dofs[a->nslot];
  for (int s = 0; s < a->nslot; ++s) {
    derivs[s] = (const void *)STARPU_VECTOR_GET_PTR(buffers[RP_FIRST + s]);
    dofs[s] = a->dofs_buffer[s] >= 0 ? (void *)STARPU_VECTOR_GET_PTR(buffers[a->dofs_buffer[s]]) : NULL;
  }
  int64_t bad = -1;
  const int64_t nbad = sq_fault_update(
      a->precision, a->order, a->npoint, (const double *)STARPU_VECTOR_GET_PTR(buffers[RP_REF]), &a->opt,
      STARPU_VECTOR_GET_NX(buffers[RP_FACES]), (const sq_fault_face *)STARPU_VECTOR_GET_PTR(buffers[RP_FACES]),
      (sq_fault_point *)STARPU_VECTOR_GET_PTR(buffers[RP_POINTS]),
      a->tp_buffer >= 0 ? (sq_tp_state *)STARPU_VECTOR_GET_PTR(buffers[a->tp_buffer]) : NULL, derivs, dofs, a->t0,
      a->dt, &bad);
  if (a->nstation > 0 && !nbad)
    sq_fault_record_stations(a->npoint, a->nstation,
                             (const sq_fault_station *)STARPU_VECTOR_GET_PTR(buffers[a->station_buffer]), a->face0,
                             (const sq_fault_point *)STARPU_VECTOR_GET_PTR(buffers[RP_POINTS]), a->t0 + a->dt,
                             (double *)STARPU_VECTOR_GET_PTR(buffers[a->station_buffer + 1]) +
                                 (size_t)a->row * a->nstation * SQ_FAULT_LOG_COLS);
  if (nbad) {
    const sq_fault_face *fc = (const sq_fault_face *)STARPU_VECTOR_GET_PTR(buffers[RP_FACES]) + bad;
    fprintf(stderr,
            "starquake: error: the friction solve did not converge at %lld fault points at t=%g (first: "
            "fault face %lld = mesh cell %lld face %lld)\n",
            (long long)nbad, a->t0, (long long)bad, (long long)(fc->gid / 4), (long long)(fc->gid % 4));
    abort();
  }
}

#ifdef SQ_USE_CUDA
/*
 * The slot table (derivatives and dofs per element tile) travels by value in the kernel's parameters,
 * so it holds at most SQ_CUDA_MAX_SLOTS tiles.  Tiles with more are refused on CUDA workers by
 * rupture_can_execute.
 */
static void rupture_cuda(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const rupture_args *a = cl_arg;
  STARPU_ASSERT_MSG(a->cuda_ok && a->nslot <= SQ_CUDA_MAX_SLOTS, "rupture task with %d slots on a CUDA worker",
                    a->nslot);
  sq_cuda_rupture_slots slots;
  slots.nslot = a->nslot;
  for (int s = 0; s < a->nslot; ++s) {
    slots.derivs[s] = (const void *)STARPU_VECTOR_GET_PTR(buffers[RP_FIRST + s]);
    slots.dofs[s] = a->dofs_buffer[s] >= 0 ? (void *)STARPU_VECTOR_GET_PTR(buffers[a->dofs_buffer[s]]) : NULL;
  }
  sq_cuda_rupture_stations st = {.nstation = a->nstation, .face0 = a->face0};
  if (a->nstation > 0) {
    st.stations = (const sq_fault_station *)STARPU_VECTOR_GET_PTR(buffers[a->station_buffer]);
    st.rows = (double *)STARPU_VECTOR_GET_PTR(buffers[a->station_buffer + 1]) +
              (size_t)a->row * a->nstation * SQ_FAULT_LOG_COLS;
  }
  sq_cuda_rupture(a->precision, a->order, a->npoint, STARPU_VECTOR_GET_NX(buffers[RP_FACES]),
                  (const double *)STARPU_VECTOR_GET_PTR(buffers[RP_REF]),
                  (const sq_fault_face *)STARPU_VECTOR_GET_PTR(buffers[RP_FACES]),
                  (sq_fault_point *)STARPU_VECTOR_GET_PTR(buffers[RP_POINTS]),
                  a->tp_buffer >= 0 ? (sq_tp_state *)STARPU_VECTOR_GET_PTR(buffers[a->tp_buffer]) : NULL, &slots,
                  &a->opt, a->t0, a->dt, a->shared_elements, a->nstation > 0 ? &st : NULL,
                  starpu_cuda_get_local_stream());
}

static int rupture_can_execute(unsigned workerid, struct starpu_task *task, unsigned nimpl) {
  (void)nimpl;
  if (starpu_worker_get_type((int)workerid) != STARPU_CUDA_WORKER) return 1;
  return ((const rupture_args *)task->cl_arg)->cuda_ok;
}
#endif

static struct starpu_perfmodel rupture_model = {.type = STARPU_HISTORY_BASED, .symbol = "sq_rupture"};

static struct starpu_codelet rupture_cl = {
    .cpu_funcs = {rupture_cpu},
    .cpu_funcs_name = {"rupture_cpu"},
#ifdef SQ_USE_CUDA
    .cuda_funcs = {rupture_cuda},
    .cuda_flags = {STARPU_CUDA_ASYNC},
    .can_execute = rupture_can_execute,
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &rupture_model,
    .name = "sq_rupture",
};

static int cmp_int64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Per fault tile: 1 if an owned element is a side of more than one of its faces (kinked or branching
 * faults); the CUDA body then adds those faces' updates in face order (rupture_cuda.cu). */
static int fault_shared_elements(const sq_fault *f, int *shared) {
  for (int t = 0; t < f->ntile; ++t) {
    const sq_fault_tile *tl = &f->tile[t];
    int64_t *elem, n = 0;
    SQ_CALL(SQ_CALLOC(elem, 2 * (tl->end - tl->begin) + 1));
    for (int64_t i = tl->begin; i < tl->end; ++i)
      for (int s = 0; s < 2; ++s)
        if (f->face[i].owned[s]) elem[n++] = f->face[i].elem[s];
    qsort(elem, (size_t)n, sizeof(int64_t), cmp_int64);
    shared[t] = 0;
    for (int64_t i = 1; i < n; ++i) shared[t] |= elem[i] == elem[i - 1];
    SQ_FREE(elem);
  }
  return SQ_SUCCESS;
}

/* Move the rows of fault tile t's sample buffer into its stations' logs (waits for the tasks that fill them). */
static int collect_samples(sq_runtime *rt, int t) {
  sq_fault_samples *fs = rt->fault_samples;
  const sq_fault *f = rt->fault;
  const sq_fault_tile *tl = &f->tile[t];
  const int nst = tl->station_end - tl->station_begin;
  if (!fs->samples[t] || fs->rows[t] == 0) return SQ_SUCCESS;
  const int ret = starpu_data_acquire(fs->samples[t], STARPU_R);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "starpu_data_acquire failed (%d) on the station samples of fault tile %d", ret, t);
  int ierr = SQ_SUCCESS;
  for (int r = 0; r < fs->rows[t] && !ierr; ++r)
    for (int k = 0; k < nst && !ierr; ++k)
      ierr = sq_fault_log_append(&f->log[f->station[tl->station_begin + k].id],
                                 fs->host[t] + ((size_t)r * nst + k) * SQ_FAULT_LOG_COLS);
  starpu_data_release(fs->samples[t]);
  fs->rows[t] = 0;
  return ierr;
}

/* sq_runtime_wait's hook: every station row of the steps done so far into the logs. */
static int collect_all_samples(sq_runtime *rt) {
  for (int t = 0; t < rt->fault->ntile; ++t) SQ_CALL(collect_samples(rt, t));
  return SQ_SUCCESS;
}

static void detach_fault(sq_runtime *rt) {
  sq_fault *f = rt->fault;
  if (!f) return;
  sq_fault_samples *fs = rt->fault_samples;
  for (int t = 0; t < f->ntile; ++t) {
    starpu_data_unregister(rt->fault_faces[t]);
    starpu_data_unregister(rt->fault_points[t]);
    if (f->tp) starpu_data_unregister(rt->fault_tp[t]);
    if (fs && fs->samples[t]) {
      starpu_data_unregister(fs->stations[t]);
      starpu_data_unregister(fs->samples[t]);
      SQ_FREE(fs->host[t]);
    }
  }
  if (fs) {
    SQ_FREE(fs->stations);
    SQ_FREE(fs->samples);
    SQ_FREE(fs->host);
    SQ_FREE(fs->rows);
    SQ_FREE(rt->fault_samples);
    rt->wait_hook = NULL;
  }
  starpu_data_unregister(rt->fault_ref);
  SQ_FREE(rt->fault_faces);
  SQ_FREE(rt->fault_points);
  SQ_FREE(rt->fault_tp);
  SQ_FREE(rt->fault_shared);
  rt->fault = NULL;
}

int sq_runtime_attach_fault(sq_runtime *rt, sq_fault *f) {
  rt->fault = f;
  if (!f) return SQ_SUCCESS;
  starpu_vector_data_register(&rt->fault_ref, STARPU_MAIN_RAM, (uintptr_t)f->ref, (uint32_t)f->ref_len, sizeof(double));
  SQ_CALL(SQ_CALLOC(rt->fault_faces, f->ntile + 1));
  SQ_CALL(SQ_CALLOC(rt->fault_points, f->ntile + 1));
  if (f->tp) SQ_CALL(SQ_CALLOC(rt->fault_tp, f->ntile + 1));
  SQ_CALL(SQ_CALLOC(rt->fault_shared, f->ntile + 1));
  SQ_CALL(fault_shared_elements(f, rt->fault_shared));
  for (int t = 0; t < f->ntile; ++t) {
    const sq_fault_tile *tl = &f->tile[t];
    const uint32_t n = (uint32_t)(tl->end - tl->begin);
    starpu_vector_data_register(&rt->fault_faces[t], STARPU_MAIN_RAM, (uintptr_t)(f->face + tl->begin), n,
                                sizeof(sq_fault_face));
    starpu_vector_data_register(&rt->fault_points[t], STARPU_MAIN_RAM, (uintptr_t)(f->point + tl->begin * f->npoint), n,
                                sizeof(sq_fault_point) * f->npoint);
    if (f->tp) /* thermal pressurization only: its spectral state */
      starpu_vector_data_register(&rt->fault_tp[t], STARPU_MAIN_RAM, (uintptr_t)(f->tp + tl->begin * f->npoint), n,
                                  sizeof(sq_tp_state) * f->npoint);
  }
  SQ_CALL(sq_runtime_on_destroy(rt, detach_fault));
  if (f->nlocal_station == 0) return SQ_SUCCESS;
  sq_fault_samples *fs;
  SQ_CALL(SQ_CALLOC(fs, 1));
  rt->fault_samples = fs;
  SQ_CALL(SQ_CALLOC(fs->stations, f->ntile));
  SQ_CALL(SQ_CALLOC(fs->samples, f->ntile));
  SQ_CALL(SQ_CALLOC(fs->host, f->ntile));
  SQ_CALL(SQ_CALLOC(fs->rows, f->ntile));
  for (int t = 0; t < f->ntile; ++t) {
    const sq_fault_tile *tl = &f->tile[t];
    const int nst = tl->station_end - tl->station_begin;
    if (nst == 0) continue;
    const size_t len = (size_t)SAMPLE_ROWS * nst * SQ_FAULT_LOG_COLS;
    SQ_CALL(SQ_CALLOC(fs->host[t], len));
    starpu_vector_data_register(&fs->stations[t], STARPU_MAIN_RAM, (uintptr_t)(f->station + tl->station_begin),
                                (uint32_t)nst, sizeof(sq_fault_station));
    starpu_vector_data_register(&fs->samples[t], STARPU_MAIN_RAM, (uintptr_t)fs->host[t], (uint32_t)len,
                                sizeof(double));
  }
  rt->wait_hook = collect_all_samples;
  return SQ_SUCCESS;
}

int sq_runtime_fault_tiles(const sq_runtime *rt, int cluster, int *first, int *end) {
  const sq_fault *f = rt->fault;
  *first = *end = 0;
  if (!f) return 0;
  int t = 0;
  while (t < f->ntile && f->tile[t].cluster < cluster) ++t;
  *first = t;
  while (t < f->ntile && f->tile[t].cluster == cluster) ++t;
  *end = t;
  return *end > *first;
}

int sq_insert_rupture(sq_runtime *rt, int ftile, double t0, double dt) {
  const sq_disc *d = rt->disc;
  const sq_fault *f = rt->fault;
  const sq_fault_tile *tl = &f->tile[ftile];
  const size_t args_size = sizeof(rupture_args) + sizeof(int) * tl->nslot;
  rupture_args *a = malloc(args_size);
  struct starpu_data_descr *descr = malloc(sizeof(*descr) * (RP_FIRST + 2 * tl->nslot + 3));
  SQ_CHECK(a && descr, SQ_ERR_MEMORY, "out of memory");
  *a = (rupture_args){.precision = d->opt.precision,
                      .order = d->opt.order,
                      .npoint = f->npoint,
                      .nslot = tl->nslot,
                      .t0 = t0,
                      .dt = dt,
                      .opt = f->opt,
                      .shared_elements = rt->fault_shared[ftile],
                      .nstation = tl->station_end - tl->station_begin,
                      .station_buffer = -1,
                      .face0 = tl->begin,
                      .tp_buffer = -1};
#ifdef SQ_USE_CUDA
  a->cuda_ok = tl->nslot <= SQ_CUDA_MAX_SLOTS;
#endif
  sq_fault_samples *fs = rt->fault_samples;
  if (a->nstation > 0) { /* a full buffer goes to the logs first (this waits for its tasks) */
    const int ierr = fs->rows[ftile] == SAMPLE_ROWS ? collect_samples(rt, ftile) : SQ_SUCCESS;
    if (ierr) {
      free(a), free(descr);
      return ierr;
    }
    a->row = fs->rows[ftile]++;
  }
  int nbuf = 0;
  descr[nbuf++] = (struct starpu_data_descr){rt->fault_ref, STARPU_R};
  descr[nbuf++] = (struct starpu_data_descr){rt->fault_faces[ftile], STARPU_R};
  descr[nbuf++] = (struct starpu_data_descr){rt->fault_points[ftile], STARPU_RW};
  for (int s = 0; s < tl->nslot; ++s) {
    SQ_CHECK(rt->derivs[tl->slot[s]], SQ_ERR_INTERNAL, "fault tile %d: tile %d keeps no derivatives", ftile,
             tl->slot[s]);
    descr[nbuf++] = (struct starpu_data_descr){rt->derivs[tl->slot[s]], STARPU_R};
  }
  for (int s = 0; s < tl->nslot; ++s) {
    const int et = tl->slot[s];
    a->dofs_buffer[s] = -1;
    if (d->tile[et].layer == SQ_LAYER_GHOST) continue;
    a->dofs_buffer[s] = nbuf;
    descr[nbuf++] = (struct starpu_data_descr){rt->dofs[et], STARPU_RW};
  }
  if (a->nstation > 0) { /* RW: the task fills one row and keeps the others */
    a->station_buffer = nbuf;
    descr[nbuf++] = (struct starpu_data_descr){fs->stations[ftile], STARPU_R};
    descr[nbuf++] = (struct starpu_data_descr){fs->samples[ftile], STARPU_RW};
  }
  if (f->tp) {
    a->tp_buffer = nbuf;
    descr[nbuf++] = (struct starpu_data_descr){rt->fault_tp[ftile], STARPU_RW};
  }
  int ret = starpu_task_insert(&rupture_cl, STARPU_CL_ARGS, a, args_size, STARPU_PRIORITY, tl->priority,
                               SQ_PROFILE(rt, SQ_TASK_RUPTURE, tl->slot[0]), STARPU_DATA_MODE_ARRAY, descr, nbuf, 0);
  free(descr);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting rupture task for fault tile %d failed (%d)", ftile, ret);
  return SQ_SUCCESS;
}
