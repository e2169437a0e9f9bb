/** @file fault.c  Dynamic rupture faces: set-up and the rupture kernel (thesis §3.6.3, eq. 3.44-3.64). */
#include "sq_fault.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fault_impl.h"

/* Flat reference data: layout and offsets in fault_impl.h (sq_fault_off_*). */

double sq_fault_ramp(double t, double T) { return sq_fault_ramp_eval(t, T); }

static double load_real(sq_precision p, const void *base, size_t i) {
  return p == SQ_F64 ? ((const double *)base)[i] : (double)((const float *)base)[i];
}

static void add_real(sq_precision p, void *base, size_t i, double v) {
  if (p == SQ_F64) ((double *)base)[i] += v;
  else ((float *)base)[i] += (float)v;
}

/* P[j][i][c] = (Tinv (V D_j)^T)_c at face point i, for the O derivatives of one side (eq. 3.45). */
static void project_side(sq_precision prec, int O, int B, int np, const double *V, const void *derivs,
                         const double *tinv, double *P) {
  const size_t nq = (size_t)B * 9;
  for (int j = 0; j < O; ++j)
    for (int i = 0; i < np; ++i) {
      double q[9];
      for (int p = 0; p < 9; ++p) {
        double s = 0.0;
        for (int k = 0; k < B; ++k) s += V[i * B + k] * load_real(prec, derivs, j * nq + (size_t)p * B + k);
        q[p] = s;
      }
      sq_fault_rotate(tinv, q, &P[((size_t)j * np + i) * 6], 1);
    }
}

int sq_fault_log_append(sq_fault_station_log *log, const double *row) {
  if (log->n == log->cap) {
    const int64_t cap = log->cap ? 2 * log->cap : 256;
    double *rows = realloc(log->rows, sizeof(double) * SQ_FAULT_LOG_COLS * cap);
    SQ_CHECK(rows, SQ_ERR_MEMORY, "out of memory growing an on-fault station's log to %lld rows", (long long)cap);
    log->rows = rows, log->cap = cap;
  }
  memcpy(log->rows + log->n++ * SQ_FAULT_LOG_COLS, row, sizeof(double) * SQ_FAULT_LOG_COLS);
  return SQ_SUCCESS;
}

void sq_fault_record_stations(int np, int nst, const sq_fault_station *st, int64_t face0, const sq_fault_point *points,
                              double t, double *rows) {
  for (int k = 0; k < nst; ++k)
    sq_fault_station_row(np, &st[k], points + (st[k].face - face0) * np, t, rows + (size_t)k * SQ_FAULT_LOG_COLS);
}

void sq_fault_station_weights(int order, int np, const double *chi, const double *chi_weight, const double at[2],
                              double *weight, int *point) {
  *point = -1;
  for (int i = 0; i < np && *point < 0; ++i)
    if (fabs(chi[2 * i] - at[0]) <= 1e-9 && fabs(chi[2 * i + 1] - at[1]) <= 1e-9) *point = i;
  if (*point >= 0) {
    for (int i = 0; i < np; ++i) weight[i] = i == *point;
    return;
  }
  const int bf = sq_nface_basis(order);
  double th_at[SQ_FAULT_MAX_POINTS], th[SQ_FAULT_MAX_POINTS];
  sq_face_basis_eval(order, at, th_at);
  for (int i = 0; i < np; ++i) {
    sq_face_basis_eval(order, &chi[2 * i], th);
    double s = 0.0;
    for (int m = 0; m < bf; ++m) s += th_at[m] * th[m];
    weight[i] = chi_weight[i] * s;
  }
}

