/**
 * @file test_receivers.c  Check suite for locate.c, receiver.c and receiver_writer.c:
 * point location (inside, on shared faces, outside), the partition of sample times between steps,
 * the Taylor sampling kernel, the error listing every receiver outside the mesh, the text/HDF5
 * files (read back), their continuation after a restart, and the `receivers` config section.
 */
#include "sq_check.h"
#include <hdf5.h>
#include <math.h>
#include <sys/stat.h>

#include "sq_fields.h"
#include "sq_locate.h"
#include "sq_output.h"
#include "sq_receiver.h"
#include "sq_test_util.h"

START_TEST(locate_points) {
  sq_mesh *mesh;
  sq_disc *d = sq_test_box_disc(4, 3, SQ_F64, 0.15, 32, &mesh);
  sq_locator *loc;
  ck_assert_int_eq(sq_locator_create(mesh, &loc), 0);
  /* every cell's centroid is found in that cell, and xi maps back to the point */
  for (int64_t c = 0; c < mesh->ncell; ++c) {
    double xi[3], x[3];
    const int64_t found = sq_locator_find(loc, &mesh->centroid[3 * c], xi);
    ck_assert_int_eq(found, c);
    sq_mesh_ref_to_phys(mesh, c, xi, x);
    for (int k = 0; k < 3; ++k) ck_assert_double_eq_tol(x[k], mesh->centroid[3 * c + k], 1e-12);
  }
  /* points on shared faces and vertices are found, and always in the same cell */
  for (int64_t v = 0; v < mesh->nvert; ++v) {
    double xi[3];
    const int64_t a = sq_locator_find(loc, &mesh->vert[3 * v], xi), b = sq_locator_find(loc, &mesh->vert[3 * v], NULL);
    ck_assert_int_ge(a, 0);
    ck_assert_int_eq(a, b);
  }
  /* outside */
  const double out1[3] = {1.2, 0.5, 0.5}, out2[3] = {0.5, -1e-3, 0.5}, edge[3] = {1.0, 1.0, 1.0};
  ck_assert_int_eq(sq_locator_find(loc, out1, NULL), -1);
  ck_assert_int_eq(sq_locator_find(loc, out2, NULL), -1);
  ck_assert_int_ge(sq_locator_find(loc, edge, NULL), 0); /* the box corner is inside */
  sq_locator_destroy(loc);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
}
END_TEST

START_TEST(sample_partition) {
  /* consecutive steps share boundaries: every sample is taken exactly once */
  const double iv = 0.01;
  const double bounds[] = {0.0, 0.013, 0.02, 0.03, 0.0300000001, 0.1, 0.1};
  int64_t next = 0;
  for (int k = 0; k + 1 < 7; ++k) {
    int64_t jb, je;
    sq_receiver_samples_in(iv, bounds[k], bounds[k + 1], &jb, &je);
    ck_assert_int_eq(jb, next);
    for (int64_t j = jb; j < je; ++j) {
      ck_assert((double)j * iv >= bounds[k]);
      ck_assert((double)j * iv < bounds[k + 1]);
    }
    next = je;
  }
  ck_assert_int_eq(next, 10); /* 0.00 .. 0.09 */
}
END_TEST

START_TEST(sampling_kernel) {
  sq_mesh *mesh;
  sq_disc *d = sq_test_box_disc(2, 4, SQ_F64, 0.0, 8, &mesh);
  const int O = 4, B = d->nbasis, nq = B * 9;
  sq_locator *loc;
  ck_assert_int_eq(sq_locator_create(mesh, &loc), 0);
  const double x[6] = {0.3, 0.4, 0.2, 0.71, 0.12, 0.93};
  const char *origin[2] = {"a:1", "a:2"};
  sq_receiver_set *rs;
  ck_assert_int_eq(sq_receiver_set_create(d, loc, 2, x, origin, 0.01, 0, &rs), 0);
  ck_assert_ptr_nonnull(d->derivs);
  /* fill the derivatives with D^i = (i+1) * (projection of a field): sample = sum tau^i/i! (i+1) q(x) */
  for (int64_t e = 0; e < d->nelem; ++e)
    for (int i = 0; i < O; ++i)
      for (int k = 0; k < nq; ++k) ((double *)d->derivs)[((size_t)e * O + i) * nq + k] = (i + 1) * 0.01 * (k + 1 + e);
  double out[3 * 2 * 9];
  for (int t = 0; t < d->ntile; ++t) {
    const int n = sq_receiver_set_count(rs, t);
    if (!n) continue;
    const double t0 = 0.005;
    sq_kernel_receivers(SQ_F64, O, n, &rs->point[rs->tile_begin[t]], (char *)d->derivs + d->tile[t].begin * nq * O * 8,
                        t0, 0.01, 1, 4, out, 2 * 9);
    for (int r = rs->tile_begin[t]; r < rs->tile_begin[t + 1]; ++r) {
      const sq_receiver_point *p = &rs->point[r];
      const int64_t e = d->tile[t].begin + p->elem;
      for (int j = 1; j < 4; ++j) {
        const double tau = j * 0.01 - t0;
        for (int q = 0; q < 9; ++q) {
          double expect = 0, fact = 1;
          for (int i = 0; i < O; ++i) {
            if (i) fact *= i;
            double v = 0;
            for (int k = 0; k < B; ++k) v += p->phi[k] * (i + 1) * 0.01 * (q * B + k + 1 + e);
            expect += pow(tau, i) / fact * v;
          }
          ck_assert_double_eq_tol(out[(j - 1) * 18 + p->index * 9 + q], expect, 1e-12 * (1 + fabs(expect)));
        }
      }
    }
  }
  sq_receiver_set_destroy(rs);
  sq_locator_destroy(loc);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
}
END_TEST

