/**
 * @file qs_multistep.c  Iteration counts of the viscoelastic steps with and without the multi-step predictor
 * (sq_qs_visco.h): the unit box in n^3 cubes (6 tetrahedra each), a vertical strike-slip fault (x = 1/2,
 * 1/4 <= y <= 3/4, 1/2 <= z <= 1) reaching the free top, the sides and bottom fixed, an elastic upper half over a
 * Maxwell lower half (lambda = mu = 1, eta = 1: Maxwell time 1; dt = 0.1), the elastic solve and @p steps
 * viscoelastic steps, for:
 *   (a) one step at a time from zero, (b) one step at a time from the linear predictor (the 7-point regression),
 *   (c) the papers' Algorithm 1: four steps solved together (multistep 4), passes of 2 outer iterations,
 *   and the variants (d) multistep 4 with one pass per step (until the step converges), (e) multistep 2.
 * Per case: outer, inner (P2) and coarse (P1) iterations per step (a multi-vector iteration counted once), the EBE
 * products per step (each reads every element once) and the vectors they carried (the one-vector products'
 * count), the CPU time per step (one thread), and the field's largest difference to case (a) relative to its largest
 * value. The products run as plain loops (no StarPU) through counting sq_qs_ops.  First, the CPU time of the
 * products themselves: four vectors in one multi-vector product against four one-vector products.
 *
 * usage: qs-multistep-bench [n (cubes per side, a multiple of 4, default 12)] [steps (default 40)] [cases (abcde)]
 *                            [outer iterations per pass of (c) and (e) (default 2)]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qs_bench_problem.h"
#include "sq_mesh.h"
#include "sq_qs.h"
#include "sq_qs_visco.h"

/* the process's CPU time: the products run serially, and the machine may be shared */
static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* The serial products, counted: calls (element reads) and vectors. */
typedef struct counter {
  const sq_qs_mesh *qm;
  int64_t calls, vectors;
} counter;

static void count(counter *c, int nvec) {
  c->calls++;
  c->vectors += nvec;
}

static int p2_f64(void *ctx, int nvec, const double *x, double *y) {
  counter *c = ctx;
  const sq_qs_mesh *qm = c->qm;
  count(c, nvec);
  memset(y, 0, sizeof(double) * 3 * (size_t)(qm->nnode * nvec));
  sq_qs_ebe_p2_f64_multi(qm->ncell, qm->cell_node, qm->cell_node, qm->geo, nvec, x, y);
  return 0;
}

static int p2_f32(void *ctx, int nvec, const float *x, float *y) {
  counter *c = ctx;
  const sq_qs_mesh *qm = c->qm;
  count(c, nvec);
  memset(y, 0, sizeof(float) * 3 * (size_t)(qm->nnode * nvec));
  sq_qs_ebe_p2_f32_multi(qm->ncell, qm->cell_node, qm->cell_node, qm->geo32, nvec, x, y);
  return 0;
}

static int p1_f32(void *ctx, int nvec, const float *x, float *y) {
  counter *c = ctx;
  const sq_qs_mesh *qm = c->qm;
  count(c, nvec);
  memset(y, 0, sizeof(float) * 3 * (size_t)(qm->nvert * nvec));
  sq_qs_ebe_p1_f32_multi(qm->ncell, qm->cell_node, qm->cell_node, qm->geo32, nvec, x, y);
  return 0;
}

/* the one-vector forms of the same (the one-step path's products) */
static int p2_f64_one(void *ctx, const double *x, double *y) { return p2_f64(ctx, 1, x, y); }
static int p2_f32_one(void *ctx, const float *x, float *y) { return p2_f32(ctx, 1, x, y); }
static int p1_f32_one(void *ctx, const float *x, float *y) { return p1_f32(ctx, 1, x, y); }

/* CPU seconds of one product: four one-vector products (multi 0) or one four-vector product (multi 1) of the P2
 * operator in double (kind 0) or single (1) precision, or the P1 one in single (2); the mean of 5. */
