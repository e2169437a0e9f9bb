/**
 * @file emu_qs.cc  Runs the quasi-static kernels of src/cuda/qs_cuda.cuh on the CPU (sq_cuda_emu.h) against the
 * CPU kernels of sq_qs.h (one vector at a time; the CPU's multi-vector products checked against the same): the P2 and
 * P1 element-by-element products in both precisions, 1 and 4 interleaved vectors (and 2, 3 on one block size; one
 * thread per cell and vector), with the shared-memory reduction
 * (blocks of sq_qs_blocks_create, several block sizes, a last block that is not full; atomics into shared rows, or
 * each cell's values in its own slots gathered per row) and with direct atomics; the
 * restriction, the prolongation and a tile's reduction.  The cells are random (random gradients, volumes and Lame
 * parameters: the product is a bilinear form of any geometry) on few nodes, so that many cells of a block share nodes.
 * No GPU needed; see tests/cuda_emu/qs.sh.  Exit 0 when the largest difference to the CPU, relative to the largest
 * entry, is below 1e-12 (double) or 2e-5 (single).
 */
#define SQ_CUDA_EMULATE 1
#include "sq_cuda_emu.h"

#include <atomic>
#include <cstdio>
#include <vector>

template <typename R> inline R atomicAdd(R *p, R v) { return std::atomic_ref<R>(*p).fetch_add(v); }

#include "qs_cuda.cuh"

extern "C" {
#include "sq_qs.h"
#include "sq_qs_blocks.h"
}