int64_t sq_fault_update(sq_precision prec, int O, int np, const double *ref, const sq_fault_options *opt, int64_t nface,
                        const sq_fault_face *faces, sq_fault_point *points, sq_tp_state *tp,
                        const void *const *derivs_slot, void *const *dofs_slot, double t0, double dt,
                        int64_t *bad_face) {
  const int B = sq_nbasis(O);
  const size_t nq = (size_t)B * 9;
  const double *tq = ref, *tw = ref + sq_fault_off_tw(O);
  int64_t nbad = 0;
  double P[2][7 * 64 * 6], Ib[2][64 * 6], upd[84 * 9];
  for (int64_t fi = 0; fi < nface; ++fi) {
    const sq_fault_face *fc = &faces[fi];
    sq_fault_point *pts = points + fi * np;
    sq_tp_state *tps = tp ? tp + fi * np : NULL;
    for (int side = 0; side < 2; ++side) {
      const double *V = ref + sq_fault_off_values(O, B, np, fc, side);
      const void *D = (const char *)derivs_slot[fc->slot[side]] +
                      (size_t)fc->index[side] * O * nq * (prec == SQ_F64 ? sizeof(double) : sizeof(float));
      project_side(prec, O, B, np, V, D, fc->tinv, P[side]);
    }
    memset(Ib, 0, sizeof(Ib));
    const double eta_p = sq_fault_eta(fc->impedance[0], fc->impedance[1]);
    const double eta_s = sq_fault_eta(fc->impedance[2], fc->impedance[3]);
    for (int k = 0; k < O; ++k) {
      const double tau = dt * tq[k], wk = dt * tw[k], t = t0 + tau, G = sq_fault_ramp_eval(t, opt->nucleation_time);
      for (int i = 0; i < np; ++i) {
        double qm[6], qp[6]; /* Taylor series at tau (eq. 3.45-3.46) */
        sq_fault_taylor(O, tau, &P[0][(size_t)i * 6], (size_t)np * 6, 1, qm);
        sq_fault_taylor(O, tau, &P[1][(size_t)i * 6], (size_t)np * 6, 1, qp);
        if (sq_fault_solve_point(opt->law, fc->impedance, eta_p, eta_s, t, wk, G, qm, qp, &pts[i], tps ? &tps[i] : NULL,
                                 &Ib[0][i * 6], &Ib[1][i * 6])) {
          if (nbad++ == 0 && bad_face) *bad_face = fi;
        }
      }
    }
    /* flux of the imposed states, integrated back onto each owned side's basis (eq. 3.44) */
    for (int side = 0; side < 2; ++side) {
      if (!fc->owned[side]) continue;
      const double *Bk = ref + sq_fault_off_backproj(O, B, np, fc, side);
      double F[64 * 9];
      for (int i = 0; i < np; ++i) sq_fault_flux_point(fc->flux[side], &Ib[side][i * 6], &F[i * 9], 1);
      for (int p = 0; p < 9; ++p)
        for (int l = 0; l < B; ++l) {
          double s = 0.0;
          for (int i = 0; i < np; ++i) s += Bk[(size_t)l * np + i] * F[i * 9 + p];
          upd[p * B + l] = -s;
        }
      void *dofs = (char *)dofs_slot[fc->slot[side]] + (size_t)fc->index[side] * nq * sq_real_size(prec);
      for (size_t m = 0; m < nq; ++m) add_real(prec, dofs, m, upd[m]);
    }
  }
  return nbad;
}

/* ------------------------------------------------------------------------------------ set-up */

static int cmp_face(const void *a, const void *b) {
  const sq_fault_face *x = a, *y = b;
  if (x->cluster != y->cluster) return x->cluster < y->cluster ? -1 : 1;
  return (x->gid > y->gid) - (x->gid < y->gid);
}

static void cell_point(const sq_mesh *m, int64_t c, const double xi[3], double x[3]) {
  const int64_t *v = &m->cell_vert[c * 4];
  for (int d = 0; d < 3; ++d) {
    const double p0 = m->vert[v[0] * 3 + d];
    x[d] = p0 + xi[0] * (m->vert[v[1] * 3 + d] - p0) + xi[1] * (m->vert[v[2] * 3 + d] - p0) +
           xi[2] * (m->vert[v[3] * 3 + d] - p0);
  }
}