static double product_seconds(const sq_qs_mesh *q, int kind, int multi) {
  const int nv = SQ_QS_MAXVEC, reps = 5;
  const int64_t n = 3 * q->nnode * nv;
  double *x = malloc(sizeof(double) * (size_t)n), *y = malloc(sizeof(double) * (size_t)n);
  float *xf = malloc(sizeof(float) * (size_t)n), *yf = malloc(sizeof(float) * (size_t)n);
  for (int64_t i = 0; i < n; ++i) xf[i] = (float)(x[i] = sin(0.1 * (double)i));
  const double t0 = cpu_seconds();
  for (int r = 0; r < reps; ++r) {
    memset(y, 0, sizeof(double) * (size_t)n);
    memset(yf, 0, sizeof(float) * (size_t)n);
    if (multi && kind == 0) sq_qs_ebe_p2_f64_multi(q->ncell, q->cell_node, q->cell_node, q->geo, nv, x, y);
    else if (multi && kind == 1) sq_qs_ebe_p2_f32_multi(q->ncell, q->cell_node, q->cell_node, q->geo32, nv, xf, yf);
    else if (multi) sq_qs_ebe_p1_f32_multi(q->ncell, q->cell_node, q->cell_node, q->geo32, nv, xf, yf);
    else
      for (int v = 0; v < nv; ++v) {
        const int64_t o = 3 * q->nnode * v;
        if (kind == 0) sq_qs_ebe_p2_f64(q->ncell, q->cell_node, q->cell_node, q->geo, x + o, y + o);
        else if (kind == 1) sq_qs_ebe_p2_f32(q->ncell, q->cell_node, q->cell_node, q->geo32, xf + o, yf + o);
        else sq_qs_ebe_p1_f32(q->ncell, q->cell_node, q->cell_node, q->geo32, xf + o, yf + o);
      }
  }
  const double sec = (cpu_seconds() - t0) / reps;
  free(x);
  free(y);
  free(xf);
  free(yf);
  return sec;
}

