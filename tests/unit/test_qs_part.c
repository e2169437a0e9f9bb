/** @file test_qs_part.c  Check suite for the partitioned quasi-static mesh (sq_qs_part.h): owners and shared-node
 *  lists, and whole solves (elastic with a buried fault and Dirichlet sides, then viscoelastic steps) on 2 and 3
 *  parts, each part a thread with the sq_qs_ops hooks done in shared memory (what runtime/qs_comm.c does with MPI:
 *  the shared nodes summed in rank order, the global sums in rank order), against the whole mesh's solve. */
#include "sq_check.h"
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sq_partition.h"
#include "sq_qs_part.h"
#include "sq_qs_visco.h"
#include "sq_test_util.h"

enum { MAXR = 3 };

/* A box [0,1]^3 of n^3 cubes, all sides absorbing, jittered, with a buried fault [0.25, 0.75]^2 at x = 0.5 (or none).
 */
static sq_mesh *box(int n, int fault) {
  sq_box_params bp;
  sq_box_params_default(&bp);
  bp.n[0] = bp.n[1] = bp.n[2] = n;
  for (int i = 0; i < 6; ++i) bp.bc[i] = 5;
  bp.jitter = 0.2;
  bp.has_fault = fault;
  bp.fault_lo[0] = bp.fault_hi[0] = 0.5;
  bp.fault_lo[1] = bp.fault_lo[2] = 0.25;
  bp.fault_hi[1] = bp.fault_hi[2] = 0.75;
  sq_mesh *m = NULL;
  ck_assert_int_eq(sq_mesh_box(&bp, &m), 0);
  return m;
}

static void dirichlet(void *ctx, const double x[3], double u[3]) {
  (void)ctx;
  u[0] = 0.01 * x[1];
  u[1] = -0.02 * x[2];
  u[2] = 0.005 * x[0] * x[1];
}

static void slip(void *ctx, const double x[3], double s[3]) {
  (void)ctx;
  s[0] = 0;
  s[1] = 1 + 0.5 * x[2];
  s[2] = 0.25;
}

/* the whole P2 mesh: heterogeneous moduli, the sides Dirichlet, the top (z = 1) free, the fault slipping */
static sq_qs_mesh *whole_mesh(const sq_mesh *m, int tile) {
  double *lam = malloc(sizeof(double) * m->ncell), *mu = malloc(sizeof(double) * m->ncell);
  for (int64_t c = 0; c < m->ncell; ++c) {
    lam[c] = 2 * (1 + 0.5 * (c % 3));
    mu[c] = 1 + 0.25 * (c % 5);
  }
  sq_qs_mesh *q = NULL;
  ck_assert_int_eq(sq_qs_mesh_create(m, lam, mu, tile, &q), 0);
  free(lam);
  free(mu);
  sq_qs_bc_kind kind[256] = {0};
  kind[5] = SQ_QS_DIRICHLET;
  ck_assert_int_eq(sq_qs_set_bc(q, kind, dirichlet, NULL), 0);
  /* free top: undo the prescribed components of the nodes at z = 1 that lie off the sides */
  for (int64_t p = 0; p < q->nnode; ++p) {
    const double *x = q->xyz + 3 * p;
    if (fabs(x[2] - 1) < 1e-9 && x[0] > 1e-9 && x[0] < 1 - 1e-9 && x[1] > 1e-9 && x[1] < 1 - 1e-9)
      for (int i = 0; i < 3; ++i) q->fixed[3 * p + i] = 0, q->ubc[3 * p + i] = 0;
  }
  const double nref[3] = {1, 0, 0};
  ck_assert_int_eq(sq_qs_set_fault(q, nref, slip, NULL), 0);
  return q;
}

/* ---- the hooks in shared memory: one thread a rank ---------------------------------------------------- */

typedef struct shm {
  int nranks;
  pthread_barrier_t bar;
  sq_qs_mesh *part[MAXR];
  int64_t *lmap[MAXR]; /* whole node -> the part's local node, -1 */
  void *y[MAXR];       /* the vectors published by an exchange */
  double *v[MAXR];     /* the values published by a global sum */
} shm;