START_TEST(receivers_outside_listed) {
  sq_mesh *mesh;
  sq_disc *d = sq_test_box_disc(2, 3, SQ_F64, 0.0, 8, &mesh);
  sq_locator *loc;
  ck_assert_int_eq(sq_locator_create(mesh, &loc), 0);
  const double x[9] = {0.5, 0.5, 0.5, 2.0, 0.5, 0.5, 0.5, 0.5, -3.0};
  const char *origin[3] = {"run.yaml:30", "run.yaml:31", "stations.txt:7"};
  sq_receiver_set *rs = NULL;
  const int saved = sq_test_capture_begin();
  const int rc = sq_receiver_set_create(d, loc, 3, x, origin, 0.01, 0, &rs);
  sq_test_capture_end(saved);
  ck_assert_int_eq(rc, SQ_ERR_INPUT);
  ck_assert_msg(strstr(sq_test_msg, "run.yaml:31: receiver 2") && strstr(sq_test_msg, "stations.txt:7: receiver 3") &&
                    !strstr(sq_test_msg, "run.yaml:30") && strstr(sq_test_msg, "2 receivers lie outside") &&
                    strstr(sq_test_msg, "x 0..1, y 0..1, z 0..1"),
                "message:\n%s", sq_test_msg);
  sq_receiver_set_destroy(rs);
  sq_locator_destroy(loc);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
}
END_TEST

static void make_samples(int64_t first, int64_t count, int n, double *s) {
  for (int64_t j = 0; j < count; ++j)
    for (int r = 0; r < n; ++r)
      for (int p = 0; p < 9; ++p) s[(j * n + r) * 9 + p] = sin(0.1 * (first + j) + r) * (p + 1) * 1e-3;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  const long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc(n + 1);
  b[fread(b, 1, n, f)] = 0;
  fclose(f);
  return b;
}

static void read_h5(const char *path, double *time, double *data, hsize_t *nsample) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  hid_t t = H5Dopen2(f, "time", H5P_DEFAULT), d = H5Dopen2(f, "data", H5P_DEFAULT);
  hid_t sp = H5Dget_space(d);
  hsize_t dims[3];
  H5Sget_simple_extent_dims(sp, dims, NULL);
  *nsample = dims[0];
  if (time) H5Dread(t, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, time);
  if (data) H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  H5Sclose(sp);
  H5Dclose(t);
  H5Dclose(d);
  H5Fclose(f);
}

