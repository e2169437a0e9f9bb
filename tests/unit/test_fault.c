/**
 * @file test_fault.c  Check suite for dynamic rupture faces (src/fault.c, codelets/rupture.c) on a
 * Gmsh-made mesh with an embedded fault (tests/meshes/fault.geo, meshed here by the real gmsh):
 * a fault that never reaches its strength reproduces the welded (no fault) solution to round-off;
 * the task graph reproduces the serial reference bitwise while the fault slips; a slipping fault
 * carries at most its strength and slips along its traction.  On-fault stations: the projection onto
 * the face's polynomials is exact for degree < order and converges like h^order for a smooth field; a
 * station on a quadrature point logs its series bitwise; the rupture tasks' sample buffers deliver the
 * serial rows bitwise.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <starpu.h>

#include "sq_check.h"
#include "fault_impl.h"
#include "sq_fault.h"
#include "sq_kinematic.h"
#include "sq_graph.h"
#include "sq_mesh_io.h"

static char mesh_path[4096];
static int have_mesh;
static const sq_material unit = {.rho = 1.0, .lambda = 2.0, .mu = 1.0};

static void make_mesh(void) {
  if (have_mesh) return;
  snprintf(mesh_path, sizeof(mesh_path), "%s/tests/unit/fault-test.msh", SQ_BUILDDIR);
  char cmd[16384];
  snprintf(cmd, sizeof(cmd), "gmsh -3 -clmax 0.3 -format msh22 %s/tests/meshes/fault.geo -o %s > /dev/null 2>&1",
           SQ_SRCDIR, mesh_path);
  ck_assert_msg(system(cmd) == 0, "gmsh failed: %s", cmd);
  have_mesh = 1;
}

/* Friction set-up of one test: normal stress -1, shear `shear` along strike, LSW. */
typedef struct setup {
  double mu_s, mu_d, d_c, shear, forced_time, forced_duration;
} setup;

static int init_one(void *ctx, const double x[3], const double frame[9], sq_fault_point *pt) {
  const setup *s = ctx;
  (void)frame;
  memset(pt, 0, sizeof(*pt));
  pt->param = (sq_friction_params){
      .mu_s = s->mu_s, .mu_d = s->mu_d, .d_c = s->d_c, .forced_time = s->forced_time, .t0 = s->forced_duration};
  /* nucleate in the middle of the fault only */
  if (fabs(x[1]) > 0.2 || fabs(x[2] + 0.45) > 0.15) pt->param.forced_time = SQ_FRICTION_NEVER;
  pt->traction0[0] = -1.0;
  pt->traction0[1] = s->shear;
  return SQ_SUCCESS;
}

/* sq_fault_init_fn: every point in one call */
static int init_point(void *ctx, int64_t n, const double *x, const double *frame, const int *group,
                      sq_fault_point *pt) {
  for (int64_t p = 0; p < n; ++p) {
    if (group[p] != SQ_BC_RUPTURE) return SQ_ERR_INTERNAL; /* the face's fault tag */
    const int rc = init_one(ctx, &x[3 * p], &frame[9 * p], &pt[p]);
    if (rc) return rc;
  }
  return SQ_SUCCESS;
}

/* A shear wave packet travelling along x through the fault plane x = 0. */
static void initial(sq_disc *d) {
  sq_planewave pw;
  const sq_wave_kind kind[1] = {SQ_WAVE_S1};
  const int dir[1] = {1};
  const double amp[1] = {0.05}, k[3] = {1, 0, 0};
  sq_planewave_init(&pw, &unit, k, 1, -0.25, 0.15, 1, kind, dir, amp);
  sq_disc_project(d, sq_planewave_eval, &pw, 0.0);
}

typedef struct run {
  sq_mesh *mesh;
  sq_disc *disc;
  sq_fault *fault;
  sq_material *mat;
} run;

static void run_create(run *r, int rupture, const setup *s, int tile, int rate) {
  make_mesh();
  ck_assert_int_eq(sq_mesh_read(mesh_path, &r->mesh), 0);
  r->mat = malloc(sizeof(sq_material) * r->mesh->ncell);
  for (int64_t c = 0; c < r->mesh->ncell; ++c) r->mat[c] = unit;
  const sq_disc_options opt = {.order = 3,
                               .precision = SQ_F64,
                               .cfl = 0.5,
                               .tile_size = tile,
                               .lts_rate = rate,
                               .max_clusters = 4,
                               .rupture = rupture};
  ck_assert_int_eq(sq_disc_create(r->mesh, r->mat, &opt, &r->disc), 0);
  r->fault = NULL;
  if (rupture) {
    const sq_fault_options fo = {.law = SQ_FRICTION_LSW, .reference = {1.0, 0.0, -0.5}};
    ck_assert_int_eq(sq_fault_create(r->disc, &fo, init_point, (void *)s, &r->fault), 0);
    ck_assert_int_gt(r->fault->nface, 10);
  }
  initial(r->disc);
}

static void run_destroy(run *r) {
  sq_fault_destroy(r->fault);
  sq_disc_destroy(r->disc);
  sq_mesh_destroy(r->mesh);
  free(r->mat);
}

