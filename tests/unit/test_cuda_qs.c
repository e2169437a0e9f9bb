/**
 * @file test_cuda_qs.c  Check suite for the quasi-static solver on the GPU (src/cuda/qs_cuda.cu, the CUDA bodies of
 * codelets/qs_ebe.c and codelets/qs_transfer.c) against the CPU:
 * (1) kernels: on a jittered box's P2 mesh, the EBE products (P2 and P1, both precisions, 1 to 4 interleaved
 *     vectors, blocks of 32 and 64 cells reduced in shared memory) against sq_qs.h's CPU kernels one vector
 *     at a time (relative 1e-12 in double, 1e-5 in single, to the largest entry), the restriction and the
 *     prolongation bitwise;
 * (2) a whole solve (Dirichlet data on the box, the mixed-precision solver of sq_qs_solve) with every task on the
 *     GPU (StarPU with one CUDA worker and no CPU worker) against the serial CPU solve: the same answer to 1e-9,
 *     the outer relative residual below 1e-10, and no task on a CPU worker.
 * Exits 77 (skipped) when built without CUDA or when no GPU is visible.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <starpu.h>

#include "sq_check.h"
#include "sq_mesh.h"
#include "qs_test_mesh.h"
#include "sq_qs.h"
#include "sq_qs_blocks.h"
#include "sq_runtime.h"

#ifndef SQ_USE_CUDA
int main(void) {
  printf("test_cuda_qs: built without CUDA: skipped\n");
  return 77;
}
#else

#include "sq_cuda_qs.h"
#include "sq_cuda_test_util.h"

static double lcg(unsigned *s) { return ((*s = *s * 1664525u + 1013904223u) >> 8) / 16777216.0 - 0.5; }

/* The CPU reference on nv interleaved vectors, one vector at a time; y cleared here. */
static void cpu_ebe(const sq_qs_mesh *q, sq_precision prec, int p1, int nv, const void *x, void *y) {
  const int64_t n = 3 * q->nnode, es = (int64_t)sq_real_size(prec);
  void *xs = malloc((size_t)(n * es)), *ys = malloc((size_t)(n * es));
  memset(y, 0, (size_t)(n * nv * es));
  for (int v = 0; v < nv; ++v) {
    memset(ys, 0, (size_t)(n * es));
    for (int64_t k = 0; k < n; ++k) memcpy((char *)xs + k * es, (const char *)x + (k * nv + v) * es, (size_t)es);
    if (prec == SQ_F64)
      (p1 ? sq_qs_ebe_p1_f64 : sq_qs_ebe_p2_f64)(q->ncell, q->cell_node, q->cell_node, q->geo, xs, ys);
    else (p1 ? sq_qs_ebe_p1_f32 : sq_qs_ebe_p2_f32)(q->ncell, q->cell_node, q->cell_node, q->geo32, xs, ys);
    for (int64_t k = 0; k < n; ++k) memcpy((char *)y + (k * nv + v) * es, (const char *)ys + k * es, (size_t)es);
  }
  free(xs);
  free(ys);
}

static double value(const void *p, sq_precision prec, int64_t k) {
  return prec == SQ_F64 ? ((const double *)p)[k] : (double)((const float *)p)[k];
}