START_TEST(writer_files_and_continuation) {
  char dir_a[64], dir_b[64];
  snprintf(dir_a, sizeof(dir_a), "/tmp/sq_trec_a_%d", (int)getpid());
  snprintf(dir_b, sizeof(dir_b), "/tmp/sq_trec_b_%d", (int)getpid());
  mkdir(dir_a, 0777);
  mkdir(dir_b, 0777);
  const int n = 3;
  const double x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  double s[40 * 3 * 9];
  /* a: written in one go; b: 17 samples, then "killed" after 25 more, continued from 17 */
  sq_receiver_writer *wa, *wb;
  ck_assert_int_eq(sq_receiver_writer_open(dir_a, "r", n, x, NULL, 0.5, 1, -1, &wa), 0);
  make_samples(0, 40, n, s);
  ck_assert_int_eq(sq_receiver_writer_append(wa, 0, 40, s), 0);
  sq_receiver_writer_close(wa);
  ck_assert_int_eq(sq_receiver_writer_open(dir_b, "r", n, x, NULL, 0.5, 1, -1, &wb), 0);
  make_samples(0, 17, n, s);
  ck_assert_int_eq(sq_receiver_writer_append(wb, 0, 17, s), 0);
  make_samples(17, 25, n, s);
  ck_assert_int_eq(sq_receiver_writer_append(wb, 17, 25, s), 0);
  sq_receiver_writer_close(wb);
  ck_assert_int_eq(sq_receiver_writer_open(dir_b, "r", n, x, NULL, 0.5, 1, 17, &wb), 0);
  ck_assert_int_eq(sq_receiver_writer_count(wb), 17);
  make_samples(17, 23, n, s);
  ck_assert_int_eq(sq_receiver_writer_append(wb, 17, 23, s), 0);
  sq_receiver_writer_close(wb);
  char pa[128], pb[128];
  for (int r = 1; r <= n; ++r) {
    snprintf(pa, sizeof(pa), "%s/r-receiver-%05d.dat", dir_a, r);
    snprintf(pb, sizeof(pb), "%s/r-receiver-%05d.dat", dir_b, r);
    char *a = slurp(pa), *b = slurp(pb);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_str_eq(a, b);
    if (r == 2) { /* the SeisSol-compatible header, then 40 rows of 10 columns */
      ck_assert(strstr(a, "TITLE = \"Temporal Signal for receiver number 00002\"\n") == a);
      ck_assert(strstr(a, "VARIABLES = "
                          "\"Time\",\"s_xx\",\"s_yy\",\"s_zz\",\"s_xy\",\"s_yz\",\"s_xz\",\"v1\",\"v2\",\"v3\"\n"));
      ck_assert(
          strstr(a, "# x1  4.0000000000000000E+00\n# x2  5.0000000000000000E+00\n# x3  6.0000000000000000E+00\n"));
      int lines = 0;
      for (const char *c = a; *c; ++c) lines += *c == '\n';
      ck_assert_int_eq(lines, 5 + 40);
      double t, v[9];
      const char *row = strstr(a, "\n 1.5000000000000000E+00");
      ck_assert_ptr_nonnull(row);
      ck_assert_int_eq(sscanf(row, "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &t, v, v + 1, v + 2, v + 3, v + 4, v + 5,
                              v + 6, v + 7, v + 8),
                       10);
      ck_assert_double_eq(v[4], sin(0.1 * 3 + 1) * 5e-3); /* %.16E round-trips */
    }
    free(a);
    free(b);
  }
  double ta[40], tb[40], da[40 * 27], db[40 * 27];
  hsize_t na, nb;
  snprintf(pa, sizeof(pa), "%s/r-receivers.h5", dir_a);
  snprintf(pb, sizeof(pb), "%s/r-receivers.h5", dir_b);
  read_h5(pa, ta, da, &na);
  read_h5(pb, tb, db, &nb);
  ck_assert_int_eq(na, 40);
  ck_assert_int_eq(nb, 40);
  ck_assert_int_eq(memcmp(ta, tb, sizeof(ta)), 0);
  ck_assert_int_eq(memcmp(da, db, sizeof(da)), 0);
  ck_assert_double_eq(ta[7], 3.5);
  /* continuing with more samples than the files hold is an error */
  const int saved = sq_test_capture_begin();
  const int rc = sq_receiver_writer_open(dir_b, "r", n, x, NULL, 0.5, 1, 41, &wb);
  sq_test_capture_end(saved);
  ck_assert_int_eq(rc, SQ_ERR_INPUT);
  sq_receiver_writer_close(wb);
}
END_TEST

START_TEST(config_receivers) {
  sq_config c;
  const char *yaml = "mesh: {type: box}\nmaterials: {default: {rho: 1, vp: 2, vs: 1}}\nequations: {end_time: 1}\n"
                     "receivers:\n  points:\n    - [0.1, 0.2, 0.3]\n    - [0.4, 0.5, 0.6]\n  interval: 0.01\n"
                     "  flush_interval: 0.5\n  hdf5: false\n";
  ck_assert_int_eq(sq_test_load(yaml, &c), 0);
  ck_assert_int_eq(c.nreceivers, 2);
  ck_assert_double_eq(c.receiver_points[1][2], 0.6);
  ck_assert_int_eq(c.receiver_line[1], 7);
  ck_assert_double_eq(c.receiver_interval, 0.01);
  ck_assert_double_eq(c.receiver_flush, 0.5);
  ck_assert_int_eq(c.receiver_hdf5, 0);
  SQ_TEST_CONFIG_ERROR("mesh: {type: box}\nmaterials: {default: {rho: 1, vp: 2, vs: 1}}\nequations: {end_time: 1}\n"
                       "receivers:\n  points: [[0, 0, 0]]\n",
                       "test.yaml:4: key 'receivers.interval'", "required key is missing");
  SQ_TEST_CONFIG_ERROR("mesh: {type: box}\nmaterials: {default: {rho: 1, vp: 2, vs: 1}}\nequations: {end_time: 1}\n"
                       "receivers:\n  points: [[0, 0]]\n  interval: 0.1\n",
                       "test.yaml:5: key 'receivers.points[0]'", "expected exactly 3 numbers");
  SQ_TEST_CONFIG_ERROR("mesh: {type: box}\nmaterials: {default: {rho: 1, vp: 2, vs: 1}}\nequations: {end_time: 1}\n"
                       "receivers:\n  interval: 0.1\n",
                       "test.yaml:4", "no receivers");
  SQ_TEST_CONFIG_ERROR("mesh: {type: box}\nmaterials: {default: {rho: 1, vp: 2, vs: 1}}\nequations: {end_time: 1}\n"
                       "receivers:\n  points: [[0, 0, 0]]\n  intervall: 0.1\n",
                       "test.yaml:6: key 'receivers.intervall'", "did you mean 'interval'");
}
END_TEST

int main(void) {
  const TTest *tests[] = {locate_points,
                          sample_partition,
                          sampling_kernel,
                          receivers_outside_listed,
                          writer_files_and_continuation,
                          config_receivers,
                          NULL};
  Suite *s = sq_test_suite("receivers", 60, tests);
  return sq_test_run(s, 1);
}