static void step_serial(run *r, int nsteps) {
  const double dt = r->disc->cluster_dt[0];
  for (int i = 0; i < nsteps; ++i) {
    if (r->fault) {
      sq_disc_predict_serial(r->disc, dt);
      ck_assert_int_eq(sq_fault_step_serial(r->fault, r->disc, i * dt, dt), 0);
      sq_disc_correct_serial(r->disc);
    } else {
      sq_disc_step_serial(r->disc, dt);
    }
  }
}

static double max_abs(const sq_disc *d) {
  double m = 0;
  for (int64_t i = 0; i < d->nelem * d->nbasis * 9; ++i) m = fmax(m, fabs(((const double *)d->dofs)[i]));
  return m;
}

START_TEST(locked_equals_welded) {
  /* a fault far from its strength is a welded interface: the same solution up to round-off */
  const setup s = {.mu_s = 1e3, .mu_d = 1e3, .d_c = 1.0, .shear = 0.0, .forced_time = SQ_FRICTION_NEVER};
  run a, b;
  run_create(&a, 0, &s, 64, 1);
  run_create(&b, 1, &s, 64, 1);
  step_serial(&a, 30);
  step_serial(&b, 30);
  double diff = 0, scale = max_abs(a.disc);
  for (int64_t c = 0; c < a.mesh->ncell; ++c) {
    const double *qa = (const double *)a.disc->dofs + a.disc->elem_of[c] * a.disc->nbasis * 9;
    const double *qb = (const double *)b.disc->dofs + b.disc->elem_of[c] * b.disc->nbasis * 9;
    for (int i = 0; i < a.disc->nbasis * 9; ++i) diff = fmax(diff, fabs(qa[i] - qb[i]));
  }
  printf("locked fault vs welded interface: max |dofs difference| = %.3e (max |dofs| %.3e, relative %.3e)\n", diff,
         scale, diff / scale);
  ck_assert_msg(scale > 1e-3, "the wave never reached anything (max %g)", scale);
  ck_assert_msg(diff <= 1e-12 * scale, "locked fault differs from the welded interface: %g (scale %g)", diff, scale);
  for (int64_t i = 0; i < b.fault->nface * b.fault->npoint; ++i) {
    ck_assert_double_eq(b.fault->point[i].state.slip_path, 0.0);
    ck_assert(b.fault->point[i].state.rupture_time < 0);
  }
  run_destroy(&a);
  run_destroy(&b);
}
END_TEST

static const setup slipping = {
    .mu_s = 0.6, .mu_d = 0.3, .d_c = 0.02, .shear = 0.5, .forced_time = 0.0, .forced_duration = 0.05};

START_TEST(slipping_fault_physics) {
  run r;
  run_create(&r, 1, &slipping, 64, 1);
  step_serial(&r, 60);
  const sq_fault *f = r.fault;
  int64_t ruptured = 0;
  for (int64_t i = 0; i < f->nface * f->npoint; ++i) {
    const sq_fault_point *pt = &f->point[i];
    const sq_friction_state *st = &pt->state;
    const double strength = pt->param.cohesion + st->mu * fmax(0.0, -st->normal_stress);
    ck_assert_msg(hypot(st->traction[0], st->traction[1]) <= strength * (1 + 1e-12) + 1e-12,
                  "traction %g above strength %g", hypot(st->traction[0], st->traction[1]), strength);
    ck_assert(st->mu >= pt->param.mu_d - 1e-15 && st->mu <= pt->param.mu_s + 1e-15);
    ruptured += st->rupture_time >= 0;
    /* slip follows the (positive, strike) traction */
    ck_assert(st->slip[0] >= -1e-14);
  }
  ck_assert_int_gt(ruptured, f->nface / 10);
  double work, moment;
  sq_fault_energies(f, r.disc, &work, &moment);
  ck_assert(work > 0 && moment > 0);
  run_destroy(&r);
}
END_TEST

static void graph_run(run *r, int nsteps, int merge) {
  sq_runtime *rt;
  ck_assert_int_eq(sq_runtime_create(r->disc, &rt), 0);
  ck_assert_int_eq(sq_runtime_attach_fault(rt, r->fault), 0);
  const double dt = r->disc->cluster_dt[r->disc->ncluster - 1];
  for (int i = 0; i < nsteps; ++i) {
    const sq_graph_options g = {.merge_neighbor_clusters = merge, .t_begin = i * dt, .t_end = (i + 1) * dt};
    ck_assert_int_eq(sq_graph_sync_interval(rt, dt, &g, NULL), 0);
  }
  ck_assert_int_eq(sq_runtime_sync(rt), 0);
  sq_runtime_destroy(rt);
}

START_TEST(graph_equals_serial) {
  /* the rupture task in the StarPU graph does exactly the serial reference's arithmetic */
  run a, b;
  run_create(&a, 1, &slipping, 64, 1);
  run_create(&b, 1, &slipping, 16, 1);
  step_serial(&a, 25);
  graph_run(&b, 25, 0);
  ck_assert_uint_eq(sq_disc_hash(a.disc), sq_disc_hash(b.disc));
  for (int64_t i = 0; i < a.fault->nface; ++i) /* same faces in the same order: gid-sorted per cluster */
    for (int p = 0; p < a.fault->npoint; ++p)
      ck_assert(memcmp(&a.fault->point[i * a.fault->npoint + p].state, &b.fault->point[i * b.fault->npoint + p].state,
                       sizeof(sq_friction_state)) == 0);
  run_destroy(&a);
  run_destroy(&b);
}
END_TEST

