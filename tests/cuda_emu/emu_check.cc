/**
 * @file emu_check.cc  Runs the GPU kernels of src/cuda/cuda_kernels.cuh and cuda_cell.cuh on the CPU
 * (sq_cuda_emu.h) and compares them with the CPU reference kernels of src/ for orders 2..7 in both
 * precisions.  No GPU needed; see tests/cuda_emu/run.sh.  Exit 0 when every relative L2 difference is
 * within tolerance.
 */
#define SQ_CUDA_EMULATE 1
#include "cuda_cell.cuh"
#include "cuda_sparse.cuh"
#include "cuda_tensor.cuh"

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "sq_ref.h"
}

namespace {

int failures = 0;

template <typename Real> double rel_l2(const std::vector<Real> &a, const std::vector<Real> &b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = (double)a[i] - (double)b[i];
    if (!std::isfinite((double)a[i])) return INFINITY;
    num += d * d;
    den += (double)b[i] * (double)b[i];
  }
  return den > 0 ? sqrt(num / den) : sqrt(num);
}

template <typename Real>
void report(const char *what, int order, const std::vector<Real> &got, const std::vector<Real> &ref) {
  const double err = rel_l2(got, ref), tol = sizeof(Real) == 8 ? 1e-12 : 1e-5;
  const bool ok = err <= tol;
  if (!ok) ++failures;
  printf("%-10s O%d %s  rel L2 %.3e  %s\n", what, order, sizeof(Real) == 8 ? "f64" : "f32", err, ok ? "ok" : "FAIL");
}

/* A launch variant that must give the same bits as the default one: smaller blocks (grid_for's
 * small-cluster grid), or the neighbour kernel's other row width. */
template <typename Real>
void same_bits(const char *what, int order, const std::string &variant, const std::vector<Real> &got,
               const std::vector<Real> &ref) {
  const bool ok = got.size() == ref.size() && !memcmp(got.data(), ref.data(), sizeof(Real) * got.size());
  if (!ok) ++failures;
  printf("%-10s O%d %s  %s: %s\n", what, order, sizeof(Real) == 8 ? "f64" : "f32", variant.c_str(),
         ok ? "bitwise equal to the default launch" : "DIFFERS from the default launch: FAIL");
}

/* "N elements per block" */
inline std::string per_block(int epb) { return std::to_string(epb) + " elements per block"; }

/* A block size below E for the same kernel (E itself where E is 1). */
inline int small_epb(int E) { return E > 1 ? (E > 3 ? E / 3 : E - 1) : 1; }