void sq_fault_point_position(const sq_fault *f, const sq_disc *d, int64_t face, int p, double x[3]) {
  const sq_fault_face *fc = &f->face[face];
  double xi[3];
  sq_ref_face_point(fc->face[0], &f->chi[2 * p], xi);
  cell_point(d->mesh, d->cell_of[fc->elem[0]], xi, x);
}

static int build_ref(sq_fault *f, const sq_ref *r) {
  const int O = f->order, B = f->nbasis;
  int np;
  SQ_CALL(sq_quad_tri(O + 1, &f->chi, &f->chi_weight, &np));
  f->npoint = np;
  SQ_CHECK(np <= 64 && O <= 7, SQ_ERR_INTERNAL, "fault rule of %d points exceeds the kernel's limit", np);
  f->ref_len = sq_fault_ref_len(O, B, np);
  SQ_CALL(SQ_CALLOC(f->ref, f->ref_len));
  double x[8], w[8];
  SQ_CALL(sq_gauss_jacobi(O, 0.0, 0.0, x, w));
  for (int k = 0; k < O; ++k) f->ref[k] = 0.5 * (x[k] + 1.0), f->ref[sq_fault_off_tw(O) + k] = 0.5 * w[k];
  double phi[84];
  for (int face = 0; face < 4; ++face)
    for (int h = -1; h < 3; ++h) { /* h = -1: the "-" side itself */
      double *V = h < 0 ? f->ref + sq_fault_off_vm(O) + (size_t)face * np * B
                        : f->ref + sq_fault_off_vp(O, B, np) + (size_t)(face * 3 + h) * np * B;
      double *Bk = h < 0 ? f->ref + sq_fault_off_bm(O, B, np) + (size_t)face * np * B
                         : f->ref + sq_fault_off_bp(O, B, np) + (size_t)(face * 3 + h) * np * B;
      for (int i = 0; i < np; ++i) {
        double chi[2] = {f->chi[2 * i], f->chi[2 * i + 1]}, xi[3];
        if (h >= 0) sq_ref_face_neighbor_chi(h, &f->chi[2 * i], chi);
        sq_ref_face_point(face, chi, xi);
        sq_basis_eval(O, xi, phi);
        for (int k = 0; k < B; ++k) {
          V[i * B + k] = phi[k];
          Bk[(size_t)k * np + i] = f->chi_weight[i] * phi[k] / r->mass[k];
        }
      }
    }
  return SQ_SUCCESS;
}

static void cross(const double a[3], const double b[3], double c[3]) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static void build_face(const sq_disc *d, sq_fault_face *fc) {
  const sq_mesh *m = d->mesh;
  const int64_t cm = d->cell_of[fc->elem[0]], cp = d->cell_of[fc->elem[1]];
  const double *n = &m->face_normal[(cm * 4 + fc->face[0]) * 3];
  const double ez[3] = {0, 0, 1};
  double s[3], dip[3];
  cross(n, ez, s);
  double len = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
  if (len < 1e-10) s[0] = 1, s[1] = s[2] = 0, len = 1; /* horizontal fault */
  for (int k = 0; k < 3; ++k) s[k] /= len;
  cross(n, s, dip);
  for (int k = 0; k < 3; ++k) fc->frame[k] = n[k], fc->frame[3 + k] = s[k], fc->frame[6 + k] = dip[k];
  double T[81];
  sq_rotation_frame(n, s, dip, T, fc->tinv);
  fc->area = m->face_area[cm * 4 + fc->face[0]];
  const sq_material *mat[2] = {&d->material[cm], &d->material[cp]};
  const double vol[2] = {m->volume[cm], m->volume[cp]}, ex[3] = {1, 0, 0};
  for (int side = 0; side < 2; ++side) {
    double A[81];
    sq_jacobian(mat[side], ex, A);
    const double scale = (side == 0 ? 1.0 : -1.0) * 2.0 * fc->area / (6.0 * vol[side]); /* the "+" normal is -n */
    for (int i = 0; i < 9; ++i)
      for (int j = 0; j < 9; ++j) {
        double acc = 0.0;
        for (int k = 0; k < 9; ++k) acc += T[i * 9 + k] * A[k * 9 + j];
        fc->flux[side][i * 9 + j] = scale * acc;
      }
    fc->impedance[side] = mat[side]->rho * sq_material_vp(mat[side]);
    fc->impedance[2 + side] = mat[side]->rho * sq_material_vs(mat[side]);
  }
}

