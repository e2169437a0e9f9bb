/**
 * @file rupture_cuda.cu  CUDA body of the rupture codelet (thesis ch. 7): one thread block per fault
 * face, one thread per face quadrature point.  The point-wise physics is that of the CPU kernel
 * (src/fault_impl.h, called from both); this file only maps it onto the GPU.
 *
 * Per face the block
 * 1. stages, per side, the transposed basis values at the face points (V^T, B x npoint doubles) and
 *    one time derivative after the other (B x 9, converted to double); thread i projects it to point i
 *    and rotates it into the fault frame (eq. 3.45).  Point i's projections stay in shared memory
 *    (P[side][j][c][i], point index fastest: no bank conflicts), read by thread i alone;
 * 2. thread i evaluates the Taylor series at the O time points, solves the Godunov state with friction
 *    and accumulates the time-integrated imposed states in registers (eq. 3.46, 3.57-3.64);
 * 3. per owned side, thread i writes the flux of its point (9 values), and the block back-projects
 *    them onto the B x 9 dofs (eq. 3.44): output m = p B + l sums over the points in the CPU's order
 *    and is added to the dofs once.
 * All fault arithmetic is in double; only the derivatives and dofs are in the working precision.
 *
 * Faces update the dofs of their sides' elements.  Where an element has several faces in the task's
 * tile (kinked or branching faults), their updates must be added in the tile's face order, as the CPU
 * kernel does, to keep the result deterministic: the parallel pass skips such faces, and a second
 * launch of one block takes them one after the other in face order.  The host knows from the mesh
 * whether a tile has any (codelets/rupture.c); planar faults never do, and their blocks skip the check.
 *
 * A friction solve that does not converge prints the face and traps: the CUDA context is then lost
 * and the run aborts at the next CUDA call, as the CPU body aborts.
 *
 * 4. on a tile with on-fault stations, the block of a station's face records the station's row from the
 *    face's new state, through sq_fault_station_row as the CPU body does, into the tile's sample buffer.
 *
 * The kernel also compiles as plain C++ under SQ_CUDA_EMULATE (tests/cuda_emu/emu_rupture.cc).
 */
#include "cuda_kernels.cuh"

#include "fault_impl.h"

#ifdef SQ_CUDA_EMULATE
#define SQ_RUPTURE_TRAP() abort()
#else
#define SQ_RUPTURE_TRAP() __trap()
#endif
/** Hide where pointer @p p points, so that loads through it are not hoisted out of the enclosing loop. */
#ifdef SQ_CUDA_EMULATE
#define SQ_RUPTURE_OPAQUE(p) asm volatile("" : "+r"(p))
#else
#define SQ_RUPTURE_OPAQUE(p) asm volatile("" : "+l"(p))
#endif

