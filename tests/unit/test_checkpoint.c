/**
 * @file test_checkpoint.c  Check suite for the checkpoint, snapshot and field code (checkpoint.c,
 * xdmf.c, fields.c): a checkpoint round-trips the dofs bitwise and refuses a mismatched run; XDMF/HDF5
 * snapshots read back through the HDF5 C API and continue after a restart; cell averages, vertex
 * values, surface values and the kinetic/elastic energy split are exact for polynomial fields; and
 * the `checkpoint` and extended `output` config sections.
 */
#include "sq_check.h"
#include <hdf5.h>
#include <math.h>
#include <sys/stat.h>

#include "sq_fields.h"
#include "sq_output.h"
#include "sq_test_util.h"

static void linear_field(const void *ctx, const double x[3], double t, double q[9]) {
  (void)ctx, (void)t;
  for (int p = 0; p < 9; ++p) q[p] = 0.1 * (p + 1) + (p + 1) * x[0] - 2.0 * x[1] + 0.5 * (p % 3) * x[2];
}

static void velocity_only(const void *ctx, const double x[3], double t, double q[9]) {
  (void)ctx, (void)t, (void)x;
  memset(q, 0, 9 * sizeof(double));
  q[6] = 1.0, q[7] = -2.0, q[8] = 0.5;
}

static void stress_only(const void *ctx, const double x[3], double t, double q[9]) {
  (void)ctx, (void)t, (void)x;
  memset(q, 0, 9 * sizeof(double));
  q[3] = 0.7; /* pure shear: elastic energy density s_xy^2 / (2 mu) */
}

START_TEST(checkpoint_roundtrip) {
  for (int prec = 0; prec < 2; ++prec) {
    sq_mesh *mesh;
    sq_disc *d = sq_test_box_disc(3, 4, prec ? SQ_F32 : SQ_F64, 0.1, 16, &mesh);
    sq_disc_project(d, linear_field, NULL, 0.0);
    const uint64_t h = sq_disc_hash(d);
    char path[128];
    snprintf(path, sizeof(path), "/tmp/sq_tck_%d.h5", (int)getpid());
    sq_checkpoint_info info = {.time = 1.25,
                               .dt = 0.0123456789,
                               .plan_t0 = 0.0,
                               .plan_step0 = 0,
                               .steps = 17,
                               .nsteps = 100,
                               .order = 4,
                               .precision = prec,
                               .ncell = mesh->ncell,
                               .receiver_samples = 123,
                               .energy_rows = 4,
                               .wavefield_steps = 3,
                               .surface_steps = 2};
    ck_assert_int_eq(sq_checkpoint_write(path, d, &info), 0);
    memset(d->dofs, 0, sq_disc_elem_bytes(d) * d->nelem);
    sq_checkpoint_info back;
    ck_assert_int_eq(sq_checkpoint_read(path, d, &back), 0);
    ck_assert_uint_eq(sq_disc_hash(d), h);
    ck_assert_int_eq(memcmp(&back, &info, sizeof(info)), 0);
    sq_disc_destroy(d);
    sq_mesh_destroy(mesh);
    /* another order or mesh: refused with a message that says why */
    d = sq_test_box_disc(3, 3, prec ? SQ_F32 : SQ_F64, 0.1, 16, &mesh);
    const int saved = sq_test_capture_begin();
    const int rc = sq_checkpoint_read(path, d, &back);
    sq_test_capture_end(saved);
    ck_assert_int_eq(rc, SQ_ERR_INPUT);
    ck_assert_msg(strstr(sq_test_msg, "does not fit this run") && strstr(sq_test_msg, "order 4") &&
                      strstr(sq_test_msg, "order 3"),
                  "message: %s", sq_test_msg);
    sq_disc_destroy(d);
    sq_mesh_destroy(mesh);
    unlink(path);
  }
}
END_TEST

