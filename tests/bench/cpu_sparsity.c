/**
 * @file cpu_sparsity.c  `cpu-sparsity`: the CPU element kernels of one core, sparse (SQ_GEMM_BEST: the star
 * matrices as their non-zeros, K_vol and K_der by their non-zero blocks) against the dense formulation
 * (SQ_GEMM_DENSE), measured in the same run.
 *
 *   cpu-sparsity ORDERS PRECISIONS [ELEMENTS]
 *
 * ORDERS is a comma list or range (4,6 or 2-7), PRECISIONS a comma list of single and double, ELEMENTS about
 * this many tetrahedra of a periodic box (6 per cube; default 4374).  Per point, one time step of global time
 * stepping (ader, local, neighbor over all elements, the calling thread alone) runs for about
 * SQ_CPU_SPARSITY_SECONDS (default 0.3 s) per repeat, SQ_CPU_SPARSITY_REPEATS (default 5) repeats alternating
 * dense and sparse; the table gives the median rate of each kernel and of the whole step ("all"): element
 * updates per second, GFLOP/s counted with the dense CPU model of docs/PERFORMANCE.md (the model of
 * starquake-proxy's gflops, sq_kernel_flops of SQ_GEMM_DENSE) and on non-zeros (sq_ref_flops_nonzero), and the
 * ratio sparse / dense; a comment line per point gives the FLOPs per update that each form executes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sq_kernels.h"
#include "sq_mesh.h"
#include "sq_solver.h"

enum { K_ADER, K_LOCAL, K_NEIGHBOR, K_ALL, K_N };
static const char *knames[K_N] = {"ader", "local", "neighbor", "all"};

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Run whole steps with impl for about secs seconds; seconds per element update of each kernel into t. */
static void time_steps(sq_gemm_impl impl, const sq_disc *d, const void *const *nb_data, double secs, double t[K_N]) {
  const int O = d->opt.order;
  const int64_t n = d->nelem;
  const double zero[1] = {0};
  double acc[K_N] = {0};
  int64_t steps = 0;
  const double start = now();
  do {
    double t0 = now();
    sq_kernel_ader_impl(impl, d->opt.precision, O, n, d->pack, d->dofs, d->star, d->cluster_dt[0], d->tint, NULL);
    double t1 = now();
    sq_kernel_local_impl(impl, d->opt.precision, O, n, d->pack, d->tint, d->star, d->flux_local, d->dofs);
    double t2 = now();
    sq_kernel_neighbor_impl(impl, d->opt.precision, O, n, d->pack, d->link, d->flux_nb, nb_data, zero, zero, d->dofs);
    double t3 = now();
    acc[K_ADER] += t1 - t0, acc[K_LOCAL] += t2 - t1, acc[K_NEIGHBOR] += t3 - t2, acc[K_ALL] += t3 - t0;
    ++steps;
  } while (now() - start < secs);
  for (int k = 0; k < K_N; ++k) t[k] = acc[k] / ((double)steps * n);
}

static int run_point(const sq_mesh *mesh, const sq_material *mat, int order, sq_precision prec, double secs,
                     int repeats) {
  sq_disc_options opt = {
      .order = order, .precision = prec, .cfl = 0.5, .tile_size = (int)mesh->ncell, .lts_rate = 1, .max_clusters = 1};
  sq_disc *d;
  SQ_CALL(sq_disc_create(mesh, mat, &opt, &d));
  if (d->ntile != 1 || d->tile[0].nneighbor != 1) {
    fprintf(stderr, "cpu-sparsity: expected one tile that reads itself, got %d tiles\n", d->ntile);
    sq_disc_destroy(d);
    return SQ_ERR_INPUT;
  }
  const size_t len = (size_t)d->nelem * d->nbasis * 9;
  uint64_t s = 88172645463325252ull;
  for (size_t i = 0; i < len; ++i) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    const double v = ((double)(s >> 11) / 9007199254740992.0 - 0.5) * 1e-2;
    if (prec == SQ_F64) ((double *)d->dofs)[i] = v;
    else ((float *)d->dofs)[i] = (float)v;
  }
  const void *nb_data[1] = {d->tint};
  /* FLOPs per update: the dense CPU model (what SQ_GEMM_DENSE executes), what the sparse kernels execute, the
   * non-zero count */
  double fd[K_N], fs[K_N], fnz[K_N];
  sq_kernel_flops(SQ_GEMM_DENSE, prec, order, fd);
  sq_kernel_flops(SQ_GEMM_BEST, prec, order, fs);
  sq_ref_flops_nonzero(d->ref, fnz);
  fd[K_ALL] = fd[0] + fd[1] + fd[2], fs[K_ALL] = fs[0] + fs[1] + fs[2], fnz[K_ALL] = fnz[0] + fnz[1] + fnz[2];
  printf("# O%d %s: kFLOP per update (ader, local, neighbor, all): dense %.1f %.1f %.1f %.1f; sparse executes %.1f "
         "%.1f %.1f %.1f (%.2f of dense); non-zero %.1f %.1f %.1f %.1f\n",
         order, prec == SQ_F64 ? "double" : "single", fd[0] * 1e-3, fd[1] * 1e-3, fd[2] * 1e-3, fd[3] * 1e-3,
         fs[0] * 1e-3, fs[1] * 1e-3, fs[2] * 1e-3, fs[3] * 1e-3, fs[3] / fd[3], fnz[0] * 1e-3, fnz[1] * 1e-3,
         fnz[2] * 1e-3, fnz[3] * 1e-3);
  double *rate[2][K_N];
  for (int m = 0; m < 2; ++m)
    for (int k = 0; k < K_N; ++k) rate[m][k] = malloc(sizeof(double) * repeats);
  double warm[K_N];
  time_steps(SQ_GEMM_DENSE, d, nb_data, 0.05, warm);
  time_steps(SQ_GEMM_BEST, d, nb_data, 0.05, warm);
  for (int r = 0; r < repeats; ++r)
    for (int m = 0; m < 2; ++m) {
      double t[K_N];
      time_steps(m ? SQ_GEMM_BEST : SQ_GEMM_DENSE, d, nb_data, secs, t);
      for (int k = 0; k < K_N; ++k) rate[m][k][r] = 1.0 / t[k];
    }
  for (int k = 0; k < K_N; ++k) {
    double med[2];
    for (int m = 0; m < 2; ++m) {
      qsort(rate[m][k], repeats, sizeof(double), cmp_double);
      med[m] = repeats % 2 ? rate[m][k][repeats / 2] : 0.5 * (rate[m][k][repeats / 2 - 1] + rate[m][k][repeats / 2]);
    }
    printf("| %d | %s | %s | %.0f | %.0f | %.2f | %.1f | %.1f | %.1f | %.1f |\n", order,
           prec == SQ_F64 ? "double" : "single", knames[k], med[1] * 1e-3, med[0] * 1e-3, med[1] / med[0],
           med[1] * fd[k] * 1e-9, med[0] * fd[k] * 1e-9, med[1] * fnz[k] * 1e-9, med[0] * fnz[k] * 1e-9);
  }
  fflush(stdout);
  for (int m = 0; m < 2; ++m)
    for (int k = 0; k < K_N; ++k) free(rate[m][k]);
  sq_disc_destroy(d);
  return SQ_SUCCESS;
}

