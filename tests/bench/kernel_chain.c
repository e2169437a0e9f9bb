/**
 * @file kernel_chain.c  `kernel-chain`: the GPU kernels of a time step launched back to back on one CUDA
 * stream, with no runtime system in between: the bound that any task graph of the same kernels meets.
 *
 *   kernel-chain ELEMENTS ORDERS PRECISION
 *
 * ELEMENTS is a comma list (4k,512k: periodic boxes of 6 tetrahedra per cube, as starquake-proxy
 * builds them), ORDERS a list or range (2-7), PRECISION single or double.  Per point it times, over
 * about SQ_KC_SECONDS (default 0.3 s) after a warm-up, CUDA events around N launches of:
 *   step      the fused predictor (sq_cuda_predict) then the neighbour flux: a whole-step task's kernels
 *   step3     ader, local, neighbour: the kernels of separate tasks
 *   predict, ader, local, neighbor   each kernel alone
 *   visco     a viscoelastic step (3 mechanisms, Qp 50, Qs 25): the anelastic predictor, local, the anelastic
 *             source, neighbour: the kernels of a step with attenuation (separate tasks, docs/ATTENUATION.md)
 *   ader_ane, ane_source   the anelastic kernels alone
 * (SQ_KC_CHAINS=LIST: only the chains whose names are part of LIST; SQ_KC_CHECK=1: first a CHECK line per point, ader
 * and local on up to 20 000 elements against the CPU kernels, exit status 1 when one is out of bounds) and prints
 * microseconds per launch sequence element updates per second, and the FLOP rate counted on non-zeros
 * (sq_ref_flops_nonzero; the elastic chains only) with its fraction of the peak SQ_PEAK_SP_GFLOPS / SQ_PEAK_DP_GFLOPS
 * (defaults as starquake-proxy's): the fraction of the non-zero ceiling.  The last line per order compares the smallest
 * size's best step with the largest size's best step (the 4k-cluster ratio without StarPU, docs/PERFORMANCE.md); per
 * point, VISCO compares the viscoelastic step with the faster elastic one.  Exits 77 without CUDA or a GPU.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sq_attenuation.h"
#include "sq_kernels.h"
#include "sq_mesh.h"
#include "sq_solver.h"

#ifndef SQ_USE_CUDA
int main(void) {
  printf("kernel-chain: built without CUDA: skipped\n");
  return 77;
}
#else

#include <cuda_runtime.h>

#include "sq_cuda.h"

#define CK(expr)                                                                                                       \
  do {                                                                                                                 \
    cudaError_t err_ = (expr);                                                                                         \
    if (err_ != cudaSuccess) {                                                                                         \
      fprintf(stderr, "kernel-chain: %s: %s\n", #expr, cudaGetErrorString(err_));                                      \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

enum { V_STEP, V_STEP3, V_PREDICT, V_ADER, V_LOCAL, V_NEIGHBOR, V_VISCO, V_ADER_ANE, V_ANE_SOURCE, V_N };
static const char *vnames[V_N] = {"step",     "step3", "predict",  "ader",      "local",
                                  "neighbor", "visco", "ader_ane", "ane_source"};

/** Mechanisms of the viscoelastic variants. */
#define KC_NMECH 3

static void *dev_copy(const void *host, size_t bytes) {
  void *d;
  CK(cudaMalloc(&d, bytes ? bytes : 1));
  if (host) CK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
  else CK(cudaMemset(d, 0, bytes ? bytes : 1));
  return d;
}

typedef struct chain {
  sq_precision p;
  int order;
  int64_t n;
  double dt;
  void *pack, *dofs, *star, *flocal, *fnb, *tint, *ane_coef, *ane;
  sq_face_link *links;
  sq_cuda_slots slots;
  cudaStream_t s;
} chain;