typedef struct rank_ctx {
  shm *s;
  int rank;
  void *tmp; /* 3 MAXVEC nnode doubles */
  double vsum[8];
} rank_ctx;

static int exchange(rank_ctx *c, int p1, int nval, int f32, void *y) {
  shm *s = c->s;
  const sq_qs_mesh *q = s->part[c->rank];
  const int64_t nn = p1 ? q->nvert : q->nnode;
  s->y[c->rank] = y;
  pthread_barrier_wait(&s->bar);
  for (int64_t l = 0; l < nn; ++l)
    for (int j = 0; j < nval; ++j) {
      double a64 = 0;
      float a32 = 0;
      for (int r = 0; r < s->nranks; ++r) { /* every rank holding the node, in rank order */
        const int64_t lr = s->lmap[r][q->gnode[l]];
        if (lr < 0) continue;
        if (f32) a32 += ((const float *)s->y[r])[lr * nval + j];
        else a64 += ((const double *)s->y[r])[lr * nval + j];
      }
      if (f32) ((float *)c->tmp)[l * nval + j] = a32;
      else ((double *)c->tmp)[l * nval + j] = a64;
    }
  pthread_barrier_wait(&s->bar);
  memcpy(y, c->tmp, (f32 ? sizeof(float) : sizeof(double)) * (size_t)(nn * nval));
  pthread_barrier_wait(&s->bar);
  return 0;
}

static int exchange_f64(void *ctx, int p1, int nval, double *y) { return exchange(ctx, p1, nval, 0, y); }
static int exchange_f32(void *ctx, int p1, int nval, float *y) { return exchange(ctx, p1, nval, 1, y); }

static int allreduce(void *ctx, double *v, int n) {
  rank_ctx *c = ctx;
  shm *s = c->s;
  s->v[c->rank] = v;
  pthread_barrier_wait(&s->bar);
  for (int i = 0; i < n; ++i) {
    c->vsum[i] = 0;
    for (int r = 0; r < s->nranks; ++r) c->vsum[i] += s->v[r][i];
  }
  pthread_barrier_wait(&s->bar);
  memcpy(v, c->vsum, sizeof(double) * n);
  return 0;
}

/* ---- one rank's run: the elastic solve, then viscoelastic steps ---------------------------------------- */

enum { NSTEP = 3 };

typedef struct rank_run {
  rank_ctx ctx;
  const double *eta; /* the part's cells */
  double *u[NSTEP + 1];
  int outer[NSTEP + 1];
  double res;
  int64_t inner, coarse; /* over the run */
  int ierr;
} rank_run;

static void *rank_main(void *arg) {
  rank_run *rr = arg;
  const sq_qs_mesh *q = rr->ctx.s->part[rr->ctx.rank];
  sq_qs_ops ops;
  memset(&ops, 0, sizeof(ops));
  ops.comm = &rr->ctx;
  ops.exchange_f64 = exchange_f64;
  ops.exchange_f32 = exchange_f32;
  ops.allreduce = allreduce;
  sq_qs_visco_opts vo;
  sq_qs_visco_opts_default(&vo);
  vo.dt = 0.5;
  sq_qs_visco *v = NULL;
  rr->ierr = sq_qs_visco_create(q, rr->eta, &vo, &v);
  double *u = calloc(3 * q->nnode, sizeof(double));
  if (!rr->ierr) rr->ierr = sq_qs_visco_elastic(v, &ops, u);
  for (int k = 0; !rr->ierr && k <= NSTEP; ++k) {
    if (k > 0) rr->ierr = sq_qs_visco_step(v, &ops, u);
    sq_qs_visco_stats st;
    sq_qs_visco_get_stats(v, &st);
    rr->outer[k] = st.last_outer;
    if (st.max_rel_residual > rr->res) rr->res = st.max_rel_residual;
    rr->u[k] = malloc(sizeof(double) * 3 * q->nnode);
    memcpy(rr->u[k], u, sizeof(double) * 3 * q->nnode);
    rr->inner = st.inner_iters;
    rr->coarse = st.coarse_iters;
  }
  free(u);
  sq_qs_visco_destroy(v);
  return NULL;
}