static int parse_orders(const char *arg, int *orders) {
  int n = 0, a, b;
  if (sscanf(arg, "%d-%d", &a, &b) == 2 && !strchr(arg, ',')) {
    for (int o = a; o <= b && n < 16; ++o) orders[n++] = o;
  } else {
    for (const char *p = arg; *p && n < 16; p = strchr(p, ',') ? strchr(p, ',') + 1 : p + strlen(p))
      orders[n++] = atoi(p);
  }
  for (int i = 0; i < n; ++i)
    if (orders[i] < SQ_ORDER_MIN || orders[i] > SQ_ORDER_MAX) {
      fprintf(stderr, "cpu-sparsity: order %d out of range %d-%d\n", orders[i], SQ_ORDER_MIN, SQ_ORDER_MAX);
      return 0;
    }
  return n;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: cpu-sparsity ORDERS PRECISIONS [ELEMENTS]\n"
                    "  ORDERS      comma list or range of orders 2-7 (4,6)\n"
                    "  PRECISIONS  comma list of single, double\n"
                    "  ELEMENTS    about this many tetrahedra of a periodic box (default 4374)\n");
    return 2;
  }
  int orders[16];
  const int norder = parse_orders(argv[1], orders);
  if (!norder) return 2;
  sq_precision precs[2];
  int nprec = 0;
  if (strstr(argv[2], "single")) precs[nprec++] = SQ_F32;
  if (strstr(argv[2], "double")) precs[nprec++] = SQ_F64;
  if (!nprec) {
    fprintf(stderr, "cpu-sparsity: PRECISIONS '%s' names neither single nor double\n", argv[2]);
    return 2;
  }
  const double elems = argc > 3 ? atof(argv[3]) : 4374;
  const char *se = getenv("SQ_CPU_SPARSITY_SECONDS"), *sr = getenv("SQ_CPU_SPARSITY_REPEATS");
  const double secs = se ? atof(se) : 0.3;
  const int repeats = sr && atoi(sr) > 0 ? atoi(sr) : 5;
  sq_box_params bp;
  sq_box_params_default(&bp);
  int c = (int)lround(cbrt(elems / 6.0));
  bp.n[0] = bp.n[1] = bp.n[2] = c < 2 ? 2 : c;
  sq_mesh *mesh;
  if (sq_mesh_box(&bp, &mesh)) return 1;
  sq_material *mat = malloc(sizeof(sq_material) * mesh->ncell);
  for (int64_t i = 0; i < mesh->ncell; ++i) mat[i] = (sq_material){.rho = 2.7, .lambda = 3.2, .mu = 3.2};
  printf("# cpu-sparsity: %lld elements, one thread, %d repeats of %.2f s, median; products: %s (double), %s "
         "(single)\n",
         (long long)mesh->ncell, repeats, secs, sq_kernel_gemm_name(SQ_F64), sq_kernel_gemm_name(SQ_F32));
  printf("# GFLOP/s dense: the dense CPU model (docs/PERFORMANCE.md); nz: non-zero FLOPs (sq_ref_flops_nonzero)\n");
  printf("| O | precision | kernel | sparse k upd/s | dense k upd/s (reference) | ratio | sparse GFLOP/s dense | "
         "dense GFLOP/s dense | sparse GFLOP/s nz | dense GFLOP/s nz |\n");
  printf("|---|---|---|---|---|---|---|---|---|---|\n");
  int err = 0;
  for (int io = 0; io < norder && !err; ++io)
    for (int ip = 0; ip < nprec && !err; ++ip) err = run_point(mesh, mat, orders[io], precs[ip], secs, repeats);
  free(mat);
  sq_mesh_destroy(mesh);
  return err ? 1 : 0;
}
