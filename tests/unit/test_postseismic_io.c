/** @file test_postseismic_io.c  Check suite for the post-seismic inputs and outputs (io/postseismic_io.c): slip
 * patch files, a rupture's final slip from fault output files (both layouts), station lists and series, surface
 * snapshots; every file written and read back. */
#define _GNU_SOURCE /* nftw */
#include "sq_check.h"
#include "sq_test_util.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>

#include "sq_okada.h"
#include "sq_output.h"
#include "sq_postseismic_io.h"

#define PI 3.14159265358979323846

static char dir[256];

static void make_dir(void) {
  snprintf(dir, sizeof(dir), "/tmp/sq_test_psio_%d", (int)getpid());
  mkdir(dir, 0755);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

/* Remove the test's scratch folder (at the end of each test). */
static void remove_dir(void) { nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS); }

static const char *write_text(const char *name, const char *text) {
  static char path[512];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
  return path;
}

/* Expect reading @p text as a slip file to fail with a message holding @p frag. */
static void patch_error(const char *text, const char *frag) {
  const char *path = write_text("bad.slip", text);
  int n = 0;
  sq_okada_fault *p = NULL;
  const int saved = sq_test_capture_begin();
  const int ierr = sq_ps_read_patches(path, &n, &p, NULL);
  sq_test_capture_end(saved);
  ck_assert_int_ne(ierr, 0);
  EXPECT_MSG(strstr(sq_test_msg, frag) != NULL, "message '%s' lacks '%s'", sq_test_msg, frag);
}

