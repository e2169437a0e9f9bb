/**
 * @file emu_ane.cc  Runs the anelastic kernels of src/cuda/cuda_ane.cuh on the CPU (sq_cuda_emu.h) against the
 * CPU kernels (sq_kernel_ader_ane with sq_kernel_accumulate, sq_kernel_ane_source, sq_kernel_ane_shift), orders 2..7 in
 * both precisions, 3 mechanisms (1, 2 and 5 at some orders), with derivatives and an LTS buffer, in full and partial
 * blocks.  No GPU needed; see tests/cuda_emu/ane.sh. Exit 0
 * when every relative L2 difference is within tolerance.
 */
#define SQ_CUDA_EMULATE 1
#include "sq_cuda_emu.h"

#include "cuda_ane.cuh"

#include <cstdio>
#include <vector>

extern "C" {
#include "sq_ref.h"
}

namespace {

unsigned next(unsigned &s) { return s = s * 1664525u + 1013904223u; }
double unit(unsigned &s) { return (next(s) >> 8) / 16777216.0 - 0.5; }

int failures = 0;

template <typename Real>
void compare(const char *what, int order, const std::vector<Real> &a, const std::vector<Real> &b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = (double)a[i] - (double)b[i];
    num += std::isfinite(d) ? d * d : INFINITY;
    den += (double)b[i] * (double)b[i];
  }
  const double err = sqrt(num / (den > 0 ? den : 1)), tol = sizeof(Real) == 8 ? 1e-12 : 1e-4;
  const bool ok = err <= tol;
  if (!ok) ++failures;
  printf("%-10s O%d %s  rel L2 %.3e  %s\n", what, order, sizeof(Real) == 8 ? "f64" : "f32", err, ok ? "ok" : "FAIL");
}

/* order ORDER with NMECH mechanisms; the predictor in blocks of @p epb elements (T::E or fewer) */
template <typename Real, int ORDER, int NMECH> void check(bool small_blocks) {
  using T = sq_cuda::AneShape<ORDER, Real, NMECH>;
  const int order = ORDER, nmech = NMECH, epb = small_blocks ? (T::E > 1 ? T::E - 1 : 1) : T::E;
  const sq_precision prec = sizeof(Real) == 8 ? SQ_F64 : SQ_F32;
  const int B = sq_nbasis(order), nq = B * 9, na = B * 6 * (nmech + 1);
  const int64_t n = T::E + 2; /* a full block and a partial one */
  unsigned s = 12345u + order;
  sq_ref *ref;
  if (sq_ref_create(order, &ref)) abort();
  void *packv;
  size_t bytes;
  if (sq_kernel_pack(ref, prec, &packv, &bytes)) abort();
  const Real *pack = (const Real *)packv;
  std::vector<Real> dofs(n * nq), star(n * 243), coef(n * SQ_ANE_NCOEF), ane(n * na);
  for (auto &v : dofs) v = (Real)unit(s);
  /* star matrices with the pattern of every star matrix (SQ_STAR_NONZERO), which the kernels apply sparsely */
  for (size_t i = 0; i < star.size(); ++i) star[i] = SQ_STAR_NONZERO(i % 81 / 9, i % 9) ? (Real)(2 * unit(s)) : Real(0);
  for (auto &v : ane) v = (Real)(0.1 * unit(s));
  for (int64_t e = 0; e < n; ++e) { /* plausible coefficients: w_l ~ 1..100, a_l, b_l ~ w_l / Q */
    Real *c = &coef[e * SQ_ANE_NCOEF];
    for (int l = 0; l < nmech; ++l) {
      c[SQ_ANE_W + l] = (Real)(1.5 * pow(10.0, l));
      c[SQ_ANE_A + l] = (Real)(0.05 * c[SQ_ANE_W + l] * (1 + unit(s)));
      c[SQ_ANE_B + l] = (Real)(0.08 * c[SQ_ANE_W + l] * (1 + unit(s)));
    }
    c[SQ_ANE_C1] = (Real)0.5;
    c[SQ_ANE_C2] = (Real)0.125;
  }
  const double dt = 0.01;
  std::vector<Real> tint_c(n * nq), der_c(n * order * nq), buf_c(n * nq, (Real)1), ane_c = ane, dofs_c = dofs;
  std::vector<Real> tint_g(n * nq), der_g(n * order * nq), buf_g(n * nq, (Real)1), ane_g = ane, dofs_g = dofs;
  sq_kernel_ader_ane_impl(SQ_GEMM_PLAIN, prec, order, nmech, n, pack, dofs.data(), star.data(), coef.data(), dt,
                          tint_c.data(), der_c.data(), ane_c.data());
  sq_kernel_accumulate(prec, order, n, tint_c.data(), 0, buf_c.data());
  sq_kernel_ane_source(prec, order, nmech, n, ane_c.data(), dofs_c.data());
  sq_emu_launch((unsigned)((n + epb - 1) / epb), T::THREADS, sizeof(Real) * T::SMEM, [&] {
    sq_cuda::ane_predict_kernel<T>(n, epb, pack, dofs.data(), star.data(), coef.data(), dt, tint_g.data(), der_g.data(),
                                   ane_g.data(), buf_g.data(), 0);
  });
  printf("%d mechanisms, %d elements, %d per block:\n", nmech, (int)n, epb);
  sq_emu_launch((unsigned)n, sq_cuda::ANE_THREADS, 0,
                [&] { sq_cuda::ane_source_kernel<Real>(order, nmech, n, ane_g.data(), dofs_g.data()); });
  compare("tint", order, tint_g, tint_c);
  compare("derivs", order, der_g, der_c);
  compare("buffer", order, buf_g, buf_c);
  compare("memory", order, ane_g, ane_c);
  compare("dofs", order, dofs_g, dofs_c);
  /* the plastic correction's shift phi -> theta (+1) and back (-1) */
  for (int sign = -1; sign <= 1; sign += 2) {
    std::vector<Real> sh_c = ane, sh_g = ane;
    sq_kernel_ane_shift(prec, order, nmech, n, coef.data(), dofs.data(), sign, sh_c.data());
    sq_emu_launch((unsigned)n, sq_cuda::ANE_THREADS, 0, [&] {
      sq_cuda::ane_shift_kernel<Real>(order, nmech, n, coef.data(), dofs.data(), sign, sh_g.data());
    });
    compare(sign > 0 ? "shift +1" : "shift -1", order, sh_g, sh_c);
  }
  free(packv);
  sq_ref_destroy(ref);
}

} // namespace

template <int ORDER> void check_order() {
  check<double, ORDER, 3>(false);
  check<float, ORDER, 3>(false);
}

int main() {
  static_assert(SQ_ORDER_MIN == 2 && SQ_ORDER_MAX == 7, "one call per order");
  check_order<2>();
  check_order<3>();
  check_order<4>();
  check_order<5>();
  check_order<6>();
  check_order<7>();
  /* other mechanism counts, and blocks of fewer elements than the shape's */
  check<float, 3, 1>(false);
  check<double, 4, 5>(false);
  check<float, 6, 3>(true);
  check<double, 5, 2>(true);
  printf("anelastic kernels: %s\n", failures ? "FAIL" : "all within tolerance");
  return failures ? 1 : 0;
}