static void launch(const chain *c, int v) {
  if (v == V_STEP || v == V_PREDICT)
    sq_cuda_predict(c->p, c->order, c->n, c->pack, c->dofs, c->star, c->flocal, c->dt, c->tint, NULL, NULL, 0, c->s);
  if (v == V_STEP3 || v == V_ADER)
    sq_cuda_ader(c->p, c->order, c->n, c->pack, c->dofs, c->star, c->dt, c->tint, NULL, NULL, 0, c->s);
  if (v == V_STEP3 || v == V_LOCAL)
    sq_cuda_local(c->p, c->order, c->n, c->pack, c->tint, c->star, c->flocal, c->dofs, c->s);
  if (v == V_VISCO || v == V_ADER_ANE)
    sq_cuda_ader_ane(c->p, c->order, KC_NMECH, c->n, c->pack, c->dofs, c->star, c->ane_coef, c->dt, c->tint, NULL,
                     c->ane, NULL, 0, c->s);
  if (v == V_VISCO) sq_cuda_local(c->p, c->order, c->n, c->pack, c->tint, c->star, c->flocal, c->dofs, c->s);
  if (v == V_VISCO || v == V_ANE_SOURCE) sq_cuda_ane_source(c->p, c->order, KC_NMECH, c->n, c->ane, c->dofs, c->s);
  if (v == V_STEP || v == V_STEP3 || v == V_NEIGHBOR || v == V_VISCO)
    sq_cuda_neighbor(c->p, c->order, c->n, c->pack, c->links, c->fnb, &c->slots, c->dofs, c->s);
}

/** Seconds per launch sequence of variant @p v, over about @p seconds. */
static double time_variant(const chain *c, int v, double seconds) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 5; ++i) launch(c, v); /* warm-up */
  CK(cudaStreamSynchronize(c->s));
  int reps = 20;
  float ms = 0;
  for (;;) { /* grow the count until the timed run lasts `seconds` */
    CK(cudaEventRecord(a, c->s));
    for (int i = 0; i < reps; ++i) launch(c, v);
    CK(cudaEventRecord(b, c->s));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&ms, a, b));
    if (ms * 1e-3 >= seconds || reps >= 1 << 22) break;
    const double want = seconds / (ms > 1e-3f ? ms * 1e-3 : 1e-6) * reps * 1.1;
    reps = want > 8.0 * reps ? 8 * reps : (int)want + 1;
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return ms * 1e-3 / reps;
}

/** Relative L2 difference of @p count reals of @p a against @p b (precision @p p). */
static double rel_l2(sq_precision p, const void *a, const void *b, size_t count) {
  double num = 0, den = 0;
  for (size_t i = 0; i < count; ++i) {
    const double x = p == SQ_F64 ? ((const double *)a)[i] : ((const float *)a)[i];
    const double y = p == SQ_F64 ? ((const double *)b)[i] : ((const float *)b)[i];
    num += (x - y) * (x - y);
    den += y * y;
  }
  return isfinite(num) ? sqrt(num / (den > 0 ? den : 1)) : INFINITY;
}

/**
 * SQ_KC_CHECK: the GPU predictor (with derivatives, LTS buffer reset) and local update (on the CPU's tint) of the
 * first elements of the point against the CPU kernels (sq_kernel_ader, sq_kernel_local), printed as a CHECK line;
 * returns whether they are within the emulator's bounds (tint, buffer, derivatives, the dofs after local).
 */