namespace sq_cuda {

/** Compile-time shape of the rupture kernel of one order and precision; shared memory in doubles. */
template <int ORDER_, typename Real_> struct RuptureShape {
  using Real = Real_;
  static constexpr int ORDER = ORDER_;
  static constexpr int B = nbasis(ORDER), NQ = 9 * B;
  static constexpr int NP = (ORDER + 1) * (ORDER + 1);     /**< face points: collapsed Gauss (O+1) x (O+1) */
  static constexpr int THREADS = NP <= 32 ? 32 : 64;       /**< one thread per point, whole warps */
  static constexpr int OFF_M = 0;                          /**< V^T (projection) or Bk^T (back-projection): B x NP */
  static constexpr int OFF_D = OFF_M + B * NP;             /**< one time derivative of one side: NQ */
  static constexpr int OFF_P = OFF_D + NQ;                 /**< projected derivatives: 2 x ORDER x 6 x NP */
  static constexpr int OFF_F = OFF_P + 2 * ORDER * 6 * NP; /**< flux per point of one side: 9 x NP */
  static constexpr int OFF_FLAG = OFF_F + 9 * NP;          /**< one int */
  static constexpr int SMEM = OFF_FLAG + 1;
  static_assert(NP <= THREADS, "one thread per face point");
};

/** Kernel arguments other than the slot table (device pointers). */
struct RuptureArgs {
  const double *ref;          /**< the fault's flat reference data (fault_impl.h) */
  const sq_fault_face *faces; /**< the tile's faces */
  sq_fault_point *points;     /**< nface x NP */
  sq_tp_state *tp;            /**< nface x NP thermal-pressurization states, or NULL (none) */
  int64_t nface;
  sq_friction_law law;
  double nucleation_time, t0, dt;
  const sq_fault_station *stations; /**< the tile's on-fault stations (their faces numbered from face0), or NULL */
  int nstation;
  int64_t face0;
  double *rows; /**< nstation x SQ_FAULT_LOG_COLS: the stations' rows of this step */
};

/**
 * 1 when an owned side's element of face @p fi is also a side of another face of the tile (its update
 * must then follow theirs in face order).  Called by all threads; the answer is the same for all.
 */
template <class T> __device__ bool shares_element(const RuptureArgs &a, int64_t fi, int *flag) {
  const sq_fault_face *fc = a.faces + fi;
  __syncthreads(); /* flag free */
  if (threadIdx.x == 0) *flag = 0;
  __syncthreads();
  const int64_t em = fc->owned[0] ? fc->elem[0] : -1, ep = fc->owned[1] ? fc->elem[1] : -1;
  for (int64_t g = threadIdx.x; g < a.nface; g += T::THREADS) {
    if (g == fi) continue;
    const int64_t e0 = a.faces[g].elem[0], e1 = a.faces[g].elem[1];
    if ((em >= 0 && (e0 == em || e1 == em)) || (ep >= 0 && (e0 == ep || e1 == ep))) *flag = 1;
  }
  __syncthreads();
  return *flag != 0;
}

/** One step of face @p fi (thesis eq. 3.44-3.64) by the whole block; see the file comment. */
template <class T>
__device__ void rupture_face(const RuptureArgs &a, const sq_cuda_rupture_slots &slots, int64_t fi, double *sm) {
  using Real = typename T::Real;
  constexpr int O = T::ORDER, B = T::B, NP = T::NP, NQ = T::NQ;
  const int tid = threadIdx.x;
  const sq_fault_face *fc = a.faces + fi;
  double *Ms = sm + T::OFF_M, *Ds = sm + T::OFF_D, *Ps = sm + T::OFF_P, *Fs = sm + T::OFF_F;

  /* 1. both sides' derivatives at the face points, in the fault frame (eq. 3.45) */
#pragma unroll 1
  for (int side = 0; side < 2; ++side) {
    const double *V = a.ref + sq_fault_off_values(O, B, NP, fc, side);
    const Real *D = (const Real *)slots.derivs[fc->slot[side]] + (size_t)fc->index[side] * O * NQ;
    __syncthreads(); /* Ms, Ds free */
    for (int idx = tid; idx < NP * B; idx += T::THREADS) {
      const int i = idx / B, k = idx - i * B;
      Ms[k * NP + i] = V[idx];
    }
#pragma unroll 1
    for (int j = 0; j < O; ++j) {
      for (int idx = tid; idx < NQ; idx += T::THREADS) Ds[idx] = (double)D[(size_t)j * NQ + idx];
      __syncthreads();
      if (tid < NP) {
        double q[9];
#pragma unroll
        for (int p = 0; p < 9; ++p) q[p] = 0.0;
        for (int k = 0; k < B; ++k) {
          const double v = Ms[k * NP + tid];
#pragma unroll
          for (int p = 0; p < 9; ++p) q[p] += v * Ds[p * B + k];
        }
        sq_fault_rotate(fc->tinv, q, Ps + (size_t)(side * O + j) * 6 * NP + tid, NP);
      }
      __syncthreads(); /* Ds free */
    }
  }

  /* 2. Taylor series, Godunov state and friction at each time point; imposed states integrated in time */
  double im[6] = {0, 0, 0, 0, 0, 0}, ip[6] = {0, 0, 0, 0, 0, 0};
  if (tid < NP) {
    sq_fault_point *pt = a.points + fi * NP + tid;
    sq_tp_state *tp = a.tp ? a.tp + fi * NP + tid : NULL;
    const double eta_p = sq_fault_eta(fc->impedance[0], fc->impedance[1]);
    const double eta_s = sq_fault_eta(fc->impedance[2], fc->impedance[3]);
    const double *tq = a.ref, *tw = a.ref + sq_fault_off_tw(O);
    int bad = 0;
#pragma unroll 1 /* one copy of the friction solver */
    for (int k = 0; k < O; ++k) {
      const double tau = a.dt * tq[k], wk = a.dt * tw[k], t = a.t0 + tau;
      const double G = sq_fault_ramp_eval(t, a.nucleation_time);
      /* re-read the projections at every time point instead of holding all 2 x O x 6 in registers */
      const double *Pt = Ps + tid;
      SQ_RUPTURE_OPAQUE(Pt);
      double qm[6], qp[6];
      sq_fault_taylor(O, tau, Pt, 6 * NP, NP, qm);
      sq_fault_taylor(O, tau, Pt + (size_t)O * 6 * NP, 6 * NP, NP, qp);
      bad |= sq_fault_solve_point(a.law, fc->impedance, eta_p, eta_s, t, wk, G, qm, qp, pt, tp, im, ip);
    }
    if (bad) {
      printf("starquake: error: CUDA rupture: the friction solve did not converge at t=%g on fault face %lld of the "
             "task (mesh cell %lld face %lld), point %d\n",
             a.t0, (long long)fi, (long long)(fc->gid / 4), (long long)(fc->gid % 4), tid);
      SQ_RUPTURE_TRAP();
    }
  }

  /* 3. flux of the imposed states, back onto each owned side's basis (eq. 3.44) */
  for (int side = 0; side < 2; ++side) {
    if (!fc->owned[side]) continue; /* the same for the whole block */
    const double *Bk = a.ref + sq_fault_off_backproj(O, B, NP, fc, side);
    __syncthreads(); /* Ms, Fs free */
    for (int idx = tid; idx < B * NP; idx += T::THREADS) {
      const int l = idx / NP, i = idx - l * NP;
      Ms[i * B + l] = Bk[idx];
    }
    if (tid < NP) { /* (a branch, not a pointer select: im and ip stay in registers) */
      if (side == 0) sq_fault_flux_point(fc->flux[0], im, Fs + tid, NP);
      else sq_fault_flux_point(fc->flux[1], ip, Fs + tid, NP);
    }
    __syncthreads();
    Real *dofs = (Real *)slots.dofs[fc->slot[side]] + (size_t)fc->index[side] * NQ;
    for (int m = tid; m < NQ; m += T::THREADS) {
      const int p = m / B, l = m - p * B;
      double s = 0.0;
      for (int i = 0; i < NP; ++i) s += Ms[i * B + l] * Fs[p * NP + i];
      dofs[m] += (Real)(-s);
    }
  }

  /* 4. the rows of the face's on-fault stations, from its points' new state (sq_fault_station_row) */
  if (a.nstation > 0) { /* the same for the whole block */
    __syncthreads();    /* every point's state written */
    for (int k = tid; k < a.nstation; k += T::THREADS)
      if (a.stations[k].face - a.face0 == fi)
        sq_fault_station_row(NP, &a.stations[k], a.points + fi * NP, a.t0 + a.dt,
                             a.rows + (size_t)k * SQ_FAULT_LOG_COLS);
  }
}

/**
 * Rupture step of a tile of faces.  pass 0: grid of nface blocks, block f takes face f, unless the tile
 * has shared elements (shared = 1) and face f shares one; pass 1: one block takes the faces that share
 * elements, in order.  On a tile without shared elements (shared = 0: every planar fault) pass 0 does
 * everything and no block scans the tile.
 */
template <int ORDER, typename Real>
__global__ void __launch_bounds__(RuptureShape<ORDER, Real>::THREADS)
    rupture_kernel(RuptureArgs a, const __grid_constant__ sq_cuda_rupture_slots slots, int shared, int pass) {
  using T = RuptureShape<ORDER, Real>;
  SQ_CUDA_SHARED(double, sm);
  int *flag = reinterpret_cast<int *>(sm + T::OFF_FLAG);
  if (pass == 0) {
    const int64_t fi = blockIdx.x;
    if (!shared || !shares_element<T>(a, fi, flag)) rupture_face<T>(a, slots, fi, sm);
    return;
  }
  for (int64_t fi = 0; fi < a.nface; ++fi)
    if (shares_element<T>(a, fi, flag)) rupture_face<T>(a, slots, fi, sm);
}

} // namespace sq_cuda

