/**
 * @file qs_bench.cu  GPU benchmark of the quasi-static solver's kernels (src/cuda/qs_cuda.cuh), StarPU-free:
 * a box of n^3 cubes cut into 6 tetrahedra each (cubes in Morton order), its P2 nodes (vertices, then edges), and
 * per product
 *   - the time of the P2 (and P1) element-by-element product, in both precisions, on 1 and 4 interleaved vectors
 *     (one thread per cell and vector), with the shared-memory reduction of the launcher (each cell's values in its
 *     own slots, summed per block row: Reduction::Gather; blocks of 32, 64 and 128 cells: 128 threads are the
 *     papers' 32 cells x 4 vectors), with shared-memory atomics into the block's rows (Reduction::Shared) and with
 *     direct atomics (the absence of the reduction: Reduction::Atomic); these two are instantiated here only, never by
 *     the production launchers;
 *   - the bytes it must move at least (geometry, indices, x read once, y read and written once: the model below)
 *     divided by the time, and that as a fraction of the measured device-to-device copy bandwidth;
 *   - its largest difference to the CPU kernel of sq_qs.h (one vector at a time), relative to the largest entry;
 * and the restriction and the prolongation.  Prints the table of every configuration, then the two comparisons the
 * papers make (their Fig. 3: time per call, divided by the vectors per call): four vectors per kernel against one,
 * and the shared-memory reduction against direct atomics.  See tests/bench/device/qs_gpu.sh.
 *
 * usage: qs_bench [n (cubes per side, default 76: 10.7 M P2 degrees of freedom)] [repetitions (default 20)]
 */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include "qs_cuda.cuh"
#include "sq_cuda_qs.h"

extern "C" {
#include "sq_qs.h"
#include "sq_qs_blocks.h"
}