typedef struct bench_case {
  char key;
  const char *what;
  int multistep, predictor, pass_iters;
} bench_case;

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 12, steps = argc > 2 ? atoi(argv[2]) : 40;
  const char *which = argc > 3 ? argv[3] : "abcde";
  const int pass = argc > 4 ? atoi(argv[4]) : 2;
  if (n < 4 || n % 4 || steps < 1 || pass < 1) {
    fprintf(stderr, "usage: qs-multistep-bench [n: a multiple of 4] [steps >= 1] [cases, e.g. abc] [pass >= 1]\n");
    return 2;
  }
  const bench_case cases[] = {{'a', "(a) one step, no predictor", 1, 0, 0},
                              {'b', "(b) one step, linear predictor", 1, 1, 0},
                              {'c', "(c) four steps together", 4, 1, pass},
                              {'d', "(d) four steps, one pass a step", 4, 1, 0},
                              {'e', "(e) two steps together", 2, 1, pass}};
  sq_mesh *m = NULL;
  sq_qs_mesh *q = NULL;
  double *eta = NULL;
  if (qs_bench_problem(n, 1024, &m, &q, &eta)) return 1;
  const int64_t nd = 3 * q->nnode;
  printf("qs-multistep-bench: %d^3 cubes, %lld cells, %lld degrees of freedom; elastic upper half, Maxwell lower "
         "half (Maxwell time 1), %d steps of 0.1; CPU time of the products, then per step, averaged over the "
         "steps:\n\n",
         n, (long long)q->ncell, (long long)nd, steps);
  printf("| product | four one-vector products | one four-vector product | ratio |\n|---|---|---|---|\n");
  const char *kinds[3] = {"P2, double", "P2, single", "P1, single"};
  for (int kind = 0; kind < 3; ++kind) {
    const double t1 = product_seconds(q, kind, 0), t4 = product_seconds(q, kind, 1);
    printf("| %s | %.2f ms | %.2f ms | %.2f |\n", kinds[kind], 1e3 * t1, 1e3 * t4, t1 / t4);
  }
  printf("\n");
  printf("| case | outer | inner P2 | coarse P1 | EBE products (element reads) | vectors carried | CPU seconds | "
         "max residual | field vs (a) |\n|---|---|---|---|---|---|---|---|---|\n");
  double *u = calloc(nd, sizeof(double)), *ua = NULL;
  double coarse_of[256] = {0};
  int ierr = 0;
  for (size_t k = 0; !ierr && k < sizeof(cases) / sizeof(cases[0]); ++k) {
    const bench_case *bc = cases + k;
    if (!strchr(which, bc->key)) continue;
    sq_qs_visco_opts vo;
    sq_qs_visco_opts_default(&vo);
    vo.dt = 0.1;
    vo.predictor = bc->predictor;
    vo.multistep = bc->multistep;
    vo.pass_iters = bc->pass_iters;
    sq_qs_visco *v = NULL;
    if ((ierr = sq_qs_visco_create(q, eta, &vo, &v))) break;
    counter cnt = {.qm = sq_qs_visco_mesh(v)};
    const sq_qs_ops ops = {.ctx = &cnt,
                           .apply_f64 = p2_f64_one,
                           .apply_f32 = p2_f32_one,
                           .apply_coarse_f32 = p1_f32_one,
                           .apply_f64_multi = p2_f64,
                           .apply_f32_multi = p2_f32,
                           .apply_coarse_f32_multi = p1_f32};
    memset(u, 0, sizeof(double) * (size_t)nd);
    if ((ierr = sq_qs_visco_elastic(v, NULL, u))) break;
    sq_qs_visco_stats s0, s;
    sq_qs_visco_get_stats(v, &s0);
    const double t0 = cpu_seconds();
    for (int st = 0; !ierr && st < steps; ++st) ierr = sq_qs_visco_step(v, &ops, u);
    const double sec = cpu_seconds() - t0;
    if (ierr) break;
    sq_qs_visco_get_stats(v, &s);
    double umax = 0, d = 0;
    if (!ua) {
      ua = malloc(sizeof(double) * (size_t)nd);
      memcpy(ua, u, sizeof(double) * (size_t)nd);
    }
    for (int64_t i = 0; i < nd; ++i) {
      umax = fmax(umax, fabs(ua[i]));
      d = fmax(d, fabs(u[i] - ua[i]));
    }
    coarse_of[(unsigned char)bc->key] = (double)(s.coarse_iters - s0.coarse_iters) / steps;
    printf("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.3f | %.1e | %.1e |\n", bc->what,
           (double)(s.outer_iters - s0.outer_iters) / steps, (double)(s.inner_iters - s0.inner_iters) / steps,
           coarse_of[(unsigned char)bc->key], (double)cnt.calls / steps, (double)cnt.vectors / steps, sec / steps,
           s.max_rel_residual, d / umax);
    fflush(stdout);
    sq_qs_visco_destroy(v);
  }
  if (!ierr && coarse_of['c'] > 0) {
    printf("\ncoarse (P1) iterations, four steps together (c) against:");
    if (coarse_of['a'] > 0) printf(" no predictor (a) %.2fx fewer;", coarse_of['a'] / coarse_of['c']);
    if (coarse_of['b'] > 0) printf(" the linear predictor (b) %.2fx fewer;", coarse_of['b'] / coarse_of['c']);
    printf(" the papers: 2.3x fewer (their Fig. 4, against their previous solver's predictor)\n");
  }
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
  free(u);
  free(ua);
  free(eta);
  if (ierr) fprintf(stderr, "qs-multistep-bench: a solve failed (%d)\n", ierr);
  return ierr ? 1 : 0;
}
