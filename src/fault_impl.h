/**
 * @file fault_impl.h  The point-wise numerics of the rupture kernel (thesis §3.6.3, eq. 3.45-3.64) as
 * `static inline` host/device functions, shared by the CPU kernel (fault.c, sq_fault_update) and the CUDA
 * kernel (src/cuda/rupture_cuda.cu): the fault-frame rotation of a projected state, the Taylor series in
 * time, the Godunov state with friction at one point and time, and the flux of the imposed states.
 * Double precision, <math.h> only, no allocation, no output, no globals.  The layouts of the per-point
 * arrays are left to the caller through strides, so that the CPU (point-major) and the GPU (one thread
 * per point, point index fastest in shared memory) call the same code.
 */
#ifndef SQ_FAULT_IMPL_H
#define SQ_FAULT_IMPL_H

#ifdef __CUDACC__
#define SQ_FAULT_HD __host__ __device__
#else
#define SQ_FAULT_HD
#endif

#include <math.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
#include "sq_fault.h"
#ifdef __cplusplus
}
#endif
#include "friction_impl.h"

/*
 * Flat reference data (sq_fault.ref): O time points and O weights on [0, 1], then per face / orientation
 * the values of the basis at the face points (V: npoint x B, point-major) and the weighted
 * back-projections (Bk: B x npoint, basis-major): 4 "-" faces, then 12 "+" (face, orientation) pairs.
 * Offsets in doubles; B = nbasis, np = npoint.
 */
static inline SQ_FAULT_HD size_t sq_fault_off_tw(int O) { return (size_t)O; }
static inline SQ_FAULT_HD size_t sq_fault_off_vm(int O) { return 2 * (size_t)O; }
static inline SQ_FAULT_HD size_t sq_fault_off_vp(int O, int B, int np) {
  return sq_fault_off_vm(O) + 4 * (size_t)np * B;
}
static inline SQ_FAULT_HD size_t sq_fault_off_bm(int O, int B, int np) {
  return sq_fault_off_vp(O, B, np) + 12 * (size_t)np * B;
}
static inline SQ_FAULT_HD size_t sq_fault_off_bp(int O, int B, int np) {
  return sq_fault_off_bm(O, B, np) + 4 * (size_t)np * B;
}
static inline SQ_FAULT_HD size_t sq_fault_ref_len(int O, int B, int np) {
  return sq_fault_off_bp(O, B, np) + 12 * (size_t)np * B;
}
/** Offset of the V block (basis at the face points) of @p side (0: "-", 1: "+") of face @p fc. */
static inline SQ_FAULT_HD size_t sq_fault_off_values(int O, int B, int np, const sq_fault_face *fc, int side) {
  return side == 0 ? sq_fault_off_vm(O) + (size_t)fc->face[0] * np * B
                   : sq_fault_off_vp(O, B, np) + (size_t)(fc->face[1] * 3 + fc->orient) * np * B;
}
/** Offset of the Bk block (weighted back-projection) of @p side of face @p fc. */
static inline SQ_FAULT_HD size_t sq_fault_off_backproj(int O, int B, int np, const sq_fault_face *fc, int side) {
  return side == 0 ? sq_fault_off_bm(O, B, np) + (size_t)fc->face[0] * np * B
                   : sq_fault_off_bp(O, B, np) + (size_t)(fc->face[1] * 3 + fc->orient) * np * B;
}

/**
 * Fault-frame components kept per point: sigma_nn, sigma_ns, sigma_nd, v_n, v_s, v_d; this returns where
 * component @p c (0..5) sits in the 9-vector (s_xx, s_yy, s_zz, s_xy, s_yz, s_xz, u, v, w) of the rotated
 * state: 0, 3, 5, 6, 7, 8.
 */
static inline SQ_FAULT_HD int sq_fault_full_index(int c) { return c == 0 ? 0 : c == 1 ? 3 : c + 3; }

/** Nucleation ramp G(t): 0 at t = 0, 1 from t = T on, smooth in between (TPV101/104); see sq_fault_ramp. */
static inline SQ_FAULT_HD double sq_fault_ramp_eval(double t, double T) {
  if (T <= 0.0 || t >= T) return 1.0;
  if (t <= 0.0) return 0.0;
  return exp((t - T) * (t - T) / (t * (t - 2.0 * T)));
}

/** Impedance factor z- z+ / (z- + z+) of eq. 3.57 (P waves: eta_p, S waves: eta_s). */
static inline SQ_FAULT_HD double sq_fault_eta(double z_minus, double z_plus) {
  return z_minus * z_plus / (z_minus + z_plus);
}