#define CK(call)                                                                                                       \
  do {                                                                                                                 \
    cudaError_t e_ = (call);                                                                                           \
    if (e_ != cudaSuccess) {                                                                                           \
      fprintf(stderr, "qs_bench: %s: %s (line %d)\n", #call, cudaGetErrorString(e_), __LINE__);                        \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

namespace {

struct Mesh {
  int64_t nvert, nedge, nnode, ncell;
  std::vector<int64_t> cell; /* 10 per cell */
  std::vector<double> geo;   /* 12 per cell */
  std::vector<int64_t> edge_vert, vptr, vedge;
  int n;
};

uint64_t morton(uint64_t i, uint64_t j, uint64_t k) {
  uint64_t m = 0;
  for (int b = 0; b < 21; ++b)
    m |= ((i >> b) & 1) << (3 * b) | ((j >> b) & 1) << (3 * b + 1) | ((k >> b) & 1) << (3 * b + 2);
  return m;
}

Mesh box(int n) {
  Mesh m;
  m.n = n;
  const int64_t p = n + 1;
  m.nvert = p * p * p;
  auto vid = [&](int64_t i, int64_t j, int64_t k) { return i + p * (j + p * k); };
  std::vector<std::pair<uint64_t, int64_t>> cubes;
  for (int64_t k = 0; k < n; ++k)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < n; ++i) cubes.push_back({morton(i, j, k), i + n * (j + n * k)});
  std::sort(cubes.begin(), cubes.end());
  /* Kuhn's 6 tetrahedra of a cube: the paths from corner 0 to corner 7 along the axes in each order */
  const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  m.ncell = 6 * (int64_t)cubes.size();
  m.cell.resize(10 * m.ncell);
  m.geo.resize(12 * m.ncell);
  std::vector<int64_t> keys;
  keys.reserve(6 * m.ncell);
  const double h = 1.0 / n;
  int64_t c = 0;
  for (auto &cb : cubes) {
    const int64_t ci = cb.second % n, cj = cb.second / n % n, ck = cb.second / n / n;
    for (int t = 0; t < 6; ++t, ++c) {
      int64_t d[3] = {0, 0, 0}, v[4];
      double x[4][3];
      v[0] = vid(ci, cj, ck);
      for (int s = 0; s < 3; ++s) {
        ++d[perm[t][s]];
        v[s + 1] = vid(ci + d[0], cj + d[1], ck + d[2]);
      }
      for (int a = 0; a < 4; ++a) {
        const int64_t vi = v[a] % p, vj = v[a] / p % p, vk = v[a] / p / p;
        x[a][0] = vi * h, x[a][1] = vj * h, x[a][2] = vk * h;
      }
      double J[3][3];
      for (int r = 0; r < 3; ++r)
        for (int s = 0; s < 3; ++s) J[r][s] = x[s + 1][r] - x[0][r];
      const double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
                         J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                         J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
      double *g = &m.geo[12 * c];
      for (int r = 0; r < 3; ++r) /* rows of J^-1: d xi_r / d x */
        for (int s = 0; s < 3; ++s) {
          const int r1 = (s + 1) % 3, r2 = (s + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
          g[3 * r + s] = (J[r1][c1] * J[r2][c2] - J[r1][c2] * J[r2][c1]) / det;
        }
      g[9] = std::fabs(det) / 6, g[10] = 2.0 + 0.1 * (c % 7), g[11] = 1.0 + 0.05 * (c % 5);
      for (int a = 0; a < 4; ++a) m.cell[10 * c + a] = v[a];
      for (int e = 0; e < 6; ++e) {
        const int64_t a = v[sq_qs_edge_vertices[e][0]], b = v[sq_qs_edge_vertices[e][1]];
        keys.push_back(std::min(a, b) * m.nvert + std::max(a, b));
      }
    }
  }
  std::vector<int64_t> uniq(keys);
  std::sort(uniq.begin(), uniq.end());
  uniq.erase(std::unique(uniq.begin(), uniq.end()), uniq.end());
  m.nedge = (int64_t)uniq.size();
  m.nnode = m.nvert + m.nedge;
  for (int64_t k = 0; k < 6 * m.ncell; ++k)
    m.cell[10 * (k / 6) + 4 + k % 6] = m.nvert + (std::lower_bound(uniq.begin(), uniq.end(), keys[k]) - uniq.begin());
  m.edge_vert.resize(2 * m.nedge);
  std::vector<int64_t> cnt(m.nvert + 1, 0);
  for (int64_t e = 0; e < m.nedge; ++e) {
    m.edge_vert[2 * e] = uniq[e] / m.nvert, m.edge_vert[2 * e + 1] = uniq[e] % m.nvert;
    ++cnt[m.edge_vert[2 * e] + 1], ++cnt[m.edge_vert[2 * e + 1] + 1];
  }
  for (int64_t v = 0; v < m.nvert; ++v) cnt[v + 1] += cnt[v];
  m.vptr = cnt;
  m.vedge.resize(2 * m.nedge);
  for (int64_t e = 0; e < m.nedge; ++e)
    for (int s = 0; s < 2; ++s) m.vedge[cnt[m.edge_vert[2 * e + s]]++] = e;
  return m;
}

template <typename T> T *upload(const std::vector<T> &h) {
  T *d;
  CK(cudaMalloc(&d, h.size() * sizeof(T) + 16));
  CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

struct Timer {
  cudaEvent_t a, b;
  Timer() {
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
  }
  void start() { CK(cudaEventRecord(a)); }
  double stop(int reps) { /* seconds per repetition */
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    return ms * 1e-3 / reps;
  }
};

double copy_bandwidth(int reps) {
  const size_t bytes = (size_t)1 << 30;
  void *a, *b;
  CK(cudaMalloc(&a, bytes));
  CK(cudaMalloc(&b, bytes));
  CK(cudaMemset(a, 1, bytes));
  CK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
  Timer t;
  t.start();
  for (int r = 0; r < reps; ++r) CK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
  const double s = t.stop(reps);
  CK(cudaFree(a));
  CK(cudaFree(b));
  return 2.0 * bytes / s; /* read + write */
}

/* Host-to-device and device-to-host bytes/s of one array of @p bytes in pageable host memory (as the solver's
 * vectors, which StarPU copies at every product). */
void pcie_bandwidth(size_t bytes, int reps, double *h2d, double *d2h) {
  std::vector<char> h(bytes, 1);
  void *d;
  CK(cudaMalloc(&d, bytes));
  CK(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice));
  Timer t;
  t.start();
  for (int r = 0; r < reps; ++r) CK(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice));
  *h2d = bytes / t.stop(reps);
  t.start();
  for (int r = 0; r < reps; ++r) CK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
  *d2h = bytes / t.stop(reps);
  CK(cudaFree(d));
}

struct Dev {
  int64_t *cell, *evert, *vptr, *vedge;
  double *geo64;
  float *geo32;
  struct Blk {
    int cells;
    sq_qs_blocks *host;
    sq_cuda_qs_blocks dev;
    uint16_t *local; /* for the atomics into shared rows */
  } blk[2][3];       /* [p1][cells 32, 64, 128] */
};
/* which: a block size with gathered slots (the launcher's), or with atomics into shared rows, or kAtomic */
constexpr int kBlockSizes = 3, kSharedAtomic = kBlockSizes, kAtomic = 2 * kBlockSizes;
constexpr int kAtomicThreads = 128; /* threads per block of the direct-atomics product */

/* ms per vector of each configuration: [p1, f64, nv, which] */
std::map<std::tuple<int, int, int, int>, double> ms_per_vector;

/* The absence of the shared-memory reduction: every cell adds its rows into y with atomics (benchmark only). */
template <typename R, int NV>
void ebe_atomic(bool p1, int64_t nc, const R *geo, const int64_t *cell, const R *x, R *y) {
  using sq_qs_cuda::Reduction;
  constexpr int cells = kAtomicThreads / NV;
  const unsigned grid = (unsigned)((nc + cells - 1) / cells);
  if (p1)
    sq_qs_cuda::ebe_kernel<R, NV, true, Reduction::Atomic>
        <<<grid, kAtomicThreads>>>(nc, geo, cell, cell, nullptr, nullptr, nullptr, x, y);
  else
    sq_qs_cuda::ebe_kernel<R, NV, false, Reduction::Atomic>
        <<<grid, kAtomicThreads>>>(nc, geo, cell, cell, nullptr, nullptr, nullptr, x, y);
}

/* The block's rows in shared memory, each cell adding into them with shared-memory atomics (Reduction::Shared). */
template <typename R, int NV>
void ebe_shared_atomic(bool p1, int64_t nc, const R *geo, const int64_t *cell, const Dev::Blk &b, const R *x, R *y) {
  using sq_qs_cuda::Reduction;
  const size_t smem = (size_t)b.dev.max_rows * 3 * NV * sizeof(R);
  auto k = p1 ? sq_qs_cuda::ebe_kernel<R, NV, true, Reduction::Shared>
              : sq_qs_cuda::ebe_kernel<R, NV, false, Reduction::Shared>;
  if (smem > 48 * 1024) CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  k<<<(unsigned)b.dev.nblk, (unsigned)(b.cells * NV), smem>>>(nc, geo, cell, nullptr, b.dev.ptr, b.dev.row, b.local, x,
                                                              y, nullptr, nullptr);
}

/* The product of one configuration: the production launcher (shared memory) or the atomics. */
template <typename R>
void product(const Mesh &m, const Dev &d, bool p1, int nv, int which, const void *geo, const R *x, R *y) {
  const sq_precision prec = sizeof(R) == 8 ? SQ_F64 : SQ_F32;
  if (which < kBlockSizes) {
    sq_cuda_qs_ebe(prec, p1, nv, m.ncell, geo, d.cell, &d.blk[p1][which].dev, x, y, nullptr);
    return;
  }
  const R *g = static_cast<const R *>(geo);
  if (which < kAtomic) {
    const Dev::Blk &b = d.blk[p1][which - kSharedAtomic];
    if (nv == 1) ebe_shared_atomic<R, 1>(p1, m.ncell, g, d.cell, b, x, y);
    else if (nv == 4) ebe_shared_atomic<R, 4>(p1, m.ncell, g, d.cell, b, x, y);
  } else if (nv == 1) ebe_atomic<R, 1>(p1, m.ncell, g, d.cell, x, y);
  else if (nv == 4) ebe_atomic<R, 4>(p1, m.ncell, g, d.cell, x, y);
  else {
    fprintf(stderr, "qs_bench: the atomics product is built for 1 and 4 vectors\n");
    exit(1);
  }
  CK(cudaGetLastError());
}

/* The CPU kernels of sq_qs.h, one vector at a time (the reference). */
void cpu_ebe1(const Mesh &m, bool p1, const double *x, double *y) {
  (p1 ? sq_qs_ebe_p1_f64 : sq_qs_ebe_p2_f64)(m.ncell, m.cell.data(), m.cell.data(), m.geo.data(), x, y);
}
void cpu_ebe1(const Mesh &m, bool p1, const float *x, float *y) {
  static std::vector<float> g32;
  if (g32.empty()) g32.assign(m.geo.begin(), m.geo.end());
  (p1 ? sq_qs_ebe_p1_f32 : sq_qs_ebe_p2_f32)(m.ncell, m.cell.data(), m.cell.data(), g32.data(), x, y);
}
template <typename R> void cpu_ebe(const Mesh &m, bool p1, int nv, const R *x, R *y) {
  std::vector<R> xs(3 * m.nnode), ys(3 * m.nnode);
  for (int v = 0; v < nv; ++v) {
    for (int64_t k = 0; k < 3 * m.nnode; ++k) xs[k] = x[k * nv + v], ys[k] = 0;
    cpu_ebe1(m, p1, xs.data(), ys.data());
    for (int64_t k = 0; k < 3 * (p1 ? m.nvert : m.nnode); ++k) y[k * nv + v] = ys[k];
  }
}

/* One product configuration: time, model bytes, error against the CPU. */
template <typename R>
void run(const Mesh &m, Dev &d, bool p1, int nv, int which, int reps, double copy_bw, std::vector<R> &yref) {
  const int64_t nrow = p1 ? m.nvert : m.nnode, nloc = p1 ? 4 : 10, n = 3 * nv * nrow;
  std::vector<R> x(3 * nv * m.nnode), y(n);
  unsigned s = 12345u;
  for (auto &v : x) v = (R)((s = s * 1664525u + 1013904223u) >> 8) / (R)16777216 - R(0.5);
  R *dx = upload(x), *dy;
  CK(cudaMalloc(&dy, n * sizeof(R)));
  const bool blk = which < kAtomic;
  const Dev::Blk *bk = blk ? &d.blk[p1][which % kBlockSizes] : nullptr;
  const void *geo = sizeof(R) == 8 ? (const void *)d.geo64 : (const void *)d.geo32;
  CK(cudaMemset(dy, 0, n * sizeof(R)));
  product<R>(m, d, p1, nv, which, geo, dx, dy);
  CK(cudaMemcpy(y.data(), dy, n * sizeof(R), cudaMemcpyDeviceToHost));
  if (yref.empty()) { /* the same x for every reduction: one reference */
    yref.assign(n, 0);
    cpu_ebe(m, p1, nv, x.data(), yref.data());
  }
  double ymax = 0, err = 0;
  for (int64_t k = 0; k < n; ++k) ymax = std::max(ymax, (double)std::fabs(yref[k]));
  for (int64_t k = 0; k < n; ++k) err = std::max(err, std::fabs((double)y[k] - (double)yref[k]) / ymax);
  Timer t;
  t.start();
  for (int r = 0; r < reps; ++r) product<R>(m, d, p1, nv, which, geo, dx, dy);
  const double sec = t.stop(reps);
  ms_per_vector[{p1, sizeof(R) == 8, nv, which}] = sec * 1e3 / nv;
  /* bytes at least: geometry and the cells' nodes; x and y (read + write) once per row; the reduction's own
   * index data: the cells' output rows (atomics) or the block-local rows and each block's row list (shared) */
  double bytes = (double)m.ncell * (12 * sizeof(R) + nloc * 8) + 3.0 * nv * sizeof(R) * nrow * 3;
  if (blk)
    bytes += (double)m.ncell * nloc * 2 + (double)bk->host->ptr[bk->host->nblk] * (which < kSharedAtomic ? 10 : 8);
  else bytes += (double)m.ncell * nloc * 8;
  char red[32];
  if (blk)
    snprintf(red, sizeof(red), "%s, %d cells/blk", which < kSharedAtomic ? "gather" : "shared atomics", bk->cells);
  else snprintf(red, sizeof(red), "direct atomics");
  printf("| EBE %s | %s | %d | %-21s | %9.3f | %9.3f | %7.1f | %5.1f%% | %9.2f | %.1e |\n", p1 ? "P1" : "P2",
         sizeof(R) == 8 ? "f64" : "f32", nv, red, sec * 1e3, sec * 1e3 / nv, bytes / sec * 1e-9,
         100 * bytes / sec / copy_bw, (double)m.ncell * nv / sec * 1e-9, err);
  CK(cudaFree(dx));
  CK(cudaFree(dy));
}

template <typename R> void run_transfers(const Mesh &m, Dev &d, int nv, int reps, double copy_bw) {
  const sq_precision prec = sizeof(R) == 8 ? SQ_F64 : SQ_F32;
  std::vector<R> r(3 * nv * m.nnode);
  unsigned s = 777u;
  for (auto &v : r) v = (R)((s = s * 1664525u + 1013904223u) >> 8) / (R)16777216;
  R *dr = upload(r), *dc, *dz;
  CK(cudaMalloc(&dc, 3 * nv * m.nvert * sizeof(R)));
  CK(cudaMalloc(&dz, 3 * nv * m.nnode * sizeof(R)));
  Timer t;
  for (int which = 0; which < 2; ++which) {
    t.start();
    for (int k = 0; k < reps; ++k) {
      if (which == 0) sq_cuda_qs_restrict(prec, nv, m.nvert, d.vptr, d.vedge, 0, m.nvert, dr, dc, nullptr);
      else sq_cuda_qs_prolong(prec, nv, m.nvert, d.evert, 0, m.nnode, dr, dz, nullptr);
    }
    const double sec = t.stop(reps);
    const double bytes = which == 0 ? 3.0 * nv * sizeof(R) * (m.nnode + m.nvert) + 8.0 * (m.nvert + 2 * m.nedge)
                                    : 3.0 * nv * sizeof(R) * (m.nnode + m.nvert) + 16.0 * m.nedge;
    printf("| %s | %s | %d | %-21s | %9.3f | %9.3f | %7.1f | %5.1f%% | %9s | %7s |\n",
           which == 0 ? "restriction" : "prolongation", sizeof(R) == 8 ? "f64" : "f32", nv, "-", sec * 1e3,
           sec * 1e3 / nv, bytes / sec * 1e-9, 100 * bytes / sec / copy_bw, "-", "-");
  }
  CK(cudaFree(dr));
  CK(cudaFree(dc));
  CK(cudaFree(dz));
}

/* |K u| of a rigid rotation u (zero interior and boundary forces when the geometry is right) over |K x| of a
 * random x, max norms, double precision with the shared-memory reduction. */
double rotation_check(const Mesh &m, Dev &d) {
  const int64_t p = m.n + 1;
  std::vector<double> u(3 * m.nnode), x(3 * m.nnode), yu(3 * m.nnode), yx(3 * m.nnode);
  auto xyz = [&](int64_t v, double *c) {
    c[0] = (double)(v % p) / m.n, c[1] = (double)(v / p % p) / m.n, c[2] = (double)(v / p / p) / m.n;
  };
  for (int64_t k = 0; k < m.nnode; ++k) {
    double c[3], c2[3];
    if (k < m.nvert) xyz(k, c);
    else {
      xyz(m.edge_vert[2 * (k - m.nvert)], c), xyz(m.edge_vert[2 * (k - m.nvert) + 1], c2);
      for (int i = 0; i < 3; ++i) c[i] = 0.5 * (c[i] + c2[i]);
    }
    u[3 * k] = -0.3 * c[1] + 0.2 * c[2], u[3 * k + 1] = 0.3 * c[0] - 0.1 * c[2],
          u[3 * k + 2] = -0.2 * c[0] + 0.1 * c[1];
    for (int i = 0; i < 3; ++i) x[3 * k + i] = std::sin(1.0 + 7.0 * k + i);
  }
  double *du = upload(u), *dx = upload(x), *dy;
  CK(cudaMalloc(&dy, 2 * u.size() * sizeof(double)));
  CK(cudaMemset(dy, 0, 2 * u.size() * sizeof(double)));
  sq_cuda_qs_ebe(SQ_F64, 0, 1, m.ncell, d.geo64, d.cell, &d.blk[0][1].dev, du, dy, nullptr);
  sq_cuda_qs_ebe(SQ_F64, 0, 1, m.ncell, d.geo64, d.cell, &d.blk[0][1].dev, dx, dy + u.size(), nullptr);
  CK(cudaMemcpy(yu.data(), dy, u.size() * sizeof(double), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(yx.data(), dy + u.size(), u.size() * sizeof(double), cudaMemcpyDeviceToHost));
  double a = 0, b = 0;
  for (size_t k = 0; k < u.size(); ++k) a = std::max(a, std::fabs(yu[k])), b = std::max(b, std::fabs(yx[k]));
  CK(cudaFree(du));
  CK(cudaFree(dx));
  CK(cudaFree(dy));
  return a / b;
}

} // namespace

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 76, reps = argc > 2 ? atoi(argv[2]) : 20;
  if (n < 2 || n > 200 || reps < 1) {
    fprintf(stderr, "usage: qs_bench [cubes per side 2..200] [repetitions]\n");
    return 2;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const auto t0 = std::chrono::steady_clock::now();
  Mesh m = box(n);
  const double tmesh = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Dev d{};
  d.cell = upload(m.cell);
  d.evert = upload(m.edge_vert);
  d.vptr = upload(m.vptr);
  d.vedge = upload(m.vedge);
  d.geo64 = upload(m.geo);
  d.geo32 = upload(std::vector<float>(m.geo.begin(), m.geo.end()));
  for (int p1 = 0; p1 < 2; ++p1)
    for (int k = 0; k < kBlockSizes; ++k) {
      Dev::Blk &b = d.blk[p1][k];
      b.cells = 32 << k;
      if (sq_qs_blocks_create(m.ncell, m.cell.data(), p1 ? 4 : 10, b.cells, &b.host)) return 1;
      std::vector<int64_t> ptr(b.host->ptr, b.host->ptr + b.host->nblk + 1);
      std::vector<int64_t> row(b.host->row, b.host->row + ptr.back());
      std::vector<uint16_t> loc(b.host->local, b.host->local + 10 * m.ncell);
      b.dev = {b.cells,          b.host->nblk,
               b.host->max_rows, upload(ptr),
               upload(row),      upload(std::vector<uint16_t>(b.host->gather, b.host->gather + b.host->ngather))};
      b.local = upload(loc);
    }
  const double bw = copy_bandwidth(reps);
  const double rot = rotation_check(m, d);
  double h2d, d2h;
  pcie_bandwidth(3 * sizeof(float) * m.nnode, reps, &h2d, &d2h);
  printf("qs_bench on %s: %d^3 cubes, %lld cells, %lld P2 nodes (%.2f M degrees of freedom), %lld vertices; mesh "
         "%.1f s\n",
         prop.name, n, (long long)m.ncell, (long long)m.nnode, 3e-6 * m.nnode, (long long)m.nvert, tmesh);
  printf("device-to-device copy: %.1f GB/s (read + write); blocks of 64 cells: %.1f P2 rows per cell, at most %lld "
         "rows per block\n",
         bw * 1e-9, (double)d.blk[0][1].host->ptr[d.blk[0][1].host->nblk] / m.ncell,
         (long long)d.blk[0][1].host->max_rows);
  printf("host (pageable) to device: %.1f GB/s, device to host: %.1f GB/s (one P2 single-precision vector, %.0f MB)\n",
         h2d * 1e-9, d2h * 1e-9, 12e-6 * m.nnode);
  printf("geometry check: K u of a rigid rotation u over K u of a random u (max norms): %.1e\n\n", rot);
  printf("| kernel | prec | vectors | reduction | ms/call | ms/vector | GB/s (model) | of copy | Gcell-vec/s | "
         "max rel. diff. CPU |\n|---|---|---|---|---|---|---|---|---|---|\n");
  for (int p1 = 0; p1 < 2; ++p1)
    for (int nv : {1, 4}) {
      std::vector<double> ref64;
      std::vector<float> ref32;
      for (int which = 0; which <= kAtomic; ++which) {
        run<double>(m, d, p1, nv, which, reps, bw, ref64);
        run<float>(m, d, p1, nv, which, reps, bw, ref32);
      }
    }
  for (int nv : {1, 4}) {
    run_transfers<float>(m, d, nv, reps, bw);
    run_transfers<double>(m, d, nv, reps, bw);
  }
  printf(
      "\nFour vectors per kernel against one (the papers' Fig. 3: time per call / vectors per call), the launcher's "
      "shared-memory reduction:"
      "\n\n| kernel | prec | cells/block | 1 vector: ms | 4 vectors: ms/vector | gain |\n|---|---|---|---|---|---|\n");
  for (int p1 = 0; p1 < 2; ++p1)
    for (int f64 = 0; f64 < 2; ++f64)
      for (int k = 0; k < kBlockSizes; ++k) {
        const double one = ms_per_vector[{p1, f64, 1, k}], four = ms_per_vector[{p1, f64, 4, k}];
        printf("| EBE %s | %s | %d | %.3f | %.3f | %.2fx |\n", p1 ? "P1" : "P2", f64 ? "f64" : "f32", 32 << k, one,
               four, one / four);
      }
  printf("\nThe shared-memory reduction against its absence (direct atomics, %d threads per block), ms per vector; "
         "gather: each cell's values in its own slots, summed per block row (the launcher's); shared atomics: the "
         "cells add into the block's rows with shared-memory atomics:"
         "\n\n| kernel | prec | vectors | gather, 32 / 64 / 128 cells | shared atomics, 32 / 64 / 128 cells | direct "
         "atomics | "
         "gain (best gather) | gain (best shared atomics) |\n|---|---|---|---|---|---|---|---|\n",
         kAtomicThreads);
  for (int p1 = 0; p1 < 2; ++p1)
    for (int f64 = 0; f64 < 2; ++f64)
      for (int nv : {1, 4}) {
        double best[2] = {1e30, 1e30};
        printf("| EBE %s | %s | %d |", p1 ? "P1" : "P2", f64 ? "f64" : "f32", nv);
        for (int g = 0; g < 2; ++g)
          for (int k = 0; k < kBlockSizes; ++k) {
            const double t = ms_per_vector[{p1, f64, nv, g * kSharedAtomic + k}];
            best[g] = std::min(best[g], t);
            printf("%s%.3f%s", k ? " / " : " ", t, k == kBlockSizes - 1 ? " |" : "");
          }
        const double at = ms_per_vector[{p1, f64, nv, kAtomic}];
        printf(" %.3f | %.2fx | %.2fx |\n", at, at / best[0], at / best[1]);
      }
  printf("\nGB/s (model): bytes that must move at least per call (geometry, the cells' node indices, x read once, y "
         "read and written once, the reduction's index data) over the time.\n");
  return 0;
}