START_TEST(slip_patches) {
  make_dir();
  const char *path = write_text("a.slip", "# two patches\n"
                                          "100 200 1000 30 60 4000 2000 1.0 1.0  # top-edge reference\n"
                                          "\n"
                                          "reference centre\n"
                                          "0 0 5000 90 45 1000 2000 -2 0 0.5\n");
  int n = 0, *line = NULL;
  sq_okada_fault *p = NULL;
  ck_assert_int_eq(sq_ps_read_patches(path, &n, &p, &line), 0);
  ck_assert_int_eq(n, 2);
  ck_assert_int_eq(line[0], 2);
  ck_assert_int_eq(line[1], 5);
  EXPECT_NEAR(p[0].x, 100, 0);
  EXPECT_NEAR(p[0].depth, 1000, 0);
  EXPECT_NEAR(p[0].rake_deg, 45, 1e-12);
  EXPECT_NEAR(p[0].slip, sqrt(2), 1e-15);
  EXPECT_NEAR(p[0].opening, 0, 0);
  EXPECT_NEAR(p[1].rake_deg, 180, 1e-12);
  EXPECT_NEAR(p[1].slip, 2, 1e-15);
  EXPECT_NEAR(p[1].opening, 0.5, 0);
  /* the centre given: the top edge is half the width up dip (strike east: dip towards south) */
  EXPECT_NEAR(p[1].depth, 5000 - 1000 * sin(PI / 4), 1e-9);
  EXPECT_NEAR(p[1].x, 0, 1e-9);
  EXPECT_NEAR(p[1].y, 1000 * cos(PI / 4), 1e-9);
  /* the slip vector of patch 0 has the rake's components along strike and up dip */
  double sv[3];
  sq_okada_slip_vector(&p[0], sv);
  EXPECT_NEAR(sv[2], sin(PI / 3), 1e-12); /* dip slip 1 up a 60 degree dip */
  /* patch 0 handed to mesh faces: its rectangle cut into 2 x 2 x 2 triangles, plus a face beside it in its plane
     and a face across its plane */
  {
    const double a = p[0].strike_deg * PI / 180, dr = p[0].dip_deg * PI / 180;
    const double s[3] = {sin(a), cos(a), 0}, dd[3] = {cos(a) * cos(dr), -sin(a) * cos(dr), -sin(dr)};
    double xyz[10 * 9], slip[30], normal[30], n0[3];
    sq_okada_normal(&p[0], n0);
    int nf = 0;
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 2; ++i)
        for (int t = 0; t < 2; ++t) {
          const double c[4][2] = {{i, j}, {i + 1, j}, {i + 1, j + 1}, {i, j + 1}};
          const int idx[2][3] = {{0, 1, 2}, {0, 2, 3}};
          for (int v = 0; v < 3; ++v) {
            const double fs = -0.5 + 0.5 * c[idx[t][v]][0], fd = 0.5 * c[idx[t][v]][1];
            for (int k = 0; k < 3; ++k)
              xyz[9 * nf + 3 * v + k] = (k == 0   ? p[0].x
                                         : k == 1 ? p[0].y
                                                  : -p[0].depth) +
                                        fs * p[0].length * s[k] + fd * p[0].width * dd[k];
          }
          ++nf;
        }
    for (int k = 0; k < 9; ++k) xyz[9 * 8 + k] = xyz[k] + 1.5 * p[0].length * s[k % 3];
    for (int k = 0; k < 9; ++k) xyz[9 * 9 + k] = xyz[k] + (k / 3 == 0 ? 0 : 100 * n0[k % 3]);
    int64_t hits = -1;
    /* the face across the plane: its centroid is off the plane by 200/3 > tol: not a patch face */
    ck_assert_int_eq(sq_ps_patches_faces(p, 2, 10, xyz, 1e-6, slip, normal, &hits), 0);
    ck_assert_int_eq(hits, 8);
    double sv0[3];
    sq_okada_slip_vector(&p[0], sv0);
    for (int f = 0; f < 10; ++f)
      for (int k = 0; k < 3; ++k) {
        EXPECT_NEAR(slip[3 * f + k], f < 8 ? sv0[k] : 0, 1e-15);
        EXPECT_NEAR(normal[3 * f + k], f < 8 ? n0[k] : 0, 1e-15);
      }
    /* a face whose centroid is in the patch but whose vertices leave its plane */
    double tilted[9];
    for (int k = 0; k < 9; ++k) tilted[k] = xyz[k] + (k / 3 == 1 ? 10 * n0[k % 3] : k / 3 == 2 ? -10 * n0[k % 3] : 0);
    const int saved = sq_test_capture_begin();
    ck_assert_int_ne(sq_ps_patches_faces(p, 2, 1, tilted, 1e-6, slip, NULL, NULL), 0);
    sq_test_capture_end(saved);
    EXPECT_MSG(strstr(sq_test_msg, "fault face 0") && strstr(sq_test_msg, "slip patch 1"), "message '%s'", sq_test_msg);
  }
  free(p), free(line);
  patch_error("1 2 3 4 5 6 7 8\n", "bad.slip:1: a patch has 9 or 10 columns");
  patch_error("# c\n1 2 3 4 5 6 x 8 9\n", "bad.slip:2: width: 'x' is not a finite number");
  patch_error("1 2 3 4 5 6 0 8 9\n", "bad.slip:1: the length (6) and width (0) must be positive");
  patch_error("1 2 3 4 95 6 7 8 9\n", "bad.slip:1: dip 95 is outside [0, 90]");
  patch_error("reference centre\n0 0 100 0 90 10 400 1 0\n", "bad.slip:2: the patch's top edge is 100 m above");
  patch_error("reference middle\n", "bad.slip:1: expected 'reference top' or 'reference centre'");
  patch_error("# nothing\n", "no patches");
  remove_dir();
}
END_TEST

/* A fault of 4 triangles in the plane y = 0 (normal +y or -y by vertex order), one snapshot per call. */
static const double tri_xyz[4][9] = {{0, 0, 0, 0, 0, -1000, 1000, 0, 0},
                                     {1000, 0, 0, 0, 0, -1000, 1000, 0, -1000},
                                     {1000, 0, 0, 1000, 0, -1000, 2000, 0, 0},
                                     {2000, 0, 0, 1000, 0, -1000, 2000, 0, -1000}};

static void write_fault_file(int seissol, const char *name) {
  double geom[36];
  int64_t topo[12];
  for (int k = 0; k < 4; ++k)
    for (int v = 0; v < 3; ++v) {
      topo[3 * k + v] = 3 * k + v;
      for (int c = 0; c < 3; ++c) geom[9 * k + 3 * v + c] = tri_xyz[k][3 * v + c];
    }
  sq_xdmf_writer *w = NULL;
  ck_assert_int_eq(sq_xdmf_open_style(dir, name, "fault", 12, geom, NULL, 4, 3, topo, NULL, seissol, -1, &w), 0);
  const char *names[2] = {seissol ? "Sls" : "slip_strike", seissol ? "Sld" : "slip_dip"};
  for (int step = 0; step < 2; ++step) {
    double ss[4], ds[4];
    for (int k = 0; k < 4; ++k) ss[k] = (step + 1) * (k + 1), ds[k] = -0.5 * (step + 1) * (k + 1);
    const double *cols[2] = {ss, ds};
    ck_assert_int_eq(sq_xdmf_write(w, 10.0 * (step + 1), 2, names, cols, SQ_XDMF_CELL, NULL), 0);
  }
  sq_xdmf_close(w);
}