/* the viscosity: elastic above z = 0.5, Maxwell (eta 1) below */
static double *viscosity(const sq_mesh *m) {
  double *eta = malloc(sizeof(double) * m->ncell);
  for (int64_t c = 0; c < m->ncell; ++c) eta[c] = m->centroid[3 * c + 2] < 0.5 ? 1.0 : INFINITY;
  return eta;
}

/* The whole run on one thread (no hooks), then on nranks parts; the fields equal to 1e-8 of the largest value. */
static void compare_parts(const sq_mesh *m, const int *cell_rank, int nranks) {
  sq_qs_mesh *w = whole_mesh(m, 64);
  double *eta = viscosity(m);
  shm s = {.nranks = 1};
  s.part[0] = w;
  int64_t *id = malloc(sizeof(int64_t) * w->nnode);
  for (int64_t g = 0; g < w->nnode; ++g) id[g] = g;
  rank_run ref = {.ctx = {.s = NULL, .rank = 0}, .eta = eta};
  {
    /* the whole mesh without hooks */
    sq_qs_visco_opts vo;
    sq_qs_visco_opts_default(&vo);
    vo.dt = 0.5;
    sq_qs_visco *v = NULL;
    ck_assert_int_eq(sq_qs_visco_create(w, eta, &vo, &v), 0);
    double *u = calloc(3 * w->nnode, sizeof(double));
    ck_assert_int_eq(sq_qs_visco_elastic(v, NULL, u), 0);
    for (int k = 0; k <= NSTEP; ++k) {
      if (k > 0) ck_assert_int_eq(sq_qs_visco_step(v, NULL, u), 0);
      sq_qs_visco_stats st;
      sq_qs_visco_get_stats(v, &st);
      ref.outer[k] = st.last_outer;
      ref.u[k] = malloc(sizeof(double) * 3 * w->nnode);
      memcpy(ref.u[k], u, sizeof(double) * 3 * w->nnode);
      ref.inner = st.inner_iters;
      ref.coarse = st.coarse_iters;
    }
    free(u);
    sq_qs_visco_destroy(v);
  }
  /* the parts */
  s.nranks = nranks;
  sq_qs_part *info[MAXR];
  rank_run run[MAXR];
  memset(run, 0, sizeof(run));
  pthread_barrier_init(&s.bar, NULL, (unsigned)nranks);
  for (int r = 0; r < nranks; ++r) {
    ck_assert_int_eq(sq_qs_mesh_part(w, cell_rank, nranks, r, 16, &s.part[r], &info[r]), 0);
    s.lmap[r] = malloc(sizeof(int64_t) * w->nnode);
    for (int64_t g = 0; g < w->nnode; ++g) s.lmap[r][g] = -1;
    for (int64_t l = 0; l < s.part[r]->nnode; ++l) s.lmap[r][s.part[r]->gnode[l]] = l;
    double *etap = malloc(sizeof(double) * s.part[r]->ncell);
    for (int64_t c = 0, k = 0; c < m->ncell; ++c)
      if (cell_rank[c] == r) etap[k++] = eta[c];
    run[r].eta = etap;
    run[r].ctx.s = &s;
    run[r].ctx.rank = r;
    run[r].ctx.tmp = malloc(sizeof(double) * 3 * SQ_QS_MAXVEC * s.part[r]->nnode);
  }
  pthread_t th[MAXR];
  for (int r = 0; r < nranks; ++r) pthread_create(&th[r], NULL, rank_main, &run[r]);
  for (int r = 0; r < nranks; ++r) pthread_join(th[r], NULL);
  for (int r = 0; r < nranks; ++r) {
    ck_assert_int_eq(run[r].ierr, 0);
    EXPECT_MSG(run[r].res <= 1e-10, "rank %d: residual %g", r, run[r].res);
  }
  double worst = 0;
  for (int k = 0; k <= NSTEP; ++k) {
    double umax = 0, dmax = 0, dshared = 0;
    for (int64_t i = 0; i < 3 * w->nnode; ++i) umax = fmax(umax, fabs(ref.u[k][i]));
    for (int r = 0; r < nranks; ++r) {
      const sq_qs_mesh *q = s.part[r];
      for (int64_t l = 0; l < q->nnode; ++l)
        for (int i = 0; i < 3; ++i) {
          const int64_t g = q->gnode[l];
          dmax = fmax(dmax, fabs(run[r].u[k][3 * l + i] - ref.u[k][3 * g + i]));
          /* every rank holding a node holds the same value */
          for (int r2 = 0; r2 < r; ++r2)
            if (s.lmap[r2][g] >= 0)
              dshared = fmax(dshared, fabs(run[r].u[k][3 * l + i] - run[r2].u[k][3 * s.lmap[r2][g] + i]));
        }
      EXPECT_MSG(abs(run[r].outer[k] - ref.outer[k]) <= 2, "step %d: %d outer iterations, %d on the whole mesh", k,
                 run[r].outer[k], ref.outer[k]);
    }
    EXPECT_MSG(dmax <= 1e-8 * umax, "step %d: difference %g, largest value %g", k, dmax, umax);
    ck_assert_msg(dshared == 0, "step %d: ranks differ by %g at a shared node", k, dshared);
    worst = fmax(worst, dmax / umax);
  }
  /* the same preconditioner: the iterations differ only through the order of the sums (none here) */
  for (int r = 0; r < nranks; ++r)
    EXPECT_MSG(llabs(run[r].inner - ref.inner) <= ref.inner / 50 &&
                   llabs(run[r].coarse - ref.coarse) <= ref.coarse / 50,
               "%lld inner, %lld coarse iterations; %lld, %lld on the whole mesh", (long long)run[r].inner,
               (long long)run[r].coarse, (long long)ref.inner, (long long)ref.coarse);
  printf("%d parts: largest difference to the whole mesh's field %.2e of its largest value; outer iterations", nranks,
         worst);
  for (int k = 0; k <= NSTEP; ++k) printf(" %d/%d", run[0].outer[k], ref.outer[k]);
  printf("; inner %lld/%lld, coarse %lld/%lld\n", (long long)run[0].inner, (long long)ref.inner,
         (long long)run[0].coarse, (long long)ref.coarse);
  for (int r = 0; r < nranks; ++r) {
    for (int k = 0; k <= NSTEP; ++k) free(run[r].u[k]);
    free((void *)run[r].eta);
    free(run[r].ctx.tmp);
    free(s.lmap[r]);
    sq_qs_mesh_destroy(s.part[r]);
    sq_qs_part_destroy(info[r]);
  }
  for (int k = 0; k <= NSTEP; ++k) free(ref.u[k]);
  pthread_barrier_destroy(&s.bar);
  free(id);
  free(eta);
  sq_qs_mesh_destroy(w);
}