void sq_fault_locate(const sq_fault *f, const sq_disc *d, const double x[3], int64_t *face, double chi[2],
                     double *dist) {
  *face = -1, *dist = INFINITY;
  int64_t best_key = INT64_MAX;
  for (int64_t i = 0; i < f->nface; ++i) {
    const sq_fault_face *fc = &f->face[i];
    const int64_t c = d->cell_of[fc->elem[0]];
    const int *fv = sq_ref_face_vertices[fc->face[0]];
    double p[3][3];
    for (int v = 0; v < 3; ++v)
      for (int k = 0; k < 3; ++k) p[v][k] = d->mesh->vert[d->mesh->cell_vert[c * 4 + fv[v]] * 3 + k];
    double e1[3], e2[3], r[3];
    for (int k = 0; k < 3; ++k) e1[k] = p[1][k] - p[0][k], e2[k] = p[2][k] - p[0][k], r[k] = x[k] - p[0][k];
    const double *n = fc->frame;
    const double h = r[0] * n[0] + r[1] * n[1] + r[2] * n[2];
    const double g11 = e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2],
                 g22 = e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2];
    const double g12 = e1[0] * e2[0] + e1[1] * e2[1] + e1[2] * e2[2], det = g11 * g22 - g12 * g12;
    const double r1 = r[0] * e1[0] + r[1] * e1[1] + r[2] * e1[2], r2 = r[0] * e2[0] + r[1] * e2[1] + r[2] * e2[2];
    const double a = (g22 * r1 - g12 * r2) / det, b = (g11 * r2 - g12 * r1) / det;
    const double size = sqrt(fmax(g11, g22)), tol = 1e-6;
    /* distance to the face (0 inside), for the message when no face holds the point */
    const double out = fmax(fmax(-a, -b), a + b - 1.0);
    const double dd = fabs(h) + fmax(0.0, out) * size;
    if (dd < *dist) *dist = dd;
    if (fabs(h) > 1e-3 * size || a < -tol || b < -tol || a + b > 1.0 + tol) continue;
    if (!fc->owned[0]) continue;
    /* on a shared edge or vertex several faces hold the point: the smallest (cell, face) key wins, so
     * the choice does not depend on the local order of the faces or on the partition */
    const int64_t key = sq_fault_face_key(d, fc);
    if (key >= best_key) continue;
    best_key = key;
    *face = i;
    chi[0] = a, chi[1] = b;
  }
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* Each tile's stations: the range of the (face-ordered) stations on its faces. */
static void station_ranges(sq_fault *f) {
  int k = 0;
  for (int t = 0; t < f->ntile; ++t) {
    sq_fault_tile *tl = &f->tile[t];
    while (k < f->nlocal_station && f->station[k].face < tl->begin) ++k;
    tl->station_begin = k;
    while (k < f->nlocal_station && f->station[k].face < tl->end) ++k;
    tl->station_end = k;
  }
}

