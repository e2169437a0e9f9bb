/**
 * @file test_meshio.c  Check suite for the mesh readers and writers (mesh/gmsh_*.c, mesh/puml.c):
 * meshes made by the real gmsh from tests/meshes/{box,refined,fault}.geo in all four .msh variants, the real PUMGen
 * file tpv13_training.puml.h5 (skipped with a message when absent), round trips, PUML boundary formats and ranges, and
 * bad inputs (fixtures in tests/meshes/bad/ and files the test damages itself).  The PUML tests are in
 * meshio_puml.c.
 */
#include "sq_meshio_test.h"

/* Our face numbering (sq_ref.h), outward order. */
const int face_vertices[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};

/* ---------------------------------------------------------------------------------------------- */
/* Fixtures shared by all tests (made once in main, before Check forks the tests)                 */
/* ---------------------------------------------------------------------------------------------- */

meshio_fixtures fx;

const char *variant_name[NVARIANT] = {"msh41", "msh41-binary", "msh22", "msh22-binary"};
const char *variant_flags[NVARIANT] = {"-format msh41", "-format msh41 -bin", "-format msh22", "-format msh22 -bin"};
const char *geo_name[NGEO] = {"box", "refined", "fault"};

void gmsh_path(char *buf, size_t len, int geo, int variant) {
  snprintf(buf, len, "%s/%s-%s.msh", fx.tmp, geo_name[geo], variant_name[variant]);
}

void tmp_path(char *buf, size_t len, const char *name) { snprintf(buf, len, "%s/%s", fx.tmp, name); }

double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Mesh every .geo in every variant with the real gmsh. */
void make_gmsh_fixtures(void) {
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
      snprintf(cmd, sizeof cmd, "gmsh -3 -nt 1 -v 2 %s -o '%s' '%s/tests/meshes/%s.geo' > '%s.log' 2>&1",
               variant_flags[v], out, SQ_SRCDIR, geo_name[g], out);
      if (system(cmd) != 0) {
        snprintf(fx.gmsh_error, sizeof fx.gmsh_error, "gmsh failed: %s (see %s.log)", cmd, out);
        return;
      }
    }
  }
  printf("test_meshio: gmsh meshed %d .geo files in %d variants in %.2f s\n", NGEO, NVARIANT, now() - t0);
  fx.gmsh_ok = 1;
}

void find_real_puml(void) {
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

void require_gmsh(void) { EXPECT_MSG(fx.gmsh_ok, "test_meshio: %s", fx.gmsh_error); }

/* 1 if the real PUML file is present; otherwise says that the test is skipped. */
int have_real_puml(const char *test) {
  if (fx.real_puml[0]) return 1;
  printf("test_meshio: SKIP %s: tpv13_training.puml.h5 not found (looked in $SQ_MESH_DIR and %s/../shared/meshes)\n",
         test, SQ_SRCDIR);
  return 0;
}

sq_mesh *read_ok(const char *path) {
  sq_mesh *m = NULL;
  int ierr = sq_mesh_read(path, &m);
  EXPECT_MSG(ierr == SQ_SUCCESS && m, "reading %s failed with code %d (message above)", path, ierr);
  return m;
}

/* ---------------------------------------------------------------------------------------------- */
/* stderr capture, to check the error messages                                                    */
/* ---------------------------------------------------------------------------------------------- */

void capture_start(capture *c) {
  fflush(stderr);
  c->tmp = tmpfile();
  EXPECT(c->tmp != NULL);
  c->saved = dup(2);
  EXPECT(c->saved >= 0);
  EXPECT(dup2(fileno(c->tmp), 2) >= 0);
}

void capture_stop(capture *c, char *buf, size_t len) {
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
void expect_read_error(const char *path, const char *const *needles) {
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

const double *vtx(const sq_mesh *m, int64_t cell, int local) { return &m->vert[3 * m->cell_vert[4 * cell + local]]; }

void expect_same_mesh(const sq_mesh *a, const sq_mesh *b, const char *what) {
  EXPECT_MSG(a->ncell == b->ncell && a->nvert == b->nvert, "%s: %lld/%lld cells, %lld/%lld vertices", what,
             (long long)a->ncell, (long long)b->ncell, (long long)a->nvert, (long long)b->nvert);
  EXPECT_MSG(!memcmp(a->vert, b->vert, (size_t)a->nvert * 3 * sizeof(double)), "%s: vertices differ", what);
  EXPECT_MSG(!memcmp(a->cell_vert, b->cell_vert, (size_t)a->ncell * 4 * sizeof(int64_t)), "%s: cells differ", what);
  EXPECT_MSG(!memcmp(a->group, b->group, (size_t)a->ncell * sizeof(int32_t)), "%s: groups differ", what);
  EXPECT_MSG(!memcmp(a->face_bc, b->face_bc, (size_t)a->ncell * 4), "%s: boundary codes differ", what);
}

/* As expect_same_mesh, but vertices within @p rel of the mesh size (ASCII files round coordinates). */
void expect_same_mesh_rounded(const sq_mesh *a, const sq_mesh *b, double rel, const char *what) {
  EXPECT_MSG(a->ncell == b->ncell && a->nvert == b->nvert, "%s: sizes differ", what);
  double size = 0;
  for (int d = 0; d < 3; d++) size = fmax(size, a->bbox_hi[d] - a->bbox_lo[d]);
  for (int64_t k = 0; k < 3 * a->nvert; k++)
    EXPECT_MSG(fabs(a->vert[k] - b->vert[k]) <= rel * size, "%s: coordinate %lld: %.17g vs %.17g", what, (long long)k,
               a->vert[k], b->vert[k]);
  EXPECT_MSG(!memcmp(a->cell_vert, b->cell_vert, (size_t)a->ncell * 4 * sizeof(int64_t)), "%s: cells differ", what);
  EXPECT_MSG(!memcmp(a->group, b->group, (size_t)a->ncell * sizeof(int32_t)), "%s: groups differ", what);
  EXPECT_MSG(!memcmp(a->face_bc, b->face_bc, (size_t)a->ncell * 4), "%s: boundary codes differ", what);
}

void count_codes(const sq_mesh *m, int64_t count[7]) {
  for (int k = 0; k < 7; k++) count[k] = 0;
  for (int64_t cf = 0; cf < 4 * m->ncell; cf++) count[m->face_bc[cf]]++;
}

/* Neighbour symmetry, positive volumes, and total volume. */
void expect_consistent(const sq_mesh *m, double expected_volume) {
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
void expect_box_boundary(const sq_mesh *m, const double lo[3], const double hi[3], const int plane_code[6]) {
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
sq_mesh *read_variants(int geo) {
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
    EXPECT_MSG(!on_fault, "face %d of cell %lld lies on the fault but is not tagged", (int)(cf % 4),
               (long long)(cf / 4));
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
  const char *msh41 = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
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
  const char *msh22 = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"
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

long file_size(const char *path) {
  struct stat st;
  EXPECT(stat(path, &st) == 0);
  return (long)st.st_size;
}

void copy_prefix(const char *from, const char *to, long nbytes) {
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

void meshio_add_case(Suite *s, const char *name, const TTest *test) {
  TCase *tc = tcase_create(name);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test);
  suite_add_tcase(s, tc);
}

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
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) meshio_add_case(s, cases[k].name, cases[k].test);
  meshio_add_puml_cases(s);
  meshio_add_case(s, "mesh_cli", test_mesh_cli);
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