/* ------------------------------------------------------------------ on-fault stations */

/* A polynomial of total degree `deg` in (x, y) with all monomials present. */
static double poly(int deg, double x, double y) {
  double v = 0.0;
  for (int a = 0; a <= deg; ++a)
    for (int b = 0; a + b <= deg; ++b) v += (1.0 + 0.37 * a - 0.21 * b) * pow(x, a) * pow(y, b);
  return v;
}

START_TEST(station_weights_exact) {
  /* the projection reproduces polynomials of degree < order to rounding, not those of degree order;
   * on a quadrature point it selects that point alone */
  const double at[4][2] = {{0.21, 0.33}, {0.6, 0.1}, {0.0, 0.0}, {0.05, 0.9}};
  for (int O = 1; O <= 7; ++O) {
    double *chi, *w;
    int np;
    ck_assert_int_eq(sq_quad_tri(O + 1, &chi, &w, &np), 0);
    double weight[SQ_FAULT_MAX_POINTS], worst = 0.0, higher = 0.0;
    for (int k = 0; k < 4; ++k) {
      int point;
      sq_fault_station_weights(O, np, chi, w, at[k], weight, &point);
      ck_assert_int_eq(point, -1);
      double lo = 0.0, hi = 0.0;
      for (int i = 0; i < np; ++i)
        lo += weight[i] * poly(O - 1, chi[2 * i], chi[2 * i + 1]),
            hi += weight[i] * poly(O, chi[2 * i], chi[2 * i + 1]);
      worst = fmax(worst, fabs(lo - poly(O - 1, at[k][0], at[k][1])) / fabs(poly(O - 1, at[k][0], at[k][1])));
      higher = fmax(higher, fabs(hi - poly(O, at[k][0], at[k][1])) / fabs(poly(O, at[k][0], at[k][1])));
    }
    printf("station projection, order %d: degree %d exact to %.2e, degree %d off by %.2e\n", O, O - 1, worst, O,
           higher);
    ck_assert_msg(worst < 1e-13, "order %d: degree %d not reproduced (%g)", O, O - 1, worst);
    ck_assert_msg(higher > 1e-6, "order %d: degree %d reproduced too (%g): the basis is too large", O, O, higher);
    for (int p = 0; p < np; ++p) {
      int point;
      sq_fault_station_weights(O, np, chi, w, &chi[2 * p], weight, &point);
      ck_assert_int_eq(point, p);
      for (int i = 0; i < np; ++i) ck_assert(weight[i] == (i == p));
    }
    free(chi), free(w);
  }
}
END_TEST

START_TEST(station_rupture_time_kink) {
  /* a rupture front spreading at constant speed from a point next to the station: the time field is a
   * cone, whose projection dips below its apex; the station's time stays within the points' times */
  const int O = 4;
  double *chi, *w;
  int np;
  ck_assert_int_eq(sq_quad_tri(O + 1, &chi, &w, &np), 0);
  sq_fault_station st = {.point = -1, .chi = {0.31, 0.27}};
  int point;
  sq_fault_station_weights(O, np, chi, w, st.chi, st.weight, &point);
  ck_assert_int_eq(point, -1);
  sq_fault_point *pts = calloc((size_t)np, sizeof(*pts));
  double first = 1e300, projected = 0.0;
  for (int i = 0; i < np; ++i) {
    const double dx = chi[2 * i] - 0.3, dy = chi[2 * i + 1] - 0.28;
    pts[i].state.rupture_time = sqrt(dx * dx + dy * dy) / 3.0;
    first = fmin(first, pts[i].state.rupture_time);
    projected += st.weight[i] * pts[i].state.rupture_time;
  }
  double row[SQ_FAULT_LOG_COLS];
  sq_fault_station_row(np, &st, pts, 1.0, row);
  printf("kinked rupture time: projection %.4g, earliest point %.4g, station %.4g\n", projected, first, row[12]);
  ck_assert_msg(projected < first, "the cone's projection should overshoot below its earliest point here");
  ck_assert(row[12] == first);
  pts[0].state.rupture_time = -1.0; /* one point not ruptured yet: no time */
  sq_fault_station_row(np, &st, pts, 1.0, row);
  ck_assert(row[12] == -1.0);
  free(pts), free(chi), free(w);
}
END_TEST

static double smooth(double x, double y) { return sin(2.0 * x + 1.0) * exp(y); }

START_TEST(station_weights_converge) {
  /* a smooth field on a triangle of size h around a fixed station: the error falls like h^order */
  const double centre[2] = {0.3, -0.2}, e1[2] = {1.0, 0.2}, e2[2] = {0.3, 0.9}, at[2] = {0.21, 0.33};
  for (int O = 2; O <= 5; ++O) {
    double *chi, *w, err[3];
    int np, point;
    ck_assert_int_eq(sq_quad_tri(O + 1, &chi, &w, &np), 0);
    double weight[SQ_FAULT_MAX_POINTS];
    sq_fault_station_weights(O, np, chi, w, at, weight, &point);
    for (int r = 0; r < 3; ++r) {
      const double h = 0.4 / (1 << r); /* triangle x(chi) = centre + h ((chi - at) . (e1, e2)): x(at) = centre */
      double v = 0.0;
      for (int i = 0; i < np; ++i) {
        const double a = chi[2 * i] - at[0], b = chi[2 * i + 1] - at[1];
        v += weight[i] * smooth(centre[0] + h * (a * e1[0] + b * e2[0]), centre[1] + h * (a * e1[1] + b * e2[1]));
      }
      err[r] = fabs(v - smooth(centre[0], centre[1]));
    }
    const double rate1 = log2(err[0] / err[1]), rate2 = log2(err[1] / err[2]);
    printf("station projection, order %d: errors %.2e %.2e %.2e, rates %.2f %.2f\n", O, err[0], err[1], err[2], rate1,
           rate2);
    ck_assert_msg(rate2 > O - 0.3, "order %d converges at rate %.2f", O, rate2);
    free(chi), free(w);
  }
}
END_TEST