int sq_fault_create(sq_disc *d, const sq_fault_options *opt, sq_fault_init_fn init, void *ctx, sq_fault **out) {
  const sq_mesh *m = d->mesh;
  sq_fault *f;
  SQ_CALL(SQ_CALLOC(f, 1));
  *out = f;
  f->opt = *opt;
  f->order = d->opt.order;
  f->nbasis = d->nbasis;
  f->ntime = d->opt.order;
  SQ_CALL(build_ref(f, d->ref));
  /* faces seen from their "-" side, where at least one side is ours */
  int64_t cap = 0;
  for (int64_t e = 0; e < d->nelem; ++e)
    for (int k = 0; k < 4; ++k) cap += sq_disc_is_rupture_face(d, d->cell_of[e], k);
  SQ_CALL(SQ_CALLOC(f->face, cap > 0 ? cap : 1));
  for (int64_t e = 0; e < d->nelem; ++e) {
    const int64_t c = d->cell_of[e];
    for (int k = 0; k < 4; ++k) {
      if (!sq_disc_is_rupture_face(d, c, k)) continue;
      const int64_t nb = m->face_neighbor[c * 4 + k], enb = d->elem_of[nb];
      if (enb < 0 || (d->is_ghost[e] && d->is_ghost[enb])) continue;
      const double *n = &m->face_normal[(c * 4 + k) * 3];
      double centre[3] = {0, 0, 0};
      for (int v = 0; v < 3; ++v)
        for (int x = 0; x < 3; ++x)
          centre[x] += m->vert[m->cell_vert[c * 4 + sq_ref_face_vertices[k][v]] * 3 + x] / 3.0;
      /* side > 0: this cell is the "-" side (n, its outward normal, points to "+") */
      const int vector = opt->reference_method == SQ_FAULT_REF_VECTOR;
      double side = 0.0;
      for (int x = 0; x < 3; ++x) side += n[x] * (opt->reference[x] - (vector ? 0.0 : centre[x]));
      SQ_CHECK(
          fabs(side) > (vector ? 1e-9 * (fabs(opt->reference[0]) + fabs(opt->reference[1]) + fabs(opt->reference[2]))
                               : 1e-9 * (fabs(centre[0]) + fabs(centre[1]) + fabs(centre[2]) + 1.0)),
          SQ_ERR_INPUT, "%s: fault.reference_point (%g, %g, %g) %s the fault face at (%g, %g, %g); it must %s",
          m->source, opt->reference[0], opt->reference[1], opt->reference[2],
          vector ? "(fault.reference_method: vector) is parallel to" : "lies in the plane of", centre[0], centre[1],
          centre[2], vector ? "be a direction across the fault" : "lie off the fault, on one side of it");
      /* SeisSol's point marks its "+" side, whose normal points away from it: our "-" side */
      if (!vector && opt->reference_convention == SQ_FAULT_REF_SEISSOL) side = -side;
      if (side < 0) continue; /* we are "+": the face is listed from the other side */
      sq_fault_face *fc = &f->face[f->nface++];
      fc->elem[0] = e, fc->elem[1] = enb;
      fc->face[0] = k, fc->face[1] = m->face_nbface[c * 4 + k], fc->orient = m->face_orient[c * 4 + k];
      fc->owned[0] = !d->is_ghost[e], fc->owned[1] = !d->is_ghost[enb];
      fc->gid = 4 * sq_mesh_global_cell(m, c) + k;
      fc->cluster = d->cluster[c];
      build_face(d, fc);
    }
  }
  qsort(f->face, f->nface, sizeof(*f->face), cmp_face);
  /* per-point friction data from the caller, in one call for all points (positions, frames and fault tags
   * here, threaded; the caller evaluates its values threaded) */
  const int np = f->npoint;
  const int64_t npt = f->nface * np;
  SQ_CALL(SQ_CALLOC(f->point, npt + 1));
  double *px = NULL, *pframe = NULL;
  int *pgroup = NULL;
  int ierr = SQ_CALLOC(px, 3 * npt + 3);
  if (!ierr) ierr = SQ_CALLOC(pframe, 9 * npt + 9);
  if (!ierr) ierr = SQ_CALLOC(pgroup, npt + 1);
  if (!ierr) {
    SQ_PARALLEL_FOR
    for (int64_t q = 0; q < npt; ++q) {
      const int64_t i = q / np;
      sq_fault_point_position(f, d, i, (int)(q % np), &px[3 * q]);
      memcpy(&pframe[9 * q], f->face[i].frame, sizeof(f->face[i].frame));
      pgroup[q] = m->face_bc[4 * d->cell_of[f->face[i].elem[0]] + f->face[i].face[0]];
    }
    ierr = init(ctx, npt, px, pframe, pgroup, f->point);
  }
  int64_t bad = npt;
  if (!ierr) {
    SQ_PARALLEL_FOR_MIN(bad)
    for (int64_t q = 0; q < npt; ++q) {
      sq_fault_point *pt = &f->point[q];
      pt->param.pc_v_star = opt->pc_v_star, pt->param.pc_length = opt->pc_length;
      char why[256];
      if (sq_friction_check_params(opt->law, &pt->param, why, sizeof(why))) {
        if (q < bad) bad = q;
        continue;
      }
      const double tau = hypot(pt->traction0[1], pt->traction0[2]);
      const double v_init = pt->state.slip_rate[0]; /* the caller's initial slip rate */
      sq_friction_init_state(opt->law, &pt->param, v_init, tau, pt->traction0[0], &pt->state);
      /* the initial traction and slip rate point along the initial shear (the solver reads magnitudes) */
      pt->state.traction[0] = pt->traction0[1], pt->state.traction[1] = pt->traction0[2];
      if (tau > 0)
        pt->state.slip_rate[0] = v_init * pt->traction0[1] / tau,
        pt->state.slip_rate[1] = v_init * pt->traction0[2] / tau;
    }
  }
  if (!ierr && bad < npt) { /* the first bad point, whatever the number of threads */
    char why[256];
    sq_friction_check_params(opt->law, &f->point[bad].param, why, sizeof(why));
    ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "fault point (%g, %g, %g): %s", px[3 * bad], px[3 * bad + 1],
                    px[3 * bad + 2], why);
  }
  SQ_FREE(px);
  SQ_FREE(pframe);
  SQ_FREE(pgroup);
  SQ_CALL(ierr);
  /* the thermal-pressurization state (zero: no heating yet) only where some point uses it */
  int tp = 0;
  for (int64_t q = 0; q < npt && !tp; ++q) tp = f->point[q].param.tp_points > 0;
  if (tp) SQ_CALL(SQ_CALLOC(f->tp, npt));
  /* on-fault stations, interpolated from their face's points (sq_fault_station_row) */
  for (int k = 0; k < opt->nstation; ++k) {
    int64_t face;
    double chi[2], dist;
    sq_fault_locate(f, d, opt->station[k], &face, chi, &dist);
    const int64_t key = face >= 0 ? sq_fault_face_key(d, &f->face[face]) : INT64_MAX;
    const int64_t best = opt->min_over_processes ? opt->min_over_processes(key, opt->min_ctx) : key;
    if (face >= 0 && key == best) SQ_CALL(sq_fault_add_station(f, face, chi, k));
  }
  /* tiles of at most tile_size faces per cluster, with the element tiles they touch */
  int *tile_of;
  SQ_CALL(SQ_CALLOC(tile_of, d->nelem + 1));
  for (int t = 0; t < d->ntile; ++t)
    for (int64_t e = d->tile[t].begin; e < d->tile[t].end; ++e) tile_of[e] = t;
  SQ_CALL(SQ_CALLOC(f->tile, f->nface + 1));
  const int ts = d->opt.tile_size;
  int *slots;
  SQ_CALL(SQ_CALLOC(slots, 2 * (size_t)ts));
  for (int64_t b = 0; b < f->nface;) {
    int64_t e = b + 1;
    while (e < f->nface && e - b < ts && f->face[e].cluster == f->face[b].cluster) ++e;
    sq_fault_tile *tl = &f->tile[f->ntile++];
    tl->begin = b, tl->end = e, tl->cluster = f->face[b].cluster;
    int ns = 0;
    for (int64_t i = b; i < e; ++i)
      for (int s = 0; s < 2; ++s) {
        const int t = tile_of[f->face[i].elem[s]];
        slots[ns++] = t;
        if (d->tile[t].layer != SQ_LAYER_INTERIOR) tl->priority = 1;
      }
    qsort(slots, ns, sizeof(int), cmp_int);
    int u = 0;
    for (int i = 0; i < ns; ++i)
      if (u == 0 || slots[u - 1] != slots[i]) slots[u++] = slots[i];
    tl->nslot = u;
    SQ_CALL(SQ_CALLOC(tl->slot, u));
    memcpy(tl->slot, slots, sizeof(int) * u);
    for (int64_t i = b; i < e; ++i)
      for (int s = 0; s < 2; ++s) {
        sq_fault_face *fc = &f->face[i];
        const int t = tile_of[fc->elem[s]];
        int slot = 0;
        while (tl->slot[slot] != t) ++slot;
        fc->slot[s] = slot;
        fc->index[s] = (int32_t)(fc->elem[s] - d->tile[t].begin);
        SQ_CHECK(d->tile[t].needs_derivs && d->derivs, SQ_ERR_INTERNAL, "fault face tile %d keeps no derivatives", t);
      }
    b = e;
  }
  SQ_FREE(slots);
  SQ_FREE(tile_of);
  station_ranges(f);
  return SQ_SUCCESS;
}

