/**
 * @file cpu_sparsity.c  `cpu-sparsity`: the CPU element kernels, sparse (SQ_GEMM_BEST: the star matrices as their
 * non-zeros, K_vol and K_der by their non-zero blocks, the flux through the face basis) against the dense
 * formulation (SQ_GEMM_DENSE), measured in the same run, on one core or on several cores at once.
 *
 *   cpu-sparsity ORDERS PRECISIONS [ELEMENTS [THREADS [TILES]]]
 *
 * ORDERS is a comma list or range (4,6 or 2-7), PRECISIONS a comma list of single and double, ELEMENTS about
 * this many tetrahedra of a periodic box (6 per cube; 64k and 1M allowed; default 4374).  THREADS is a comma list of
 * thread counts (default 1), TILES a comma list of elements per kernel call (default 0: the thread's whole slice). The
 * elements are cut into as many contiguous slices as the largest thread count; a point of T threads runs slices 0..T-1,
 * one thread per slice, thread i pinned to the i-th CPU of the process's affinity mask, so the thread counts compare
 * the same work per core (weak scaling).  One time step of global time stepping is, per thread and tile of its slice,
 * ader then local, a barrier, neighbor per tile, a barrier (the order of the StarPU graph's tasks; the barriers stand
 * for its dependencies).  Steps run for about SQ_CPU_SPARSITY_SECONDS (default 0.3 s) per repeat,
 * SQ_CPU_SPARSITY_REPEATS (default 5) repeats alternating dense and sparse, median.
 *
 * Per point the table gives, per core, element updates per second of each kernel and of the three together
 * ("all"), over the threads' CPU time in the kernels (CLOCK_THREAD_CPUTIME_ID: usable on a shared machine),
 * and "step (wall)": all elements' updates over the wall-clock time of the steps and the thread count, barrier
 * waits included (what the slowest thread sets); GFLOP/s counted with the dense CPU model of docs/PERFORMANCE.md
 * (the model of starquake-proxy's gflops, sq_kernel_flops of SQ_GEMM_DENSE) and on non-zeros
 * (sq_ref_flops_nonzero), and the ratio sparse / dense.  Comment lines give the FLOPs per update that each form
 * executes, the core clock measured inside the steps (a dependent chain of integer multiplies, run by every
 * thread after its first tile of each step) and, for more than one thread, the memory bandwidth of the same
 * threads (a triad) against the traffic of starquake-proxy's byte model at the measured rates.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sq_kernels.h"
#include "sq_mesh.h"
#include "sq_solver.h"

enum { K_ADER, K_LOCAL, K_NEIGHBOR, K_ALL, K_WALL, K_N };
static const char *knames[K_N] = {"ader", "local", "neighbor", "all", "step (wall)"};
enum { MAX_THREADS = 256, MAX_LIST = 16 };

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
static double wall_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
  qsort(v, n, sizeof(double), cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The core clock in GHz: a chain of dependent 64-bit integer multiplies, 3 cycles each on the x86-64 cores of
 * these machines (Intel since Sandy Bridge, AMD since Zen), over wall-clock time; 0 elsewhere.  (A chain of adds
 * by an immediate is no clock: newer Intel cores fold some of them at rename.) */
static double clock_ghz(void) {
#if defined(__x86_64__)
  const long iters = 20000; /* 4 multiplies each: 240 000 cycles, about 60 us */
  long x = 1, n = iters;
  const long m = 3;
  const double t0 = wall_now();
  __asm__ volatile("1:\n\timul %2, %0\n\timul %2, %0\n\timul %2, %0\n\timul %2, %0\n\tdec %1\n\tjnz 1b"
                   : "+r"(x), "+r"(n)
                   : "r"(m));
  const double t1 = wall_now();
  return t1 > t0 ? 12.0 * iters / (t1 - t0) * 1e-9 : 0;
#else
  return 0;
#endif
}