template <int ORDER, typename Real> void check(std::mt19937_64 &rng, int64_t n) {
  using T = sq_cuda::AderShape<ORDER, Real>;
  using TL = sq_cuda::LocalShape<ORDER, Real>;
  using TN = sq_cuda::NeighborShape<ORDER, Real>;
  using TP = sq_cuda::PredictShape<ORDER, Real>;
  const sq_precision prec = sizeof(Real) == 8 ? SQ_F64 : SQ_F32;
  const int NQ = T::NQ;
  std::uniform_real_distribution<double> u(-1, 1);
  sq_ref *ref;
  if (sq_ref_create(ORDER, &ref)) abort();
  void *packv;
  size_t pack_bytes;
  if (sq_kernel_pack(ref, prec, &packv, &pack_bytes)) abort();
  const Real *pack = (const Real *)packv;
  auto rnd = [&](size_t len, double scale) {
    std::vector<Real> v(len);
    for (auto &x : v) x = (Real)(scale * u(rng));
    return v;
  };
  std::vector<Real> dofs = rnd(n * NQ, 1), star = rnd(n * 243, 0.3), flux_local = rnd(n * 324, 0.3),
                    flux_nb = rnd(n * 324, 0.3);
  /* star matrices with the pattern of every star matrix (SQ_STAR_NONZERO), which the kernels apply sparsely */
  for (int64_t i = 0; i < n * 243; ++i)
    if (!SQ_STAR_NONZERO(i % 81 / 9, i % 9)) star[i] = Real(0);
  const double dt = 0.05;
  auto grid = [n](int epb) { return (unsigned)((n + epb - 1) / epb); };
  printf("O%d %s: B %d G %d, E/threads/smem: ader %d/%d/%d local %d/%d/%d neighbor %d/%d/%d predict %d/%d/%d, KC %d\n",
         ORDER, sizeof(Real) == 8 ? "f64" : "f32", T::B, T::G, T::E, T::THREADS, (int)sizeof(Real) * T::SMEM, TL::E,
         TL::THREADS, (int)sizeof(Real) * TL::SMEM, TN::E, TN::THREADS, (int)sizeof(Real) * TN::SMEM, TP::E,
         TP::THREADS, (int)sizeof(Real) * TP::SMEM, T::KC);
  if (getenv("SQ_EMU_SHAPES_ONLY")) return;

  /* ader with derivatives and an accumulated buffer */
  std::vector<Real> tint_c(n * NQ), der_c(n * ORDER * NQ), buf_c = rnd(n * NQ, 1);
  std::vector<Real> tint_g(n * NQ, NAN), der_g(n * ORDER * NQ, NAN), buf_g = buf_c;
  const std::vector<Real> buf_init = buf_c;
  sq_kernel_ader(prec, ORDER, n, pack, dofs.data(), star.data(), dt, tint_c.data(), der_c.data());
  sq_kernel_accumulate(prec, ORDER, n, tint_c.data(), 0, buf_c.data());
  std::vector<Real> tint_s(n * NQ, NAN), der_s(n * ORDER * NQ, NAN), buf_s = buf_g;
  sq_emu_launch(grid(T::E), T::THREADS, sizeof(Real) * T::SMEM, [&] {
    sq_cuda::ader_kernel<ORDER, Real>(n, T::E, pack, dofs.data(), star.data(), dt, tint_g.data(), der_g.data(),
                                      buf_g.data(), 0);
  });
  report("ader.tint", ORDER, tint_g, tint_c);
  report("ader.deriv", ORDER, der_g, der_c);
  report("ader.buf", ORDER, buf_g, buf_c);
  const int es = small_epb(T::E);
  sq_emu_launch(grid(es), T::THREADS, sizeof(Real) * T::SMEM, [&] {
    sq_cuda::ader_kernel<ORDER, Real>(n, es, pack, dofs.data(), star.data(), dt, tint_s.data(), der_s.data(),
                                      buf_s.data(), 0);
  });
  same_bits("ader.tint", ORDER, per_block(es), tint_s, tint_g);
  same_bits("ader.deriv", ORDER, per_block(es), der_s, der_g);
  same_bits("ader.buf", ORDER, per_block(es), buf_s, buf_g);
  /* ader without derivatives, buffer reset */
  std::vector<Real> tint_g2(n * NQ, NAN), buf_g2(n * NQ, NAN);
  sq_emu_launch(grid(T::E), T::THREADS, sizeof(Real) * T::SMEM, [&] {
    sq_cuda::ader_kernel<ORDER, Real>(n, T::E, pack, dofs.data(), star.data(), dt, tint_g2.data(), nullptr,
                                      buf_g2.data(), 1);
  });
  report("ader.reset", ORDER, buf_g2, tint_c);
  { /* the sparse predictor (cuda_sparse.cuh), at every order whether ader_cuda.cu takes it or not */
    using SP = sq_cuda::SparseShape<ORDER, Real>;
    std::vector<Real> ts(n * NQ, NAN), ds(n * ORDER * NQ, NAN), bs = buf_init;
    sq_emu_launch(grid(SP::E), SP::THREADS, sizeof(Real) * SP::SMEM, [&] {
      sq_cuda::ader_sparse_kernel<ORDER, Real>(n, SP::E, pack, dofs.data(), star.data(), dt, ts.data(), ds.data(),
                                               bs.data(), 0);
    });
    report("sp.tint", ORDER, ts, tint_c);
    report("sp.deriv", ORDER, ds, der_c);
    report("sp.buf", ORDER, bs, buf_c);
    for (const int epb : {small_epb(SP::E), 1}) {
      std::vector<Real> t2(n * NQ, NAN), d2(n * ORDER * NQ, NAN), b2 = buf_init;
      sq_emu_launch(grid(epb), SP::THREADS, sizeof(Real) * SP::SMEM, [&] {
        sq_cuda::ader_sparse_kernel<ORDER, Real>(n, epb, pack, dofs.data(), star.data(), dt, t2.data(), d2.data(),
                                                 b2.data(), 0);
      });
      same_bits("sp.tint", ORDER, per_block(epb), t2, ts);
      same_bits("sp.deriv", ORDER, per_block(epb), d2, ds);
      same_bits("sp.buf", ORDER, per_block(epb), b2, bs);
    }
    std::vector<Real> t3(n * NQ, NAN), b3(n * NQ, NAN);
    sq_emu_launch(grid(SP::E), SP::THREADS, sizeof(Real) * SP::SMEM, [&] {
      sq_cuda::ader_sparse_kernel<ORDER, Real>(n, SP::E, pack, dofs.data(), star.data(), dt, t3.data(), nullptr,
                                               b3.data(), 1);
    });
    same_bits("sp.tint", ORDER, "no derivatives, buffer reset", t3, ts);
    same_bits("sp.reset", ORDER, "buffer reset: tint", b3, ts);
    printf("O%d %s: sparse ader E/threads/smem %d/%d/%d (%s)\n", ORDER, sizeof(Real) == 8 ? "f64" : "f32", SP::E,
           SP::THREADS, (int)sizeof(Real) * SP::SMEM,
           sq_cuda::sparse_ader(ORDER, sizeof(Real)) && !sq_cuda::sparse_ader_split(ORDER, sizeof(Real))
               ? "taken by ader"
               : "not taken");
    /* the split form: against the CPU and bitwise against the unsplit kernel, with and without derivatives */
    using SS = sq_cuda::SparseShape<ORDER, Real, SQ_CUDA_SPARSE_ADER_SPLIT>;
    for (const int epb : {SS::E, small_epb(SS::E), 1}) {
      std::vector<Real> t2(n * NQ, NAN), d2(n * ORDER * NQ, NAN), b2 = buf_init;
      sq_emu_launch(grid(epb), SS::THREADS, sizeof(Real) * SS::SMEM, [&] {
        sq_cuda::ader_sparse_kernel<ORDER, Real, SQ_CUDA_SPARSE_ADER_SPLIT>(n, epb, pack, dofs.data(), star.data(), dt,
                                                                            t2.data(), d2.data(), b2.data(), 0);
      });
      if (epb == SS::E) {
        report("sp.split", ORDER, t2, tint_c);
        report("sp.split", ORDER, d2, der_c);
      }
      const std::string what = "split, " + per_block(epb) + ", against the unsplit kernel";
      same_bits("sp.split.t", ORDER, what, t2, ts);
      same_bits("sp.split.d", ORDER, what, d2, ds);
      same_bits("sp.split.b", ORDER, what, b2, bs);
    }
    std::vector<Real> t4(n * NQ, NAN), b4(n * NQ, NAN);
    sq_emu_launch(grid(SS::E), SS::THREADS, sizeof(Real) * SS::SMEM, [&] {
      sq_cuda::ader_sparse_kernel<ORDER, Real, SQ_CUDA_SPARSE_ADER_SPLIT>(n, SS::E, pack, dofs.data(), star.data(), dt,
                                                                          t4.data(), nullptr, b4.data(), 1);
    });
    same_bits("sp.split.t", ORDER, "split, no derivatives, buffer reset", t4, ts);
    same_bits("sp.split.b", ORDER, "split, buffer reset: tint", b4, ts);
    printf("O%d %s: split sparse ader (%d threads per quantity) E/threads/smem %d/%d/%d (%s)\n", ORDER,
           sizeof(Real) == 8 ? "f64" : "f32", SS::NS, SS::E, SS::THREADS, (int)sizeof(Real) * SS::SMEM,
           sq_cuda::sparse_ader(ORDER, sizeof(Real)) && sq_cuda::sparse_ader_split(ORDER, sizeof(Real))
               ? "taken by ader"
               : "not taken");
  }

  /* local */
  std::vector<Real> q_c = dofs, q_g = dofs;
  sq_kernel_local(prec, ORDER, n, pack, tint_c.data(), star.data(), flux_local.data(), q_c.data());
  for (const int epb : {TL::E, small_epb(TL::E)}) {
    std::vector<Real> q = dofs;
    sq_emu_launch(grid(epb), TL::THREADS, sizeof(Real) * TL::SMEM, [&] {
      sq_cuda::local_kernel<ORDER, Real>(n, epb, pack, tint_c.data(), star.data(), flux_local.data(), q.data());
    });
    if (epb == TL::E) q_g = q, report("local", ORDER, q_g, q_c);
    else same_bits("local", ORDER, per_block(epb), q, q_g);
  }

  { /* the sparse local kernel (cuda_sparse.cuh), at every order whether local_cuda.cu takes it or not */
    using SL = sq_cuda::SparseLocalShape<ORDER, Real>;
    std::vector<Real> qs;
    for (const int epb : {SL::E, small_epb(SL::E), 1}) {
      std::vector<Real> q = dofs;
      sq_emu_launch(grid(epb), SL::THREADS, sizeof(Real) * SL::SMEM, [&] {
        sq_cuda::local_sparse_kernel<ORDER, Real>(n, epb, pack, tint_c.data(), star.data(), flux_local.data(),
                                                  q.data());
      });
      if (epb == SL::E) qs = q, report("sp.local", ORDER, qs, q_c);
      else same_bits("sp.local", ORDER, per_block(epb), q, qs);
    }
    printf("O%d %s: sparse local E/threads/smem %d/%d/%d (%s)\n", ORDER, sizeof(Real) == 8 ? "f64" : "f32", SL::E,
           SL::THREADS, (int)sizeof(Real) * SL::SMEM,
           sq_cuda::sparse_local(ORDER, sizeof(Real)) && !sq_cuda::sparse_local_split(ORDER, sizeof(Real))
               ? "taken by local"
               : "not taken");
    /* the split form, at every order whether local_cuda.cu takes it or not: against the CPU, and bitwise against the
     * unsplit kernel (every row sums in the same order) */
    using SS = sq_cuda::SparseLocalShape<ORDER, Real, SQ_CUDA_SPARSE_LOCAL_SPLIT>;
    std::vector<Real> qss;
    for (const int epb : {SS::E, small_epb(SS::E), 1}) {
      std::vector<Real> q = dofs;
      sq_emu_launch(grid(epb), SS::THREADS, sizeof(Real) * SS::SMEM, [&] {
        sq_cuda::local_split_kernel<ORDER, Real>(n, epb, pack, tint_c.data(), star.data(), flux_local.data(), q.data());
      });
      if (epb == SS::E) {
        qss = q, report("sp.split", ORDER, qss, q_c);
        same_bits("sp.split", ORDER, "unsplit sparse local", qss, qs);
      } else {
        same_bits("sp.split", ORDER, per_block(epb), q, qss);
      }
    }
    printf("O%d %s: split sparse local (%d threads per quantity) E/threads/smem %d/%d/%d (%s)\n", ORDER,
           sizeof(Real) == 8 ? "f64" : "f32", SS::NS, SS::E, SS::THREADS, (int)sizeof(Real) * SS::SMEM,
           sq_cuda::sparse_local_split(ORDER, sizeof(Real)) ? "taken by local" : "not taken");
  }

  if constexpr (sizeof(Real) == 8) { /* the tensor-core local kernel (cuda_tensor.cuh), at every order in double */
    using TT = sq_cuda::TensorLocalShape<ORDER>;
    std::vector<Real> qt;
    for (const int epb : {TT::E, small_epb(TT::E)}) {
      std::vector<Real> q = dofs;
      sq_emu_launch(grid(epb), TT::THREADS, sizeof(Real) * TT::SMEM, [&] {
        sq_cuda::local_tensor_kernel<ORDER>(n, epb, pack, tint_c.data(), star.data(), flux_local.data(), q.data());
      });
      if (epb == TT::E) qt = q, report("tc.local", ORDER, qt, q_c);
      else same_bits("tc.local", ORDER, per_block(epb), q, qt);
    }
    printf("O%d f64: tensor-core local E/threads/smem %d/%d/%d (%s)\n", ORDER, TT::E, TT::THREADS,
           (int)sizeof(Real) * TT::SMEM, sq_cuda::tensor_local(ORDER, 8) ? "taken by local" : "not taken");
  }

  /* fused predictor: ader (+ buffer) then local */
  std::vector<Real> p_c = dofs, p_g = dofs, pt_g(n * NQ, NAN), pd_g(n * ORDER * NQ, NAN), pb_c = buf_c, pb_g = buf_c;
  sq_kernel_accumulate(prec, ORDER, n, tint_c.data(), 0, pb_c.data());
  sq_kernel_local(prec, ORDER, n, pack, tint_c.data(), star.data(), flux_local.data(), p_c.data());
  std::vector<Real> p_s = dofs, pt_s(n * NQ, NAN), pd_s(n * ORDER * NQ, NAN), pb_s = buf_c;
  sq_emu_launch(grid(TP::E), TP::THREADS, sizeof(Real) * TP::SMEM, [&] {
    sq_cuda::predict_kernel<ORDER, Real>(n, TP::E, pack, p_g.data(), star.data(), flux_local.data(), dt, pt_g.data(),
                                         pd_g.data(), pb_g.data(), 0);
  });
  report("pred.dofs", ORDER, p_g, p_c);
  report("pred.tint", ORDER, pt_g, tint_c);
  report("pred.deriv", ORDER, pd_g, der_c);
  report("pred.buf", ORDER, pb_g, pb_c);
  const int ps = small_epb(TP::E);
  sq_emu_launch(grid(ps), TP::THREADS, sizeof(Real) * TP::SMEM, [&] {
    sq_cuda::predict_kernel<ORDER, Real>(n, ps, pack, p_s.data(), star.data(), flux_local.data(), dt, pt_s.data(),
                                         pd_s.data(), pb_s.data(), 0);
  });
  same_bits("pred.dofs", ORDER, per_block(ps), p_s, p_g);
  same_bits("pred.tint", ORDER, per_block(ps), pt_s, pt_g);
  same_bits("pred.deriv", ORDER, per_block(ps), pd_s, pd_g);
  same_bits("pred.buf", ORDER, per_block(ps), pb_s, pb_g);
  /* a merged task's grid: the elements as two segments of one launch of @p kernel (threads, shared memory), in
   * blocks of epb, bitwise the single launch */
  auto two_segments = [&](const std::string &label, int epb, unsigned threads, size_t smem, auto kernel) {
    std::vector<Real> p_m = dofs, pt_m(n * NQ, NAN), pd_m(n * ORDER * NQ, NAN), pb_m = buf_c;
    const int64_t n1 = n / 3, b1 = (n1 + epb - 1) / epb;
    sq_cuda_segments segs = {};
    segs.nseg = 2;
    segs.epb = epb;
    for (int s = 0; s < 2; ++s) {
      const int64_t o = s ? n1 : 0;
      segs.seg[s] = {s ? n - n1 : n1,
                     p_m.data() + o * NQ,
                     star.data() + o * 243,
                     flux_local.data() + o * 324,
                     pt_m.data() + o * NQ,
                     pd_m.data() + o * ORDER * NQ,
                     pb_m.data() + o * NQ,
                     dt,
                     0,
                     (unsigned)(s ? b1 : 0)};
    }
    sq_emu_launch((unsigned)(b1 + (n - n1 + epb - 1) / epb), threads, smem, [&] { kernel(segs); });
    same_bits("pred.dofs", ORDER, label, p_m, p_g);
    same_bits("pred.tint", ORDER, label, pt_m, pt_g);
    same_bits("pred.deriv", ORDER, label, pd_m, pd_g);
    same_bits("pred.buf", ORDER, label, pb_m, pb_g);
  };
  two_segments("two segments", ps, TP::THREADS, sizeof(Real) * TP::SMEM,
               [&](const sq_cuda_segments &g) { sq_cuda::predict_segments_kernel<ORDER, Real>(g, pack); });

  /* neighbour: random links over every flux variant, three slots (two tint-like, one derivatives) */
  std::vector<Real> slot0 = rnd(n * NQ, 1), slot1 = rnd(n * NQ, 1), slot2 = der_c;
  std::vector<sq_face_link> links(n * 4);
  std::uniform_int_distribution<int> kind(0, 2), flux(0, 47), slot(0, 1), index(0, (int)n - 1);
  for (int64_t i = 0; i < n * 4; ++i) {
    sq_face_link &ln = links[i];
    ln.kind = i < 48 ? SQ_LINK_TINT : kind(rng);
    ln.flux = i < 48 ? (int)i : flux(rng);
    ln.slot = ln.kind == SQ_LINK_DERIVS ? 2 : slot(rng);
    ln.index = index(rng);
  }
  const void *nb_data[3] = {slot0.data(), slot1.data(), slot2.data()};
  const double t0[3] = {0, 0, 0.25 * dt}, t1[3] = {0, 0, 0.5 * dt};
  sq_cuda_slots slots = {};
  slots.nslot = 3;
  for (int s = 0; s < 3; ++s) slots.data[s] = nb_data[s], slots.t0[s] = t0[s], slots.t1[s] = t1[s];
  std::vector<Real> nq_c = dofs, nq_g = dofs;
  sq_kernel_neighbor(prec, ORDER, n, pack, links.data(), flux_nb.data(), nb_data, t0, t1, nq_c.data());
  for (const int epb : {TN::E, small_epb(TN::E)}) {
    std::vector<Real> q = dofs;
    sq_emu_launch(grid(epb), TN::THREADS, sizeof(Real) * TN::SMEM, [&] {
      sq_cuda::neighbor_kernel<ORDER, Real>(n, epb, pack, links.data(), flux_nb.data(), slots, q.data());
    });
    if (epb == TN::E) nq_g = q, report("neighbor", ORDER, nq_g, nq_c);
    else same_bits("neighbor", ORDER, per_block(epb), q, nq_g);
  }
  if constexpr (sizeof(Real) == 4) { /* the other row width (neighbor_cuda.cu picks one per tile size) */
    constexpr int other = TN::NARROW ? 0 : 1;
    using TO = sq_cuda::NeighborShape<ORDER, Real, other>;
    std::vector<Real> q = dofs;
    sq_emu_launch(grid(TO::E), TO::THREADS, sizeof(Real) * TO::SMEM, [&] {
      sq_cuda::neighbor_kernel<ORDER, Real, other>(n, TO::E, pack, links.data(), flux_nb.data(), slots, q.data());
    });
    same_bits("neighbor", ORDER, other ? "narrow rows (R 2)" : "wide rows (R 4)", q, nq_g);
  }
  if constexpr (sq_cuda::has_fine(ORDER, sizeof(Real))) { /* fine row groups (small tiles): bitwise the default */
    using AF = sq_cuda::AderShape<ORDER, Real, 2>;
    using LF = sq_cuda::LocalShape<ORDER, Real, 2>;
    using PF = sq_cuda::PredictShape<ORDER, Real, 2>;
    using NF = sq_cuda::NeighborShape<ORDER, Real, 2>;
    static_assert(AF::R == 1 && LF::R == 1 && PF::R == 1 && NF::R == 1, "fine rows: one per thread");
    for (const int epb : {AF::E, small_epb(AF::E)}) {
      std::vector<Real> ti(n * NQ, NAN), de(n * ORDER * NQ, NAN), bu = buf_init;
      sq_emu_launch(grid(epb), AF::THREADS, sizeof(Real) * AF::SMEM, [&] {
        sq_cuda::ader_kernel<ORDER, Real, 2>(n, epb, pack, dofs.data(), star.data(), dt, ti.data(), de.data(),
                                             bu.data(), 0);
      });
      same_bits("ader.tint", ORDER, "fine rows (R 1)", ti, tint_g);
      same_bits("ader.deriv", ORDER, "fine rows (R 1)", de, der_g);
      same_bits("ader.buf", ORDER, "fine rows (R 1)", bu, buf_g);
    }
    for (const int epb : {LF::E, small_epb(LF::E)}) {
      std::vector<Real> q = dofs;
      sq_emu_launch(grid(epb), LF::THREADS, sizeof(Real) * LF::SMEM, [&] {
        sq_cuda::local_kernel<ORDER, Real, 2>(n, epb, pack, tint_c.data(), star.data(), flux_local.data(), q.data());
      });
      same_bits("local", ORDER, "fine rows (R 1)", q, q_g);
    }
    for (const int epb : {PF::E, small_epb(PF::E)}) {
      std::vector<Real> q = dofs, ti(n * NQ, NAN), de(n * ORDER * NQ, NAN), bu = buf_c;
      sq_emu_launch(grid(epb), PF::THREADS, sizeof(Real) * PF::SMEM, [&] {
        sq_cuda::predict_kernel<ORDER, Real, 2>(n, epb, pack, q.data(), star.data(), flux_local.data(), dt, ti.data(),
                                                de.data(), bu.data(), 0);
      });
      same_bits("pred.dofs", ORDER, "fine rows (R 1)", q, p_g);
      same_bits("pred.tint", ORDER, "fine rows (R 1)", ti, pt_g);
      same_bits("pred.deriv", ORDER, "fine rows (R 1)", de, pd_g);
      same_bits("pred.buf", ORDER, "fine rows (R 1)", bu, pb_g);
    }
    for (const int epb : {NF::E, small_epb(NF::E)}) {
      std::vector<Real> q = dofs;
      sq_emu_launch(grid(epb), NF::THREADS, sizeof(Real) * NF::SMEM, [&] {
        sq_cuda::neighbor_kernel<ORDER, Real, 2>(n, epb, pack, links.data(), flux_nb.data(), slots, q.data());
      });
      same_bits("neighbor", ORDER, "fine rows (R 1)", q, nq_g);
    }
    printf("O%d f32: fine rows: E/threads/smem: ader %d/%d/%d local %d/%d/%d neighbor %d/%d/%d predict %d/%d/%d\n",
           ORDER, AF::E, AF::THREADS, (int)sizeof(Real) * AF::SMEM, LF::E, LF::THREADS, (int)sizeof(Real) * LF::SMEM,
           NF::E, NF::THREADS, (int)sizeof(Real) * NF::SMEM, PF::E, PF::THREADS, (int)sizeof(Real) * PF::SMEM);
  }
  if constexpr (ORDER <= SQ_CUDA_CELL_MAX_ORDER) { /* the cell kernels (low orders): bitwise the default */
    using C = sq_cuda::CellShape<ORDER, Real>;
    constexpr int P = C::P;
    const std::string cols = "cell P" + std::to_string(P) + ", ";
    for (const int epb : {C::E, small_epb(C::E)}) {
      std::vector<Real> q = dofs, ti(n * NQ, NAN), de(n * ORDER * NQ, NAN), bu = buf_c;
      sq_emu_launch(grid(epb), C::THREADS, sizeof(Real) * C::SMEM_PREDICT, [&] {
        sq_cuda::predict_cell_kernel<ORDER, Real>(n, epb, pack, q.data(), star.data(), flux_local.data(), dt, ti.data(),
                                                  de.data(), bu.data(), 0);
      });
      const std::string v = cols + per_block(epb);
      same_bits("pred.dofs", ORDER, v, q, p_g);
      same_bits("pred.tint", ORDER, v, ti, pt_g);
      same_bits("pred.deriv", ORDER, v, de, pd_g);
      same_bits("pred.buf", ORDER, v, bu, pb_g);
    }
    for (const int epb : {C::E, small_epb(C::E)}) { /* ader and local alone */
      std::vector<Real> ti(n * NQ, NAN), de(n * ORDER * NQ, NAN), bu = buf_init, q = dofs;
      sq_emu_launch(grid(epb), C::THREADS, sizeof(Real) * C::SMEM_PREDICT, [&] {
        sq_cuda::ader_cell_kernel<ORDER, Real>(n, epb, pack, dofs.data(), star.data(), dt, ti.data(), de.data(),
                                               bu.data(), 0);
      });
      sq_emu_launch(grid(epb), C::THREADS, sizeof(Real) * C::SMEM_PREDICT, [&] {
        sq_cuda::local_cell_kernel<ORDER, Real>(n, epb, pack, tint_c.data(), star.data(), flux_local.data(), q.data());
      });
      const std::string v = cols + per_block(epb);
      same_bits("ader.tint", ORDER, v, ti, tint_g);
      same_bits("ader.deriv", ORDER, v, de, der_g);
      same_bits("ader.buf", ORDER, v, bu, buf_g);
      same_bits("local", ORDER, v, q, q_g);
    }
    { /* no derivatives, buffer reset: against the default kernel's */
      std::vector<Real> q1 = dofs, t1v(n * NQ, NAN), b1(n * NQ, NAN), q2 = dofs, t2v(n * NQ, NAN), b2(n * NQ, NAN);
      sq_emu_launch(grid(TP::E), TP::THREADS, sizeof(Real) * TP::SMEM, [&] {
        sq_cuda::predict_kernel<ORDER, Real>(n, TP::E, pack, q1.data(), star.data(), flux_local.data(), dt, t1v.data(),
                                             nullptr, b1.data(), 1);
      });
      sq_emu_launch(grid(C::E), C::THREADS, sizeof(Real) * C::SMEM_PREDICT, [&] {
        sq_cuda::predict_cell_kernel<ORDER, Real>(n, C::E, pack, q2.data(), star.data(), flux_local.data(), dt,
                                                  t2v.data(), nullptr, b2.data(), 1);
      });
      same_bits("pred.dofs", ORDER, cols + "buffer reset", q2, q1);
      same_bits("pred.buf", ORDER, cols + "buffer reset", b2, b1);
    }
    two_segments(cols + "two segments", small_epb(C::E), C::THREADS, sizeof(Real) * C::SMEM_PREDICT,
                 [&](const sq_cuda_segments &g) { sq_cuda::predict_cell_segments_kernel<ORDER, Real>(g, pack); });
    for (const int epb : {C::E, small_epb(C::E)}) {
      std::vector<Real> q = dofs;
      sq_emu_launch(grid(epb), C::THREADS, sizeof(Real) * C::SMEM_NEIGHBOR, [&] {
        sq_cuda::neighbor_cell_kernel<ORDER, Real>(n, epb, pack, links.data(), flux_nb.data(), slots, q.data());
      });
      same_bits("neighbor", ORDER, cols + per_block(epb), q, nq_g);
    }
    printf("O%d %s: cell kernels P%d: E/threads/smem: predict %d/%d/%d neighbor %d/%d/%d\n", ORDER,
           sizeof(Real) == 8 ? "f64" : "f32", P, C::E, C::THREADS, (int)sizeof(Real) * C::SMEM_PREDICT, C::E,
           C::THREADS, (int)sizeof(Real) * C::SMEM_NEIGHBOR);
  }
  free(packv);
  sq_ref_destroy(ref);
}

template <int ORDER> void check_both(std::mt19937_64 &rng, int64_t n) {
  check<ORDER, double>(rng, n);
  check<ORDER, float>(rng, n);
}

} // namespace

int main(int argc, char **argv) {
  const int64_t n = argc > 1 ? atoll(argv[1]) : 37;
  std::mt19937_64 rng(12345);
  check_both<2>(rng, n < 13 ? 13 : n); /* at least 48 links cover every flux variant */
  check_both<3>(rng, n);
  check_both<4>(rng, n);
  check_both<5>(rng, n);
  check_both<6>(rng, n);
  check_both<7>(rng, n);
  printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