START_TEST(field_values) {
  sq_mesh *mesh;
  sq_disc *d = sq_test_box_disc(3, 3, SQ_F64, 0.1, 16, &mesh);
  sq_disc_project(d, linear_field, NULL, 0.0);
  double *avg = malloc(sizeof(double) * mesh->ncell), *vert = malloc(sizeof(double) * mesh->nvert);
  for (int p = 0; p < 9; ++p) {
    sq_fields_cell_average(d, p, avg);
    for (int64_t c = 0; c < mesh->ncell; ++c) { /* a linear field's average is its centroid value */
      double q[9];
      linear_field(NULL, &mesh->centroid[3 * c], 0, q);
      ck_assert_double_eq_tol(avg[c], q[p], 1e-12);
    }
    sq_fields_vertex_values(d, p, vert); /* a linear field is continuous: vertex values exact */
    for (int64_t v = 0; v < mesh->nvert; ++v) {
      double q[9];
      linear_field(NULL, &mesh->vert[3 * v], 0, q);
      ck_assert_double_eq_tol(vert[v], q[p], 1e-11);
    }
  }
  sq_surface *s;
  ck_assert_int_eq(sq_surface_create(mesh, &s), 0);
  ck_assert_int_eq(s->nface, 2 * 3 * 3); /* zmax is the free surface: two triangles per square */
  double *sv = malloc(sizeof(double) * s->nface);
  sq_fields_surface_values(d, s, 6, sv);
  for (int64_t i = 0; i < s->nface; ++i) {
    double x[3] = {0, 0, 0}, q[9];
    for (int k = 0; k < 3; ++k)
      for (int a = 0; a < 3; ++a) x[a] += mesh->vert[3 * s->tri[3 * i + k] + a] / 3.0;
    ck_assert_double_eq_tol(x[2], 1.0, 1e-12);
    linear_field(NULL, x, 0, q);
    ck_assert_double_eq_tol(sv[i], q[6], 1e-11);
  }
  /* energies: kinetic 1/2 rho |v|^2 V, elastic s_xy^2 / (2 mu) V, each exact */
  double kin, el;
  sq_disc_project(d, velocity_only, NULL, 0.0);
  sq_fields_energy(d, &kin, &el);
  ck_assert_double_eq_tol(kin, 0.5 * 2.0 * (1.0 + 4.0 + 0.25), 1e-12);
  ck_assert_double_eq_tol(el, 0.0, 1e-14);
  ck_assert_double_eq_tol(kin + el, sq_disc_energy(d), 1e-12);
  sq_disc_project(d, stress_only, NULL, 0.0);
  sq_fields_energy(d, &kin, &el);
  ck_assert_double_eq_tol(kin, 0.0, 1e-14);
  ck_assert_double_eq_tol(el, 0.49 / 2.0, 1e-12);
  sq_surface_destroy(s);
  free(sv);
  free(avg);
  free(vert);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
}
END_TEST

static double read_attr_time(hid_t file, const char *group) {
  hid_t g = H5Gopen2(file, group, H5P_DEFAULT);
  hid_t a = H5Aopen(g, "time", H5P_DEFAULT);
  double t = NAN;
  H5Aread(a, H5T_NATIVE_DOUBLE, &t);
  H5Aclose(a);
  H5Gclose(g);
  return t;
}