START_TEST(fault_slip) {
  make_dir();
  for (int seissol = 0; seissol < 2; ++seissol) {
    char path[512];
    write_fault_file(seissol, seissol ? "ss" : "nat");
    snprintf(path, sizeof(path), "%s/%s-fault.h5", dir, seissol ? "ss" : "nat");
    for (int conv = 0; conv < 2; ++conv) {
      sq_ps_fault_slip *s = NULL;
      ck_assert_int_eq(sq_ps_fault_slip_read(path, conv, &s), 0);
      ck_assert_int_eq(sq_ps_fault_slip_nface(s), 4);
      EXPECT_NEAR(sq_ps_fault_slip_time(s), 20, 0);
      /* the mesh's faces in another order, each with its vertices rotated */
      double xyz[36], slip[12], normal[12];
      const int perm[4] = {2, 0, 3, 1};
      for (int f = 0; f < 4; ++f)
        for (int v = 0; v < 3; ++v)
          for (int c = 0; c < 3; ++c) xyz[9 * f + 3 * v + c] = tri_xyz[perm[f]][3 * ((v + f) % 3) + c] + 1e-9;
      ck_assert_int_eq(sq_ps_fault_slip_faces(s, 4, xyz, 1e-6, slip, normal), 0);
      for (int f = 0; f < 4; ++f) {
        const int k = perm[f];
        /* triangle (a, b, c): normal (b - a) x (c - a); faces 0 and 2: +y... computed */
        const double *t = tri_xyz[k];
        const double e1[3] = {t[3] - t[0], t[4] - t[1], t[5] - t[2]}, e2[3] = {t[6] - t[0], t[7] - t[1], t[8] - t[2]};
        const double ny = e1[2] * e2[0] - e1[0] * e2[2] > 0 ? 1 : -1;
        EXPECT_NEAR(normal[3 * f + 1], ny, 1e-14);
        /* n = (0, ny, 0): strike n x e_z = (ny, 0, 0), down-dip n x s = (0, 0, -1) */
        const double ss = 2 * (k + 1), ds = -(k + 1) * (seissol && !conv ? -1 : 1);
        EXPECT_NEAR(slip[3 * f], ss * ny, 1e-12);
        EXPECT_NEAR(slip[3 * f + 1], 0, 1e-12);
        EXPECT_NEAR(slip[3 * f + 2], -ds, 1e-12);
      }
      /* a face that is not in the file */
      double other[9] = {0, 0, 0, 0, 0, -1000, 1000, 0, -5};
      const int saved = sq_test_capture_begin();
      const int ierr = sq_ps_fault_slip_faces(s, 1, other, 1e-6, slip, NULL);
      sq_test_capture_end(saved);
      ck_assert_int_ne(ierr, 0);
      EXPECT_MSG(strstr(sq_test_msg, "fault face 0 (vertices (0, 0, 0)") != NULL, "message '%s'", sq_test_msg);
      sq_ps_fault_slip_free(s);
    }
  }
  /* a missing file and a file without slip */
  sq_ps_fault_slip *s = NULL;
  int saved = sq_test_capture_begin();
  ck_assert_int_ne(sq_ps_fault_slip_read("/nonexistent/x-fault.h5", 0, &s), 0);
  sq_test_capture_end(saved);
  EXPECT_MSG(strstr(sq_test_msg, "/nonexistent/x-fault.h5") != NULL, "message '%s'", sq_test_msg);
  sq_xdmf_writer *w = NULL;
  double geom[9] = {0, 0, 0, 1, 0, 0, 0, 0, -1}, v[1] = {1};
  int64_t topo[3] = {0, 1, 2};
  const char *names[1] = {"slip_rate"};
  const double *cols[1] = {v};
  ck_assert_int_eq(sq_xdmf_open(dir, "noslip", "fault", 3, geom, NULL, 1, 3, topo, NULL, -1, &w), 0);
  ck_assert_int_eq(sq_xdmf_write(w, 1, 1, names, cols, SQ_XDMF_CELL, NULL), 0);
  sq_xdmf_close(w);
  char path[512];
  snprintf(path, sizeof(path), "%s/noslip-fault.h5", dir);
  saved = sq_test_capture_begin();
  ck_assert_int_ne(sq_ps_fault_slip_read(path, 0, &s), 0);
  sq_test_capture_end(saved);
  EXPECT_MSG(strstr(sq_test_msg, "no dataset /step_000000/slip_strike") != NULL, "message '%s'", sq_test_msg);
  remove_dir();
}
END_TEST