START_TEST(station_locate_on_mesh) {
  /* a station at a quadrature point's position finds that face and point; a linear field of the position
   * at the points interpolates to its value at a station between points */
  run r;
  run_create(&r, 1, &slipping, 64, 1);
  sq_fault *f = r.fault;
  for (int64_t i = 0; i < f->nface; i += 5)
    for (int p = 0; p < f->npoint; p += 3) {
      double x[3], chi[2], dist, weight[SQ_FAULT_MAX_POINTS];
      int64_t face;
      int point;
      sq_fault_point_position(f, r.disc, i, p, x);
      sq_fault_locate(f, r.disc, x, &face, chi, &dist);
      sq_fault_station_weights(f->order, f->npoint, f->chi, f->chi_weight, chi, weight, &point);
      ck_assert_int_eq(face, i);
      ck_assert_int_eq(point, p);
    }
  for (int64_t i = 0; i < f->nface; i += 3) {
    double x[3] = {0, 0, 0}, px[3];
    for (int p = 0; p < f->npoint; ++p) { /* a station inside face i: the mean of its points */
      sq_fault_point_position(f, r.disc, i, p, px);
      for (int k = 0; k < 3; ++k) x[k] += px[k] / f->npoint;
      f->point[i * f->npoint + p].state.slip[0] = 1.0 + 2.0 * px[0] - 3.0 * px[1] + 0.5 * px[2];
    }
    const int n0 = f->nlocal_station;
    int64_t face;
    double chi[2], dist, row[SQ_FAULT_LOG_COLS];
    sq_fault_locate(f, r.disc, x, &face, chi, &dist);
    ck_assert_int_eq(face, i);
    ck_assert_int_eq(sq_fault_add_station(f, face, chi, n0), 0);
    const sq_fault_station *st = NULL;
    for (int k = 0; k < f->nlocal_station; ++k)
      if (f->station[k].id == n0) st = &f->station[k];
    ck_assert_ptr_nonnull(st);
    ck_assert_int_eq(st->point, -1);
    sq_fault_record_stations(f->npoint, 1, st, 0, f->point, 1.0, row);
    const double want = 1.0 + 2.0 * x[0] - 3.0 * x[1] + 0.5 * x[2];
    ck_assert_msg(fabs(row[8] - want) < 1e-12 * fabs(want) + 1e-13, "face %lld: %.17g, want %.17g", (long long)i,
                  row[8], want);
  }
  run_destroy(&r);
}
END_TEST

START_TEST(face_average_snapshot) {
  /* the fault snapshot's values are face averages, the peak slip rate included (each point's running
   * maximum, averaged over the face, not the largest of them); the rupture time only once all points ruptured */
  run r;
  run_create(&r, 1, &slipping, 64, 1);
  sq_fault *f = r.fault;
  const int64_t face = 3;
  double psr = 0.0, rt = 0.0, v = 0.0;
  for (int p = 0; p < f->npoint; ++p) {
    sq_friction_state *st = &f->point[face * f->npoint + p].state;
    st->peak_slip_rate = 1.0 + p, st->rupture_time = p == 5 ? -1.0 : 0.1 * p;
    st->slip_rate[0] = 0.3 * p, st->slip_rate[1] = -0.4 * p;
    psr += 2.0 * f->chi_weight[p] * (1.0 + p), rt += 2.0 * f->chi_weight[p] * 0.1 * p,
        v += 2.0 * f->chi_weight[p] * 0.5 * p;
  }
  sq_friction_state avg;
  double sr;
  sq_fault_face_average(f, face, &avg, &sr);
  ck_assert_msg(fabs(avg.peak_slip_rate - psr) < 1e-13 * psr, "peak slip rate %.17g, want the average %.17g",
                avg.peak_slip_rate, psr);
  ck_assert(avg.peak_slip_rate < f->npoint - 0.5); /* not the maximum, npoint */
  ck_assert(fabs(sr - v) < 1e-13 * v);
  ck_assert_double_eq(avg.rupture_time, -1.0);
  f->point[face * f->npoint + 5].state.rupture_time = 0.5; /* = 0.1 p: rt holds it */
  sq_fault_face_average(f, face, &avg, &sr);
  ck_assert(fabs(avg.rupture_time - rt) < 1e-13 * rt);
  run_destroy(&r);
}
END_TEST

