/**
 * @file test_meshio.c  Check suite for the mesh readers and writers (mesh/gmsh_*.c, mesh/puml.c):
 * meshes made by the real gmsh from tests/meshes/{box,refined,fault}.geo in all four .msh variants, the real PUMGen file
 * tpv13_training.puml.h5 (skipped with a message when absent), round trips, PUML boundary formats and
 * ranges, and bad inputs (fixtures in tests/meshes/bad/ and files the test damages itself).
 */
#include "sq_mesh_io.h"

#include <check.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef SQ_SRCDIR
#define SQ_SRCDIR "."
#endif
#ifndef SQ_BUILDDIR
#define SQ_BUILDDIR "."
#endif

/* Assertions that only talk on failure (Check's ck_assert_* are slow in loops over faces). */
#define EXPECT(cond)                                                                               \
  do {                                                                                             \
    if (!(cond)) ck_abort_msg("assertion '%s' failed", #cond);                                     \
  } while (0)
#define EXPECT_MSG(cond, ...)                                                                      \
  do {                                                                                             \
    if (!(cond)) ck_abort_msg(__VA_ARGS__);                                                        \
  } while (0)
#define EXPECT_EQ(a, b)                                                                            \
  do {                                                                                             \
    long long ea_ = (long long)(a), eb_ = (long long)(b);                                          \
    if (ea_ != eb_) ck_abort_msg("'%s == %s' failed: %lld vs %lld", #a, #b, ea_, eb_);             \
  } while (0)
#define EXPECT_NEAR(a, b, tol)                                                                     \
  do {                                                                                             \
    double ea_ = (a), eb_ = (b);                                                                   \
    if (!(fabs(ea_ - eb_) <= (tol)))                                                               \
      ck_abort_msg("'%s' = %.17g, '%s' = %.17g, tolerance %g", #a, ea_, #b, eb_, (double)(tol));  \
  } while (0)

/* Our face numbering (sq_ref.h), outward order. */
static const int face_vertices[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};

/* ---------------------------------------------------------------------------------------------- */
/* Fixtures shared by all tests (made once in main, before Check forks the tests)                 */
/* ---------------------------------------------------------------------------------------------- */

static struct {
  char tmp[256];         /* scratch folder */
  int gmsh_ok;           /* every .geo meshed in every variant */
  char gmsh_error[4096]; /* why not */
  char real_puml[1024];  /* tpv13_training.puml.h5, or "" when absent */
} fx;

enum { NVARIANT = 4, NGEO = 3 };
static const char *variant_name[NVARIANT] = {"msh41", "msh41-binary", "msh22", "msh22-binary"};
static const char *variant_flags[NVARIANT] = {"-format msh41", "-format msh41 -bin", "-format msh22",
                                              "-format msh22 -bin"};
enum { GEO_BOX = 0, GEO_REFINED = 1, GEO_FAULT = 2 };
static const char *geo_name[NGEO] = {"box", "refined", "fault"};

static void gmsh_path(char *buf, size_t len, int geo, int variant) {
  snprintf(buf, len, "%s/%s-%s.msh", fx.tmp, geo_name[geo], variant_name[variant]);
}

static void tmp_path(char *buf, size_t len, const char *name) { snprintf(buf, len, "%s/%s", fx.tmp, name); }

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Mesh every .geo in every variant with the real gmsh. */
static void make_gmsh_fixtures(void) {
  fx.gmsh_ok = 0;
  if (system("gmsh --version > /dev/null 2>&1") != 0) {
    snprintf(fx.gmsh_error, sizeof fx.gmsh_error,
             "gmsh was not found or does not run; it is a required dependency of the test suite (Debian package "
             "'gmsh', installed by ./quickstart)");
    return;
  }
  double t0 = now();
  for (int g = 0; g < NGEO; g++) {
    for (int v = 0; v < NVARIANT; v++) {
      char out[512], cmd[2048];
      gmsh_path(out, sizeof out, g, v);
      snprintf(cmd, sizeof cmd, "gmsh -3 -nt 1 -v 2 %s -o '%s' '%s/tests/meshes/%s.geo' > '%s.log' 2>&1", variant_flags[v],
               out, SQ_SRCDIR, geo_name[g], out);
      if (system(cmd) != 0) {
        snprintf(fx.gmsh_error, sizeof fx.gmsh_error, "gmsh failed: %s (see %s.log)", cmd, out);
        return;
      }
    }
  }
  printf("test_meshio: gmsh meshed %d .geo files in %d variants in %.2f s\n", NGEO, NVARIANT, now() - t0);
  fx.gmsh_ok = 1;
}

static void find_real_puml(void) {
  const char *env = getenv("SQ_MESH_DIR");
  char cand[2][512];
  snprintf(cand[0], sizeof cand[0], "%s/tpv13_training.puml.h5", env ? env : "/nonexistent");
  snprintf(cand[1], sizeof cand[1], "%s/../shared/meshes/tpv13_training.puml.h5", SQ_SRCDIR);
  fx.real_puml[0] = '\0';
  for (int k = 0; k < 2; k++)
    if (access(cand[k], R_OK) == 0) {
      snprintf(fx.real_puml, sizeof fx.real_puml, "%s", cand[k]);
      return;
    }
}

static void require_gmsh(void) { EXPECT_MSG(fx.gmsh_ok, "test_meshio: %s", fx.gmsh_error); }

/* 1 if the real PUML file is present; otherwise says that the test is skipped. */
static int have_real_puml(const char *test) {
  if (fx.real_puml[0]) return 1;
  printf("test_meshio: SKIP %s: tpv13_training.puml.h5 not found (looked in $SQ_MESH_DIR and %s/../shared/meshes)\n",
         test, SQ_SRCDIR);
  return 0;
}

static sq_mesh *read_ok(const char *path) {
  sq_mesh *m = NULL;
  int ierr = sq_mesh_read(path, &m);
  EXPECT_MSG(ierr == SQ_SUCCESS && m, "reading %s failed with code %d (message above)", path, ierr);
  return m;
}

/* ---------------------------------------------------------------------------------------------- */
/* stderr capture, to check the error messages                                                    */
/* ---------------------------------------------------------------------------------------------- */

typedef struct capture {
  int saved;
  FILE *tmp;
} capture;

static void capture_start(capture *c) {
  fflush(stderr);
  c->tmp = tmpfile();
  EXPECT(c->tmp != NULL);
  c->saved = dup(2);
  EXPECT(c->saved >= 0);
  EXPECT(dup2(fileno(c->tmp), 2) >= 0);
}

static void capture_stop(capture *c, char *buf, size_t len) {
  fflush(stderr);
  dup2(c->saved, 2);
  close(c->saved);
  rewind(c->tmp);
  size_t n = fread(buf, 1, len - 1, c->tmp);
  buf[n] = '\0';
  fclose(c->tmp);
  fprintf(stderr, "[captured] %s", buf);
}

/* Read @p path expecting failure; every string in @p needles (NULL-terminated) must be in the message. */
static void expect_read_error(const char *path, const char *const *needles) {
  capture cap;
  char msg[8192];
  sq_mesh *m = NULL;
  capture_start(&cap);
  int ierr = sq_mesh_read(path, &m);
  capture_stop(&cap, msg, sizeof msg);
  EXPECT_MSG(ierr != SQ_SUCCESS, "reading %s succeeded but should fail", path);
  EXPECT(m == NULL);
  const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  EXPECT_MSG(strstr(msg, base), "the message does not name the file %s: %s", base, msg);
  EXPECT_MSG(!strstr(msg, "HDF5-DIAG"), "HDF5's own error stack was printed: %s", msg);
  for (int k = 0; needles && needles[k]; k++)
    EXPECT_MSG(strstr(msg, needles[k]), "the message lacks '%s': %s", needles[k], msg);
}

/* ---------------------------------------------------------------------------------------------- */
/* Mesh checks                                                                                     */
/* ---------------------------------------------------------------------------------------------- */

static const double *vtx(const sq_mesh *m, int64_t cell, int local) { return &m->vert[3 * m->cell_vert[4 * cell + local]]; }

static void expect_same_mesh(const sq_mesh *a, const sq_mesh *b, const char *what) {
  EXPECT_MSG(a->ncell == b->ncell && a->nvert == b->nvert, "%s: %lld/%lld cells, %lld/%lld vertices", what,
             (long long)a->ncell, (long long)b->ncell, (long long)a->nvert, (long long)b->nvert);
  EXPECT_MSG(!memcmp(a->vert, b->vert, (size_t)a->nvert * 3 * sizeof(double)), "%s: vertices differ", what);
  EXPECT_MSG(!memcmp(a->cell_vert, b->cell_vert, (size_t)a->ncell * 4 * sizeof(int64_t)), "%s: cells differ", what);
  EXPECT_MSG(!memcmp(a->group, b->group, (size_t)a->ncell * sizeof(int32_t)), "%s: groups differ", what);
  EXPECT_MSG(!memcmp(a->face_bc, b->face_bc, (size_t)a->ncell * 4), "%s: boundary codes differ", what);
}

/* As expect_same_mesh, but vertices within @p rel of the mesh size (ASCII files round coordinates). */
static void expect_same_mesh_rounded(const sq_mesh *a, const sq_mesh *b, double rel, const char *what) {
  EXPECT_MSG(a->ncell == b->ncell && a->nvert == b->nvert, "%s: sizes differ", what);
  double size = 0;
  for (int d = 0; d < 3; d++) size = fmax(size, a->bbox_hi[d] - a->bbox_lo[d]);
  for (int64_t k = 0; k < 3 * a->nvert; k++)
    EXPECT_MSG(fabs(a->vert[k] - b->vert[k]) <= rel * size, "%s: coordinate %lld: %.17g vs %.17g", what,
               (long long)k, a->vert[k], b->vert[k]);
  EXPECT_MSG(!memcmp(a->cell_vert, b->cell_vert, (size_t)a->ncell * 4 * sizeof(int64_t)), "%s: cells differ", what);
  EXPECT_MSG(!memcmp(a->group, b->group, (size_t)a->ncell * sizeof(int32_t)), "%s: groups differ", what);
  EXPECT_MSG(!memcmp(a->face_bc, b->face_bc, (size_t)a->ncell * 4), "%s: boundary codes differ", what);
}

static void count_codes(const sq_mesh *m, int64_t count[7]) {
  for (int k = 0; k < 7; k++) count[k] = 0;
  for (int64_t cf = 0; cf < 4 * m->ncell; cf++) count[m->face_bc[cf]]++;
}

/* Neighbour symmetry, positive volumes, and total volume. */
static void expect_consistent(const sq_mesh *m, double expected_volume) {
  double total = 0;
  for (int64_t c = 0; c < m->ncell; c++) {
    EXPECT_MSG(m->volume[c] > 0, "cell %lld has volume %g", (long long)c, m->volume[c]);
    total += m->volume[c];
  }
  EXPECT_NEAR(total, expected_volume, 1e-11 * expected_volume);
  for (int64_t cf = 0; cf < 4 * m->ncell; cf++) {
    int tag = m->face_bc[cf];
    int64_t nb = m->face_neighbor[cf];
    if (tag == SQ_BC_REGULAR || tag == SQ_BC_RUPTURE || tag == SQ_BC_PERIODIC) {
      EXPECT_MSG(nb >= 0, "face %lld (tag %d) has no neighbour", (long long)cf, tag);
      int64_t back = 4 * nb + m->face_nbface[cf];
      EXPECT_EQ(m->face_neighbor[back], cf / 4);
      EXPECT_EQ(m->face_bc[back], tag);
    } else {
      EXPECT_MSG(nb < 0, "boundary face %lld (tag %d) has neighbour %lld", (long long)cf, tag, (long long)nb);
    }
  }
}

/*
 * Boundary faces of a box mesh: every face tagged 1/5/6 lies on exactly one box plane with the expected
 * code (plane_code[2d+side]) and its outward normal; every face on a plane is tagged.
 */
static void expect_box_boundary(const sq_mesh *m, const double lo[3], const double hi[3], const int plane_code[6]) {
  double size = 0;
  for (int d = 0; d < 3; d++) size = fmax(size, hi[d] - lo[d]);
  const double tol = 1e-12 * size;
  int64_t on_plane[6] = {0};
  for (int64_t cf = 0; cf < 4 * m->ncell; cf++) {
    int tag = m->face_bc[cf];
    int plane = -1, nplanes = 0;
    for (int d = 0; d < 3; d++)
      for (int side = 0; side < 2; side++) {
        double at = side ? hi[d] : lo[d];
        int all = 1;
        for (int k = 0; k < 3; k++) all &= fabs(vtx(m, cf / 4, face_vertices[cf % 4][k])[d] - at) <= tol;
        if (all) {
          plane = 2 * d + side;
          nplanes++;
        }
      }
    if (tag == SQ_BC_FREE || tag == SQ_BC_ABSORB || tag == SQ_BC_PERIODIC) {
      EXPECT_MSG(nplanes == 1, "face %d of cell %lld (tag %d) lies on %d box planes", (int)(cf % 4),
                 (long long)(cf / 4), tag, nplanes);
      EXPECT_MSG(tag == plane_code[plane], "face %d of cell %lld on plane %d has tag %d, expected %d", (int)(cf % 4),
                 (long long)(cf / 4), plane, tag, plane_code[plane]);
      EXPECT_NEAR(m->face_normal[3 * cf + plane / 2], plane % 2 ? 1.0 : -1.0, 1e-12);
      on_plane[plane]++;
    } else {
      EXPECT_MSG(nplanes == 0, "face %d of cell %lld on box plane %d has tag %d", (int)(cf % 4), (long long)(cf / 4),
                 plane, tag);
    }
  }
  for (int p = 0; p < 6; p++) EXPECT_MSG(on_plane[p] > 0, "no boundary face on box plane %d", p);
}

/* ---------------------------------------------------------------------------------------------- */
/* Gmsh: meshes from the real gmsh                                                                 */
/* ---------------------------------------------------------------------------------------------- */

/* Read all four variants of @p geo and return the msh41 ASCII one.  Variants of the same encoding are
 * identical; ASCII and binary ones differ by the rounding of printed coordinates (gmsh writes 16 digits). */
static sq_mesh *read_variants(int geo) {
  require_gmsh();
  sq_mesh *first = NULL, *first_binary = NULL;
  for (int v = 0; v < NVARIANT; v++) {
    char path[512];
    gmsh_path(path, sizeof path, geo, v);
    double t0 = now();
    sq_mesh *m = read_ok(path);
    printf("test_meshio: %s-%s: %lld cells, %lld vertices, read in %.3f s\n", geo_name[geo], variant_name[v],
           (long long)m->ncell, (long long)m->nvert, now() - t0);
    char what[128];
    snprintf(what, sizeof what, "%s: %s vs %s", geo_name[geo], variant_name[v], variant_name[v == 3 ? 1 : 0]);
    if (v == 0) {
      first = m;
    } else if (v == 1) {
      expect_same_mesh_rounded(first, m, 1e-15, what);
      first_binary = m;
    } else {
      expect_same_mesh(v == 3 ? first_binary : first, m, what);
      sq_mesh_destroy(m);
    }
  }
  sq_mesh_destroy(first_binary);
  return first;
}

START_TEST(test_gmsh_box) {
  sq_mesh *m = read_variants(GEO_BOX);
  EXPECT(m->ncell > 500 && m->ncell < 5000);
  expect_consistent(m, 2.0);
  const double lo[3] = {0, 0, -1}, hi[3] = {2, 1, 0};
  const int codes[6] = {SQ_BC_ABSORB, SQ_BC_ABSORB, SQ_BC_ABSORB, SQ_BC_ABSORB, SQ_BC_ABSORB, SQ_BC_FREE};
  expect_box_boundary(m, lo, hi, codes);
  /* Two physical volumes: 1 above z = -0.5, 2 below. */
  int64_t ngroup[3] = {0, 0, 0};
  for (int64_t c = 0; c < m->ncell; c++) {
    int expected = m->centroid[3 * c + 2] > -0.5 ? 1 : 2;
    EXPECT_EQ(m->group[c], expected);
    ngroup[expected]++;
  }
  EXPECT(ngroup[1] > 0 && ngroup[2] > 0);
  int64_t count[7];
  count_codes(m, count);
  EXPECT_EQ(count[SQ_BC_RUPTURE] + count[SQ_BC_PERIODIC], 0);
  sq_mesh_destroy(m);
}
END_TEST

START_TEST(test_gmsh_refined) {
  sq_mesh *m = read_variants(GEO_REFINED);
  EXPECT(m->ncell > 500 && m->ncell < 5000);
  expect_consistent(m, 1.0);
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  const int codes[6] = {SQ_BC_ABSORB, SQ_BC_ABSORB, SQ_BC_PERIODIC, SQ_BC_PERIODIC, SQ_BC_ABSORB, SQ_BC_FREE};
  expect_box_boundary(m, lo, hi, codes);
  /* Periodic faces were paired by finalize with the face translated by (0, +-1, 0). */
  for (int64_t cf = 0; cf < 4 * m->ncell; cf++) {
    if (m->face_bc[cf] != SQ_BC_PERIODIC) continue;
    int64_t nb = m->face_neighbor[cf];
    EXPECT(nb >= 0);
    int nf = m->face_nbface[cf];
    double c0[3] = {0, 0, 0}, c1[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++)
      for (int d = 0; d < 3; d++) {
        c0[d] += vtx(m, cf / 4, face_vertices[cf % 4][k])[d] / 3;
        c1[d] += vtx(m, nb, face_vertices[nf][k])[d] / 3;
      }
    EXPECT_NEAR(c0[0], c1[0], 1e-12);
    EXPECT_NEAR(fabs(c0[1] - c1[1]), 1.0, 1e-12);
    EXPECT_NEAR(c0[2], c1[2], 1e-12);
  }
  /* The refinement zone [0.3, 0.7]^3 has much smaller cells. */
  double vin = 0, vout = 0;
  int64_t nin = 0, nout = 0;
  for (int64_t c = 0; c < m->ncell; c++) {
    const double *x = &m->centroid[3 * c];
    int inside = x[0] > 0.35 && x[0] < 0.65 && x[1] > 0.35 && x[1] < 0.65 && x[2] > 0.35 && x[2] < 0.65;
    if (inside) vin += m->volume[c], nin++;
    else if (x[0] < 0.15 || x[0] > 0.85) vout += m->volume[c], nout++;
  }
  EXPECT(nin > 0 && nout > 0);
  printf("test_meshio: refined: mean cell volume %.3g inside the zone, %.3g near the sides\n", vin / nin, vout / nout);
  EXPECT(vin / nin < 0.2 * (vout / nout));
  EXPECT(m->group[0] == 7);
  sq_mesh_destroy(m);
}
END_TEST

START_TEST(test_gmsh_fault) {
  sq_mesh *m = read_variants(GEO_FAULT);
  EXPECT(m->ncell > 500 && m->ncell < 5000);
  expect_consistent(m, 4.0);
  const double lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 0};
  const int codes[6] = {SQ_BC_ABSORB, SQ_BC_ABSORB, SQ_BC_ABSORB, SQ_BC_ABSORB, SQ_BC_ABSORB, SQ_BC_FREE};
  expect_box_boundary(m, lo, hi, codes);
  /* Rupture faces: on the rectangle x = 0, |y| <= 0.5, -0.7 <= z <= -0.2, tagged on both sides, covering it. */
  double area = 0;
  int64_t nrupture = 0;
  for (int64_t cf = 0; cf < 4 * m->ncell; cf++) {
    if (m->face_bc[cf] != SQ_BC_RUPTURE) continue;
    nrupture++;
    for (int k = 0; k < 3; k++) {
      const double *x = vtx(m, cf / 4, face_vertices[cf % 4][k]);
      EXPECT_NEAR(x[0], 0.0, 1e-12);
      EXPECT(fabs(x[1]) <= 0.5 + 1e-12 && x[2] >= -0.7 - 1e-12 && x[2] <= -0.2 + 1e-12);
    }
    int64_t nb = m->face_neighbor[cf];
    EXPECT(nb >= 0);
    EXPECT_EQ(m->face_bc[4 * nb + m->face_nbface[cf]], SQ_BC_RUPTURE);
    /* the two sides lie on opposite sides of the plane */
    EXPECT((m->centroid[3 * (cf / 4)] > 0) != (m->centroid[3 * nb] > 0));
    area += m->face_area[cf];
  }
  EXPECT(nrupture > 0 && nrupture % 2 == 0);
  EXPECT_NEAR(area / 2, 1.0 * 0.5, 1e-12);
  /* and no face of the plane x = 0 outside the rectangle is tagged */
  for (int64_t cf = 0; cf < 4 * m->ncell; cf++) {
    if (m->face_bc[cf] != SQ_BC_REGULAR) continue;
    int on_fault = 1;
    for (int k = 0; k < 3; k++) {
      const double *x = vtx(m, cf / 4, face_vertices[cf % 4][k]);
      on_fault &= fabs(x[0]) < 1e-12 && fabs(x[1]) <= 0.5 + 1e-12 && x[2] >= -0.7 - 1e-12 && x[2] <= -0.2 + 1e-12;
    }
    EXPECT_MSG(!on_fault, "face %d of cell %lld lies on the fault but is not tagged", (int)(cf % 4), (long long)(cf / 4));
  }
  printf("test_meshio: fault: %lld rupture faces (each tagged on both sides), area %.6f\n", (long long)nrupture / 2,
         area / 2);
  sq_mesh_destroy(m);
}
END_TEST

/* Our writer: read back identical; gmsh itself reads our file and writes an equivalent one. */
START_TEST(test_gmsh_write_roundtrip) {
  require_gmsh();
  for (int geo = 0; geo < NGEO; geo++) {
    char in[512], out[512], regmsh[512], cmd[2048];
    gmsh_path(in, sizeof in, geo, 0);
    snprintf(out, sizeof out, "%s/%s-written.msh", fx.tmp, geo_name[geo]);
    snprintf(regmsh, sizeof regmsh, "%s/%s-written-by-gmsh.msh", fx.tmp, geo_name[geo]);
    sq_mesh *a = read_ok(in);
    EXPECT_EQ(sq_mesh_write_gmsh(out, a), SQ_SUCCESS);
    sq_mesh *b = read_ok(out);
    expect_same_mesh(a, b, "Gmsh write/read");
    snprintf(cmd, sizeof cmd, "gmsh -v 2 '%s' -0 -format msh22 -o '%s' > '%s.log' 2>&1", out, regmsh, regmsh);
    EXPECT_MSG(system(cmd) == 0, "gmsh could not read our file: %s", cmd);
    sq_mesh *c = read_ok(regmsh);
    int64_t ca[7], cc[7];
    count_codes(a, ca);
    count_codes(c, cc);
    EXPECT_EQ(c->ncell, a->ncell);
    EXPECT_EQ(c->nvert, a->nvert);
    for (int k = 0; k < 7; k++) EXPECT_EQ(cc[k], ca[k]);
    sq_mesh_destroy(a);
    sq_mesh_destroy(b);
    sq_mesh_destroy(c);
  }
}
END_TEST

/* Non-contiguous node and element tags, an inverted tetrahedron, ignored points and lines, duplicated
 * elements (2.2 writes one copy per physical group), in both 4.1 and 2.2. */
START_TEST(test_gmsh_tags_orientation) {
  /* Two tetrahedra sharing the face (0,0,0) (1,0,0) (0,1,0): one above (given inverted), one below. */
  const char *msh41 =
      "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
      "$PhysicalNames\n2\n2 105 \"absorbing\"\n3 4 \"rock\"\n$EndPhysicalNames\n"
      "$Entities\n1 1 1 1\n"
      "1 0 0 0 0\n"
      "1 0 0 0 1 0 0 0 2 1 -1\n"
      "5 0 0 -1 1 1 1 1 105 0\n"
      "9 0 0 -1 1 1 1 1 4 0\n"
      "$EndEntities\n"
      "$Nodes\n2 5 3 700\n"
      "0 1 0 1\n700\n0 0 0\n"
      "3 9 0 4\n30\n3\n55\n12\n1 0 0\n0 1 0\n0 0 1\n0 0 -1\n"
      "$EndNodes\n"
      "$Elements\n4 10 5 900\n"
      "0 1 15 1\n900 700\n"
      "1 1 1 1\n800 700 30\n"
      "3 9 4 2\n17 700 3 30 55\n5 700 3 30 12\n"
      "2 5 2 6\n"
      "40 700 55 3\n41 700 30 55\n42 30 3 55\n43 700 12 30\n44 700 3 12\n45 30 12 3\n"
      "$EndElements\n";
  const char *msh22 =
      "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"
      "$Nodes\n5\n700 0 0 0\n30 1 0 0\n3 0 1 0\n55 0 0 1\n12 0 0 -1\n$EndNodes\n"
      "$Elements\n11\n"
      "900 15 2 0 1 700\n"
      "17 4 2 4 9 700 3 30 55\n"
      "17 4 2 8 9 700 3 30 55\n" /* the same element again, for a second physical group */
      "5 4 2 4 9 700 3 30 12\n"
      "40 2 2 105 5 700 55 3\n41 2 2 105 5 700 30 55\n42 2 2 105 5 30 3 55\n"
      "43 2 2 105 5 700 12 30\n44 2 2 105 5 700 3 12\n45 2 2 105 5 30 12 3\n"
      "800 1 2 0 1 700 30\n"
      "$EndElements\n";
  const char *texts[2] = {msh41, msh22};
  for (int k = 0; k < 2; k++) {
    char path[512];
    snprintf(path, sizeof path, "%s/tags%d.msh", fx.tmp, k);
    FILE *fp = fopen(path, "w");
    EXPECT(fp != NULL);
    fputs(texts[k], fp);
    fclose(fp);
    sq_mesh *m = read_ok(path);
    EXPECT_EQ(m->ncell, 2);
    EXPECT_EQ(m->nvert, 5);
    expect_consistent(m, 2.0 / 6.0);
    for (int64_t c = 0; c < 2; c++) EXPECT_EQ(m->group[c], 4);
    int64_t count[7];
    count_codes(m, count);
    EXPECT_EQ(count[SQ_BC_ABSORB], 6);
    EXPECT_EQ(count[SQ_BC_REGULAR], 2);
    /* node tag 700 is the origin, the first node in the file: index 0 */
    EXPECT_NEAR(m->vert[0] + m->vert[1] + m->vert[2], 0.0, 0);
    sq_mesh_destroy(m);
  }
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* Gmsh: bad input                                                                                 */
/* ---------------------------------------------------------------------------------------------- */

typedef struct bad_case {
  const char *file;
  const char *needles[8];
} bad_case;

START_TEST(test_gmsh_bad_fixtures) {
  static const bad_case cases[] = {
      {"untagged.msh", {"lies on the boundary", "element 1", "4 boundary faces", "101", "105", NULL}},
      {"degenerate.msh", {"line 13", "element 1", "degenerate", "volume 0", NULL}},
      {"unknown_tag.msh", {"line 13", "triangle element 1", "physical surface 107", NULL}},
      {"second_order.msh", {"element 1", "10-node second-order tetrahedron", "Mesh.ElementOrder = 1", NULL}},
      {"nonmanifold.msh", {"three tetrahedra", "elements 1, 2 and 3", NULL}},
      {"truncated.msh", {"section $Elements", "truncated", NULL}},
      {"bad_version.msh", {"line 2", "version 4.0", NULL}},
      {"missing_node.msh", {"line 13", "element 1", "node 99", NULL}},
      {"hexahedron.msh", {"line 17", "hexahedron", "tetrahedral mesh", NULL}},
      {"bad_number.msh", {"line 7", "'0.x'", NULL}},
      {"interior_free.msh", {"line 14", "triangle element 1", "inside the volume", "only 103", NULL}},
      {"rupture_boundary.msh", {"line 13", "physical surface 103", "on the boundary", NULL}},
      {"conflict.msh", {"tagged twice", "physical surface 105", "101", NULL}},
      {"not_a_mesh.msh", {"not a Gmsh mesh file", NULL}},
      {"partitioned.msh", {"partitioned", NULL}},
      {"does_not_exist.msh", {"cannot open", NULL}},
      {"unknown.extension", {"extension", NULL}},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char path[512];
    snprintf(path, sizeof path, "%s/tests/meshes/bad/%s", SQ_SRCDIR, cases[k].file);
    expect_read_error(path, cases[k].needles);
  }
}
END_TEST

static long file_size(const char *path) {
  struct stat st;
  EXPECT(stat(path, &st) == 0);
  return (long)st.st_size;
}

static void copy_prefix(const char *from, const char *to, long nbytes) {
  FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
  EXPECT(in && out);
  char buf[65536];
  while (nbytes > 0) {
    size_t n = fread(buf, 1, nbytes < (long)sizeof buf ? (size_t)nbytes : sizeof buf, in);
    if (n == 0) break;
    EXPECT(fwrite(buf, 1, n, out) == n);
    nbytes -= (long)n;
  }
  fclose(in);
  fclose(out);
}

/* Every prefix of a gmsh file (cut in any section, ASCII or binary) is an error naming a section; none crash. */
START_TEST(test_gmsh_truncated_sweep) {
  require_gmsh();
  int64_t ncut = 0;
  for (int v = 0; v < NVARIANT; v++) {
    char full[512], cut[512];
    gmsh_path(full, sizeof full, GEO_BOX, v);
    snprintf(cut, sizeof cut, "%s/cut-%s.msh", fx.tmp, variant_name[v]);
    long size = file_size(full);
    for (int k = 0; k < 48; k++) {
      /* spread over the file, plus the very last bytes */
      long n = k < 45 ? 1 + (long)((double)k / 45 * (double)(size - 3)) : size - 1 - (k - 45);
      copy_prefix(full, cut, n);
      capture cap;
      char msg[8192];
      sq_mesh *m = NULL;
      capture_start(&cap);
      int ierr = sq_mesh_read(cut, &m);
      capture_stop(&cap, msg, sizeof msg);
      if (n == size - 1) { /* only the final newline is missing: still a complete file */
        EXPECT_MSG(ierr == SQ_SUCCESS, "%s cut to %ld of %ld bytes failed", variant_name[v], n, size);
        sq_mesh_destroy(m);
        continue;
      }
      EXPECT_MSG(ierr != SQ_SUCCESS, "%s cut to %ld of %ld bytes was read", variant_name[v], n, size);
      EXPECT_MSG(strstr(msg, "cut-") && (strstr(msg, "section $") || strstr(msg, "$MeshFormat")),
                 "message names no file/section: %s", msg);
      ncut++;
    }
  }
  printf("test_meshio: %lld truncated Gmsh files rejected with a message\n", (long long)ncut);
}
END_TEST

/* Random byte corruption of ASCII and binary files: the reader may accept or reject, but never crash. */
START_TEST(test_gmsh_corruption_fuzz) {
  require_gmsh();
  unsigned seed = 12345;
  int64_t nrejected = 0, naccepted = 0;
  for (int v = 0; v < NVARIANT; v++) {
    char full[512], bad[512];
    gmsh_path(full, sizeof full, GEO_BOX, v);
    snprintf(bad, sizeof bad, "%s/fuzz-%s.msh", fx.tmp, variant_name[v]);
    long size = file_size(full);
    char *data = malloc((size_t)size);
    FILE *fp = fopen(full, "rb");
    EXPECT(data && fp && fread(data, 1, (size_t)size, fp) == (size_t)size);
    fclose(fp);
    for (int trial = 0; trial < 40; trial++) {
      char *copy = malloc((size_t)size);
      memcpy(copy, data, (size_t)size);
      for (int k = 0; k < 1 + trial % 4; k++) {
        seed = seed * 1103515245u + 12345u;
        long at = (long)((seed >> 8) % (unsigned)size);
        seed = seed * 1103515245u + 12345u;
        copy[at] = (char)(seed >> 16);
      }
      fp = fopen(bad, "wb");
      fwrite(copy, 1, (size_t)size, fp);
      fclose(fp);
      free(copy);
      capture cap;
      char msg[8192];
      sq_mesh *m = NULL;
      capture_start(&cap);
      int ierr = sq_mesh_read(bad, &m);
      capture_stop(&cap, msg, sizeof msg);
      if (ierr) nrejected++;
      else naccepted++;
      sq_mesh_destroy(m);
    }
    free(data);
  }
  printf("test_meshio: corrupted Gmsh files: %lld rejected, %lld accepted (harmless bytes), no crash\n",
         (long long)nrejected, (long long)naccepted);
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* PUML: the real PUMGen file                                                                      */
/* ---------------------------------------------------------------------------------------------- */

/* Eigenvector of the smallest eigenvalue of the symmetric 3x3 @p a (Jacobi rotations). */
static void smallest_eigenvector(double a[3][3], double out[3]) {
  double v[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int sweep = 0; sweep < 50; sweep++) {
    double off = fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]);
    if (off < 1e-300) break;
    for (int p = 0; p < 2; p++)
      for (int q = p + 1; q < 3; q++) {
        if (fabs(a[p][q]) < 1e-300) continue;
        double theta = 0.5 * atan2(2 * a[p][q], a[q][q] - a[p][p]);
        double c = cos(theta), s = sin(theta);
        for (int k = 0; k < 3; k++) { /* A <- A J */
          double akp = a[k][p], akq = a[k][q];
          a[k][p] = c * akp - s * akq;
          a[k][q] = s * akp + c * akq;
        }
        for (int k = 0; k < 3; k++) { /* A <- J^T A */
          double apk = a[p][k], aqk = a[q][k];
          a[p][k] = c * apk - s * aqk;
          a[q][k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 3; k++) {
          double vkp = v[k][p], vkq = v[k][q];
          v[k][p] = c * vkp - s * vkq;
          v[k][q] = s * vkp + c * vkq;
        }
      }
  }
  int best = 0;
  for (int k = 1; k < 3; k++)
    if (a[k][k] < a[best][best]) best = k;
  for (int d = 0; d < 3; d++) out[d] = v[d][best];
}

START_TEST(test_puml_real_file) {
  if (!have_real_puml("puml_real_file")) return;
  double t0 = now();
  sq_mesh *m = read_ok(fx.real_puml);
  double t1 = now();
  sq_puml_part *p = NULL;
  EXPECT_EQ(sq_mesh_read_puml_range(fx.real_puml, 0, m->ncell, &p), SQ_SUCCESS);
  printf("test_meshio: %s: %lld cells, %lld vertices, boundary format %s (%s); read and finalized in %.3f s\n",
         fx.real_puml, (long long)m->ncell, (long long)m->nvert, p->boundary_format,
         p->boundary_format_given ? "attribute" : "inferred", t1 - t0);
  EXPECT_EQ(m->ncell, 37034);
  EXPECT_EQ(m->nvert, 6994);
  EXPECT(!strcmp(p->boundary_format, "i32") && p->boundary_format_given);
  /* Raw orientation (before any finalize): every stored tet is positive; report otherwise. */
  int64_t nnegative = 0;
  for (int64_t c = 0; c < p->mesh->ncell; c++) {
    const double *x[4];
    for (int k = 0; k < 4; k++) x[k] = &p->mesh->vert[3 * p->mesh->cell_vert[4 * c + k]];
    double a[3], b[3], e[3];
    for (int d = 0; d < 3; d++) {
      a[d] = x[1][d] - x[0][d];
      b[d] = x[2][d] - x[0][d];
      e[d] = x[3][d] - x[0][d];
    }
    double det = a[0] * (b[1] * e[2] - b[2] * e[1]) - a[1] * (b[0] * e[2] - b[2] * e[0]) + a[2] * (b[0] * e[1] - b[1] * e[0]);
    nnegative += det <= 0;
  }
  printf("test_meshio: real file: %lld negatively oriented tetrahedra as stored\n", (long long)nnegative);
  EXPECT_EQ(nnegative, 0);
  /* Raw codes as stored, per code; the stored rupture faces per side. */
  int64_t raw[256] = {0};
  for (int64_t cf = 0; cf < 4 * m->ncell; cf++) raw[p->face_tag[cf] & 255]++;
  int64_t count[7];
  count_codes(m, count);
  printf("test_meshio: real file: stored codes 0: %lld, 1: %lld, 3: %lld, 5: %lld (cell faces); after finalize "
         "rupture %lld\n", (long long)raw[0], (long long)raw[1], (long long)raw[3], (long long)raw[5],
         (long long)count[3]);
  EXPECT_EQ(raw[0] + raw[1] + raw[3] + raw[5], 4 * m->ncell);
  EXPECT_EQ(count[SQ_BC_PERIODIC], 0);
  /* Interior faces: exactly one neighbour, symmetric. */
  double size = 0;
  for (int d = 0; d < 3; d++) size = fmax(size, m->bbox_hi[d] - m->bbox_lo[d]);
  expect_consistent(m, (m->bbox_hi[0] - m->bbox_lo[0]) * (m->bbox_hi[1] - m->bbox_lo[1]) *
                           (m->bbox_hi[2] - m->bbox_lo[2]));
  /* Free surface on top, absorbing on the other five sides. */
  const int codes[6] = {SQ_BC_ABSORB, SQ_BC_ABSORB, SQ_BC_ABSORB, SQ_BC_ABSORB, SQ_BC_ABSORB, SQ_BC_FREE};
  double lo[3], hi[3];
  for (int d = 0; d < 3; d++) {
    lo[d] = m->bbox_lo[d];
    hi[d] = m->bbox_hi[d];
  }
  expect_box_boundary(m, lo, hi, codes);
  /* Fault faces: one plane (least-squares fit through their vertices). */
  double cen[3] = {0, 0, 0}, cov[3][3] = {{0}};
  int64_t npts = 0;
  for (int64_t cf = 0; cf < 4 * m->ncell; cf++) {
    if (m->face_bc[cf] != SQ_BC_RUPTURE) continue;
    for (int k = 0; k < 3; k++) {
      const double *x = vtx(m, cf / 4, face_vertices[cf % 4][k]);
      for (int d = 0; d < 3; d++) cen[d] += x[d];
      npts++;
    }
  }
  EXPECT(npts > 0);
  for (int d = 0; d < 3; d++) cen[d] /= (double)npts;
  for (int64_t cf = 0; cf < 4 * m->ncell; cf++) {
    if (m->face_bc[cf] != SQ_BC_RUPTURE) continue;
    for (int k = 0; k < 3; k++) {
      const double *x = vtx(m, cf / 4, face_vertices[cf % 4][k]);
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) cov[i][j] += (x[i] - cen[i]) * (x[j] - cen[j]);
    }
  }
  double n[3], maxdist = 0;
  smallest_eigenvector(cov, n);
  for (int64_t cf = 0; cf < 4 * m->ncell; cf++) {
    if (m->face_bc[cf] != SQ_BC_RUPTURE) continue;
    for (int k = 0; k < 3; k++) {
      const double *x = vtx(m, cf / 4, face_vertices[cf % 4][k]);
      double dist = 0;
      for (int d = 0; d < 3; d++) dist += (x[d] - cen[d]) * n[d];
      maxdist = fmax(maxdist, fabs(dist));
    }
  }
  double dip = acos(fabs(n[2])) * 45.0 / atan(1.0);
  printf("test_meshio: real file: fault plane through (%.1f, %.1f, %.1f), normal (%.6f, %.6f, %.6f), dip %.4f deg, "
         "largest vertex distance %.3g (relative %.3g)\n", cen[0], cen[1], cen[2], n[0], n[1], n[2], dip, maxdist,
         maxdist / size);
  EXPECT(maxdist <= 1e-6 * size);
  EXPECT_NEAR(dip, 60.0, 0.01);
  sq_puml_part_destroy(p);
  sq_mesh_destroy(m);
}
END_TEST

/* Face mapping: with PUML face f = our face {0,1,3,2}[f] every code-1 face lies on the top surface; with the
 * identity mapping many do not (which shows that the file decides between them). */
START_TEST(test_puml_face_mapping) {
  if (!have_real_puml("puml_face_mapping")) return;
  sq_puml_part *p = NULL;
  int64_t ncell, nvert;
  EXPECT_EQ(sq_mesh_puml_size(fx.real_puml, &ncell, &nvert), SQ_SUCCESS);
  EXPECT_EQ(sq_mesh_read_puml_range(fx.real_puml, 0, ncell, &p), SQ_SUCCESS);
  const sq_mesh *m = p->mesh;
  double ztop = -INFINITY, zbot = INFINITY;
  for (int64_t v = 0; v < m->nvert; v++) {
    ztop = fmax(ztop, m->vert[3 * v + 2]);
    zbot = fmin(zbot, m->vert[3 * v + 2]);
  }
  const double tol = 1e-9 * (ztop - zbot);
  static const int perm[4] = {0, 1, 3, 2};
  int64_t nfree = 0, off_ours = 0, off_identity = 0;
  for (int64_t c = 0; c < m->ncell; c++) {
    for (int g = 0; g < 4; g++) {
      int ours = p->face_tag[4 * c + g] == 1;                 /* our reading: code of our face g */
      int identity = p->face_tag[4 * c + perm[g]] == 1;       /* had PUML face g been our face g */
      int top = 1;
      for (int k = 0; k < 3; k++) top &= fabs(vtx(m, c, face_vertices[g][k])[2] - ztop) <= tol;
      nfree += ours;
      off_ours += ours && !top;
      off_identity += identity && !top;
    }
  }
  printf("test_meshio: face mapping: %lld code-1 faces; off the top surface: %lld with PUML face f = our face "
         "{0,1,3,2}[f], %lld with the identity\n", (long long)nfree, (long long)off_ours, (long long)off_identity);
  EXPECT(nfree > 0);
  EXPECT_EQ(off_ours, 0);
  EXPECT(off_identity > 0);
  sq_puml_part_destroy(p);
}
END_TEST

/* The mesh the PUML tests start from: the real file, or the gmsh fault mesh when it is absent. */
static sq_mesh *puml_source_mesh(char *name, size_t len) {
  if (fx.real_puml[0]) {
    snprintf(name, len, "%s", fx.real_puml);
    return read_ok(fx.real_puml);
  }
  require_gmsh();
  gmsh_path(name, len, GEO_FAULT, 0);
  printf("test_meshio: (real PUML file absent: using %s instead)\n", name);
  return read_ok(name);
}

/* PUML -> msh -> PUML keeps geometry, connectivity, groups and boundary codes exactly. */
START_TEST(test_puml_roundtrip) {
  char src[1024], msh[512], puml1[512], puml2[512];
  sq_mesh *a = puml_source_mesh(src, sizeof src);
  tmp_path(msh, sizeof msh, "roundtrip.msh");
  tmp_path(puml1, sizeof puml1, "roundtrip-1.puml.h5");
  tmp_path(puml2, sizeof puml2, "roundtrip-2.puml.h5");
  double t0 = now();
  EXPECT_EQ(sq_mesh_write(puml1, a), SQ_SUCCESS);
  double t1 = now();
  EXPECT_EQ(sq_mesh_write(msh, a), SQ_SUCCESS);
  double t2 = now();
  sq_mesh *b = read_ok(msh);
  double t3 = now();
  EXPECT_EQ(sq_mesh_write(puml2, b), SQ_SUCCESS);
  sq_mesh *c = read_ok(puml2);
  sq_mesh *a1 = read_ok(puml1);
  expect_same_mesh(a, b, "PUML -> msh");
  expect_same_mesh(a, c, "PUML -> msh -> PUML");
  expect_same_mesh(a, a1, "PUML -> PUML");
  /* The raw /boundary of both written files agree, and with the source's codes where it is a PUML file. */
  sq_puml_part *p1 = NULL, *p2 = NULL;
  EXPECT_EQ(sq_mesh_read_puml_range(puml1, 0, a->ncell, &p1), SQ_SUCCESS);
  EXPECT_EQ(sq_mesh_read_puml_range(puml2, 0, a->ncell, &p2), SQ_SUCCESS);
  EXPECT(!memcmp(p1->face_tag, p2->face_tag, (size_t)a->ncell * 4 * sizeof(int32_t)));
  EXPECT(!strcmp(p1->boundary_format, "i32") && p1->boundary_format_given);
  printf("test_meshio: round trip of %s (%lld cells): write PUML %.3f s, write msh %.3f s, read msh %.3f s\n", src,
         (long long)a->ncell, t1 - t0, t2 - t1, t3 - t2);
  sq_puml_part_destroy(p1);
  sq_puml_part_destroy(p2);
  sq_mesh_destroy(a);
  sq_mesh_destroy(a1);
  sq_mesh_destroy(b);
  sq_mesh_destroy(c);
}
END_TEST

/* Ranges read with hyperslabs reproduce the whole mesh. */
START_TEST(test_puml_range) {
  char src[1024], path[1024];
  sq_mesh *whole = NULL;
  if (fx.real_puml[0]) {
    snprintf(path, sizeof path, "%s", fx.real_puml);
    whole = read_ok(path);
  } else {
    sq_mesh *m = puml_source_mesh(src, sizeof src);
    tmp_path(path, sizeof path, "range.puml.h5");
    EXPECT_EQ(sq_mesh_write_puml(path, m), SQ_SUCCESS);
    sq_mesh_destroy(m);
    whole = read_ok(path);
  }
  const int64_t n = whole->ncell;
  const int64_t cuts[5] = {0, n / 7, n / 2, n / 2, n}; /* includes an empty range */
  int64_t covered = 0;
  for (int r = 0; r < 4; r++) {
    sq_puml_part *p = NULL;
    EXPECT_EQ(sq_mesh_read_puml_range(path, cuts[r], cuts[r + 1], &p), SQ_SUCCESS);
    EXPECT_EQ(p->ncell_global, n);
    EXPECT_EQ(p->nvert_global, whole->nvert);
    EXPECT_EQ(p->mesh->ncell, cuts[r + 1] - cuts[r]);
    for (int64_t v = 1; v < p->mesh->nvert; v++) EXPECT(p->vert_global[v] > p->vert_global[v - 1]);
    for (int64_t lc = 0; lc < p->mesh->ncell; lc++) {
      int64_t c = cuts[r] + lc;
      for (int k = 0; k < 4; k++) {
        int64_t lv = p->mesh->cell_vert[4 * lc + k];
        EXPECT_EQ(p->vert_global[lv], whole->cell_vert[4 * c + k]);
        for (int d = 0; d < 3; d++) EXPECT(p->mesh->vert[3 * lv + d] == whole->vert[3 * whole->cell_vert[4 * c + k] + d]);
      }
      EXPECT_EQ(p->mesh->group[lc], whole->group[c]);
      /* stored codes: what the file says for this cell (finalize may add the second side of rupture faces) */
      for (int f = 0; f < 4; f++) {
        int stored = p->mesh->face_bc[4 * lc + f];
        EXPECT(stored == whole->face_bc[4 * c + f] || (stored == 0 && whole->face_bc[4 * c + f] == SQ_BC_RUPTURE));
      }
    }
    covered += p->mesh->ncell;
    sq_puml_part_destroy(p);
  }
  EXPECT_EQ(covered, n);
  /* a range outside the file is an error naming it */
  capture cap;
  char msg[4096];
  sq_puml_part *p = NULL;
  capture_start(&cap);
  int ierr = sq_mesh_read_puml_range(path, 0, n + 1, &p);
  capture_stop(&cap, msg, sizeof msg);
  EXPECT(ierr != SQ_SUCCESS && p == NULL);
  EXPECT_MSG(strstr(msg, "not within"), "%s", msg);
  sq_mesh_destroy(whole);
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* PUML: boundary formats, fault tags, and bad files made by the test                              */
/* ---------------------------------------------------------------------------------------------- */

static hid_t h5_open_rw(const char *path) {
  hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  EXPECT_MSG(f >= 0, "cannot open %s for writing", path);
  return f;
}

/* Overwrite row @p row of 2-D dataset @p name (@p ncols columns) with @p values (as @p memtype). */
static void h5_patch_row(const char *path, const char *name, hid_t memtype, int64_t row, int ncols, const void *values) {
  hid_t f = h5_open_rw(path), d = H5Dopen2(f, name, H5P_DEFAULT), fs = H5Dget_space(d);
  int rank = H5Sget_simple_extent_ndims(fs);
  hsize_t start[2] = {(hsize_t)row, 0}, count[2] = {1, (hsize_t)ncols};
  hid_t ms = H5Screate_simple(rank, count, NULL);
  EXPECT(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) >= 0);
  EXPECT(H5Dwrite(d, memtype, ms, fs, H5P_DEFAULT, values) >= 0);
  H5Sclose(ms);
  H5Sclose(fs);
  H5Dclose(d);
  H5Fclose(f);
}

/* Replace dataset @p name by a new one of @p type, @p rank with @p dims, filled from @p data. */
static void h5_replace(const char *path, const char *name, hid_t type, hid_t memtype, int rank, const hsize_t *dims,
                       const void *data) {
  hid_t f = h5_open_rw(path);
  if (H5Lexists(f, name, H5P_DEFAULT) > 0) EXPECT(H5Ldelete(f, name, H5P_DEFAULT) >= 0);
  if (type >= 0) {
    hid_t s = H5Screate_simple(rank, dims, NULL);
    hid_t d = H5Dcreate2(f, name, type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    EXPECT(d >= 0 && H5Dwrite(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
    H5Dclose(d);
    H5Sclose(s);
  }
  H5Fclose(f);
}

static void h5_set_format_attr(const char *path, const char *value) {
  hid_t f = h5_open_rw(path);
  if (H5Aexists(f, "boundary-format") > 0) EXPECT(H5Adelete(f, "boundary-format") >= 0);
  if (value) {
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(f, "boundary-format", t, s, H5P_DEFAULT, H5P_DEFAULT);
    EXPECT(a >= 0 && H5Awrite(a, t, &value) >= 0);
    H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
  }
  H5Fclose(f);
}

/* A small mesh with every kind of face (fault mesh from gmsh, periodic faces from the refined one). */
static sq_mesh *small_mesh(int geo) {
  require_gmsh();
  char path[512];
  gmsh_path(path, sizeof path, geo, 0);
  return read_ok(path);
}

START_TEST(test_puml_boundary_formats) {
  static const char *formats[3] = {"i32", "i64", "i32x4"};
  for (int geo = GEO_REFINED; geo <= GEO_FAULT; geo++) {
    sq_mesh *m = small_mesh(geo);
    for (int k = 0; k < 3; k++) {
      for (int attr = 1; attr >= 0; attr--) {
        char path[512], name[64];
        snprintf(name, sizeof name, "format-%s-%d-%d.puml.h5", formats[k], geo, attr);
        tmp_path(path, sizeof path, name);
        EXPECT_EQ(sq_mesh_write_puml_format(path, m, formats[k]), SQ_SUCCESS);
        if (!attr) h5_set_format_attr(path, NULL); /* an old file: layout inferred from /boundary */
        sq_mesh *b = read_ok(path);
        expect_same_mesh(m, b, formats[k]);
        sq_puml_part *p = NULL;
        EXPECT_EQ(sq_mesh_read_puml_range(path, 0, m->ncell, &p), SQ_SUCCESS);
        EXPECT_MSG(!strcmp(p->boundary_format, formats[k]), "%s read as %s", formats[k], p->boundary_format);
        EXPECT_EQ(p->boundary_format_given, attr);
        sq_puml_part_destroy(p);
        sq_mesh_destroy(b);
      }
    }
    sq_mesh_destroy(m);
  }
}
END_TEST

/* Codes above 64 are fault-tagged rupture faces: SQ_BC_RUPTURE, raw code kept in face_tag. */
START_TEST(test_puml_fault_tags) {
  sq_mesh *m = small_mesh(GEO_FAULT);
  /* PUML face of each of our faces: the inverse of {0,1,3,2} is itself. */
  static const int ours_to_puml[4] = {0, 1, 3, 2};
  int64_t cell = -1;
  int face = -1;
  for (int64_t cf = 0; cf < 4 * m->ncell && cell < 0; cf++)
    if (m->face_bc[cf] == SQ_BC_RUPTURE) cell = cf / 4, face = (int)(cf % 4);
  EXPECT(cell >= 0);
  for (int k = 0; k < 3; k++) {
    static const char *formats[3] = {"i32", "i64", "i32x4"};
    static const int tag[3] = {65, 300, 70000};
    char path[512], name[64];
    snprintf(name, sizeof name, "faulttag-%s.puml.h5", formats[k]);
    tmp_path(path, sizeof path, name);
    EXPECT_EQ(sq_mesh_write_puml_format(path, m, formats[k]), SQ_SUCCESS);
    int32_t row4[4];
    uint64_t packed = 0;
    for (int f = 0; f < 4; f++) {
      int64_t code = m->face_bc[4 * cell + ours_to_puml[f]];
      if (ours_to_puml[f] == face) code = tag[k];
      row4[f] = (int32_t)code;
      packed |= (uint64_t)code << ((k == 0 ? 8 : 16) * f);
    }
    if (k == 0) {
      int32_t v = (int32_t)(uint32_t)packed;
      h5_patch_row(path, "/boundary", H5T_NATIVE_INT32, cell, 1, &v);
    } else if (k == 1) {
      int64_t v = (int64_t)packed;
      h5_patch_row(path, "/boundary", H5T_NATIVE_INT64, cell, 1, &v);
    } else {
      h5_patch_row(path, "/boundary", H5T_NATIVE_INT32, cell, 4, row4);
    }
    sq_puml_part *p = NULL;
    EXPECT_EQ(sq_mesh_read_puml_range(path, 0, m->ncell, &p), SQ_SUCCESS);
    EXPECT_EQ(p->face_tag[4 * cell + face], tag[k]);
    EXPECT_EQ(p->mesh->face_bc[4 * cell + face], SQ_BC_RUPTURE);
    sq_puml_part_destroy(p);
    sq_mesh *b = read_ok(path);
    expect_same_mesh(m, b, "fault tag");
    sq_mesh_destroy(b);
  }
  sq_mesh_destroy(m);
}
END_TEST

START_TEST(test_puml_bad_files) {
  sq_mesh *m = small_mesh(GEO_FAULT);
  const int64_t n = m->ncell;
  char base[512], path[512];
  tmp_path(base, sizeof base, "bad-base.puml.h5");
  EXPECT_EQ(sq_mesh_write_puml(base, m), SQ_SUCCESS);

  /* truncated file */
  tmp_path(path, sizeof path, "bad-truncated.puml.h5");
  copy_prefix(base, path, file_size(base) / 2);
  expect_read_error(path, (const char *const[]){"cannot open it as an HDF5 file", "truncated", NULL});
  /* not HDF5 at all */
  snprintf(path, sizeof path, "%s/tests/meshes/bad/not_hdf5.puml.h5", SQ_SRCDIR);
  expect_read_error(path, (const char *const[]){"cannot open it as an HDF5 file", NULL});
  /* a dataset whose data cannot be read (its external storage file is missing): the message names it */
  tmp_path(path, sizeof path, "bad-external.puml.h5");
  EXPECT_EQ(sq_mesh_write_puml(path, m), SQ_SUCCESS);
  {
    char ext[512];
    tmp_path(ext, sizeof ext, "missing-geometry.raw");
    hid_t f = h5_open_rw(path);
    EXPECT(H5Ldelete(f, "/geometry", H5P_DEFAULT) >= 0);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    EXPECT(H5Pset_external(dcpl, ext, 0, (hsize_t)(24 * m->nvert)) >= 0);
    hsize_t dims[2] = {(hsize_t)m->nvert, 3};
    hid_t s = H5Screate_simple(2, dims, NULL);
    hid_t d = H5Dcreate2(f, "/geometry", H5T_IEEE_F64LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    EXPECT(d >= 0);
    H5Dclose(d);
    H5Sclose(s);
    H5Pclose(dcpl);
    H5Fclose(f);
    unlink(ext);
  }
  expect_read_error(path, (const char *const[]){"cannot read rows", "of dataset /geometry", "HDF5:", NULL});
  /* missing dataset */
  tmp_path(path, sizeof path, "bad-noconnect.puml.h5");
  EXPECT_EQ(sq_mesh_write_puml(path, m), SQ_SUCCESS);
  h5_replace(path, "/connect", -1, -1, 0, NULL, NULL);
  expect_read_error(path, (const char *const[]){"dataset /connect is missing", NULL});
  /* /boundary one row short */
  tmp_path(path, sizeof path, "bad-short-boundary.puml.h5");
  EXPECT_EQ(sq_mesh_write_puml(path, m), SQ_SUCCESS);
  {
    int32_t *zeros = calloc((size_t)n, sizeof *zeros);
    hsize_t dims[1] = {(hsize_t)(n - 1)};
    h5_replace(path, "/boundary", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, dims, zeros);
    free(zeros);
  }
  expect_read_error(path, (const char *const[]){"/boundary has", "rows", NULL});
  /* /geometry of integers */
  tmp_path(path, sizeof path, "bad-int-geometry.puml.h5");
  EXPECT_EQ(sq_mesh_write_puml(path, m), SQ_SUCCESS);
  {
    int32_t *zeros = calloc((size_t)(3 * m->nvert), sizeof *zeros);
    hsize_t dims[2] = {(hsize_t)m->nvert, 3};
    h5_replace(path, "/geometry", H5T_STD_I32LE, H5T_NATIVE_INT32, 2, dims, zeros);
    free(zeros);
  }
  expect_read_error(path, (const char *const[]){"/geometry holds integer data", NULL});
  /* attribute that contradicts the data */
  tmp_path(path, sizeof path, "bad-attribute.puml.h5");
  EXPECT_EQ(sq_mesh_write_puml(path, m), SQ_SUCCESS);
  h5_set_format_attr(path, "i64");
  expect_read_error(path, (const char *const[]){"boundary-format = \"i64\"", "/boundary", NULL});
  h5_set_format_attr(path, "u8");
  expect_read_error(path, (const char *const[]){"\"u8\"", NULL});
  /* unknown boundary code 2 on cell 5 */
  tmp_path(path, sizeof path, "bad-code.puml.h5");
  EXPECT_EQ(sq_mesh_write_puml(path, m), SQ_SUCCESS);
  {
    int32_t v = 2 << 8; /* PUML face 1 */
    h5_patch_row(path, "/boundary", H5T_NATIVE_INT32, 5, 1, &v);
  }
  expect_read_error(path, (const char *const[]){"cell 5", "PUML face 1", "boundary code 2", "gravity", NULL});
  /* vertex out of range */
  tmp_path(path, sizeof path, "bad-vertex.puml.h5");
  EXPECT_EQ(sq_mesh_write_puml(path, m), SQ_SUCCESS);
  {
    int64_t row[4] = {0, 1, 2, m->nvert + 5};
    h5_patch_row(path, "/connect", H5T_NATIVE_INT64, 3, 4, row);
  }
  expect_read_error(path, (const char *const[]){"cell 3", "refers to vertex", NULL});
  /* inverted cell 0 (two vertices swapped) */
  tmp_path(path, sizeof path, "bad-inverted.puml.h5");
  EXPECT_EQ(sq_mesh_write_puml(path, m), SQ_SUCCESS);
  {
    int64_t row[4] = {m->cell_vert[0], m->cell_vert[2], m->cell_vert[1], m->cell_vert[3]};
    h5_patch_row(path, "/connect", H5T_NATIVE_INT64, 0, 4, row);
  }
  expect_read_error(path, (const char *const[]){"cell 0", "inverted", "signed volume -", NULL});
  /* degenerate cell 7 (a repeated vertex) */
  tmp_path(path, sizeof path, "bad-degenerate.puml.h5");
  EXPECT_EQ(sq_mesh_write_puml(path, m), SQ_SUCCESS);
  {
    int64_t row[4] = {m->cell_vert[28], m->cell_vert[28], m->cell_vert[30], m->cell_vert[31]};
    h5_patch_row(path, "/connect", H5T_NATIVE_INT64, 7, 4, row);
  }
  expect_read_error(path, (const char *const[]){"cell 7", "degenerate", "signed volume 0", NULL});
  /* a boundary face tagged regular */
  tmp_path(path, sizeof path, "bad-untagged.puml.h5");
  EXPECT_EQ(sq_mesh_write_puml(path, m), SQ_SUCCESS);
  {
    int64_t c = -1;
    for (int64_t cf = 0; cf < 4 * n && c < 0; cf++)
      if (m->face_bc[cf] == SQ_BC_ABSORB) c = cf / 4;
    int32_t v = 0;
    h5_patch_row(path, "/boundary", H5T_NATIVE_INT32, c, 1, &v);
  }
  expect_read_error(path, (const char *const[]){"has no neighbour", "regular", NULL});
  sq_mesh_destroy(m);
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* The command line: starquake mesh info / convert                                                  */
/* ---------------------------------------------------------------------------------------------- */

START_TEST(test_mesh_cli) {
  char exe[512], cmd[8192], out[512], log[512];
  snprintf(exe, sizeof exe, "%s/starquake", SQ_BUILDDIR);
  if (access(exe, X_OK) != 0) {
    printf("test_meshio: SKIP mesh_cli: %s not built\n", exe);
    return;
  }
  char src[1024];
  sq_mesh *m = puml_source_mesh(src, sizeof src);
  tmp_path(out, sizeof out, "cli.msh");
  tmp_path(log, sizeof log, "cli.log");
  snprintf(cmd, sizeof cmd, "'%s' mesh convert '%s' '%s' > '%s' 2>&1 && '%s' mesh info '%s' >> '%s' 2>&1", exe, src,
           out, log, exe, out, log);
  EXPECT_MSG(system(cmd) == 0, "failed: %s", cmd);
  FILE *fp = fopen(log, "r");
  char text[8192];
  size_t len = fread(text, 1, sizeof text - 1, fp);
  text[len] = '\0';
  fclose(fp);
  printf("%s", text);
  char want[128];
  snprintf(want, sizeof want, "cells:        %lld\n", (long long)m->ncell);
  EXPECT_MSG(strstr(text, want), "no '%s' in: %s", want, text);
  EXPECT(strstr(text, "bounding box:") && strstr(text, "free surface") && strstr(text, "group "));
  /* a bad file: non-zero exit status and the message */
  snprintf(cmd, sizeof cmd, "'%s' mesh info '%s/tests/meshes/bad/untagged.msh' > '%s' 2>&1", exe, SQ_SRCDIR, log);
  EXPECT(system(cmd) != 0);
  sq_mesh_destroy(m);
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */

static Suite *meshio_suite(void) {
  Suite *s = suite_create("meshio");
  struct {
    const char *name;
    const TTest *test;
  } cases[] = {
      {"gmsh_box", test_gmsh_box},
      {"gmsh_refined", test_gmsh_refined},
      {"gmsh_fault", test_gmsh_fault},
      {"gmsh_write_roundtrip", test_gmsh_write_roundtrip},
      {"gmsh_tags_orientation", test_gmsh_tags_orientation},
      {"gmsh_bad_fixtures", test_gmsh_bad_fixtures},
      {"gmsh_truncated_sweep", test_gmsh_truncated_sweep},
      {"gmsh_corruption_fuzz", test_gmsh_corruption_fuzz},
      {"puml_real_file", test_puml_real_file},
      {"puml_face_mapping", test_puml_face_mapping},
      {"puml_roundtrip", test_puml_roundtrip},
      {"puml_range", test_puml_range},
      {"puml_boundary_formats", test_puml_boundary_formats},
      {"puml_fault_tags", test_puml_fault_tags},
      {"puml_bad_files", test_puml_bad_files},
      {"mesh_cli", test_mesh_cli},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    TCase *tc = tcase_create(cases[k].name);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, cases[k].test);
    suite_add_tcase(s, tc);
  }
  return s;
}

int main(void) {
  snprintf(fx.tmp, sizeof fx.tmp, "%s/sq_meshio_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(fx.tmp)) {
    perror("test_meshio: mkdtemp");
    return EXIT_FAILURE;
  }
  make_gmsh_fixtures();
  if (!fx.gmsh_ok) fprintf(stderr, "test_meshio: ERROR: %s\n", fx.gmsh_error);
  find_real_puml();
  if (!fx.real_puml[0])
    printf("test_meshio: tpv13_training.puml.h5 not found: the tests of the real PUML file are skipped\n");
  fflush(stdout);
  double t0 = now();
  SRunner *sr = srunner_create(meshio_suite());
  srunner_run_all(sr, CK_NORMAL);
  int nfailed = srunner_ntests_failed(sr);
  srunner_free(sr);
  printf("test_meshio: suite ran in %.2f s\n", now() - t0);
  if (!getenv("SQ_KEEP_TMP")) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx.tmp);
    if (system(cmd) != 0) fprintf(stderr, "test_meshio: could not remove %s\n", fx.tmp);
  } else {
    printf("test_meshio: files kept in %s\n", fx.tmp);
  }
  return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
