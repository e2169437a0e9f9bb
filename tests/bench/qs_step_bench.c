/**
 * @file qs_step_bench.c  Time of the quasi-static solves through StarPU on the workers the environment gives
 * (STARPU_NCPU, STARPU_NCUDA: e.g. the GPU alone, or the CPU cores alone): the unit box in n^3 cubes (6 tetrahedra
 * each), a vertical strike-slip fault (x = 1/2, 1/4 <= y <= 3/4, 1/2 <= z <= 1) reaching the free top, sides and
 * bottom fixed, an elastic upper half over a Maxwell viscoelastic lower half (eta = 1, mu = 1, dt = 0.1); the
 * elastic solve, then @p steps viscoelastic steps (sq_qs_visco.h, multi-step predictor on).  Prints the time of
 * each solve, its iterations and the tasks each kind of worker ran in it, then where the time went: the wall time
 * inside the operator products (P2 double, P2 single, P1 single) and the transfers (restriction, prolongation),
 * each a StarPU task graph that registers the solver's host vectors, moves them to the workers and back, and the rest
 * (the solver's vector algebra on the host, the predictor), with the bytes StarPU moved between host and GPU;
 * tests/bench/device/qs_gpu.sh runs it.
 *
 * usage: qs-step-bench [n (cubes per side, a multiple of 4, default 40)] [steps (default 3)] [tile size (1024)]
 */
#include <math.h>
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "qs_bench_problem.h"
#include "sq_mesh.h"
#include "sq_qs.h"
#include "sq_qs_visco.h"
#include "sq_runtime.h"

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Tasks per kind of worker since the last call (the counters restart), and the CUDA workers' executing time. */
static void worker_tasks(int64_t *cpu, int64_t *gpu, double *gpu_sec) {
  *cpu = *gpu = 0, *gpu_sec = 0;
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w) {
    struct starpu_profiling_worker_info info;
    if (starpu_profiling_worker_get_info((int)w, &info)) continue;
    if (starpu_worker_get_type((int)w) == STARPU_CUDA_WORKER) {
      *gpu += info.executed_tasks;
      *gpu_sec += info.executing_time.tv_sec + 1e-9 * info.executing_time.tv_nsec;
    } else *cpu += info.executed_tasks;
  }
}

/* The operators of sq_qs_ops, each call timed (wall) and counted. */
enum { OP_P2_F64, OP_P2_F32, OP_P1_F32, OP_RESTRICT, OP_PROLONG, NOP };
typedef struct timed_ops {
  sq_qs_ops inner;
  double sec[NOP];
  int64_t calls[NOP];
} timed_ops;

#define TIMED(name, op, T, call)                                                                                       \
  static int name(void *ctx, const T *a, T *b) {                                                                       \
    timed_ops *t = ctx;                                                                                                \
    const double t0 = wall();                                                                                          \
    const int r = t->inner.call(t->inner.ctx, a, b);                                                                   \
    t->sec[op] += wall() - t0;                                                                                         \
    ++t->calls[op];                                                                                                    \
    return r;                                                                                                          \
  }
TIMED(timed_p2_f64, OP_P2_F64, double, apply_f64)
TIMED(timed_p2_f32, OP_P2_F32, float, apply_f32)
TIMED(timed_p1_f32, OP_P1_F32, float, apply_coarse_f32)
TIMED(timed_restrict, OP_RESTRICT, float, restrict_f32)
TIMED(timed_prolong, OP_PROLONG, float, prolong_f32)

static sq_qs_ops timed(timed_ops *t, const sq_qs_ops *inner) {
  *t = (timed_ops){.inner = *inner};
  return (sq_qs_ops){.ctx = t,
                     .apply_f64 = timed_p2_f64,
                     .apply_f32 = timed_p2_f32,
                     .apply_coarse_f32 = timed_p1_f32,
                     .restrict_f32 = timed_restrict,
                     .prolong_f32 = timed_prolong};
}

/* Bytes StarPU moved over all buses since the last call (the counters restart). */
static double bus_bytes(void) {
  double b = 0;
  for (int k = 0; k < starpu_bus_get_count(); ++k) {
    struct starpu_profiling_bus_info info;
    if (!starpu_bus_get_profiling_info(k, &info)) b += (double)info.transferred_bytes;
  }
  return b;
}

typedef struct split_row {
  char what[32];
  double sec, bytes, gpu_sec, op_sec[NOP];
  int64_t op_calls[NOP];
} split_row;
static split_row rows[64];
static int nrows;

static void report(const char *what, double sec, const sq_qs_visco_stats *s, timed_ops *t) {
  int64_t cpu, gpu;
  double gpu_sec;
  worker_tasks(&cpu, &gpu, &gpu_sec);
  printf("| %-16s | %8.2f | %5d | %7lld | %8lld | %.1e | %lld / %lld |\n", what, sec, s->last_outer,
         (long long)s->last_inner, (long long)s->last_coarse, s->max_rel_residual, (long long)cpu, (long long)gpu);
  fflush(stdout);
  if (nrows < 64) {
    split_row *r = rows + nrows++;
    snprintf(r->what, sizeof(r->what), "%s", what);
    r->sec = sec, r->bytes = bus_bytes(), r->gpu_sec = gpu_sec;
    for (int k = 0; k < NOP; ++k)
      r->op_sec[k] = t->sec[k], r->op_calls[k] = t->calls[k], t->sec[k] = 0, t->calls[k] = 0;
  }
}