int sq_fault_add_station(sq_fault *f, int64_t face, const double chi[2], int station) {
  SQ_CHECK(face >= 0 && face < f->nface && station >= 0, SQ_ERR_INTERNAL, "bad station %d on face %lld", station,
           (long long)face);
  sq_fault_station *grown_st = realloc(f->station, sizeof(*grown_st) * (f->nlocal_station + 1));
  SQ_CHECK(grown_st, SQ_ERR_MEMORY, "out of memory");
  f->station = grown_st;
  int at = f->nlocal_station++; /* ordered by face, then by number */
  while (at > 0 &&
         (f->station[at - 1].face > face || (f->station[at - 1].face == face && f->station[at - 1].id > station))) {
    f->station[at] = f->station[at - 1];
    --at;
  }
  sq_fault_station *st = &f->station[at];
  memset(st, 0, sizeof(*st));
  st->face = face, st->id = station, st->chi[0] = chi[0], st->chi[1] = chi[1];
  sq_fault_station_weights(f->order, f->npoint, f->chi, f->chi_weight, chi, st->weight, &st->point);
  station_ranges(f);
  if (station >= f->nstation) {
    sq_fault_station_log *grown = realloc(f->log, sizeof(*grown) * (station + 1));
    SQ_CHECK(grown, SQ_ERR_MEMORY, "out of memory");
    memset(grown + f->nstation, 0, sizeof(*grown) * (station + 1 - f->nstation));
    f->log = grown;
    f->nstation = station + 1;
  }
  return SQ_SUCCESS;
}