START_TEST(kernels_vs_cpu) {
  sq_mesh *m = NULL;
  sq_qs_mesh *q = qs_test_box(5, 1000, &m);
  const int64_t n = 3 * q->nnode;
  int64_t *dcell = dev_copy(q->cell_node, sizeof(int64_t) * 10 * q->ncell);
  void *dgeo[2] = {dev_copy(q->geo, sizeof(double) * SQ_QS_NGEO * q->ncell),
                   dev_copy(q->geo32, sizeof(float) * SQ_QS_NGEO * q->ncell)};
  for (int p1 = 0; p1 < 2; ++p1)
    for (int cells = 32; cells <= 64; cells *= 2) {
      sq_qs_blocks *b = NULL;
      ck_assert_int_eq(sq_qs_blocks_create(q->ncell, q->cell_node, p1 ? 4 : 10, cells, &b), 0);
      const sq_cuda_qs_blocks db = {.cells = b->cells,
                                    .nblk = b->nblk,
                                    .max_rows = b->max_rows,
                                    .ptr = dev_copy(b->ptr, sizeof(int64_t) * (b->nblk + 1)),
                                    .row = dev_copy(b->row, sizeof(int64_t) * b->ptr[b->nblk]),
                                    .gather = dev_copy(b->gather, sizeof(uint16_t) * b->ngather)};
      for (int pi = 0; pi < 2; ++pi)
        for (int nv = 1; nv <= 4; ++nv) {
          const sq_precision prec = pi ? SQ_F32 : SQ_F64;
          const size_t bytes = (size_t)(n * nv) * sq_real_size(prec);
          void *x = malloc(bytes), *y = malloc(bytes), *yref = malloc(bytes);
          unsigned s = 3u + 17u * nv;
          for (int64_t k = 0; k < n * nv; ++k)
            if (prec == SQ_F64) ((double *)x)[k] = lcg(&s);
            else ((float *)x)[k] = (float)lcg(&s);
          void *dx = dev_copy(x, bytes), *dy;
          CUDA_OK(cudaMalloc(&dy, bytes));
          CUDA_OK(cudaMemset(dy, 0, bytes));
          sq_cuda_qs_ebe(prec, p1, nv, q->ncell, dgeo[pi], dcell, &db, dx, dy, NULL);
          host_copy(y, dy, bytes);
          cpu_ebe(q, prec, p1, nv, x, yref);
          const int64_t rows = 3 * nv * (p1 ? q->nvert : q->nnode);
          double ymax = 0, err = 0;
          for (int64_t k = 0; k < rows; ++k) ymax = fmax(ymax, fabs(value(yref, prec, k)));
          for (int64_t k = 0; k < rows; ++k) err = fmax(err, fabs(value(y, prec, k) - value(yref, prec, k)) / ymax);
          printf("EBE %s %s, %d vectors, blocks of %d cells: max rel. difference %.2e\n", p1 ? "P1" : "P2",
                 prec_name(prec), nv, cells, err);
          EXPECT(err < (prec == SQ_F64 ? 1e-12 : 1e-5));
          CUDA_OK(cudaFree(dx));
          CUDA_OK(cudaFree(dy));
          free(x);
          free(y);
          free(yref);
        }
      CUDA_OK(cudaFree((void *)db.ptr));
      CUDA_OK(cudaFree((void *)db.row));
      CUDA_OK(cudaFree((void *)db.gather));
      sq_qs_blocks_destroy(b);
    }
  /* the transfers, bitwise */
  const int64_t nc = 3 * q->nvert;
  float *r = malloc(sizeof(float) * n), *rc = malloc(sizeof(float) * nc), *rcs = malloc(sizeof(float) * nc),
        *z = malloc(sizeof(float) * n), *zs = malloc(sizeof(float) * n);
  unsigned s = 5u;
  for (int64_t k = 0; k < n; ++k) r[k] = (float)lcg(&s);
  int64_t *dptr = dev_copy(q->vert_edge_ptr, sizeof(int64_t) * (q->nvert + 1)),
          *dve = dev_copy(q->vert_edge, sizeof(int64_t) * 2 * q->nedge),
          *dev = dev_copy(q->edge_vert, sizeof(int64_t) * 2 * q->nedge);
  float *dr = dev_copy(r, sizeof(float) * n), *drc, *dz;
  CUDA_OK(cudaMalloc((void **)&drc, sizeof(float) * nc));
  CUDA_OK(cudaMalloc((void **)&dz, sizeof(float) * n));
  sq_cuda_qs_restrict(SQ_F32, 1, q->nvert, dptr, dve, 0, q->nvert, dr, drc, NULL);
  sq_cuda_qs_prolong(SQ_F32, 1, q->nvert, dev, 0, q->nnode, drc, dz, NULL);
  host_copy(rc, drc, sizeof(float) * nc);
  host_copy(z, dz, sizeof(float) * n);
  sq_qs_restrict_f32(q, r, rcs);
  sq_qs_prolong_f32(q, rcs, zs);
  for (int64_t k = 0; k < nc; ++k) EXPECT(rc[k] == rcs[k]);
  for (int64_t k = 0; k < n; ++k) EXPECT(z[k] == zs[k]);
  CUDA_OK(cudaFree(dptr));
  CUDA_OK(cudaFree(dve));
  CUDA_OK(cudaFree(dev));
  CUDA_OK(cudaFree(dr));
  CUDA_OK(cudaFree(drc));
  CUDA_OK(cudaFree(dz));
  CUDA_OK(cudaFree(dcell));
  CUDA_OK(cudaFree(dgeo[0]));
  CUDA_OK(cudaFree(dgeo[1]));
  free(r);
  free(rc);
  free(rcs);
  free(z);
  free(zs);
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
}
END_TEST

