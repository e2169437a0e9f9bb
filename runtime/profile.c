/**
 * @file profile.c  Per-kind task times, workers' idle fractions and the task trace, from StarPU's
 * profiling information in each task's completion callback.
 */
#include <errno.h>
#include <string.h>

#include "sq_runtime_impl.h"

static int64_t ns_of(const struct timespec *t) { return (int64_t)t->tv_sec * 1000000000LL + t->tv_nsec; }

void sq_profile_task_done(void *arg) {
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
      rt->trace[i] = (sq_trace_event){.submit = ns_of(&info->submit_time),
                                      .ready = ns_of(&info->push_start_time),
                                      .popped = ns_of(&info->pop_end_time),
                                      .fetched = ns_of(&info->acquire_data_end_time),
                                      .start = start,
                                      .end = end,
                                      .tile = (int32_t)task->tag_id,
                                      .worker = (int16_t)info->workerid,
                                      .kind = (int8_t)p->kind};
  }
}

void (*sq_profile_callback(const sq_runtime *rt))(void *) { return rt->profile ? sq_profile_task_done : NULL; }

void *sq_profile_arg(sq_runtime *rt, enum sq_task_kind kind) { return &rt->prof[kind]; }

void sq_runtime_profile_reset(sq_runtime *rt, int keep_trace) {
  for (int k = 0; k < SQ_NTASK_KINDS; ++k) rt->prof[k].count = rt->prof[k].nanoseconds = 0;
  if (!keep_trace) rt->trace_count = 0;
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

static const char *const kind_names[SQ_NTASK_KINDS] = {"ader",      "local",   "neighbor",   "merged", "step",
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
  fprintf(f, "\nkind,tile,cluster,layer,worker,submit_us,start_us,end_us,ready_us,popped_us,fetched_us\n");
  const sq_disc *d = rt->disc;
  for (int64_t i = 0; i < n; ++i) {
    const sq_trace_event *e = &rt->trace[i];
    const int ok = e->tile >= 0 && e->tile < d->ntile;
    fprintf(f, "%s,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\n", kind_names[e->kind], e->tile,
            ok ? d->tile[e->tile].cluster : -1, ok ? (int)d->tile[e->tile].layer : -1, e->worker,
            1e-3 * (double)(e->submit - t0), 1e-3 * (double)(e->start - t0), 1e-3 * (double)(e->end - t0),
            1e-3 * (double)(e->ready - t0), 1e-3 * (double)(e->popped - t0), 1e-3 * (double)(e->fetched - t0));
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

void sq_runtime_enable_profiling(sq_runtime *rt) {
  starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
  rt->profile = 1;
}