/* The CPUs of the process's affinity mask, in order. */
static int cpu_list(int *cpus) {
  cpu_set_t set;
  int n = 0;
  if (sched_getaffinity(0, sizeof(set), &set)) return 0;
  for (int c = 0; c < CPU_SETSIZE && n < MAX_THREADS; ++c)
    if (CPU_ISSET(c, &set)) cpus[n++] = c;
  return n;
}
static void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* One measurement: nthreads threads each run their slice in tiles, with impl, for about secs seconds. */
typedef struct bench {
  const sq_disc *d;
  const void *nb_data[1];
  int64_t slice; /* elements per slice */
  int nthreads, tile, ncpu;
  const int *cpus;
  sq_gemm_impl impl;
  double secs;
  pthread_barrier_t bar;
  int stop;       /* set by one thread between barriers */
  double t_start; /* wall clock of the first step */
  double wall;    /* wall-clock seconds of the steps */
  int64_t steps;
  double busy[MAX_THREADS][3]; /* CPU seconds per kernel */
  double ghz[MAX_THREADS];     /* median clock of the thread's probes */
} bench;

typedef struct worker {
  bench *b;
  int id;
} worker;

static void *run_thread(void *arg) {
  const worker *w = arg;
  bench *b = w->b;
  const sq_disc *d = b->d;
  const int O = d->opt.order, nq = d->nbasis * 9;
  const sq_precision prec = d->opt.precision;
  const size_t rs = sq_real_size(prec);
  const int64_t e0 = w->id * b->slice, e1 = e0 + b->slice, tile = b->tile > 0 ? b->tile : b->slice;
  const double zero[1] = {0};
  double acc[3] = {0}, probes[64];
  int nprobe = 0;
  if (b->ncpu > 0) pin_to(b->cpus[w->id % b->ncpu]);
  const char *pack = d->pack, *dofs = d->dofs, *star = d->star, *tint = d->tint, *fl = d->flux_local, *fn = d->flux_nb;
  if (pthread_barrier_wait(&b->bar) == PTHREAD_BARRIER_SERIAL_THREAD) b->t_start = wall_now();
  pthread_barrier_wait(&b->bar);
  for (int64_t step = 0;; ++step) {
    for (int64_t a = e0; a < e1; a += tile) {
      const int64_t n = a + tile < e1 ? tile : e1 - a;
      const double t0 = cpu_now();
      sq_kernel_ader_impl(b->impl, prec, O, n, pack, dofs + a * nq * rs, star + a * 243 * rs, d->cluster_dt[0],
                          (void *)(tint + a * nq * rs), NULL);
      const double t1 = cpu_now();
      sq_kernel_local_impl(b->impl, prec, O, n, pack, tint + a * nq * rs, star + a * 243 * rs, fl + a * 324 * rs,
                           (void *)(dofs + a * nq * rs));
      acc[K_ADER] += t1 - t0, acc[K_LOCAL] += cpu_now() - t1;
      if (a == e0 && nprobe < 64) probes[nprobe++] = clock_ghz(); /* the other threads are inside their kernels */
    }
    pthread_barrier_wait(&b->bar);
    const double t2 = cpu_now();
    for (int64_t a = e0; a < e1; a += tile) {
      const int64_t n = a + tile < e1 ? tile : e1 - a;
      sq_kernel_neighbor_impl(b->impl, prec, O, n, pack, d->link + a * 4, fn + a * 324 * rs, b->nb_data, zero, zero,
                              (void *)(dofs + a * nq * rs));
    }
    acc[K_NEIGHBOR] += cpu_now() - t2;
    if (pthread_barrier_wait(&b->bar) == PTHREAD_BARRIER_SERIAL_THREAD) {
      const double t = wall_now() - b->t_start;
      b->stop = t >= b->secs;
      b->wall = t, b->steps = step + 1;
    }
    pthread_barrier_wait(&b->bar);
    if (b->stop) break;
  }
  for (int k = 0; k < 3; ++k) b->busy[w->id][k] = acc[k];
  b->ghz[w->id] = nprobe ? median(probes, nprobe) : 0;
  return NULL;
}

