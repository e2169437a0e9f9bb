/**
 * @file emu_rupture.cc  Runs the rupture kernel of src/cuda/rupture_cuda.cu on the CPU (sq_cuda_emu.h)
 * against sq_fault_update, orders 2..7 in both precisions, on the slipping fault of tests/unit/test_fault.c
 * (tests/meshes/fault.msh), after serial steps up to t = 0.06; then on a tile where every other face
 * appears twice, so that the kernel's parallel pass takes half of the faces and its in-order (serial)
 * pass, for elements with several faces, the other half; and the rows of on-fault stations (several on
 * one face) that the kernel writes in the step.
 * Without FMA contraction the kernel sums in the CPU's order, so the results must agree bitwise.
 * No GPU needed; see tests/cuda_emu/rupture.sh.  Exit 0 when everything agrees.
 */
#define SQ_CUDA_EMULATE 1
#include "rupture_cuda.cu"

#include <cstdio>
#include <cstring>
#include <vector>

extern "C" {
#include "sq_mesh_io.h"
}

namespace {

int failures = 0;
const sq_material unit = {.rho = 1.0, .lambda = 2.0, .mu = 1.0};

/* the law of the fault: linear slip weakening, then a kinematic source (imposed Yoffe slip rates) */
sq_friction_law emu_law = SQ_FRICTION_LSW;

/* ctx non-NULL: fast-velocity-weakening rate and state with thermal pressurization, sliding from the start */
int init_one(void *ctx, const double x[3], const double frame[9], sq_fault_point *pt) {
  (void)frame;
  memset(pt, 0, sizeof(*pt));
  if (ctx) {
    pt->param = sq_friction_params{};
    pt->param.a = 0.01, pt->param.b = 0.014, pt->param.L = 0.02, pt->param.f0 = 0.6, pt->param.V0 = 1e-6;
    pt->param.f_w = 0.2, pt->param.V_w = 0.1;
    pt->param.tp_alpha_th = 1e-3, pt->param.tp_alpha_hy = 4e-3 * (1.0 + x[1] * x[1]), pt->param.tp_rho_c = 1.0;
    pt->param.tp_lambda = 0.5, pt->param.tp_half_width = 0.01, pt->param.tp_T0 = 1.0, pt->param.tp_points = 60;
    pt->traction0[0] = -1.0;
    pt->traction0[1] = fabs(x[1]) > 0.2 || fabs(x[2] + 0.45) > 0.15 ? 0.45 : 0.55;
    pt->state.slip_rate[0] = 0.01;
    return SQ_SUCCESS;
  }
  if (emu_law == SQ_FRICTION_KINEMATIC_YOFFE) { /* slipping at t = 0.06, onsets across the fault */
    pt->param.slip_strike = 0.01, pt->param.slip_dip = -0.004, pt->param.onset = 0.02 * fabs(x[1]);
    pt->param.tau_s = 0.01, pt->param.rise_time = 0.04;
    return SQ_SUCCESS;
  }
  pt->param.mu_s = 0.6, pt->param.mu_d = 0.3, pt->param.d_c = 0.02, pt->param.forced_time = 0.0, pt->param.t0 = 0.05;
  if (fabs(x[1]) > 0.2 || fabs(x[2] + 0.45) > 0.15) pt->param.forced_time = SQ_FRICTION_NEVER;
  pt->traction0[0] = -1.0;
  pt->traction0[1] = 0.5;
  return SQ_SUCCESS;
}

/* sq_fault_init_fn: every point in one call */
int init_point(void *ctx, int64_t n, const double *x, const double *frame, const int *group, sq_fault_point *pt) {
  (void)group;
  for (int64_t p = 0; p < n; ++p)
    if (init_one(ctx, &x[3 * p], &frame[9 * p], &pt[p])) return SQ_ERR_INTERNAL;
  return SQ_SUCCESS;
}

/* One rupture step of faces [0, nface) on the emulated GPU. */
template <int ORDER, typename Real>
void emu_step(const sq_fault *f, const sq_fault_face *faces, int64_t nface, sq_fault_point *points, sq_tp_state *tp,
              const void *const *derivs, void *const *dofs, int nslot, double t0, double dt, int serial,
              const sq_cuda_rupture_stations *st = nullptr) {
  using T = sq_cuda::RuptureShape<ORDER, Real>;
  sq_cuda_rupture_slots slots;
  slots.nslot = nslot;
  for (int s = 0; s < nslot; ++s) slots.derivs[s] = derivs[s], slots.dofs[s] = dofs[s];
  sq_cuda::RuptureArgs args = {f->ref, faces, points, tp, nface, f->opt.law, f->opt.nucleation_time, t0, dt};
  if (st) args.stations = st->stations, args.nstation = st->nstation, args.face0 = st->face0, args.rows = st->rows;
  sq_emu_launch((unsigned)nface, T::THREADS, sizeof(double) * T::SMEM,
                [&] { sq_cuda::rupture_kernel<ORDER, Real>(args, slots, serial, 0); });
  if (serial)
    sq_emu_launch(1, T::THREADS, sizeof(double) * T::SMEM,
                  [&] { sq_cuda::rupture_kernel<ORDER, Real>(args, slots, 1, 1); });
}

/* The fault's thermal-pressurization states (empty without them), and a pointer to point @p i's in @p v. */
std::vector<sq_tp_state> tp_copy(const sq_fault *f) {
  return f->tp ? std::vector<sq_tp_state>(f->tp, f->tp + f->nface * f->npoint) : std::vector<sq_tp_state>();
}
sq_tp_state *tp_at(std::vector<sq_tp_state> &v, int64_t i) { return v.empty() ? nullptr : v.data() + i; }

/* Tile tl's element slots: the derivatives (dv) and the dofs in the CPU's copy (qc) and the kernel's (qg). */
void tile_slots(const sq_disc *d, const sq_fault_tile *tl, int order, char *cpu, char *gpu, const void **dv, void **qc,
                void **qg) {
  const size_t eb = sq_disc_elem_bytes(d);
  for (int s = 0; s < tl->nslot; ++s) {
    const sq_tile *et = &d->tile[tl->slot[s]];
    dv[s] = (const char *)d->derivs + (size_t)et->begin * eb * order;
    qc[s] = cpu + (size_t)et->begin * eb;
    qg[s] = gpu + (size_t)et->begin * eb;
  }
}

void compare(const char *what, int order, sq_precision prec, const void *a, const void *b, size_t bytes) {
  const bool ok = memcmp(a, b, bytes) == 0;
  double worst = 0;
  if (!ok) {
    const size_t n = bytes / (prec == SQ_F64 ? 8 : 4);
    for (size_t i = 0; i < n; ++i) {
      const double x = prec == SQ_F64 ? ((const double *)a)[i] : ((const float *)a)[i];
      const double y = prec == SQ_F64 ? ((const double *)b)[i] : ((const float *)b)[i];
      worst = fmax(worst, fabs(x - y) / fmax(fabs(y), 1e-300));
    }
    ++failures;
  }
  printf("  %-22s O%d %s  %s", what, order, prec == SQ_F64 ? "f64" : "f32", ok ? "bitwise equal\n" : "DIFFER");
  if (!ok) printf(" (max rel %.3e)\n", worst);
}

/* tp: fast velocity weakening with thermal pressurization; bimaterial: the "+" side (x > 0) softer and the
 * Prakash-Clifton regularisation of the normal stress on */
template <int ORDER, typename Real> void check(const char *mesh_path, bool tp, bool bimaterial) {
  const sq_precision prec = sizeof(Real) == 8 ? SQ_F64 : SQ_F32;
  sq_mesh *mesh;
  if (sq_mesh_read(mesh_path, &mesh)) abort();
  std::vector<sq_material> mat(mesh->ncell, unit);
  const sq_material soft = {.rho = 0.8, .lambda = 1.0, .mu = 0.5};
  for (int64_t c = 0; c < mesh->ncell && bimaterial; ++c) {
    double x = 0;
    for (int v = 0; v < 4; ++v) x += 0.25 * mesh->vert[mesh->cell_vert[c * 4 + v] * 3];
    if (x > 0) mat[c] = soft;
  }
  if (bimaterial) printf("bimaterial fault, Prakash-Clifton regularisation:\n");
  sq_disc_options opt = {};
  opt.order = ORDER, opt.precision = prec, opt.cfl = 0.5, opt.tile_size = 64, opt.lts_rate = 1, opt.max_clusters = 1;
  opt.rupture = 1;
  sq_disc *d;
  if (sq_disc_create(mesh, mat.data(), &opt, &d)) abort();
  sq_fault *f;
  sq_fault_options fo = {};
  fo.law = tp ? SQ_FRICTION_RS_FVW : emu_law, fo.reference[0] = 1.0, fo.reference[2] = -0.5;
  if (bimaterial) fo.pc_v_star = 1.0, fo.pc_length = 0.05;
  if (sq_fault_create(d, &fo, init_point, tp ? &fo : nullptr, &f)) abort();
  sq_planewave pw;
  const sq_wave_kind kind[1] = {SQ_WAVE_S1};
  const int dir[1] = {1};
  const double amp[1] = {0.05}, k[3] = {1, 0, 0};
  sq_planewave_init(&pw, &unit, k, 1, -0.25, 0.15, 1, kind, dir, amp);
  sq_disc_project(d, sq_planewave_eval, &pw, 0.0);
  const double dt = d->cluster_dt[0];
  const int nsteps = (int)ceil(0.06 / dt); /* past the forced weakening: the middle of the fault slips */
  for (int i = 0; i < nsteps; ++i) {
    sq_disc_predict_serial(d, dt);
    if (sq_fault_step_serial(f, d, i * dt, dt)) abort();
    sq_disc_correct_serial(d);
  }
  sq_disc_predict_serial(d, dt); /* the derivatives of the step compared */
  const double t0 = nsteps * dt;
  const size_t eb = sq_disc_elem_bytes(d), dofs_bytes = (size_t)d->nelem * eb;
  const size_t pts_bytes = sizeof(sq_fault_point) * f->nface * f->npoint;
  std::vector<char> dofs_cpu((char *)d->dofs, (char *)d->dofs + dofs_bytes), dofs_gpu = dofs_cpu;
  std::vector<sq_fault_point> pts_cpu(f->point, f->point + f->nface * f->npoint), pts_gpu = pts_cpu;
  std::vector<sq_tp_state> tp_cpu = tp_copy(f), tp_gpu = tp_cpu;
  if (tp != !tp_cpu.empty()) ++failures; /* the spectral state exists exactly with thermal pressurization */
  int64_t ruptured = 0;
  for (const auto &p : pts_cpu) ruptured += p.state.rupture_time >= 0;
  if (tp) {
    double tmax = 0.0;
    for (const auto &p : pts_cpu) tmax = fmax(tmax, p.state.temperature - 1.0);
    printf("thermal pressurization: largest temperature rise %.3e\n", tmax);
    if (!(tmax > 0)) ++failures;
  }
  printf("O%d %s: %lld faces, %d tiles, %lld of %lld points ruptured; shared memory %zu bytes, %d threads\n", ORDER,
         prec == SQ_F64 ? "f64" : "f32", (long long)f->nface, f->ntile, (long long)ruptured, (long long)pts_cpu.size(),
         sizeof(double) * sq_cuda::RuptureShape<ORDER, Real>::SMEM, sq_cuda::RuptureShape<ORDER, Real>::THREADS);
  for (int t = 0; t < f->ntile; ++t) {
    const sq_fault_tile *tl = &f->tile[t];
    std::vector<const void *> dv(tl->nslot);
    std::vector<void *> qc(tl->nslot), qg(tl->nslot);
    tile_slots(d, tl, ORDER, dofs_cpu.data(), dofs_gpu.data(), dv.data(), qc.data(), qg.data());
    int64_t bad = -1;
    if (sq_fault_update(prec, ORDER, f->npoint, f->ref, &f->opt, tl->end - tl->begin, f->face + tl->begin,
                        pts_cpu.data() + tl->begin * f->npoint, tp_at(tp_cpu, tl->begin * f->npoint), dv.data(),
                        qc.data(), t0, dt, &bad))
      abort();
    emu_step<ORDER, Real>(f, f->face + tl->begin, tl->end - tl->begin, pts_gpu.data() + tl->begin * f->npoint,
                          tp_at(tp_gpu, tl->begin * f->npoint), dv.data(), qg.data(), tl->nslot, t0, dt, 0);
  }
  compare("dofs", ORDER, prec, dofs_gpu.data(), dofs_cpu.data(), dofs_bytes);
  compare("friction state", ORDER, SQ_F64, pts_gpu.data(), pts_cpu.data(), pts_bytes);
  if (tp)
    compare("thermal-pressurization state", ORDER, SQ_F64, tp_gpu.data(), tp_cpu.data(),
            sizeof(sq_tp_state) * tp_cpu.size());

  /* on-fault stations on one face (one on a quadrature point, two between points) and one on another: the
   * rows the kernel writes in the step against sq_fault_record_stations after sq_fault_update */
  {
    const int64_t fa = f->nface / 2, fb = fa + 1;
    const double at[4][2] = {{f->chi[6], f->chi[7]}, {0.21, 0.33}, {0.6, 0.1}, {0.25, 0.25}};
    for (int k = 0; k < 4; ++k)
      if (sq_fault_add_station(f, k < 3 ? fa : fb, at[k], k)) abort();
    std::vector<char> qcpu((char *)d->dofs, (char *)d->dofs + dofs_bytes), qgpu = qcpu;
    std::vector<sq_fault_point> pc(f->point, f->point + f->nface * f->npoint), pg = pc;
    std::vector<sq_tp_state> tc = tp_copy(f), tg = tc;
    std::vector<double> rc((size_t)f->nlocal_station * SQ_FAULT_LOG_COLS), rg(rc.size(), -7.0);
    for (int t = 0; t < f->ntile; ++t) {
      const sq_fault_tile *tl = &f->tile[t];
      std::vector<const void *> dv(tl->nslot);
      std::vector<void *> qc(tl->nslot), qg(tl->nslot);
      tile_slots(d, tl, ORDER, qcpu.data(), qgpu.data(), dv.data(), qc.data(), qg.data());
      const int sb = tl->station_begin, ns = tl->station_end - sb;
      int64_t bad = -1;
      if (sq_fault_update(prec, ORDER, f->npoint, f->ref, &f->opt, tl->end - tl->begin, f->face + tl->begin,
                          pc.data() + tl->begin * f->npoint, tp_at(tc, tl->begin * f->npoint), dv.data(), qc.data(), t0,
                          dt, &bad))
        abort();
      sq_fault_record_stations(f->npoint, ns, f->station + sb, tl->begin, pc.data() + tl->begin * f->npoint, t0 + dt,
                               rc.data() + (size_t)sb * SQ_FAULT_LOG_COLS);
      const sq_cuda_rupture_stations st = {f->station + sb, ns, tl->begin, rg.data() + (size_t)sb * SQ_FAULT_LOG_COLS};
      emu_step<ORDER, Real>(f, f->face + tl->begin, tl->end - tl->begin, pg.data() + tl->begin * f->npoint,
                            tp_at(tg, tl->begin * f->npoint), dv.data(), qg.data(), tl->nslot, t0, dt, 0,
                            ns > 0 ? &st : nullptr);
    }
    compare("station rows", ORDER, SQ_F64, rg.data(), rc.data(), sizeof(double) * rc.size());
    compare("state, stations", ORDER, SQ_F64, pg.data(), pc.data(), pts_bytes);
    if (tp) compare("TP state, stations", ORDER, SQ_F64, tg.data(), tc.data(), sizeof(sq_tp_state) * tc.size());
  }

  /* every other face of tile 0 twice: those elements have two faces and go through the serial pass */
  {
    const sq_fault_tile *tl = &f->tile[0];
    const int64_t np = f->npoint;
    std::vector<sq_fault_face> twice;
    std::vector<sq_fault_point> pc, pg;
    std::vector<sq_tp_state> tc, tg;
    for (int64_t i = tl->begin; i < tl->end; ++i)
      for (int r = 0; r < 1 + (i % 2 == 0); ++r) {
        twice.push_back(f->face[i]);
        pc.insert(pc.end(), f->point + i * np, f->point + (i + 1) * np);
        if (f->tp) tc.insert(tc.end(), f->tp + i * np, f->tp + (i + 1) * np);
      }
    const int64_t n2 = (int64_t)twice.size();
    pg = pc, tg = tc;
    std::vector<char> qcpu((char *)d->dofs, (char *)d->dofs + dofs_bytes), qgpu = qcpu;
    std::vector<const void *> dv(tl->nslot);
    std::vector<void *> qc(tl->nslot), qg(tl->nslot);
    for (int s = 0; s < tl->nslot; ++s) {
      const sq_tile *et = &d->tile[tl->slot[s]];
      dv[s] = (const char *)d->derivs + (size_t)et->begin * eb * ORDER;
      qc[s] = qcpu.data() + (size_t)et->begin * eb;
      qg[s] = qgpu.data() + (size_t)et->begin * eb;
    }
    int64_t bad = -1;
    if (sq_fault_update(prec, ORDER, f->npoint, f->ref, &f->opt, n2, twice.data(), pc.data(), tp_at(tc, 0), dv.data(),
                        qc.data(), t0, dt, &bad))
      abort();
    emu_step<ORDER, Real>(f, twice.data(), n2, pg.data(), tp_at(tg, 0), dv.data(), qg.data(), tl->nslot, t0, dt, 1);
    compare("dofs, shared elements", ORDER, prec, qgpu.data(), qcpu.data(), dofs_bytes);
    compare("state, shared elements", ORDER, SQ_F64, pg.data(), pc.data(), sizeof(sq_fault_point) * pc.size());
    if (tp) compare("TP state, shared elements", ORDER, SQ_F64, tg.data(), tc.data(), sizeof(sq_tp_state) * tc.size());
  }
  sq_fault_destroy(f);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
}

} // namespace