/* Stations on run r: two on one face (one on quadrature point 3, one between points), one elsewhere. */
static void add_stations(run *r) {
  sq_fault *f = r->fault;
  const int64_t fa = f->nface / 2, fb = f->nface - 1;
  const double on_point[2] = {f->chi[6], f->chi[7]}, between[2] = {0.21, 0.33}, other[2] = {0.1, 0.8};
  ck_assert_int_eq(sq_fault_add_station(f, fa, between, 1), 0);
  ck_assert_int_eq(sq_fault_add_station(f, fa, on_point, 0), 0);
  ck_assert_int_eq(sq_fault_add_station(f, fb, other, 2), 0);
  ck_assert_int_eq(f->nstation, 3);
}

START_TEST(stations_graph_equals_serial) {
  /* the rupture tasks' sample buffers deliver the serial reference's rows bitwise, beyond one buffer's
   * worth of steps between two waits; a station on a quadrature point logs that point's series bitwise */
  run a, b;
  run_create(&a, 1, &slipping, 64, 1);
  run_create(&b, 1, &slipping, 16, 1);
  add_stations(&a);
  add_stations(&b);
  const int nsteps = 1100;
  const double dt = a.disc->cluster_dt[0];
  const sq_fault_station *on_point = NULL;
  for (int k = 0; k < a.fault->nlocal_station; ++k)
    if (a.fault->station[k].id == 0) on_point = &a.fault->station[k];
  ck_assert_int_eq(on_point->point, 3);
  for (int i = 0; i < nsteps; ++i) {
    sq_disc_predict_serial(a.disc, dt);
    ck_assert_int_eq(sq_fault_step_serial(a.fault, a.disc, i * dt, dt), 0);
    sq_disc_correct_serial(a.disc);
    const sq_friction_state *s = &a.fault->point[on_point->face * a.fault->npoint + 3].state;
    const double want[SQ_FAULT_LOG_COLS] = {
        i * dt + dt, s->slip_rate[0], s->slip_rate[1], s->traction[0], s->traction[1],    s->normal_stress, s->mu,
        s->state,    s->slip[0],      s->slip[1],      s->slip_path,   s->peak_slip_rate, s->rupture_time};
    ck_assert_int_eq(a.fault->log[0].n, i + 1);
    ck_assert(memcmp(a.fault->log[0].rows + i * SQ_FAULT_LOG_COLS, want, sizeof(want)) == 0);
  }
  sq_runtime *rt;
  ck_assert_int_eq(sq_runtime_create(b.disc, &rt), 0);
  ck_assert_int_eq(sq_runtime_attach_fault(rt, b.fault), 0);
  for (int i = 0; i < nsteps; ++i) {
    const sq_graph_options g = {.t_begin = i * dt, .t_end = (i + 1) * dt};
    ck_assert_int_eq(sq_graph_sync_interval(rt, dt, &g, NULL), 0);
    if (i == 30) { /* a wait in between: every row so far is in the logs (then more rows than a buffer holds) */
      ck_assert_int_eq(sq_runtime_wait(rt), 0);
      for (int k = 0; k < 3; ++k) ck_assert_int_eq(b.fault->log[k].n, i + 1);
    }
  }
  ck_assert_int_eq(sq_runtime_wait(rt), 0);
  sq_runtime_destroy(rt);
  ck_assert_uint_eq(sq_disc_hash(a.disc), sq_disc_hash(b.disc));
  for (int k = 0; k < 3; ++k) {
    ck_assert_int_eq(a.fault->log[k].n, nsteps);
    ck_assert_int_eq(b.fault->log[k].n, nsteps);
    ck_assert(memcmp(a.fault->log[k].rows, b.fault->log[k].rows, sizeof(double) * SQ_FAULT_LOG_COLS * nsteps) == 0);
  }
  /* the station between points slipped and differs from the one on the point */
  const double *r1 = a.fault->log[1].rows + (nsteps - 1) * SQ_FAULT_LOG_COLS,
               *r0 = a.fault->log[0].rows + (nsteps - 1) * SQ_FAULT_LOG_COLS;
  printf("stations after %d steps: on point 3 slip %.6g, between points %.6g\n", nsteps, r0[8], r1[8]);
  ck_assert(r1[8] != r0[8]);
  run_destroy(&a);
  run_destroy(&b);
}
END_TEST

/* SeisSol's fault energies of a prescribed state: slip D, slip path S, traction T, work W at every point,
 * the initial traction T0 = (-1, shear, 0) of init_point; against the closed forms times the fault area
 * (the sum of the owned faces' areas). */
START_TEST(seissol_energies) {
  run r;
  run_create(&r, 1, &slipping, 64, 1);
  sq_fault *f = r.fault;
  const double D[2] = {0.3, -0.2}, S = 0.45, T[2] = {0.25, 0.05}, W = 0.04;
  double area = 0.0;
  for (int64_t i = 0; i < f->nface; ++i) area += f->face[i].owned[0] ? f->face[i].area : 0.0;
  for (int64_t i = 0; i < f->nface * f->npoint; ++i) {
    sq_friction_state *st = &f->point[i].state;
    st->slip[0] = D[0], st->slip[1] = D[1], st->slip_path = S, st->traction[0] = T[0], st->traction[1] = T[1];
    st->work = W;
  }
  double e[3];
  sq_fault_energies_seissol(f, r.disc, e);
  const double t0 = slipping.shear;
  const double total = (t0 * D[0] - W) * area, stat = -0.5 * ((T[0] - t0) * D[0] + T[1] * D[1]) * area;
  ck_assert_msg(fabs(e[0] - total) < 1e-12 * fabs(total), "total frictional work %.15g, want %.15g", e[0], total);
  ck_assert_msg(fabs(e[1] - stat) < 1e-12 * fabs(stat), "static frictional work %.15g, want %.15g", e[1], stat);
  ck_assert_msg(fabs(e[2] - S * area) < 1e-12 * S * area, "seismic moment %.15g, want %.15g", e[2], S * area);
  run_destroy(&r);
}
END_TEST