namespace {

unsigned next(unsigned &s) { return s = s * 1664525u + 1013904223u; }
double unit(unsigned &s) { return (next(s) >> 8) / 16777216.0; }

struct Problem {
  int64_t nc, nnode, nvert;
  std::vector<int64_t> cell;                   /* 10 per cell: 4 distinct vertices, 6 distinct edge nodes */
  std::vector<double> geo;                     /* 12 per cell */
  std::vector<int64_t> edge_vert, vptr, vedge; /* a random edge graph for the transfers */
};

Problem make(int64_t nc, int64_t nvert, int64_t nedge, unsigned seed) {
  Problem p{nc, nvert + nedge, nvert, {}, {}, {}, {}, {}};
  p.cell.resize(10 * nc);
  p.geo.resize(12 * nc);
  for (int64_t c = 0; c < nc; ++c) {
    for (int a = 0; a < 10; ++a) {
      const int64_t lo = a < 4 ? 0 : nvert, n = a < 4 ? nvert : nedge;
      int64_t v;
      bool again;
      do { /* distinct nodes within the cell */
        v = lo + (int64_t)(unit(seed) * n) % n;
        again = false;
        for (int b = 0; b < a; ++b) again |= p.cell[10 * c + b] == v;
      } while (again);
      p.cell[10 * c + a] = v;
    }
    for (int k = 0; k < 9; ++k) p.geo[12 * c + k] = 2 * unit(seed) - 1;
    p.geo[12 * c + 9] = 0.5 + unit(seed);
    p.geo[12 * c + 10] = 1 + unit(seed);
    p.geo[12 * c + 11] = 1 + unit(seed);
  }
  p.edge_vert.resize(2 * nedge);
  std::vector<std::vector<int64_t>> ve(nvert);
  for (int64_t e = 0; e < nedge; ++e) {
    const int64_t a = (int64_t)(unit(seed) * nvert) % nvert, b = (a + 1 + (int64_t)(unit(seed) * (nvert - 1))) % nvert;
    p.edge_vert[2 * e] = a, p.edge_vert[2 * e + 1] = b;
    ve[a].push_back(e), ve[b].push_back(e);
  }
  p.vptr.push_back(0);
  for (auto &l : ve) {
    for (auto e : l) p.vedge.push_back(e);
    p.vptr.push_back((int64_t)p.vedge.size());
  }
  return p;
}

void cpu_ebe(const Problem &p, bool p1, const double *geo, const double *x, double *y) {
  (p1 ? sq_qs_ebe_p1_f64 : sq_qs_ebe_p2_f64)(p.nc, p.cell.data(), p.cell.data(), geo, x, y);
}
void cpu_ebe(const Problem &p, bool p1, const float *geo, const float *x, float *y) {
  (p1 ? sq_qs_ebe_p1_f32 : sq_qs_ebe_p2_f32)(p.nc, p.cell.data(), p.cell.data(), geo, x, y);
}

/* The CPU's multi-vector products (sq_qs_ebe_*_multi), the same interleaved layout. */
void cpu_multi(const Problem &p, bool p1, int nv, const double *geo, const double *x, double *y) {
  (p1 ? sq_qs_ebe_p1_f64_multi : sq_qs_ebe_p2_f64_multi)(p.nc, p.cell.data(), p.cell.data(), geo, nv, x, y);
}
void cpu_multi(const Problem &p, bool p1, int nv, const float *geo, const float *x, float *y) {
  (p1 ? sq_qs_ebe_p1_f32_multi : sq_qs_ebe_p2_f32_multi)(p.nc, p.cell.data(), p.cell.data(), geo, nv, x, y);
}

int failures = 0;

void report(const char *what, double err, double tol) {
  const bool ok = err <= tol;
  printf("%-58s max rel. difference %.2e %s\n", what, err, ok ? "ok" : "FAIL");
  failures += !ok;
}

template <typename R, int NV, bool P1> void check_ebe(const Problem &p, int cells) {
  using sq_qs_cuda::Reduction;
  const double tol = sizeof(R) == 8 ? 1e-12 : 2e-5;
  std::vector<R> geo(p.geo.begin(), p.geo.end());
  unsigned seed = 99u + NV + 7 * cells;
  std::vector<R> x(3 * NV * p.nnode), yref(3 * NV * p.nnode, 0);
  for (auto &v : x) v = (R)(2 * unit(seed) - 1);
  for (int v = 0; v < NV; ++v) { /* the reference: each vector alone, sq_qs.h's layout */
    std::vector<R> xs(3 * p.nnode), ys(3 * p.nnode, 0);
    for (int64_t k = 0; k < 3 * p.nnode; ++k) xs[k] = x[k * NV + v];
    cpu_ebe(p, P1, geo.data(), xs.data(), ys.data());
    for (int64_t k = 0; k < 3 * p.nnode; ++k) yref[k * NV + v] = ys[k];
  }
  double ymax = 0;
  for (auto v : yref) ymax = std::max(ymax, (double)std::fabs(v));
  auto diff = [&](const std::vector<R> &y) {
    double e = 0;
    for (size_t k = 0; k < y.size(); ++k) e = std::max(e, std::fabs((double)y[k] - (double)yref[k]) / ymax);
    return e;
  };
  char name[128];
  const char *prec = sizeof(R) == 8 ? "f64" : "f32";
  /* direct atomics */
  std::vector<R> y(3 * NV * p.nnode, 0);
  const unsigned grid = (unsigned)((p.nc + 31) / 32); /* 32 cells, 32 NV threads per block */
  sq_emu_launch(grid, 32 * NV, 0, [&] {
    sq_qs_cuda::ebe_kernel<R, NV, P1, Reduction::Atomic>(p.nc, geo.data(), p.cell.data(), p.cell.data(), nullptr,
                                                         nullptr, nullptr, x.data(), y.data());
  });
  snprintf(name, sizeof(name), "EBE %s %s, %d vectors, direct atomics", P1 ? "P1" : "P2", prec, NV);
  report(name, diff(y), tol);
  /* shared-memory reduction */
  sq_qs_blocks *b;
  if (sq_qs_blocks_create(p.nc, p.cell.data(), P1 ? 4 : 10, cells, &b)) {
    ++failures;
    return;
  }
  std::fill(y.begin(), y.end(), R(0));
  sq_emu_launch((unsigned)b->nblk, (unsigned)(cells * NV), (size_t)b->max_rows * 3 * NV * sizeof(R), [&] {
    sq_qs_cuda::ebe_kernel<R, NV, P1, Reduction::Shared>(p.nc, geo.data(), p.cell.data(), nullptr, b->ptr, b->row,
                                                         b->local, x.data(), y.data());
  });
  snprintf(name, sizeof(name), "EBE %s %s, %d vectors, shared memory, blocks of %d", P1 ? "P1" : "P2", prec, NV, cells);
  report(name, diff(y), tol);
  /* shared-memory slots gathered per row */
  std::fill(y.begin(), y.end(), R(0));
  sq_emu_launch((unsigned)b->nblk, (unsigned)(cells * NV), (size_t)cells * (P1 ? 4 : 10) * 3 * NV * sizeof(R), [&] {
    sq_qs_cuda::ebe_kernel<R, NV, P1, Reduction::Gather>(p.nc, geo.data(), p.cell.data(), nullptr, b->ptr, b->row,
                                                         nullptr, x.data(), y.data(), b->gather, b->gend);
  });
  snprintf(name, sizeof(name), "EBE %s %s, %d vectors, gathered slots, blocks of %d", P1 ? "P1" : "P2", prec, NV,
           cells);
  report(name, diff(y), tol);
  if (cells == 32) { /* the CPU's multi-vector product against the same reference */
    std::vector<R> ym(3 * NV * p.nnode, 0);
    cpu_multi(p, P1, NV, geo.data(), x.data(), ym.data());
    snprintf(name, sizeof(name), "CPU multi-vector EBE %s %s, %d vectors", P1 ? "P1" : "P2", prec, NV);
    report(name, diff(ym), tol);
  }
  sq_qs_blocks_destroy(b);
}

template <int NV> void check_transfers(const Problem &p) {
  unsigned seed = 5u + NV;
  std::vector<float> r(3 * NV * p.nnode), rc(3 * NV * p.nvert), zc(3 * NV * p.nvert), z(3 * NV * p.nnode);
  for (auto &v : r) v = (float)(2 * unit(seed) - 1);
  for (auto &v : zc) v = (float)(2 * unit(seed) - 1);
  const int64_t v0 = 3, v1 = p.nvert - 2, n0 = p.nvert / 2, n1 = p.nnode - 1; /* partial ranges, as tasks do */
  sq_emu_launch((unsigned)((v1 - v0 + 31) / 32), 32, 0, [&] {
    sq_qs_cuda::restrict_kernel<float, NV>(p.nvert, p.vptr.data(), p.vedge.data(), v0, v1, r.data(), rc.data());
  });
  sq_emu_launch((unsigned)((n1 - n0 + 31) / 32), 32, 0, [&] {
    sq_qs_cuda::prolong_kernel<float, NV>(p.nvert, p.edge_vert.data(), n0, n1, zc.data(), z.data());
  });
  double er = 0, ep = 0;
  for (int v = 0; v < NV; ++v) {
    std::vector<float> rs(3 * p.nnode), rcs(3 * p.nvert), zcs(3 * p.nvert), zs(3 * p.nnode);
    for (int64_t k = 0; k < 3 * p.nnode; ++k) rs[k] = r[k * NV + v];
    for (int64_t k = 0; k < 3 * p.nvert; ++k) zcs[k] = zc[k * NV + v];
    sq_qs_restrict_range_f32(p.nvert, p.vptr.data(), p.vedge.data(), v0, v1, rs.data(), rcs.data());
    sq_qs_prolong_range_f32(p.nvert, p.edge_vert.data(), n0, n1, zcs.data(), zs.data());
    for (int64_t k = 0; k < 3 * (v1 - v0); ++k) er = std::max(er, (double)std::fabs(rcs[k] - rc[k * NV + v]));
    for (int64_t k = 0; k < 3 * (n1 - n0); ++k) ep = std::max(ep, (double)std::fabs(zs[k] - z[k * NV + v]));
  }
  /* a tile's reduction: y[node[k]] += rows[k] against sq_qs_tile_reduce's loop */
  std::vector<int64_t> node;
  for (int64_t k = 0; k < p.nnode; k += 3) node.push_back(k);
  std::vector<double> rows(3 * NV * node.size()), y(3 * NV * p.nnode), yref;
  for (auto &v : rows) v = 2 * unit(seed) - 1;
  for (auto &v : y) v = unit(seed);
  yref = y;
  for (size_t k = 0; k < node.size(); ++k)
    for (int c = 0; c < 3 * NV; ++c) yref[3 * NV * node[k] + c] += rows[3 * NV * k + c];
  sq_emu_launch((unsigned)((node.size() + 31) / 32), 32, 0, [&] {
    sq_qs_cuda::scatter_add_kernel<double, NV>((int64_t)node.size(), node.data(), rows.data(), y.data());
  });
  double es = 0;
  for (size_t k = 0; k < y.size(); ++k) es = std::max(es, std::fabs(y[k] - yref[k]));
  char name[96];
  snprintf(name, sizeof(name), "tile reduction f64, %d vectors (bitwise)", NV);
  report(name, es, 0);
  snprintf(name, sizeof(name), "restriction f32, %d vectors (bitwise)", NV);
  report(name, er, 0);
  snprintf(name, sizeof(name), "prolongation f32, %d vectors (bitwise)", NV);
  report(name, ep, 0);
}

template <typename R> void check_precision(const Problem &p) {
  for (int cells : {32, 64}) {
    check_ebe<R, 1, false>(p, cells);
    check_ebe<R, 4, false>(p, cells);
    check_ebe<R, 1, true>(p, cells);
    check_ebe<R, 4, true>(p, cells);
  }
  check_ebe<R, 3, false>(p, 32);
  check_ebe<R, 2, true>(p, 32);
}

} // namespace

int main() {
  const Problem p = make(203, 40, 150, 11u); /* 203 cells: the last block is not full */
  check_precision<double>(p);
  check_precision<float>(p);
  check_transfers<1>(p);
  check_transfers<4>(p);
  printf("%s: %d failures\n", failures ? "FAIL" : "all quasi-static kernels agree with the CPU", failures);
  return failures != 0;
}