START_TEST(xdmf_series) {
  sq_mesh *mesh;
  sq_disc *d = sq_test_box_disc(2, 3, SQ_F64, 0.0, 16, &mesh);
  char dir[64];
  snprintf(dir, sizeof(dir), "/tmp/sq_txdmf_%d", (int)getpid());
  mkdir(dir, 0777);
  sq_xdmf_writer *w;
  ck_assert_int_eq(
      sq_xdmf_open(dir, "p", "wavefield", mesh->nvert, mesh->vert, NULL, mesh->ncell, 4, mesh->cell_vert, NULL, -1, &w),
      0);
  double *v1 = malloc(sizeof(double) * mesh->ncell), *v2 = malloc(sizeof(double) * mesh->ncell);
  const char *names[2] = {"v1", "s_xy"};
  for (int k = 0; k < 3; ++k) {
    for (int64_t c = 0; c < mesh->ncell; ++c) v1[c] = k * 100 + c, v2[c] = -c;
    const double *vals[2] = {v1, v2};
    ck_assert_int_eq(sq_xdmf_write(w, 0.5 * k, 2, names, vals, SQ_XDMF_CELL, NULL), 0);
  }
  sq_xdmf_close(w);
  /* read back through the HDF5 C API */
  char path[128];
  snprintf(path, sizeof(path), "%s/p-wavefield.h5", dir);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  hid_t set = H5Dopen2(f, "mesh/topology", H5P_DEFAULT);
  hid_t sp = H5Dget_space(set);
  hsize_t dims[2];
  H5Sget_simple_extent_dims(sp, dims, NULL);
  ck_assert_int_eq(dims[0], mesh->ncell);
  ck_assert_int_eq(dims[1], 4);
  H5Sclose(sp);
  H5Dclose(set);
  set = H5Dopen2(f, "step_000002/v1", H5P_DEFAULT);
  double *back = malloc(sizeof(double) * mesh->ncell);
  H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, back);
  H5Dclose(set);
  ck_assert_double_eq(back[5], 205.0);
  ck_assert_double_eq(read_attr_time(f, "step_000001"), 0.5);
  H5Fclose(f);
  snprintf(path, sizeof(path), "%s/p-wavefield.xdmf", dir);
  FILE *x = fopen(path, "r");
  char text[65536];
  text[fread(text, 1, sizeof(text) - 1, x)] = 0;
  fclose(x);
  ck_assert(strstr(text, "CollectionType=\"Temporal\""));
  ck_assert(strstr(text, "TopologyType=\"Tetrahedron\""));
  ck_assert(strstr(text, "p-wavefield.h5:/step_000002/s_xy"));
  ck_assert(strstr(text, "<Time Value=\"1\"/>"));
  /* continue after a restart that kept 2 snapshots: step 2 is dropped, then written anew */
  ck_assert_int_eq(
      sq_xdmf_open(dir, "p", "wavefield", mesh->nvert, mesh->vert, NULL, mesh->ncell, 4, mesh->cell_vert, NULL, 2, &w),
      0);
  ck_assert_int_eq(sq_xdmf_count(w), 2);
  for (int64_t c = 0; c < mesh->ncell; ++c) v1[c] = -7.0;
  const double *vals[2] = {v1, v2};
  ck_assert_int_eq(sq_xdmf_write(w, 0.75, 2, names, vals, SQ_XDMF_CELL, NULL), 0);
  sq_xdmf_close(w);
  snprintf(path, sizeof(path), "%s/p-wavefield.h5", dir);
  f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_double_eq(read_attr_time(f, "step_000002"), 0.75);
  ck_assert_double_eq(read_attr_time(f, "step_000000"), 0.0);
  H5Fclose(f);
  free(back);
  free(v1);
  free(v2);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
}
END_TEST