void sq_fault_destroy(sq_fault *f) {
  if (!f) return;
  for (int k = 0; k < f->nstation; ++k) free(f->log[k].rows);
  free(f->log);
  free(f->station);
  for (int t = 0; t < f->ntile; ++t) SQ_FREE(f->tile[t].slot);
  SQ_FREE(f->tile);
  SQ_FREE(f->face);
  SQ_FREE(f->point);
  SQ_FREE(f->tp);
  SQ_FREE(f->ref);
  SQ_FREE(f->chi);
  SQ_FREE(f->chi_weight);
  SQ_FREE(f);
}

int sq_fault_step_serial(sq_fault *f, sq_disc *d, double t0, double dt) {
  const size_t eb = sq_disc_elem_bytes(d);
  for (int t = 0; t < f->ntile; ++t) {
    const sq_fault_tile *tl = &f->tile[t];
    const void *dv[2 * 64];
    void *dofs[2 * 64];
    const void **derivs = tl->nslot <= 128 ? dv : malloc(sizeof(void *) * tl->nslot);
    void **dptr = tl->nslot <= 128 ? dofs : malloc(sizeof(void *) * tl->nslot);
    SQ_CHECK(derivs && dptr, SQ_ERR_MEMORY, "out of memory");
    for (int s = 0; s < tl->nslot; ++s) {
      const sq_tile *et = &d->tile[tl->slot[s]];
      derivs[s] = (const char *)d->derivs + (size_t)et->begin * eb * d->opt.order;
      dptr[s] = (char *)d->dofs + (size_t)et->begin * eb;
    }
    int64_t bad = -1;
    const int64_t nbad = sq_fault_update(d->opt.precision, f->order, f->npoint, f->ref, &f->opt, tl->end - tl->begin,
                                         f->face + tl->begin, f->point + tl->begin * f->npoint,
                                         f->tp ? f->tp + tl->begin * f->npoint : NULL, derivs, dptr, t0, dt, &bad);
    if (derivs != dv) free((void *)derivs);
    if (dptr != dofs) free(dptr);
    for (int k = tl->station_begin; k < tl->station_end && !nbad; ++k) {
      double row[SQ_FAULT_LOG_COLS];
      sq_fault_record_stations(f->npoint, 1, &f->station[k], tl->begin, f->point + tl->begin * f->npoint, t0 + dt, row);
      SQ_CALL(sq_fault_log_append(&f->log[f->station[k].id], row));
    }
    if (nbad) {
      double x[3];
      sq_fault_point_position(f, d, tl->begin + bad, 0, x);
      return sq_error(SQ_ERR_NUMERIC, __FILE__, __LINE__,
                      "friction solve failed at %lld fault points at t=%g; the first is on the face near (%g, %g, %g)",
                      (long long)nbad, t0, x[0], x[1], x[2]);
    }
  }
  return SQ_SUCCESS;
}