static void station_error(const char *text, const char *frag) {
  const char *path = write_text("bad.gps", text);
  int n = 0;
  sq_ps_station *st = NULL;
  const int saved = sq_test_capture_begin();
  const int ierr = sq_ps_read_stations(path, &n, &st);
  sq_test_capture_end(saved);
  ck_assert_int_ne(ierr, 0);
  EXPECT_MSG(strstr(sq_test_msg, frag) != NULL, "message '%s' lacks '%s'", sq_test_msg, frag);
}

START_TEST(stations) {
  make_dir();
  const char *path = write_text("s.gps", "# GPS\nP001 1000 -2000\n\nNET.B_2 3.5e4 7 -10 # borehole\n");
  int n = 0;
  sq_ps_station *st = NULL;
  ck_assert_int_eq(sq_ps_read_stations(path, &n, &st), 0);
  ck_assert_int_eq(n, 2);
  ck_assert_str_eq(st[0].name, "P001");
  ck_assert_str_eq(st[1].name, "NET.B_2");
  EXPECT_NEAR(st[0].x[1], -2000, 0);
  EXPECT_NEAR(st[0].x[2], 0, 0);
  EXPECT_NEAR(st[1].x[2], -10, 0);
  ck_assert_int_eq(st[1].line, 4);
  sq_ps_station_writer *w = NULL;
  ck_assert_int_eq(sq_ps_station_writer_open(dir, "run", n, st, &w), 0);
  for (int k = 0; k < 5; ++k) {
    double u[6];
    for (int i = 0; i < 6; ++i) u[i] = sin(1.0 + k + 0.3 * i) * 1e-2;
    ck_assert_int_eq(sq_ps_station_writer_append(w, k * 30 * 86400.0, u), 0);
  }
  sq_ps_station_writer_close(w);
  for (int s = 0; s < 2; ++s) {
    char p[512];
    snprintf(p, sizeof(p), "%s/run-gps-%s.csv", dir, st[s].name);
    double t[8], u[24];
    int64_t count = 0;
    ck_assert_int_eq(sq_ps_station_read(p, 8, t, u, &count), 0);
    ck_assert_int_eq(count, 5);
    for (int k = 0; k < 5; ++k) {
      EXPECT_NEAR(t[k], k * 30 * 86400.0, 0);
      for (int c = 0; c < 3; ++c) EXPECT_NEAR(u[3 * k + c], sin(1.0 + k + 0.3 * (3 * s + c)) * 1e-2, 1e-17);
    }
    FILE *f = fopen(p, "r");
    char head[3][256];
    for (int i = 0; i < 3; ++i) ck_assert_ptr_nonnull(fgets(head[i], sizeof(head[i]), f));
    fclose(f);
    ck_assert(strstr(head[0], st[s].name) != NULL);
    ck_assert_str_eq(head[2], "time_s,time_yr,u_east_m,u_north_m,u_up_m\n");
  }
  free(st);
  /* a SPECFEM3D STATIONS file, as the receivers read it */
  path = write_text("STATIONS", "S01 XX 2000.0 1000.0 0.0 0.0\nS02 YY -500 300 12.0 25.0\n");
  ck_assert_int_eq(sq_ps_read_stations(path, &n, &st), 0);
  ck_assert_int_eq(n, 2);
  ck_assert_str_eq(st[1].name, "YY.S02");
  EXPECT_NEAR(st[0].x[0], 1000, 0);
  EXPECT_NEAR(st[0].x[1], 2000, 0);
  EXPECT_NEAR(st[1].x[2], -25, 0);
  free(st);
  station_error("A 1\n", "bad.gps:1: a station is 'NAME x y [z]', found 2 columns");
  station_error("A 1 2\n#\nA 3 4\n", "bad.gps:3: station A is also on line 1");
  station_error("A/B 1 2\n", "bad.gps:1: station name 'A/B'");
  station_error("A 1 2 5\n", "bad.gps:1: station A is above the surface");
  station_error("A 1 nan\n", "bad.gps:1: y: 'nan' is not a finite number");
  remove_dir();
}
END_TEST