/* Run the point; per-core rates (updates per second) into rate[K_N], the median clock into *ghz. */
static int measure(bench *b, double rate[K_N], double *ghz) {
  pthread_t th[MAX_THREADS];
  worker w[MAX_THREADS];
  b->stop = 0;
  if (pthread_barrier_init(&b->bar, NULL, (unsigned)b->nthreads)) return 1;
  int started = 0;
  for (int i = 1; i < b->nthreads; ++i, ++started) {
    w[i] = (worker){b, i};
    if (pthread_create(&th[i], NULL, run_thread, &w[i])) {
      fprintf(stderr, "cpu-sparsity: cannot start thread %d\n", i);
      exit(1); /* the others wait at the barrier for good */
    }
  }
  w[0] = (worker){b, 0};
  run_thread(&w[0]);
  for (int i = 1; i <= started; ++i) pthread_join(th[i], NULL);
  pthread_barrier_destroy(&b->bar);
  double busy[3] = {0}, g[MAX_THREADS];
  for (int i = 0; i < b->nthreads; ++i) {
    for (int k = 0; k < 3; ++k) busy[k] += b->busy[i][k];
    g[i] = b->ghz[i];
  }
  const double upd = (double)b->slice * b->steps; /* per thread */
  for (int k = 0; k < 3; ++k) rate[k] = upd * b->nthreads / busy[k];
  rate[K_ALL] = upd * b->nthreads / (busy[0] + busy[1] + busy[2]);
  rate[K_WALL] = upd / b->wall;
  *ghz = median(g, b->nthreads);
  return 0;
}

/* Triad a = b + s c over per-thread arrays of 16 MiB each, nthreads pinned as the kernels' threads: GB/s of the
 * threads together (24 bytes per element, STREAM's count). */
typedef struct triad {
  int id, nthreads, ncpu;
  const int *cpus;
  pthread_barrier_t *bar;
  double secs, bytes;
} triad;
static volatile double triad_sink;
static void *triad_thread(void *arg) {
  triad *t = arg;
  const size_t n = (16u << 20) / sizeof(double);
  if (t->ncpu > 0) pin_to(t->cpus[t->id % t->ncpu]);
  double *a = malloc(3 * n * sizeof(double)), *x = a + n, *y = a + 2 * n;
  if (!a) return NULL;
  for (size_t i = 0; i < 3 * n; ++i) a[i] = 1.0 + (double)(i % 7);
  pthread_barrier_wait(t->bar);
  const double t0 = wall_now();
  int passes = 0;
  do {
    for (size_t i = 0; i < n; ++i) a[i] = x[i] + 0.5 * y[i];
    ++passes;
  } while (wall_now() - t0 < 0.25);
  t->secs = wall_now() - t0;
  t->bytes = 24.0 * n * passes;
  triad_sink += a[(size_t)passes % n]; /* the stores stay */
  pthread_barrier_wait(t->bar);
  free(a);
  return NULL;
}
static double triad_gbs(int nthreads, const int *cpus, int ncpu) {
  pthread_t th[MAX_THREADS];
  triad t[MAX_THREADS];
  pthread_barrier_t bar;
  pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
  for (int i = 0; i < nthreads; ++i)
    t[i] = (triad){.id = i, .nthreads = nthreads, .ncpu = ncpu, .cpus = cpus, .bar = &bar};
  for (int i = 1; i < nthreads; ++i) pthread_create(&th[i], NULL, triad_thread, &t[i]);
  triad_thread(&t[0]);
  for (int i = 1; i < nthreads; ++i) pthread_join(th[i], NULL);
  pthread_barrier_destroy(&bar);
  double gbs = 0;
  for (int i = 0; i < nthreads; ++i) gbs += t[i].secs > 0 ? t[i].bytes / t[i].secs * 1e-9 : 0;
  return gbs;
}