void sq_fault_face_average(const sq_fault *f, int64_t face, sq_friction_state *avg, double *slip_rate) {
  enum { NS = sizeof(sq_friction_state) / sizeof(double) };
  double sum[NS] = {0};
  int ruptured = 1;
  *slip_rate = 0.0;
  for (int p = 0; p < f->npoint; ++p) {
    const sq_friction_state *st = &f->point[face * f->npoint + p].state;
    const double w = 2.0 * f->chi_weight[p], *v = (const double *)st;
    for (int k = 0; k < NS; ++k) sum[k] += w * v[k];
    *slip_rate += w * hypot(st->slip_rate[0], st->slip_rate[1]);
    ruptured &= st->rupture_time >= 0;
  }
  memcpy(avg, sum, sizeof(*avg));
  if (!ruptured) avg->rupture_time = -1.0;
}

void sq_fault_energies_seissol(const sq_fault *f, const sq_disc *d, double out[3]) {
  out[0] = out[1] = out[2] = 0.0;
  for (int64_t i = 0; i < f->nface; ++i) {
    const sq_fault_face *fc = &f->face[i];
    if (!fc->owned[0]) continue;
    const double mu = 0.5 * (d->material[d->cell_of[fc->elem[0]]].mu + d->material[d->cell_of[fc->elem[1]]].mu);
    for (int p = 0; p < f->npoint; ++p) {
      const sq_fault_point *pt = &f->point[i * f->npoint + p];
      const sq_friction_state *s = &pt->state;
      const double da = 2.0 * f->chi_weight[p] * fc->area;
      const double t0d = pt->traction0[1] * s->slip[0] + pt->traction0[2] * s->slip[1];
      const double dtd =
          (s->traction[0] - pt->traction0[1]) * s->slip[0] + (s->traction[1] - pt->traction0[2]) * s->slip[1];
      out[0] += (t0d - s->work) * da;
      out[1] += -0.5 * dtd * da;
      out[2] += mu * s->slip_path * da;
    }
  }
}

void sq_fault_energies(const sq_fault *f, const sq_disc *d, double *work, double *moment) {
  *work = *moment = 0.0;
  for (int64_t i = 0; i < f->nface; ++i) {
    const sq_fault_face *fc = &f->face[i];
    if (!fc->owned[0]) continue;
    const double mu = d->material[d->cell_of[fc->elem[0]]].mu;
    for (int p = 0; p < f->npoint; ++p) {
      const sq_friction_state *s = &f->point[i * f->npoint + p].state;
      const double da = 2.0 * f->chi_weight[p] * fc->area;
      *work += s->work * da;
      *moment += mu * hypot(s->slip[0], s->slip[1]) * da;
    }
  }
}
