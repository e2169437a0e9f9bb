/**
 * @file emu_plasticity.cc  Runs the plasticity kernel of src/cuda/plasticity_cuda.cu on the CPU
 * (sq_cuda_emu.h) against the CPU body (sq_plastic_state_block), orders 2..7 in both precisions, on
 * random tiles around the yield surface, with an initial stress that varies over the nodal points of
 * each element (linear in the reference coordinates).  Without FMA contraction the kernel sums in the CPU's order,
 * and glibc's expm1 serves both, so the results must agree bitwise.  No GPU needed; see
 * tests/cuda_emu/plasticity.sh.  Exit 0 when everything agrees.
 */
#define SQ_CUDA_EMULATE 1
#include <atomic>
#include <cmath>

/* the rounding intrinsics and the atomic the kernel uses, as plain C++ (-ffp-contract=off) */
inline double __dmul_rn(double a, double b) { return a * b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

#include "plasticity_cuda.cu"

#include <cstdio>
#include <cstring>
#include <vector>

extern "C" {
#include "sq_plastic_state.h"
}

namespace {

unsigned next(unsigned &s) { return s = s * 1664525u + 1013904223u; }
double unit(unsigned &s) { return (next(s) >> 8) / 16777216.0; }

template <int ORDER, typename Real> int check(int64_t n) {
  using T = sq_cuda::PlastShape<ORDER, Real>;
  const sq_precision prec = sizeof(Real) == 8 ? SQ_F64 : SQ_F32;
  sq_plasticity_ref *ref;
  if (sq_plasticity_ref_create(ORDER, &ref)) return 1;
  const int B = T::B;
  std::vector<Real> pack(2 * B * B), dofs((size_t)n * 9 * B);
  for (int i = 0; i < B * B; ++i) pack[i] = (Real)ref->V[i], pack[B * B + i] = (Real)ref->Vinv[i];
  std::vector<Real> stress((size_t)n * 6 * B); /* the initial stress at the nodal points, 6 x B per element */
  std::vector<double> params(3 * n), mu(n), strain(7 * n);
  unsigned seed = 7u + ORDER;
  for (int64_t e = 0; e < n; ++e) {
    const double p = 0.5 + 0.5 * unit(seed), slope = 0.2 * (unit(seed) - 0.5);
    double shear[3];
    for (int j = 0; j < 3; ++j) shear[j] = 0.02 * (unit(seed) - 0.5);
    for (int i = 0; i < B; ++i) { /* linear over the element: the mean stress varies with xi_z */
      const double z = ref->node[3 * i + 2];
      for (int j = 0; j < 3; ++j) {
        stress[(size_t)e * 6 * B + j * B + i] = (Real)(-p * (1 + slope * z));
        stress[(size_t)e * 6 * B + (3 + j) * B + i] = (Real)(shear[j] * (1 + z));
      }
    }
    params[3 * e] = 0.2 + 0.5 * unit(seed), params[3 * e + 1] = 0.6, params[3 * e + 2] = e % 3 ? 0.05 : 0.0;
    mu[e] = 0.5 + unit(seed);
    for (int j = 0; j < 7; ++j) strain[7 * e + j] = 1e-3 * unit(seed);
    const double amp = 0.01 + 0.25 * unit(seed) * unit(seed);
    for (int j = 0; j < 9 * B; ++j) dofs[(size_t)e * 9 * B + j] = (Real)(amp * (2 * unit(seed) - 1) / (1 + j % B));
  }
  std::vector<Real> dofs_cpu = dofs;
  std::vector<double> strain_cpu = strain;
  std::vector<uint8_t> y(n, 0xaa), y_cpu(n, 0xaa);
  unsigned long long count = 0;
  const sq_cuda::PlastArgs<Real> a = {pack.data(),   pack.data() + B * B,
                                      dofs.data(),   stress.data(),
                                      params.data(), mu.data(),
                                      strain.data(), y.data(),
                                      &count,        n,
                                      ref->psi0,     0.01};
  sq_emu_launch((unsigned)((n + T::E - 1) / T::E), T::THREADS, T::SMEM,
                [&] { sq_cuda::plasticity_kernel<ORDER, Real>(a); });
  const int64_t cpu = sq_plastic_state_block(prec, ORDER, ref->psi0, pack.data(), n, dofs_cpu.data(), stress.data(),
                                             params.data(), mu.data(), 0.01, strain_cpu.data(), y_cpu.data());
  const bool same = !memcmp(dofs.data(), dofs_cpu.data(), sizeof(Real) * dofs.size()) &&
                    !memcmp(strain.data(), strain_cpu.data(), sizeof(double) * strain.size()) && y == y_cpu &&
                    (int64_t)count == cpu;
  printf("emu plasticity O%d %s: %lld elements, %lld yield (gpu %llu): %s\n", ORDER, sizeof(Real) == 8 ? "f64" : "f32",
         (long long)n, (long long)cpu, count, same ? "bitwise equal" : "DIFFERENT");
  sq_plasticity_ref_destroy(ref);
  return !same || cpu == 0 || cpu == n;
}

template <int ORDER> int both(int64_t n) { return check<ORDER, double>(n) + check<ORDER, float>(n); }

} // namespace

int main() {
  const int64_t n = 301;
  const int failures = both<2>(n) + both<3>(n) + both<4>(n) + both<5>(n) + both<6>(n) + both<7>(n);
  printf("emu plasticity: %d failures\n", failures);
  return failures ? 1 : 0;
}