/* METIS parts, as a run partitions */
static int *metis_parts(const sq_mesh *m, int nranks) {
  int *part = calloc(m->ncell, sizeof(int)), *cluster = calloc(m->ncell, sizeof(int));
  ck_assert_int_eq(sq_partition(m, cluster, 1, 1, nranks, SQ_PART_BW, NULL, part, NULL), 0);
  free(cluster);
  return part;
}

START_TEST(test_part_lists) {
  /* one owner per node; the nodes a rank shares with a peer are the peer's list for it, in the same order, the
   * vertices first; a part's local nodes keep the whole order with the vertices first; offsets and cells add up */
  sq_mesh *m = box(4, 1);
  sq_qs_mesh *w = whole_mesh(m, 64);
  for (int striped = 0; striped < 2; ++striped) {
    const int nranks = 3;
    int *cr = striped ? malloc(sizeof(int) * m->ncell) : metis_parts(m, nranks);
    if (striped)
      for (int64_t c = 0; c < m->ncell; ++c) cr[c] = (int)(c % nranks);
    sq_qs_mesh *p[MAXR];
    sq_qs_part *in[MAXR];
    for (int r = 0; r < nranks; ++r) ck_assert_int_eq(sq_qs_mesh_part(w, cr, nranks, r, 7, &p[r], &in[r]), 0);
    int *owners = calloc(w->nnode, sizeof(int));
    int64_t ncell = 0, noff = 0;
    for (int r = 0; r < nranks; ++r) {
      ncell += p[r]->ncell;
      noff += p[r]->noff;
      for (int64_t l = 0; l < p[r]->nnode; ++l) {
        owners[p[r]->gnode[l]] += p[r]->own[l];
        if (l > 0) EXPECT(p[r]->gnode[l] > p[r]->gnode[l - 1]);
        EXPECT_EQ(l < p[r]->nvert, p[r]->gnode[l] < w->nvert);
        for (int i = 0; i < 3; ++i) {
          EXPECT_EQ(p[r]->fixed[3 * l + i], w->fixed[3 * p[r]->gnode[l] + i]);
          EXPECT_EQ(p[r]->ubc[3 * l + i], w->ubc[3 * p[r]->gnode[l] + i]);
        }
      }
      for (int k = 0; k < in[r]->npeer; ++k) {
        const int q = in[r]->peer[k];
        int kk = -1;
        for (int j = 0; j < in[q]->npeer; ++j)
          if (in[q]->peer[j] == r) kk = j;
        ck_assert_int_ge(kk, 0);
        const int64_t n = in[r]->ptr[k + 1] - in[r]->ptr[k];
        ck_assert_int_eq(n, in[q]->ptr[kk + 1] - in[q]->ptr[kk]);
        EXPECT_EQ(in[r]->nvert[k], in[q]->nvert[kk]);
        for (int64_t i = 0; i < n; ++i) {
          EXPECT_EQ(p[r]->gnode[in[r]->node[in[r]->ptr[k] + i]], p[q]->gnode[in[q]->node[in[q]->ptr[kk] + i]]);
          EXPECT_EQ(i < in[r]->nvert[k], in[r]->node[in[r]->ptr[k] + i] < p[r]->nvert);
        }
      }
    }
    for (int64_t g = 0; g < w->nnode; ++g) EXPECT_EQ(owners[g], 1);
    EXPECT_EQ(ncell, w->ncell);
    EXPECT_EQ(noff, w->noff);
    free(owners);
    for (int r = 0; r < nranks; ++r) {
      sq_qs_mesh_destroy(p[r]);
      sq_qs_part_destroy(in[r]);
    }
    free(cr);
  }
  sq_qs_mesh_destroy(w);
  sq_mesh_destroy(m);
}
END_TEST