/**
 * Rotate the 9-vector @p q (global frame, the basis projected to one face point) into the fault frame
 * and keep its 6 components (eq. 3.45): out[c * stride] = (Tinv q)_full_index(c).
 */
static inline SQ_FAULT_HD void sq_fault_rotate(const double *tinv, const double q[9], double *out, size_t stride) {
  for (int c = 0; c < 6; ++c) {
    double s = 0.0;
    for (int p = 0; p < 9; ++p) s += tinv[sq_fault_full_index(c) * 9 + p] * q[p];
    out[c * stride] = s;
  }
}

/**
 * Taylor series at time @p tau of the step (eq. 3.46): q[c] = sum_j tau^j / j! P_j[c], with P_j[c] at
 * P[j * stride_j + c * stride_c] (the O projected, rotated time derivatives of one side at one point).
 */
static inline SQ_FAULT_HD void sq_fault_taylor(int order, double tau, const double *P, size_t stride_j, size_t stride_c,
                                               double q[6]) {
  double fac = 1.0;
  for (int c = 0; c < 6; ++c) q[c] = 0.0;
  for (int j = 0; j < order; ++j) {
    for (int c = 0; c < 6; ++c) q[c] += fac * P[j * stride_j + c * stride_c];
    fac *= tau / (j + 1);
  }
}

/**
 * The normal stress the friction strength uses at one point and time point: on a bimaterial face (the two
 * sides' impedances @p z differ) with the Prakash-Clifton regularisation on (param.pc_length > 0), sigma*
 * after the time point's weight @p wk at the slip rate of the previous point (sq_friction_prakash_clifton);
 * else @p sigma_n itself, so that a fault between identical materials gives the plain law's results bitwise.
 * The regularisation starts from the initial normal stress: sigma* has no jump at t = 0.
 */
static inline SQ_FAULT_HD double sq_fault_sigma_pc(const double z[4], double wk, double sigma_n,
                                                   const sq_fault_point *pt) {
  if (!(pt->param.pc_length > 0) || (z[0] == z[1] && z[2] == z[3])) return sigma_n;
  const double V = hypot(pt->state.slip_rate[0], pt->state.slip_rate[1]);
  return sq_friction_prakash_clifton(pt->state.sigma_pc, sigma_n, V, pt->param.pc_v_star, pt->param.pc_length, wk);
}

/**
 * One fault point at one temporal Gauss point (eq. 3.57-3.64): the Godunov state without opening
 * (continuous normal stress and normal velocity), the friction law for the shear traction and slip
 * rate (sq_friction_solve_point, which updates @p pt->state; its strength uses sq_fault_sigma_pc,
 * state.normal_stress keeps the Godunov normal stress), and the imposed states of both sides,
 * which are added, times the Gauss weight @p wk, to @p im and @p ip (the time integrals, 6 each).
 *
 * @param law    friction law
 * @param z      impedances Zp-, Zp+, Zs-, Zs+ of the face
 * @param eta_p  sq_fault_eta(Zp-, Zp+)
 * @param eta_s  sq_fault_eta(Zs-, Zs+)
 * @param t      time of the point
 * @param wk     its weight (the part of the step it stands for)
 * @param G      nucleation ramp at @p t
 * @param qm     fault-frame state of the "-" side (sigma_nn, sigma_ns, sigma_nd, v_n, v_s, v_d)
 * @param qp     same for the "+" side
 * @param pt     the point's friction data (its state is updated)
 * @param tp     its thermal-pressurization state (updated), NULL without thermal pressurization
 * @return 0, or SQ_FRICTION_NO_CONVERGENCE from the friction solve (the state is then unchanged, and
 *         the imposed states use the traction of the previous point)
 */
