/**
 * @file qs_step_bench.c  Time of the quasi-static solves through StarPU on the workers the environment gives
 * (STARPU_NCPU, STARPU_NCUDA: e.g. the GPU alone, or the CPU cores alone): the unit box in n^3 cubes (6 tetrahedra
 * each), a vertical strike-slip fault (x = 1/2, 1/4 <= y <= 3/4, 1/2 <= z <= 1) reaching the free top, sides and
 * bottom fixed, an elastic upper half over a Maxwell viscoelastic lower half (eta = 1, mu = 1, dt = 0.1); the
 * elastic solve, then @p steps viscoelastic steps (sq_qs_visco.h, multi-step predictor on).  Prints the time of
 * each solve, its iterations and the tasks each kind of worker ran in it; tests/bench/device/qs_gpu.sh runs it.
 *
 * usage: qs-step-bench [n (cubes per side, a multiple of 4, default 40)] [steps (default 3)] [tile size (1024)]
 */
#include <math.h>
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sq_mesh.h"
#include "sq_qs.h"
#include "sq_qs_visco.h"
#include "sq_runtime.h"

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void slip(void *ctx, const double x[3], double s[3]) {
  (void)ctx, (void)x;
  s[0] = 0, s[1] = 1, s[2] = 0;
}

static void worker_tasks(int64_t *cpu, int64_t *gpu) {
  *cpu = *gpu = 0;
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w) {
    struct starpu_profiling_worker_info info;
    if (starpu_profiling_worker_get_info((int)w, &info)) continue;
    if (starpu_worker_get_type((int)w) == STARPU_CUDA_WORKER) *gpu += info.executed_tasks;
    else *cpu += info.executed_tasks;
  }
}

static void report(const char *what, double sec, const sq_qs_visco_stats *s) {
  int64_t cpu, gpu;
  worker_tasks(&cpu, &gpu);
  printf("| %-16s | %8.2f | %5d | %7lld | %8lld | %.1e | %lld / %lld |\n", what, sec, s->last_outer,
         (long long)s->last_inner, (long long)s->last_coarse, s->max_rel_residual, (long long)cpu, (long long)gpu);
  fflush(stdout);
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 40, steps = argc > 2 ? atoi(argv[2]) : 3,
            tile = argc > 3 ? atoi(argv[3]) : 1024;
  if (n < 4 || n % 4 || steps < 0 || tile < 1) {
    fprintf(stderr, "usage: qs-step-bench [n: a multiple of 4] [steps] [tile size]\n");
    return 2;
  }
  sq_box_params bp;
  sq_box_params_default(&bp);
  bp.n[0] = bp.n[1] = bp.n[2] = n;
  for (int i = 0; i < 5; ++i) bp.bc[i] = SQ_BC_ABSORB; /* the fixed sides and bottom */
  bp.bc[5] = SQ_BC_FREE;
  bp.has_fault = 1;
  const double lo[3] = {0.5, 0.25, 0.5}, hi[3] = {0.5, 0.75, 1.0};
  for (int i = 0; i < 3; ++i) bp.fault_lo[i] = lo[i], bp.fault_hi[i] = hi[i];
  sq_mesh *m = NULL;
  sq_qs_mesh *q = NULL;
  if (sq_mesh_box(&bp, &m)) return 1;
  double *lam = malloc(sizeof(double) * m->ncell), *mu = malloc(sizeof(double) * m->ncell),
         *eta = malloc(sizeof(double) * m->ncell);
  for (int64_t c = 0; c < m->ncell; ++c) lam[c] = mu[c] = 1, eta[c] = m->centroid[3 * c + 2] < 0.5 ? 1.0 : INFINITY;
  if (sq_qs_mesh_create(m, lam, mu, tile, &q)) return 1;
  sq_qs_bc_kind kind[256] = {0};
  kind[SQ_BC_ABSORB] = SQ_QS_DIRICHLET;
  const double nref[3] = {1, 0, 0};
  if (sq_qs_set_bc(q, kind, NULL, NULL) || sq_qs_set_fault(q, nref, slip, NULL)) return 1;
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
         "and %u CUDA workers\n\n",
         n, (long long)q->ncell, (long long)q->nnode, 3e-6 * q->nnode, tile, starpu_cpu_worker_get_count(),
         starpu_cuda_worker_get_count());
  printf("| solve | seconds | outer | inner P2 | coarse P1 | max residual | tasks CPU / GPU |\n"
         "|---|---|---|---|---|---|---|\n");
  sq_qs_runtime *qr = NULL, *qrv = NULL;
  sq_qs_ops ops, opsv;
  if (sq_qs_runtime_create(q, &qr) || sq_qs_runtime_create(sq_qs_visco_mesh(v), &qrv)) return 1;
  sq_qs_runtime_ops(qr, &ops);
  sq_qs_runtime_ops(qrv, &opsv);
  double *u = calloc(3 * q->nnode, sizeof(double));
  sq_qs_visco_stats st;
  double t0 = wall();
  int ierr = sq_qs_visco_elastic(v, &ops, u);
  sq_qs_visco_get_stats(v, &st);
  report("elastic", wall() - t0, &st);
  for (int s = 0; !ierr && s < steps; ++s) {
    t0 = wall();
    ierr = sq_qs_visco_step(v, &opsv, u);
    sq_qs_visco_get_stats(v, &st);
    char name[32];
    snprintf(name, sizeof(name), "step %d", s + 1);
    report(name, wall() - t0, &st);
  }
  double umax = 0;
  for (int64_t k = 0; k < 3 * q->nnode; ++k) umax = fmax(umax, fabs(u[k]));
  printf("\nlargest displacement after %d steps: %.4f (slip 1)\n", steps, umax);
  sq_qs_runtime_destroy(qr);
  sq_qs_runtime_destroy(qrv);
  starpu_shutdown();
  sq_qs_visco_destroy(v);
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
  free(u);
  free(lam);
  free(mu);
  free(eta);
  if (ierr) fprintf(stderr, "qs-step-bench: a solve failed (%d)\n", ierr);
  return ierr ? 1 : 0;
}