START_TEST(test_part_solve) {
  sq_mesh *m = box(4, 1);
  for (int nranks = 2; nranks <= 3; ++nranks) {
    int *cr = metis_parts(m, nranks);
    compare_parts(m, cr, nranks);
    free(cr);
  }
  /* many interfaces: cells dealt out in turn */
  int *cr = malloc(sizeof(int) * m->ncell);
  for (int64_t c = 0; c < m->ncell; ++c) cr[c] = (int)(c % 3);
  compare_parts(m, cr, 3);
  free(cr);
  sq_mesh_destroy(m);
}
END_TEST

static void expect_error(const sq_qs_mesh *w, const int *cr, int nranks, int rank, const char *msg) {
  sq_qs_mesh *p = NULL;
  sq_qs_part *in = NULL;
  const int saved = sq_test_capture_begin();
  const int rc = sq_qs_mesh_part(w, cr, nranks, rank, 8, &p, &in);
  sq_test_capture_end(saved);
  ck_assert_int_eq(rc, SQ_ERR_INPUT);
  ck_assert_msg(strstr(sq_test_msg, msg), "message: %s", sq_test_msg);
  ck_assert_ptr_null(p);
  ck_assert_ptr_null(in);
}

START_TEST(test_part_errors) {
  sq_mesh *m = box(1, 0);
  sq_qs_mesh *w = whole_mesh(m, 64);
  int cr[6] = {0, 0, 0, 0, 2, 2};
  expect_error(w, cr, 3, 1, "rank 1 got no cell of the 6 cells (3 ranks)");
  expect_error(w, cr, 7, 0, "7 MPI ranks for a mesh of 6 cells");
  cr[3] = 5;
  expect_error(w, cr, 3, 0, "cell 3 is given to rank 5 of 3 ranks");
  sq_qs_mesh_destroy(w);
  sq_mesh_destroy(m);
}
END_TEST

int main(void) {
  const TTest *tests[] = {test_part_lists, test_part_solve, test_part_errors, NULL};
  return sq_test_run(sq_test_suite("qs_part", 240, tests), 1);
}