/* Bytes per element update of starquake-proxy's byte model (every input read once, every output written once):
 * ader 2 nq + star, local 3 nq + star + flux, neighbor 3 nq + flux + links. */
static double bytes_per_update(int order, size_t rs) {
  const double nq = 9.0 * sq_nbasis(order) * rs, star = 243.0 * rs, flux = 324.0 * rs;
  return 8 * nq + 2 * star + 2 * flux + 64;
}

typedef struct run_opts {
  int nthreads[MAX_LIST], nthread_list, tiles[MAX_LIST], ntile_list, max_threads, ncpu, repeats;
  int cpus[MAX_THREADS];
  double secs;
} run_opts;

static int run_point(const sq_mesh *mesh, const sq_material *mat, int order, sq_precision prec, const run_opts *ro) {
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
  const char *pname = prec == SQ_F64 ? "double" : "single";
  /* FLOPs per update: the dense CPU model (what SQ_GEMM_DENSE executes), what the sparse kernels execute, the
   * non-zero count */
  double fd[K_N], fs[K_N], fnz[K_N];
  sq_kernel_flops(SQ_GEMM_DENSE, prec, order, fd);
  sq_kernel_flops(SQ_GEMM_BEST, prec, order, fs);
  sq_ref_flops_nonzero(d->ref, fnz);
  fd[K_ALL] = fd[K_WALL] = fd[0] + fd[1] + fd[2], fs[K_ALL] = fs[0] + fs[1] + fs[2];
  fnz[K_ALL] = fnz[K_WALL] = fnz[0] + fnz[1] + fnz[2];
  printf("# O%d %s: kFLOP per update (ader, local, neighbor, all): dense %.1f %.1f %.1f %.1f; sparse executes %.1f "
         "%.1f %.1f %.1f (%.2f of dense); non-zero %.1f %.1f %.1f %.1f\n",
         order, pname, fd[0] * 1e-3, fd[1] * 1e-3, fd[2] * 1e-3, fd[3] * 1e-3, fs[0] * 1e-3, fs[1] * 1e-3, fs[2] * 1e-3,
         fs[3] * 1e-3, fs[3] / fd[3], fnz[0] * 1e-3, fnz[1] * 1e-3, fnz[2] * 1e-3, fnz[3] * 1e-3);
  bench b = {.d = d, .slice = d->nelem / ro->max_threads, .ncpu = ro->ncpu, .cpus = ro->cpus};
  b.nb_data[0] = d->tint;
  int err = 0;
  for (int it = 0; it < ro->nthread_list && !err; ++it)
    for (int ip = 0; ip < ro->ntile_list && !err; ++ip) {
      b.nthreads = ro->nthreads[it], b.tile = ro->tiles[ip];
      double *rate[2][K_N], ghz[2][64], r[K_N];
      for (int m = 0; m < 2; ++m)
        for (int k = 0; k < K_N; ++k) rate[m][k] = malloc(sizeof(double) * ro->repeats);
      for (int m = 0; m < 2; ++m) { /* warm-up: JIT, caches, page faults */
        b.impl = m ? SQ_GEMM_BEST : SQ_GEMM_DENSE, b.secs = 0.05;
        err |= measure(&b, r, &ghz[m][0]);
      }
      for (int rep = 0; rep < ro->repeats && !err; ++rep)
        for (int m = 0; m < 2; ++m) {
          b.impl = m ? SQ_GEMM_BEST : SQ_GEMM_DENSE, b.secs = ro->secs;
          err |= measure(&b, r, &ghz[m][rep < 64 ? rep : 63]);
          for (int k = 0; k < K_N; ++k) rate[m][k][rep] = r[k];
        }
      double med[2][K_N], clock[2];
      for (int m = 0; m < 2; ++m) {
        for (int k = 0; k < K_N; ++k) med[m][k] = median(rate[m][k], ro->repeats);
        clock[m] = median(ghz[m], ro->repeats < 64 ? ro->repeats : 64);
      }
      const int tile = b.tile > 0 && b.tile < b.slice ? b.tile : (int)b.slice;
      for (int k = 0; k < K_N; ++k)
        printf("| %d | %s | %d | %d | %s | %.1f | %.1f | %.2f | %.1f | %.1f | %.1f | %.1f |\n", order, pname,
               b.nthreads, tile, knames[k], med[1][k] * 1e-3, med[0][k] * 1e-3, med[1][k] / med[0][k],
               med[1][k] * fd[k] * 1e-9, med[0][k] * fd[k] * 1e-9, med[1][k] * fnz[k] * 1e-9,
               med[0][k] * fnz[k] * 1e-9);
      const double bpu = bytes_per_update(order, sq_real_size(prec));
      printf("# O%d %s, %d threads, tile %d: clock %.2f GHz (sparse), %.2f GHz (dense); step (wall) / all: %.2f "
             "(sparse), %.2f (dense); model traffic %.1f GB/s (sparse), %.1f GB/s (dense)\n",
             order, pname, b.nthreads, tile, clock[1], clock[0], med[1][K_WALL] / med[1][K_ALL],
             med[0][K_WALL] / med[0][K_ALL], med[1][K_WALL] * b.nthreads * bpu * 1e-9,
             med[0][K_WALL] * b.nthreads * bpu * 1e-9);
      fflush(stdout);
      for (int m = 0; m < 2; ++m)
        for (int k = 0; k < K_N; ++k) free(rate[m][k]);
    }
  sq_disc_destroy(d);
  return err ? SQ_ERR_RUNTIME : SQ_SUCCESS;
}