#ifndef SQ_CUDA_EMULATE
namespace {

void check_rupture_launch(int order, sq_precision prec, int64_t nface) {
  const cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) return;
  fprintf(stderr, "starquake: CUDA kernel rupture (order %d, %s precision, %lld fault faces) failed: %s (%s)\n", order,
          prec == SQ_F64 ? "double" : "single", (long long)nface, cudaGetErrorString(err), cudaGetErrorName(err));
  abort();
}

template <int ORDER, typename Real> struct RuptureLaunch {
  static void run(int npoint, const sq_cuda::RuptureArgs *args, const sq_cuda_rupture_slots *slots, int shared,
                  cudaStream_t stream) {
    using T = sq_cuda::RuptureShape<ORDER, Real>;
    const sq_precision prec = sizeof(Real) == 8 ? SQ_F64 : SQ_F32;
    if (npoint != T::NP) {
      fprintf(stderr, "starquake: CUDA kernel rupture (order %d): %d face points, the kernel takes %d\n", ORDER, npoint,
              T::NP);
      abort();
    }
    const size_t smem = sizeof(double) * T::SMEM;
    sq_cuda::allow_shared<T>(sq_cuda::rupture_kernel<ORDER, Real>, smem, "rupture", ORDER);
    sq_cuda::rupture_kernel<ORDER, Real><<<(unsigned)args->nface, T::THREADS, smem, stream>>>(*args, *slots, shared, 0);
    check_rupture_launch(ORDER, prec, args->nface);
    if (shared) {
      sq_cuda::rupture_kernel<ORDER, Real><<<1, T::THREADS, smem, stream>>>(*args, *slots, 1, 1);
      check_rupture_launch(ORDER, prec, args->nface);
    }
  }
};

} // namespace

extern "C" void sq_cuda_rupture(sq_precision prec, int order, int npoint, int64_t nface, const double *ref,
                                const sq_fault_face *faces, sq_fault_point *points, sq_tp_state *tp,
                                const sq_cuda_rupture_slots *slots, const sq_fault_options *opt, double t0, double dt,
                                int shared_elements, const sq_cuda_rupture_stations *stations, void *stream) {
  if (nface <= 0) return;
  if (slots->nslot < 0 || slots->nslot > SQ_CUDA_MAX_SLOTS || nface > 0x7fffffff) {
    fprintf(stderr, "starquake: CUDA kernel rupture: %d element tiles (at most %d) and %lld faces per task\n",
            slots->nslot, SQ_CUDA_MAX_SLOTS, (long long)nface);
    abort();
  }
  sq_cuda::RuptureArgs args = {ref, faces, points, tp, nface, opt->law, opt->nucleation_time, t0, dt};
  if (stations && stations->nstation > 0)
    args.stations = stations->stations, args.nstation = stations->nstation, args.face0 = stations->face0,
    args.rows = stations->rows;
  sq_cuda::dispatch<RuptureLaunch>("rupture", prec, order, npoint, &args, slots, shared_elements, (cudaStream_t)stream);
}
#endif