static int check_ader(const chain *c, const sq_disc *d) {
  const int64_t m = c->n < 20000 ? c->n : 20000;
  const size_t rs = sq_real_size(c->p), nq = (size_t)d->nbasis * 9, blk = m * nq * rs, dblk = blk * c->order;
  void *tint = dev_copy(NULL, blk), *der = dev_copy(NULL, dblk), *buf = dev_copy(NULL, blk);
  sq_cuda_ader(c->p, c->order, m, c->pack, c->dofs, c->star, c->dt, tint, der, buf, 1, c->s);
  CK(cudaStreamSynchronize(c->s));
  char *h = malloc(2 * blk + dblk), *r = malloc(blk + dblk);
  if (!h || !r) exit(1);
  CK(cudaMemcpy(h, tint, blk, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(h + blk, buf, blk, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(h + 2 * blk, der, dblk, cudaMemcpyDeviceToHost));
  sq_kernel_ader(c->p, c->order, m, d->pack, d->dofs, d->star, c->dt, r, r + blk);
  const double et = rel_l2(c->p, h, r, m * nq), eb = rel_l2(c->p, h + blk, r, m * nq),
               ed = rel_l2(c->p, h + 2 * blk, r + blk, m * nq * c->order), tol = c->p == SQ_F64 ? 1e-12 : 1e-5;
  /* local on the CPU's tint */
  void *dofs = dev_copy(d->dofs, blk);
  CK(cudaMemcpy(tint, r, blk, cudaMemcpyHostToDevice));
  sq_cuda_local(c->p, c->order, m, c->pack, tint, c->star, c->flocal, dofs, c->s);
  CK(cudaStreamSynchronize(c->s));
  CK(cudaMemcpy(h, dofs, blk, cudaMemcpyDeviceToHost));
  memcpy(h + blk, d->dofs, blk);
  sq_kernel_local(c->p, c->order, m, d->pack, r, d->star, d->flux_local, h + blk);
  const double ef = rel_l2(c->p, h, h + blk, m * nq);
  /* the update alone (dofs after minus dofs before, on both), for information */
  for (size_t i = 0; i < m * nq; ++i) {
    if (c->p == SQ_F64) {
      ((double *)h)[i] -= ((const double *)d->dofs)[i];
      ((double *)(h + blk))[i] -= ((const double *)d->dofs)[i];
    } else {
      ((float *)h)[i] -= ((const float *)d->dofs)[i];
      ((float *)(h + blk))[i] -= ((const float *)d->dofs)[i];
    }
  }
  const double eu = rel_l2(c->p, h, h + blk, m * nq);
  const int ok = et <= tol && eb <= tol && ed <= tol && ef <= tol;
  printf("CHECK order=%d prec=%s elems=%lld ader: tint_rel_l2=%.3e buffer_rel_l2=%.3e derivs_rel_l2=%.3e local: "
         "dofs_rel_l2=%.3e (update alone %.3e) %s\n",
         c->order, c->p == SQ_F64 ? "double" : "single", (long long)m, et, eb, ed, ef, eu, ok ? "ok" : "FAIL");
  free(h), free(r);
  cudaFree(tint), cudaFree(der), cudaFree(buf), cudaFree(dofs);
  return ok;
}

/** Whether an SQ_KC_CHECK comparison failed (the exit status). */
static int check_failed;

static int cubes_for(int64_t elems) {
  const int c = (int)lround(cbrt((double)elems / 6.0));
  return c < 2 ? 2 : c;
}

static int64_t parse_elems(const char *s) {
  char *end;
  const double v = strtod(s, &end);
  double mult = 1;
  if (*end == 'k' || *end == 'K') mult = 1e3, ++end;
  else if (*end == 'M' || *end == 'm') mult = 1e6, ++end;
  return *end || v <= 0 ? -1 : (int64_t)(v * mult);
}

/** Best step (s per element update) of one point; prints every variant. */
static double run_point(int64_t elems, int order, sq_precision p, double seconds) {
  sq_box_params bp;
  sq_box_params_default(&bp);
  bp.n[0] = bp.n[1] = bp.n[2] = cubes_for(elems);
  sq_mesh *mesh;
  if (sq_mesh_box(&bp, &mesh)) exit(1);
  sq_material *mat = malloc(sizeof(sq_material) * mesh->ncell);
  for (int64_t i = 0; i < mesh->ncell; ++i) mat[i] = (sq_material){.rho = 2.7, .lambda = 3.2, .mu = 3.2};
  /* one tile: its neighbour slot 0 is itself (the whole-step task of a one-tile cluster) */
  sq_disc_options opt = {
      .order = order, .precision = p, .cfl = 0.5, .tile_size = 1 << 30, .lts_rate = 1, .max_clusters = 1};
  sq_disc *d;
  if (sq_disc_create(mesh, mat, &opt, &d)) exit(1);
  if (d->ntile != 1 || d->tile[0].nneighbor != 1 || d->tile[0].neighbor[0] != 0) {
    fprintf(stderr, "kernel-chain: expected one tile that neighbours only itself\n");
    exit(1);
  }
  const size_t rs = sq_real_size(p), blk = (size_t)d->nelem * d->nbasis * 9 * rs;
  /* small random dofs, as starquake-proxy fills them */
  uint64_t st = 0x2545f4914f6cdd1dull;
  for (int64_t i = 0; i < d->nelem * d->nbasis * 9; ++i) {
    st ^= st << 13, st ^= st >> 7, st ^= st << 17;
    const double v = ((double)(st >> 11) / 9007199254740992.0 - 0.5) * 1e-2;
    if (p == SQ_F64) ((double *)d->dofs)[i] = v;
    else ((float *)d->dofs)[i] = (float)v;
  }
  chain c = {.p = p, .order = order, .n = d->nelem, .dt = d->cluster_dt[0]};
  c.pack = dev_copy(d->pack, d->pack_bytes);
  c.dofs = dev_copy(d->dofs, blk);
  c.star = dev_copy(d->star, d->nelem * 243 * rs);
  c.flocal = dev_copy(d->flux_local, d->nelem * 324 * rs);
  c.fnb = dev_copy(d->flux_nb, d->nelem * 324 * rs);
  c.tint = dev_copy(NULL, blk);
  c.links = dev_copy(d->link, sizeof(sq_face_link) * d->nelem * 4);
  c.slots.nslot = 1;
  c.slots.data[0] = c.tint;
  c.slots.t0[0] = c.slots.t1[0] = 0.0;
  /* attenuation: every element's coefficients of a Qp 50, Qs 25 material over a band around 1 Hz; the memory
   * variables start at zero */
  sq_atten_band band;
  double coef[SQ_ANE_NCOEF];
  if (sq_atten_band_init(KC_NMECH, 1.0, 100.0, &band)) exit(1);
  sq_visco visco;
  sq_material unrelaxed;
  if (sq_visco_init(&band, &mat[0], 50.0, 25.0, &visco, &unrelaxed)) exit(1);
  sq_visco_coefficients(&band, &visco, coef);
  double *coefs = malloc(sizeof(double) * SQ_ANE_NCOEF * d->nelem);
  for (int64_t e = 0; e < d->nelem; ++e) memcpy(coefs + e * SQ_ANE_NCOEF, coef, sizeof(coef));
  void *coefw = malloc(rs * SQ_ANE_NCOEF * d->nelem);
  sq_kernel_ane_coef(p, d->nelem, coefs, coefw);
  c.ane_coef = dev_copy(coefw, rs * SQ_ANE_NCOEF * d->nelem);
  c.ane = dev_copy(NULL, (size_t)d->nelem * d->nbasis * 6 * (KC_NMECH + 1) * rs);
  free(coefs), free(coefw);
  CK(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking));
  if (getenv("SQ_KC_CHECK") && !check_ader(&c, d)) check_failed = 1;
  double best = 1e30, elastic = 1e30, vstep = 0, nz[3];
  const char *only = getenv("SQ_KC_CHAINS");
  sq_ref_flops_nonzero(d->ref, nz);
  const char *peak_env = getenv(p == SQ_F64 ? "SQ_PEAK_DP_GFLOPS" : "SQ_PEAK_SP_GFLOPS");
  const double peak = peak_env ? atof(peak_env) : p == SQ_F64 ? 62100 : 51400;
  for (int v = 0; v < V_N; ++v) {
    if (only && !strstr(only, vnames[v])) continue;
    const double t = time_variant(&c, v, seconds);
    const double upd = (double)d->nelem / t;
    const double flops_nz = v == V_STEP || v == V_STEP3 ? nz[0] + nz[1] + nz[2]
                            : v == V_PREDICT            ? nz[0] + nz[1]
                            : v <= V_NEIGHBOR           ? nz[v - V_ADER]
                                                        : 0.0; /* viscoelastic chains: not counted */
    if (v == V_STEP || v == V_STEP3) best = t / d->nelem < best ? t / d->nelem : best;
    if (v == V_STEP || v == V_STEP3) elastic = t < elastic ? t : elastic;
    if (v == V_VISCO) vstep = t;
    printf("RESULT chain=%s order=%d prec=%s elems=%lld us=%.2f upd_per_s=%.4e mflop_nz=%.4f gflops_nz=%.1f "
           "pct_peak_nz=%.1f\n",
           vnames[v], order, p == SQ_F64 ? "double" : "single", (long long)d->nelem, t * 1e6, upd, flops_nz * 1e-6,
           upd * flops_nz * 1e-9, 100.0 * upd * flops_nz * 1e-9 / peak);
    fflush(stdout);
  }
  printf("VISCO order=%d prec=%s elems=%lld elastic_upd_per_s=%.4e visco_upd_per_s=%.4e cost=%.2f target=1.6\n", order,
         p == SQ_F64 ? "double" : "single", (long long)d->nelem, d->nelem / elastic, d->nelem / vstep, vstep / elastic);
  CK(cudaStreamDestroy(c.s));
  cudaFree(c.pack), cudaFree(c.dofs), cudaFree(c.star), cudaFree(c.flocal), cudaFree(c.fnb), cudaFree(c.tint);
  cudaFree(c.links), cudaFree(c.ane_coef), cudaFree(c.ane);
  sq_disc_destroy(d);
  free(mat);
  sq_mesh_destroy(mesh);
  return best;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: kernel-chain ELEMENTS ORDERS PRECISION   (e.g. 4k,512k 2-7 single)\n");
    return 1;
  }
  if (sq_cuda_device_count() == 0) {
    printf("kernel-chain: no GPU: skipped\n");
    return 77;
  }
  int64_t elems[16];
  int ne = 0;
  char buf[256];
  snprintf(buf, sizeof(buf), "%s", argv[1]);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok && ne < 16; tok = strtok_r(NULL, ",", &save))
    if ((elems[ne++] = parse_elems(tok)) < 0) {
      fprintf(stderr, "kernel-chain: bad element count '%s'\n", tok);
      return 1;
    }
  int lo, hi;
  if (sscanf(argv[2], "%d-%d", &lo, &hi) != 2) lo = hi = atoi(argv[2]);
  if (lo < SQ_ORDER_MIN || hi > SQ_ORDER_MAX || lo > hi) {
    fprintf(stderr, "kernel-chain: bad orders '%s' (%d-%d)\n", argv[2], SQ_ORDER_MIN, SQ_ORDER_MAX);
    return 1;
  }
  const sq_precision p = !strcmp(argv[3], "double") ? SQ_F64 : SQ_F32;
  if (p == SQ_F32 && strcmp(argv[3], "single")) {
    fprintf(stderr, "kernel-chain: bad precision '%s': single or double\n", argv[3]);
    return 1;
  }
  const char *sec = getenv("SQ_KC_SECONDS");
  const double seconds = sec ? atof(sec) : 0.3;
  for (int order = lo; order <= hi; ++order) {
    double first = 0, last = 0;
    for (int i = 0; i < ne; ++i) {
      const double t = run_point(elems[i], order, p, seconds);
      if (i == 0) first = t;
      last = t;
    }
    if (ne > 1) printf("RATIO order=%d prec=%s smallest/largest best step rate=%.3f\n", order, argv[3], last / first);
  }
  return check_failed;
}
#endif
