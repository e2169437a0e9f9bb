/**
 * @file test_fault.c  Check suite for dynamic rupture faces (src/fault.c, codelets/rupture.c) on a
 * Gmsh-made mesh with an embedded fault (tests/meshes/fault.geo, meshed here by the real gmsh):
 * a fault that never reaches its strength reproduces the welded (no fault) solution to round-off;
 * the task graph reproduces the serial reference bitwise while the fault slips; a slipping fault
 * carries at most its strength and slips along its traction.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <starpu.h>

#include "sq_check.h"
#include "sq_fault.h"
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

static int init_point(void *ctx, const double x[3], const double frame[9], sq_fault_point *pt) {
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

int main(void) {
  setenv("STARPU_SILENT", "1", 0);
  setenv("STARPU_NCPU", "2", 0);
  const TTest *tests[] = {locked_equals_welded, slipping_fault_physics, graph_equals_serial, NULL};
  Suite *s = sq_test_suite("fault", 600, tests);
  struct starpu_conf conf;
  starpu_conf_init(&conf);
  if (starpu_init(&conf) != 0) return 77;
  const int status = sq_test_run(s, 0);
  starpu_shutdown();
  return status;
}