START_TEST(solve_on_gpu) {
  sq_mesh *m = NULL;
  sq_qs_mesh *q = qs_test_box(6, 200, &m);
  sq_qs_bc_kind kind[256] = {0};
  kind[5] = SQ_QS_DIRICHLET;
  ck_assert_int_eq(sq_qs_set_bc(q, kind, qs_test_boundary_values, NULL), 0);
  const int64_t n = 3 * q->nnode;
  double *u = calloc(n, sizeof(double)), *us = calloc(n, sizeof(double));
  sq_qs_solver_opts o, os;
  sq_qs_solver_opts_default(&o);
  sq_qs_solver_opts_default(&os);
  ck_assert_int_eq(sq_qs_solve(q, NULL, NULL, us, &os), 0);
  ck_assert_int_ge(start_starpu(1), 1);
  sq_qs_runtime *qr = NULL;
  ck_assert_int_eq(sq_qs_runtime_create(q, &qr), 0);
  sq_qs_ops ops;
  sq_qs_runtime_ops(qr, &ops);
  const double t0 = now();
  ck_assert_int_eq(sq_qs_solve(q, &ops, NULL, u, &o), 0);
  const double t1 = now();
  int64_t cpu, gpu;
  task_counts(&cpu, &gpu);
  printf("solve on the GPU: %d outer iterations (CPU: %d), relative residual %.2e, %.2f s, %lld GPU tasks\n",
         o.outer_iters, os.outer_iters, o.rel_residual, t1 - t0, (long long)gpu);
  EXPECT(o.rel_residual < 1e-10);
  EXPECT(abs(o.outer_iters - os.outer_iters) <= 1);
  EXPECT_EQ(cpu, 0);
  EXPECT(gpu > 0);
  double umax = 0, err = 0;
  for (int64_t i = 0; i < n; ++i) umax = fmax(umax, fabs(us[i])), err = fmax(err, fabs(u[i] - us[i]));
  printf("solve on the GPU against the CPU: max difference %.2e (max |u| %.2e)\n", err, umax);
  EXPECT(err < 1e-9);
  sq_qs_runtime_destroy(qr);
  starpu_shutdown();
  free(u);
  free(us);
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
}
END_TEST

/* Four right-hand sides solved together (sq_qs_solve_multi) with every task on the GPU (the 4-vector products and
 * transfers) against the serial CPU solve of the same four. */
START_TEST(multi_solve_on_gpu) {
  sq_mesh *m = NULL;
  sq_qs_mesh *q = qs_test_box(6, 200, &m);
  sq_qs_bc_kind kind[256] = {0};
  kind[5] = SQ_QS_DIRICHLET;
  ck_assert_int_eq(sq_qs_set_bc(q, kind, qs_test_boundary_values, NULL), 0);
  const int nv = 4;
  const int64_t n = 3 * q->nnode * nv;
  double *f = calloc(n, sizeof(double)), *u = calloc(n, sizeof(double)), *us = calloc(n, sizeof(double));
  for (int64_t i = 0; i < n; ++i) f[i] = 1e-3 * sin(0.01 * i) * (1 + i % nv);
  sq_qs_solver_opts o, os;
  sq_qs_solver_opts_default(&o);
  sq_qs_solver_opts_default(&os);
  ck_assert_int_eq(sq_qs_solve_multi(q, NULL, nv, f, us, &os, 0), 0);
  ck_assert_int_ge(start_starpu(1), 1);
  sq_qs_runtime *qr = NULL;
  ck_assert_int_eq(sq_qs_runtime_create(q, &qr), 0);
  sq_qs_ops ops;
  sq_qs_runtime_ops(qr, &ops);
  ck_assert_int_eq(sq_qs_solve_multi(q, &ops, nv, f, u, &o, 0), 0);
  int64_t cpu, gpu;
  task_counts(&cpu, &gpu);
  printf("4-vector solve on the GPU: %d outer iterations (CPU: %d), relative residual %.2e, %lld GPU tasks\n",
         o.outer_iters, os.outer_iters, o.rel_residual, (long long)gpu);
  EXPECT(o.rel_residual < 1e-10);
  EXPECT(abs(o.outer_iters - os.outer_iters) <= 1);
  EXPECT_EQ(cpu, 0);
  EXPECT(gpu > 0);
  double umax = 0, err = 0;
  for (int64_t i = 0; i < n; i += nv) umax = fmax(umax, fabs(us[i])), err = fmax(err, fabs(u[i] - us[i]));
  printf("4-vector solve on the GPU against the CPU: vector 0's max difference %.2e (max |u| %.2e)\n", err, umax);
  EXPECT(err < 1e-9 * fmax(1, umax));
  sq_qs_runtime_destroy(qr);
  starpu_shutdown();
  free(f);
  free(u);
  free(us);
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
}
END_TEST

int main(void) {
  if (sq_test_cuda_start("test_cuda_qs")) return 77;
  const TTest *tests[] = {kernels_vs_cpu, solve_on_gpu, multi_solve_on_gpu, NULL};
  return sq_test_run(sq_test_suite("cuda_qs", 300, tests), 0);
}

#endif