/* A comma list or range (lo-hi) of integers in [lo_ok, hi_ok]; returns the count, 0 on a bad entry. */
static int parse_ints(const char *arg, const char *what, int lo_ok, int hi_ok, int *out) {
  int n = 0, a, b;
  if (sscanf(arg, "%d-%d", &a, &b) == 2 && !strchr(arg, ',')) {
    for (int v = a; v <= b && n < MAX_LIST; ++v) out[n++] = v;
  } else {
    for (const char *p = arg; *p && n < MAX_LIST; p = strchr(p, ',') ? strchr(p, ',') + 1 : p + strlen(p))
      out[n++] = atoi(p);
  }
  for (int i = 0; i < n; ++i)
    if (out[i] < lo_ok || out[i] > hi_ok) {
      fprintf(stderr, "cpu-sparsity: %s %d out of range %d-%d\n", what, out[i], lo_ok, hi_ok);
      return 0;
    }
  return n;
}

int main(int argc, char **argv) {
  if (argc < 3 || argc > 6) {
    fprintf(stderr, "usage: cpu-sparsity ORDERS PRECISIONS [ELEMENTS [THREADS [TILES]]]\n"
                    "  ORDERS      comma list or range of orders 2-7 (4,6)\n"
                    "  PRECISIONS  comma list of single, double\n"
                    "  ELEMENTS    about this many tetrahedra of a periodic box, k and M allowed (default 4374)\n"
                    "  THREADS     comma list of thread counts (default 1), one slice of the elements each\n"
                    "  TILES       comma list of elements per kernel call (default 0: the whole slice)\n");
    return 2;
  }
  int orders[MAX_LIST];
  const int norder = parse_ints(argv[1], "order", SQ_ORDER_MIN, SQ_ORDER_MAX, orders);
  if (!norder) return 2;
  sq_precision precs[2];
  int nprec = 0;
  if (strstr(argv[2], "single")) precs[nprec++] = SQ_F32;
  if (strstr(argv[2], "double")) precs[nprec++] = SQ_F64;
  if (!nprec) {
    fprintf(stderr, "cpu-sparsity: PRECISIONS '%s' names neither single nor double\n", argv[2]);
    return 2;
  }
  char *end = NULL;
  double elems = argc > 3 ? strtod(argv[3], &end) : 4374;
  if (end && (*end == 'k' || *end == 'K')) elems *= 1e3, ++end;
  else if (end && (*end == 'm' || *end == 'M')) elems *= 1e6, ++end;
  if ((end && *end) || elems < 1) {
    fprintf(stderr, "cpu-sparsity: bad ELEMENTS '%s' (a count, or with k or M: 64k)\n", argv[3]);
    return 2;
  }
  run_opts ro = {.nthreads = {1}, .nthread_list = 1, .tiles = {0}, .ntile_list = 1};
  if (argc > 4 && !(ro.nthread_list = parse_ints(argv[4], "thread count", 1, MAX_THREADS, ro.nthreads))) return 2;
  if (argc > 5 && !(ro.ntile_list = parse_ints(argv[5], "tile", 0, 1 << 30, ro.tiles))) return 2;
  for (int i = 0; i < ro.nthread_list; ++i)
    if (ro.nthreads[i] > ro.max_threads) ro.max_threads = ro.nthreads[i];
  const char *se = getenv("SQ_CPU_SPARSITY_SECONDS"), *sr = getenv("SQ_CPU_SPARSITY_REPEATS");
  ro.secs = se ? atof(se) : 0.3;
  ro.repeats = sr && atoi(sr) > 0 ? atoi(sr) : 5;
  ro.ncpu = cpu_list(ro.cpus);
  sq_box_params bp;
  sq_box_params_default(&bp);
  int c = (int)lround(cbrt(elems / 6.0));
  bp.n[0] = bp.n[1] = bp.n[2] = c < 2 ? 2 : c;
  sq_mesh *mesh;
  if (sq_mesh_box(&bp, &mesh)) return 1;
  if (mesh->ncell < ro.max_threads) {
    fprintf(stderr, "cpu-sparsity: %lld elements for %d threads\n", (long long)mesh->ncell, ro.max_threads);
    sq_mesh_destroy(mesh);
    return 2;
  }
  sq_material *mat = malloc(sizeof(sq_material) * mesh->ncell);
  for (int64_t i = 0; i < mesh->ncell; ++i) mat[i] = (sq_material){.rho = 2.7, .lambda = 3.2, .mu = 3.2};
  printf("# cpu-sparsity: %lld elements in %d slices of %lld, %d CPUs in the affinity mask, %d repeats of %.2f s, "
         "median; products: %s (double), %s (single)\n",
         (long long)mesh->ncell, ro.max_threads, (long long)(mesh->ncell / ro.max_threads), ro.ncpu, ro.repeats,
         ro.secs, sq_kernel_gemm_name(SQ_F64), sq_kernel_gemm_name(SQ_F32));
  printf("# rates per core; kernels and all: over the threads' CPU time in the kernels; step (wall): wall clock, "
         "barriers included.  GFLOP/s dense: the dense CPU model (docs/PERFORMANCE.md); nz: non-zero FLOPs\n");
  for (int i = 0; i < ro.nthread_list; ++i)
    if (ro.nthreads[i] > 1)
      printf("# memory: triad %.1f GB/s with %d threads\n", triad_gbs(ro.nthreads[i], ro.cpus, ro.ncpu),
             ro.nthreads[i]);
  printf("| O | precision | threads | tile | kernel | sparse k upd/s per core | dense k upd/s per core (reference) | "
         "ratio | sparse GFLOP/s dense | dense GFLOP/s dense | sparse GFLOP/s nz | dense GFLOP/s nz |\n");
  printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  fflush(stdout);
  int err = 0;
  for (int io = 0; io < norder && !err; ++io)
    for (int ip = 0; ip < nprec && !err; ++ip) err = run_point(mesh, mat, orders[io], precs[ip], &ro);
  free(mat);
  sq_mesh_destroy(mesh);
  return err ? 1 : 0;
}