START_TEST(surface_snapshots) {
  make_dir();
  /* a 3 x 3 grid of nodes, 8 triangles */
  double xyz[27];
  int64_t tri[24];
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 3; ++i)
      xyz[3 * (3 * j + i)] = 1000 * i, xyz[3 * (3 * j + i) + 1] = 1000 * j, xyz[3 * (3 * j + i) + 2] = 0;
  int nt = 0;
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 2; ++i) {
      const int64_t a = 3 * j + i, b = a + 1, c = a + 3, d = a + 4;
      tri[3 * nt] = a, tri[3 * nt + 1] = b, tri[3 * nt + 2] = d, ++nt;
      tri[3 * nt] = a, tri[3 * nt + 1] = d, tri[3 * nt + 2] = c, ++nt;
    }
  sq_ps_surface *s = NULL;
  ck_assert_int_eq(sq_ps_surface_open(dir, "run", 9, xyz, NULL, nt, tri, NULL, &s), 0);
  for (int step = 0; step < 3; ++step) {
    double u[27];
    for (int k = 0; k < 27; ++k) u[k] = (step + 1) * cos(0.1 * k);
    ck_assert_int_eq(sq_ps_surface_write(s, step * 1e7, u, NULL), 0);
  }
  ck_assert_int_eq(sq_ps_surface_count(s), 3);
  sq_ps_surface_close(s);
  char h5[512], xdmf[512];
  snprintf(h5, sizeof(h5), "%s/run-surface.h5", dir);
  snprintf(xdmf, sizeof(xdmf), "%s/run-surface.xdmf", dir);
  for (int step = 0; step < 3; ++step) {
    double t, u[27];
    ck_assert_int_eq(sq_ps_surface_read(h5, step, 9, &t, u), 0);
    EXPECT_NEAR(t, step * 1e7, 0);
    for (int k = 0; k < 27; ++k) EXPECT_NEAR(u[k], (step + 1) * cos(0.1 * k), 0);
  }
  /* the mesh as written, read with HDF5 itself */
  hid_t f = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  hid_t set = H5Dopen2(f, "/mesh/topology", H5P_DEFAULT);
  int64_t back[24];
  ck_assert_int_ge(H5Dread(set, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, back), 0);
  for (int k = 0; k < 24; ++k) ck_assert_int_eq(back[k], tri[k]);
  H5Dclose(set);
  H5Fclose(f);
  FILE *x = fopen(xdmf, "r");
  ck_assert_ptr_nonnull(x);
  char text[16384];
  const size_t len = fread(text, 1, sizeof(text) - 1, x);
  text[len] = 0;
  fclose(x);
  ck_assert(strstr(text, "Name=\"u_east\"") && strstr(text, "Name=\"u_up\"") && strstr(text, "Triangle"));
  int saved = sq_test_capture_begin();
  ck_assert_int_ne(sq_ps_surface_read(h5, 3, 9, NULL, NULL), 0);
  sq_test_capture_end(saved);
  EXPECT_MSG(strstr(sq_test_msg, "no snapshot 3") != NULL, "message '%s'", sq_test_msg);
  double u[30];
  saved = sq_test_capture_begin();
  ck_assert_int_ne(sq_ps_surface_read(h5, 0, 10, NULL, u), 0);
  sq_test_capture_end(saved);
  EXPECT_MSG(strstr(sq_test_msg, "/step_000000/u_east has 9 values, expected 10") != NULL, "message '%s'", sq_test_msg);
  remove_dir();
}
END_TEST

int main(void) {
  const TTest *const tests[] = {slip_patches, fault_slip, stations, surface_snapshots, NULL};
  return sq_test_run(sq_test_suite("postseismic_io", 60, tests), 1);
}