static inline SQ_FAULT_HD int sq_fault_solve_point(sq_friction_law law, const double z[4], double eta_p, double eta_s,
                                                   double t, double wk, double G, const double qm[6],
                                                   const double qp[6], sq_fault_point *pt, sq_tp_state *tp,
                                                   double im[6], double ip[6]) {
  const double zpm = z[0], zpp = z[1], zsm = z[2], zsp = z[3];
  /* Godunov state without opening (eq. 3.57): continuous normal stress and velocity */
  const double sn = eta_p * (qm[0] / zpm + qp[0] / zpp + qp[3] - qm[3]);
  double lock[2], base[2];
  for (int a = 0; a < 2; ++a) {
    lock[a] = eta_s * (qm[1 + a] / zsm + qp[1 + a] / zsp + qp[4 + a] - qm[4 + a]);
    base[a] = pt->traction0[1 + a] + G * pt->nucleation[1 + a];
  }
  const double sigma_total = pt->traction0[0] + G * pt->nucleation[0] + sn;
  const double tau_lock[2] = {base[0] + lock[0], base[1] + lock[1]};
  const double sigma_strength = sq_fault_sigma_pc(z, wk, sigma_total, pt);
  const int status = sq_friction_solve_point(law, &pt->param, t, wk, sigma_strength, tau_lock, eta_s, &pt->state, tp);
  if (!status) pt->state.normal_stress = sigma_total, pt->state.sigma_pc = sigma_strength;
  double gm[6], gp[6]; /* imposed states (eq. 3.61-3.64) */
  gm[0] = gp[0] = sn;
  gm[3] = qm[3] + (sn - qm[0]) / zpm;
  gp[3] = qp[3] + (qp[0] - sn) / zpp;
  for (int a = 0; a < 2; ++a) {
    const double ts = pt->state.traction[a] - base[a];
    gm[1 + a] = gp[1 + a] = ts;
    gm[4 + a] = qm[4 + a] + (ts - qm[1 + a]) / zsm;
    gp[4 + a] = qp[4 + a] + (qp[1 + a] - ts) / zsp;
  }
  for (int c = 0; c < 6; ++c) {
    im[c] += wk * gm[c];
    ip[c] += wk * gp[c];
  }
  return status;
}

/**
 * Flux of the time-integrated imposed state @p imposed (6 fault-frame components) of one side at one
 * point (eq. 3.44): F[p * stride] = sum_c flux[p][full_index(c)] imposed[c], flux = that side's
 * fc->flux (row-major 9 x 9, area and Jacobian included).
 */
static inline SQ_FAULT_HD void sq_fault_flux_point(const double *flux, const double imposed[6], double *F,
                                                   size_t stride) {
  for (int p = 0; p < 9; ++p) {
    double s = 0.0;
    for (int c = 0; c < 6; ++c) s += flux[p * 9 + sq_fault_full_index(c)] * imposed[c];
    F[p * stride] = s;
  }
}

/**
 * One row of on-fault station @p st (SQ_FAULT_LOG_COLS values: t, slip rate (s, d), traction (s, d), normal
 * stress, mu, state, slip (s, d), slip path, peak slip rate, rupture time, pore pressure, temperature) at time @p t
 * from the friction state of its face's @p np points @p pts.  A station on a quadrature point (st->point >= 0) copies
 * that point's values; any other evaluates the L2 projection of the point values onto the face's polynomials at its
 * position: value = sum_i st->weight[i] value_i (sq_fault_station_weights).  The rupture time is projected only once
 * every point of the face has ruptured (-1 before: a mix of -1 and times is no field), and kept within the points'
 * earliest and latest times: the front has a kink, and the projection of a kinked field overshoots (a station next to
 * the hypocentre got a negative time).  The CPU (sq_fault_record_stations) and the GPU (rupture_cuda.cu) record through
 * this function.
 */
static inline SQ_FAULT_HD void sq_fault_station_row(int np, const sq_fault_station *st, const sq_fault_point *pts,
                                                    double t, double *row) {
  row[0] = t;
  if (st->point >= 0) {
    const sq_friction_state *s = &pts[st->point].state;
    row[1] = s->slip_rate[0], row[2] = s->slip_rate[1], row[3] = s->traction[0], row[4] = s->traction[1];
    row[5] = s->normal_stress, row[6] = s->mu, row[7] = s->state, row[8] = s->slip[0], row[9] = s->slip[1];
    row[10] = s->slip_path, row[11] = s->peak_slip_rate, row[12] = s->rupture_time;
    row[13] = s->pressure, row[14] = s->temperature;
    return;
  }
  for (int c = 1; c < SQ_FAULT_LOG_COLS; ++c) row[c] = 0.0;
  int ruptured = 1;
  double first = 1e300, last = -1e300;
  for (int i = 0; i < np; ++i) {
    const sq_friction_state *s = &pts[i].state;
    const double w = st->weight[i];
    first = s->rupture_time < first ? s->rupture_time : first;
    last = s->rupture_time > last ? s->rupture_time : last;
    row[1] += w * s->slip_rate[0], row[2] += w * s->slip_rate[1], row[3] += w * s->traction[0];
    row[4] += w * s->traction[1], row[5] += w * s->normal_stress, row[6] += w * s->mu, row[7] += w * s->state;
    row[8] += w * s->slip[0], row[9] += w * s->slip[1], row[10] += w * s->slip_path;
    row[11] += w * s->peak_slip_rate, row[12] += w * s->rupture_time;
    row[13] += w * s->pressure, row[14] += w * s->temperature;
    ruptured &= s->rupture_time >= 0.0;
  }
  row[12] = !ruptured ? -1.0 : row[12] < first ? first : row[12] > last ? last : row[12];
}

#endif