/* sq_rows: runs of rows become hyperslabs; a read takes any rows, a size mismatch names both sizes. */
START_TEST(h5_rows) {
  char path[128];
  snprintf(path, sizeof(path), "/tmp/sq_trows_%d.h5", (int)getpid());
  enum { N = 10 };
  double v[N][2];
  int64_t all[N], ids[N];
  for (int i = 0; i < N; ++i) v[i][0] = i, v[i][1] = -0.5 * i, all[i] = i, ids[i] = 100 + i;
  const sq_rows every = {.n = N, .id = all}, tail = {.n = 4, .first = 6};
  const sq_h5_set out[] = {
      {"pairs", 0, N, 2, &every, v}, {"ids", 1, N, 0, NULL, ids}, {"tail", 1, N, 0, &tail, ids + 6}};
  ck_assert_int_eq(sq_h5_file_write(path, "the test file", 3, out), 0);
  ck_assert_int_ne(access(path, F_OK), -1);
  /* read three runs: {1}, {3, 4}, {8} */
  const int64_t pick[4] = {1, 3, 4, 8};
  const sq_rows some = {.n = 4, .id = pick};
  double back[4][2] = {{0}};
  int64_t back_ids[N] = {0};
  const sq_h5_set in[] = {{"pairs", 0, N, 2, &some, back}, {"ids", 1, N, 0, NULL, back_ids}};
  ck_assert_int_eq(sq_h5_file_read(path, "the test file", 2, in), 0);
  for (int k = 0; k < 4; ++k) ck_assert(back[k][0] == (double)pick[k] && back[k][1] == -0.5 * pick[k]);
  for (int i = 0; i < N; ++i) ck_assert_int_eq(back_ids[i], 100 + i);
  int64_t back_tail[N] = {0};
  const sq_h5_set in_tail[] = {{"tail", 1, N, 0, NULL, back_tail}};
  ck_assert_int_eq(sq_h5_file_read(path, "the test file", 1, in_tail), 0);
  for (int i = 6; i < N; ++i) ck_assert_int_eq(back_tail[i], 100 + i);
  /* rows not ascending, another size, a missing dataset: errors, no crash */
  const int64_t bad[2] = {4, 3};
  const sq_rows unsorted = {.n = 2, .id = bad};
  const sq_h5_set wrong[] = {{"pairs", 0, N, 2, &unsorted, back}};
  ck_assert_int_ne(sq_h5_file_read(path, "the test file", 1, wrong), 0);
  const sq_h5_set other[] = {{"pairs", 0, N + 1, 2, &some, back}};
  ck_assert_int_eq(sq_h5_file_read(path, "the test file", 1, other), SQ_ERR_INPUT);
  const sq_h5_set missing[] = {{"nothing", 0, N, 0, NULL, back}};
  ck_assert_int_eq(sq_h5_file_read(path, "the test file", 1, missing), SQ_ERR_INPUT);
  unlink(path);
}
END_TEST

START_TEST(config_output_and_checkpoint) {
  sq_config c;
  const char *yaml = "mesh: {type: box}\nmaterials: {default: {rho: 1, vp: 2, vs: 1}}\nequations: {end_time: 1}\n"
                     "output:\n  interval: 0.1\n  fields: [v1, v3, s_xy]\n  vertex_values: true\n  surface: true\n"
                     "  format: xdmf\ncheckpoint: {interval: 0.5, directory: ck}\n";
  ck_assert_int_eq(sq_test_load(yaml, &c), 0);
  ck_assert_int_eq(c.output_fields, (1 << 6) | (1 << 8) | (1 << 3));
  ck_assert_int_eq(c.output_vertex, 1);
  ck_assert_int_eq(c.output_surface, 1);
  ck_assert_double_eq(c.checkpoint_interval, 0.5);
  ck_assert_str_eq(c.checkpoint_dir, "ck");
  SQ_TEST_CONFIG_ERROR("mesh: {type: box}\nmaterials: {default: {rho: 1, vp: 2, vs: 1}}\nequations: {end_time: 1}\n"
                       "output:\n  fields: [v1, v4]\n",
                       "test.yaml:5: key 'output.fields[1]'", "did you mean 'v1'");
  SQ_TEST_CONFIG_ERROR("mesh: {type: box}\nmaterials: {default: {rho: 1, vp: 2, vs: 1}}\nequations: {end_time: 1}\n"
                       "output:\n  fields: [v1, v1]\n",
                       "test.yaml:5", "'v1' is listed twice");
  SQ_TEST_CONFIG_ERROR("mesh: {type: box}\nmaterials: {default: {rho: 1, vp: 2, vs: 1}}\nequations: {end_time: 1}\n"
                       "checkpoint: {interval: -1}\n",
                       "test.yaml:4: key 'checkpoint.interval'", "out of range");
  SQ_TEST_CONFIG_ERROR("mesh: {type: box}\nmaterials: {default: {rho: 1, vp: 2, vs: 1}}\nequations: {end_time: 1}\n"
                       "output: {format: vtk}\n",
                       "key 'output.format'", "expected one of: xdmf, none");
}
END_TEST

int main(void) {
  const TTest *tests[] = {checkpoint_roundtrip, field_values, xdmf_series, h5_rows, config_output_and_checkpoint, NULL};
  Suite *s = sq_test_suite("checkpoint", 60, tests);
  return sq_test_run(s, 1);
}