/* fault.reference_convention: SeisSol's point marks our "-" side; a direction (refPointMethod 1) points
 * along the normal.  The native point at x > 0, SeisSol's at x < 0 and the direction +x list the same
 * faces from the same side; SeisSol's point at x > 0 lists each face from the other side. */
START_TEST(reference_conventions) {
  make_mesh();
  sq_mesh *mesh;
  ck_assert_int_eq(sq_mesh_read(mesh_path, &mesh), 0);
  sq_material *mat = malloc(sizeof(sq_material) * mesh->ncell);
  for (int64_t c = 0; c < mesh->ncell; ++c) mat[c] = unit;
  const sq_disc_options opt = {
      .order = 2, .precision = SQ_F64, .cfl = 0.5, .tile_size = 64, .lts_rate = 1, .max_clusters = 1, .rupture = 1};
  sq_disc *d;
  ck_assert_int_eq(sq_disc_create(mesh, mat, &opt, &d), 0);
  const sq_fault_options fo[4] = {
      {.law = SQ_FRICTION_LSW, .reference = {1.0, 0.0, -0.5}},
      {.law = SQ_FRICTION_LSW, .reference = {-1.0, 0.0, -0.5}, .reference_convention = SQ_FAULT_REF_SEISSOL},
      {.law = SQ_FRICTION_LSW,
       .reference = {2.0, 0.0, 0.0},
       .reference_convention = SQ_FAULT_REF_SEISSOL,
       .reference_method = SQ_FAULT_REF_VECTOR},
      {.law = SQ_FRICTION_LSW, .reference = {1.0, 0.0, -0.5}, .reference_convention = SQ_FAULT_REF_SEISSOL}};
  sq_fault *f[4];
  for (int k = 0; k < 4; ++k) ck_assert_int_eq(sq_fault_create(d, &fo[k], init_point, (void *)&slipping, &f[k]), 0);
  for (int k = 1; k < 4; ++k) ck_assert_int_eq(f[k]->nface, f[0]->nface);
  for (int64_t i = 0; i < f[0]->nface; ++i) {
    ck_assert(f[0]->face[i].frame[0] > 0.99); /* the normal points to the point, at x > 0 */
    for (int k = 1; k < 3; ++k) {
      ck_assert_int_eq(f[k]->face[i].elem[0], f[0]->face[i].elem[0]);
      for (int c = 0; c < 9; ++c) ck_assert(f[k]->face[i].frame[c] == f[0]->face[i].frame[c]);
    }
    /* the other side: n and s flip, the down-dip vector stays */
    ck_assert(f[3]->face[i].frame[0] < -0.99);
    int found = 0;
    for (int64_t j = 0; j < f[3]->nface; ++j)
      if (f[3]->face[j].elem[0] == f[0]->face[i].elem[1] && f[3]->face[j].elem[1] == f[0]->face[i].elem[0]) {
        found = 1;
        for (int c = 0; c < 6; ++c) ck_assert(fabs(f[3]->face[j].frame[c] + f[0]->face[i].frame[c]) < 1e-12);
        for (int c = 6; c < 9; ++c) ck_assert(fabs(f[3]->face[j].frame[c] - f[0]->face[i].frame[c]) < 1e-12);
      }
    ck_assert(found);
  }
  for (int k = 0; k < 4; ++k) sq_fault_destroy(f[k]);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
  free(mat);
}
END_TEST

/* ------------------------------------------------------------------ kinematic sources */

/* Imposed Yoffe slip rates: slip varying over the fault, onsets spreading from the middle. */
static int init_kinematic_one(const double x[3], sq_fault_point *pt) {
  memset(pt, 0, sizeof(*pt));
  pt->param = (sq_friction_params){.slip_strike = 0.01 + 0.005 * x[1],
                                   .slip_dip = -0.004 * (x[2] + 0.5),
                                   .onset = 0.05 * hypot(x[1], x[2] + 0.45),
                                   .tau_s = 0.01,
                                   .rise_time = 0.04};
  pt->traction0[0] = -1.0;
  return SQ_SUCCESS;
}

/* sq_fault_init_fn of the kinematic fault: every point in one call */
static int init_kinematic(void *ctx, int64_t n, const double *x, const double *frame, const int *group,
                          sq_fault_point *pt) {
  (void)ctx, (void)frame, (void)group;
  for (int64_t p = 0; p < n; ++p) init_kinematic_one(&x[3 * p], &pt[p]);
  return SQ_SUCCESS;
}