static void print_split(void) {
  printf("\nWhere the time went (wall seconds, calls in brackets; each call a task graph over the tiles with the "
         "solver's host vectors registered for its duration; host: the solver's vector algebra and the predictor; "
         "GPU tasks: the CUDA workers' executing time as StarPU counts it):"
         "\n\n| solve | total | P2 f64 | P2 f32 | P1 f32 | restrict + prolong | host | GPU tasks | host-GPU traffic |\n"
         "|---|---|---|---|---|---|---|---|---|\n");
  for (int i = 0; i < nrows; ++i) {
    const split_row *r = rows + i;
    double ops = 0;
    for (int k = 0; k < NOP; ++k) ops += r->op_sec[k];
    printf("| %s | %.2f | %.2f (%lld) | %.2f (%lld) | %.2f (%lld) | %.2f (%lld) | %.2f | %.2f | %.1f GB |\n", r->what,
           r->sec, r->op_sec[OP_P2_F64], (long long)r->op_calls[OP_P2_F64], r->op_sec[OP_P2_F32],
           (long long)r->op_calls[OP_P2_F32], r->op_sec[OP_P1_F32], (long long)r->op_calls[OP_P1_F32],
           r->op_sec[OP_RESTRICT] + r->op_sec[OP_PROLONG],
           (long long)(r->op_calls[OP_RESTRICT] + r->op_calls[OP_PROLONG]), r->sec - ops, r->gpu_sec, 1e-9 * r->bytes);
  }
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 40, steps = argc > 2 ? atoi(argv[2]) : 3,
            tile = argc > 3 ? atoi(argv[3]) : 1024;
  if (n < 4 || n % 4 || steps < 0 || tile < 1) {
    fprintf(stderr, "usage: qs-step-bench [n: a multiple of 4] [steps] [tile size]\n");
    return 2;
  }
  const double t_setup = wall();
  sq_mesh *m = NULL;
  sq_qs_mesh *q = NULL;
  double *eta = NULL;
  if (qs_bench_problem(n, tile, &m, &q, &eta)) return 1;
  sq_qs_visco_opts vo;
  sq_qs_visco_opts_default(&vo);
  vo.dt = 0.1;
  sq_qs_visco *v = NULL;
  if (sq_qs_visco_create(q, eta, &vo, &v)) return 1;
  if (starpu_init(NULL) != 0) {
    fprintf(stderr, "qs-step-bench: starpu_init failed\n");
    return 1;
  }
  starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
  printf("qs-step-bench: %d^3 cubes, %lld cells, %lld P2 nodes (%.2f M degrees of freedom), tiles of %d cells, %u CPU "
         "and %u CUDA workers; set-up %.1f s\n\n",
         n, (long long)q->ncell, (long long)q->nnode, 3e-6 * q->nnode, tile, starpu_cpu_worker_get_count(),
         starpu_cuda_worker_get_count(), wall() - t_setup);
  printf("| solve | seconds | outer | inner P2 | coarse P1 | max residual | tasks CPU / GPU |\n"
         "|---|---|---|---|---|---|---|\n");
  sq_qs_runtime *qr = NULL, *qrv = NULL;
  sq_qs_ops raw, rawv;
  timed_ops tops, topsv;
  if (sq_qs_runtime_create(q, &qr) || sq_qs_runtime_create(sq_qs_visco_mesh(v), &qrv)) return 1;
  sq_qs_runtime_ops(qr, &raw);
  sq_qs_runtime_ops(qrv, &rawv);
  const sq_qs_ops ops = timed(&tops, &raw), opsv = timed(&topsv, &rawv);
  bus_bytes(); /* the counters from here */
  double *u = calloc(3 * q->nnode, sizeof(double));
  sq_qs_visco_stats st;
  double t0 = wall();
  int ierr = sq_qs_visco_elastic(v, &ops, u);
  sq_qs_visco_get_stats(v, &st);
  report("elastic", wall() - t0, &st, &tops);
  for (int s = 0; !ierr && s < steps; ++s) {
    t0 = wall();
    ierr = sq_qs_visco_step(v, &opsv, u);
    sq_qs_visco_get_stats(v, &st);
    char name[32];
    snprintf(name, sizeof(name), "step %d", s + 1);
    report(name, wall() - t0, &st, &topsv);
  }
  double umax = 0;
  for (int64_t k = 0; k < 3 * q->nnode; ++k) umax = fmax(umax, fabs(u[k]));
  print_split();
  printf("\nlargest displacement after %d steps: %.4f (slip 1)\n", steps, umax);
  sq_qs_runtime_destroy(qr);
  sq_qs_runtime_destroy(qrv);
  starpu_shutdown();
  sq_qs_visco_destroy(v);
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
  free(u);
  free(eta);
  if (ierr) fprintf(stderr, "qs-step-bench: a solve failed (%d)\n", ierr);
  return ierr ? 1 : 0;
}