int main(int argc, char **argv) {
  const char *mesh = argc > 1 ? argv[1] : "tests/meshes/fault.msh";
  const int max_order = argc > 2 ? atoi(argv[2]) : 7;
#define SQ_EMU_ORDER(O)                                                                                                \
  if (O <= max_order) {                                                                                                \
    check<O, double>(mesh, false, false);                                                                              \
    check<O, float>(mesh, false, false);                                                                               \
    if (O <= 4) check<O, double>(mesh, true, false); /* the friction point is order-independent */                     \
    if (O <= 4) check<O, double>(mesh, false, true); /* bimaterial: the same point solver, a few orders suffice */     \
  }
  SQ_EMU_ORDER(2)
  SQ_EMU_ORDER(3)
  SQ_EMU_ORDER(4)
  SQ_EMU_ORDER(5)
  SQ_EMU_ORDER(6)
  SQ_EMU_ORDER(7)
  emu_law = SQ_FRICTION_KINEMATIC_YOFFE; /* the kinematic source through the same kernel */
  printf("imposed_slip_rate_yoffe:\n");
  check<3, double>(mesh, false, false);
  check<4, float>(mesh, false, false);
  printf("%s\n", failures ? "FAILED" : "all bitwise equal");
  return failures ? 1 : 0;
}