START_TEST(kinematic_slip_lts) {
  /* LTS (rate 2) through the task graph past the end of every point's slip-rate function: the slip of every
   * point is its prescribed final slip exactly; the run is the same for any tile size */
  run r[2];
  for (int k = 0; k < 2; ++k) {
    make_mesh();
    ck_assert_int_eq(sq_mesh_read(mesh_path, &r[k].mesh), 0);
    r[k].mat = malloc(sizeof(sq_material) * r[k].mesh->ncell);
    for (int64_t c = 0; c < r[k].mesh->ncell; ++c) r[k].mat[c] = unit;
    const sq_disc_options opt = {.order = 3,
                                 .precision = SQ_F64,
                                 .cfl = 0.5,
                                 .tile_size = k ? 16 : 64,
                                 .lts_rate = 2,
                                 .max_clusters = 4,
                                 .rupture = 1};
    ck_assert_int_eq(sq_disc_create(r[k].mesh, r[k].mat, &opt, &r[k].disc), 0);
    const sq_fault_options fo = {.law = SQ_FRICTION_KINEMATIC_YOFFE, .reference = {1.0, 0.0, -0.5}};
    ck_assert_int_eq(sq_fault_create(r[k].disc, &fo, init_kinematic, NULL, &r[k].fault), 0);
    initial(r[k].disc);
  }
  const sq_fault *f = r[0].fault;
  double end = 0.0;
  for (int64_t i = 0; i < f->nface * f->npoint; ++i)
    end = fmax(end, sq_kinematic_end_time(SQ_FRICTION_KINEMATIC_YOFFE, &f->point[i].param));
  const int nsteps = (int)ceil(end / r[0].disc->cluster_dt[r[0].disc->ncluster - 1]) + 1;
  ck_assert_int_gt(r[0].disc->ncluster, 1);
  graph_run(&r[0], nsteps, 0);
  graph_run(&r[1], nsteps, 1);
  int64_t exact = 0;
  for (int64_t i = 0; i < f->nface * f->npoint; ++i) {
    const sq_fault_point *pt = &f->point[i];
    exact += pt->state.slip[0] == pt->param.slip_strike && pt->state.slip[1] == pt->param.slip_dip &&
             pt->state.slip_rate[0] == 0.0 && pt->state.slip_rate[1] == 0.0;
    ck_assert(memcmp(&pt->state, &r[1].fault->point[i].state, sizeof(pt->state)) == 0);
  }
  ck_assert_int_eq(exact, f->nface * f->npoint);
  ck_assert_uint_eq(sq_disc_hash(r[0].disc), sq_disc_hash(r[1].disc));
  for (int k = 0; k < 2; ++k) run_destroy(&r[k]);
}
END_TEST

/* A slipping run on the fault mesh with the Prakash-Clifton regularisation (length pc_length, V* = 1; 0: off),
 * the "+" side (x > 0) of material `plus` (the "-" side is `unit`), stepped serially 60 steps. */
static void run_pc(run *r, double pc_length, const sq_material *plus) {
  make_mesh();
  ck_assert_int_eq(sq_mesh_read(mesh_path, &r->mesh), 0);
  r->mat = malloc(sizeof(sq_material) * r->mesh->ncell);
  for (int64_t c = 0; c < r->mesh->ncell; ++c) {
    double x = 0;
    for (int v = 0; v < 4; ++v) x += 0.25 * r->mesh->vert[r->mesh->cell_vert[c * 4 + v] * 3];
    r->mat[c] = x > 0 ? *plus : unit;
  }
  const sq_disc_options opt = {
      .order = 3, .precision = SQ_F64, .cfl = 0.5, .tile_size = 64, .lts_rate = 1, .max_clusters = 1, .rupture = 1};
  ck_assert_int_eq(sq_disc_create(r->mesh, r->mat, &opt, &r->disc), 0);
  const sq_fault_options fo = {
      .law = SQ_FRICTION_LSW, .reference = {1.0, 0.0, -0.5}, .pc_v_star = 1.0, .pc_length = pc_length};
  ck_assert_int_eq(sq_fault_create(r->disc, &fo, init_point, (void *)&slipping, &r->fault), 0);
  initial(r->disc);
  step_serial(r, 60);
}

static int same_run(const run *a, const run *b) {
  const size_t nd = sizeof(double) * a->disc->nelem * a->disc->nbasis * 9;
  int same = !memcmp(a->disc->dofs, b->disc->dofs, nd);
  for (int64_t i = 0; i < a->fault->nface * a->fault->npoint && same; ++i) /* the parameters differ */
    same = !memcmp(&a->fault->point[i].state, &b->fault->point[i].state, sizeof(sq_friction_state));
  return same;
}

/* Bimaterial faults: the Prakash-Clifton regularisation changes nothing between identical materials (bitwise);
 * between two materials the normal stress varies with slip, the strength follows the regularised sigma*,
 * which lags sigma_n, and the limit L -> 0 is the plain law bitwise. */
START_TEST(bimaterial_prakash_clifton) {
  const sq_material soft = {.rho = 0.8, .lambda = 1.0, .mu = 0.5};
  run a, b;
  run_pc(&a, 0.0, &unit);
  run_pc(&b, 0.05, &unit);
  ck_assert_msg(same_run(&a, &b), "identical materials: the regularised run differs from the plain law");
  run_destroy(&b);
  run_destroy(&a);
  run plain, reg, limit;
  run_pc(&plain, 0.0, &soft);
  run_pc(&reg, 0.05, &soft);
  run_pc(&limit, 1e-300, &soft);
  ck_assert_msg(same_run(&plain, &limit), "L -> 0: the regularised run differs from the plain law");
  ck_assert_msg(!same_run(&plain, &reg), "L = 0.05 changes nothing on a bimaterial fault");
  double dsn = 0, lag = 0;
  int64_t ruptured = 0;
  const sq_fault *f = reg.fault;
  for (int64_t i = 0; i < f->nface * f->npoint; ++i) {
    const sq_fault_point *pt = &f->point[i], *pp = &plain.fault->point[i];
    const sq_friction_state *st = &pt->state;
    ck_assert_double_eq(pp->state.normal_stress, pp->state.sigma_pc); /* off: sigma* = sigma_n */
    dsn = fmax(dsn, fabs(pp->state.normal_stress + 1.0));
    lag = fmax(lag, fabs(st->sigma_pc - st->normal_stress));
    const double strength = pt->param.cohesion + st->mu * fmax(0.0, -st->sigma_pc);
    ck_assert_msg(hypot(st->traction[0], st->traction[1]) <= strength * (1 + 1e-12) + 1e-12,
                  "traction %g above the regularised strength %g", hypot(st->traction[0], st->traction[1]), strength);
    ruptured += st->rupture_time >= 0;
  }
  printf("bimaterial fault: max |sigma_n - sigma_0| = %.3e (plain law), max |sigma* - sigma_n| = %.3e (L = 0.05), "
         "%lld points ruptured\n",
         dsn, lag, (long long)ruptured);
  ck_assert_msg(dsn > 1e-3, "the normal stress does not change on the bimaterial fault (%g)", dsn);
  ck_assert_msg(lag > 1e-4, "sigma* does not lag sigma_n (%g)", lag);
  ck_assert_int_gt(ruptured, f->nface / 10);
  run_destroy(&plain);
  run_destroy(&reg);
  run_destroy(&limit);
}
END_TEST

/* The regularisation at one point of a rate-and-state (aging) fault, where the Godunov normal stress steps from
 * -120 to -130 MPa: sigma_n is stored as it is, sigma* moves monotonically from -120 MPa towards it, and the
 * sliding point carries exactly f(V, state) |sigma*|; between identical impedances sigma* = sigma_n at once. */
START_TEST(bimaterial_point_rate_state) {
  const double zb[4] = {1.6e7, 0.8e7, 0.9e7, 0.5e7}, zi[4] = {1.6e7, 1.6e7, 0.9e7, 0.9e7};
  for (int same = 0; same < 2; ++same) {
    const double *z = same ? zi : zb;
    sq_fault_point pt;
    memset(&pt, 0, sizeof(pt));
    pt.param = (sq_friction_params){
        .a = 0.01, .b = 0.014, .L = 0.02, .f0 = 0.6, .V0 = 1e-6, .pc_v_star = 1.0, .pc_length = 0.01};
    pt.traction0[0] = -120e6, pt.traction0[1] = 75e6;
    sq_friction_init_state(SQ_FRICTION_RS_AGING, &pt.param, 1e-3, 75e6, -120e6, &pt.state);
    pt.state.slip_rate[0] = 1e-3;
    /* locked Godunov normal stress sn = eta_p (qm / zpm + qp / zpp) = -10 MPa, no shear change */
    const double qm[6] = {-10e6, 0, 0, 0, 0, 0}, qp[6] = {-10e6, 0, 0, 0, 0, 0};
    const double eta_p = sq_fault_eta(z[0], z[1]), eta_s = sq_fault_eta(z[2], z[3]);
    double prev = -120e6;
    for (int k = 0; k < 20; ++k) {
      double im[6] = {0}, ip[6] = {0};
      ck_assert_int_eq(
          sq_fault_solve_point(SQ_FRICTION_RS_AGING, z, eta_p, eta_s, 1e-3 * k, 1e-3, 1.0, qm, qp, &pt, NULL, im, ip),
          0);
      const sq_friction_state *st = &pt.state;
      ck_assert_double_eq_tol(st->normal_stress, -130e6, 1e-6);
      if (same) ck_assert_double_eq(st->sigma_pc, st->normal_stress);
      else
        ck_assert_msg(st->sigma_pc < prev && st->sigma_pc > -130e6, "step %d: sigma* = %.9g after %.9g", k,
                      st->sigma_pc, prev);
      const double V = hypot(st->slip_rate[0], st->slip_rate[1]), tau = hypot(st->traction[0], st->traction[1]);
      ck_assert(V > 0);
      ck_assert_msg(fabs(tau - st->mu * -st->sigma_pc) <= 1e-9 * tau, "step %d: |tau| %.12g, f |sigma*| %.12g", k, tau,
                    st->mu * -st->sigma_pc);
      prev = st->sigma_pc;
    }
  }
}
END_TEST

int main(void) {
  setenv("STARPU_SILENT", "1", 0);
  setenv("STARPU_NCPU", "2", 0);
  const TTest *tests[] = {locked_equals_welded,       slipping_fault_physics,       graph_equals_serial,
                          station_weights_exact,      station_rupture_time_kink,    station_weights_converge,
                          station_locate_on_mesh,     stations_graph_equals_serial, face_average_snapshot,
                          seissol_energies,           reference_conventions,        kinematic_slip_lts,
                          bimaterial_prakash_clifton, bimaterial_point_rate_state,  NULL};
  Suite *s = sq_test_suite("fault", 600, tests);
  struct starpu_conf conf;
  starpu_conf_init(&conf);
  if (starpu_init(&conf) != 0) return 77;
  const int status = sq_test_run(s, 0);
  starpu_shutdown();
  return status;
}
