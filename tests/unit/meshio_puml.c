/** @file meshio_puml.c  The PUML tests of the mesh reader suite (test_meshio.c): the real PUMGen file, face
 * mapping, round trips, ranges, boundary formats, fault tags and damaged files. */
#include "sq_meshio_test.h"

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
    double det =
        a[0] * (b[1] * e[2] - b[2] * e[1]) - a[1] * (b[0] * e[2] - b[2] * e[0]) + a[2] * (b[0] * e[1] - b[1] * e[0]);
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
         "rupture %lld\n",
         (long long)raw[0], (long long)raw[1], (long long)raw[3], (long long)raw[5], (long long)count[3]);
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
         "largest vertex distance %.3g (relative %.3g)\n",
         cen[0], cen[1], cen[2], n[0], n[1], n[2], dip, maxdist, maxdist / size);
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
      int ours = p->face_tag[4 * c + g] == 1;           /* our reading: code of our face g */
      int identity = p->face_tag[4 * c + perm[g]] == 1; /* had PUML face g been our face g */
      int top = 1;
      for (int k = 0; k < 3; k++) top &= fabs(vtx(m, c, face_vertices[g][k])[2] - ztop) <= tol;
      nfree += ours;
      off_ours += ours && !top;
      off_identity += identity && !top;
    }
  }
  printf("test_meshio: face mapping: %lld code-1 faces; off the top surface: %lld with PUML face f = our face "
         "{0,1,3,2}[f], %lld with the identity\n",
         (long long)nfree, (long long)off_ours, (long long)off_identity);
  EXPECT(nfree > 0);
  EXPECT_EQ(off_ours, 0);
  EXPECT(off_identity > 0);
  sq_puml_part_destroy(p);
}
END_TEST

/* The mesh the PUML tests start from: the real file, or the gmsh fault mesh when it is absent. */
sq_mesh *puml_source_mesh(char *name, size_t len) {
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
        for (int d = 0; d < 3; d++)
          EXPECT(p->mesh->vert[3 * lv + d] == whole->vert[3 * whole->cell_vert[4 * c + k] + d]);
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
static void h5_patch_row(const char *path, const char *name, hid_t memtype, int64_t row, int ncols,
                         const void *values) {
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

void meshio_add_puml_cases(Suite *s) {
  meshio_add_case(s, "puml_real_file", test_puml_real_file);
  meshio_add_case(s, "puml_face_mapping", test_puml_face_mapping);
  meshio_add_case(s, "puml_roundtrip", test_puml_roundtrip);
  meshio_add_case(s, "puml_range", test_puml_range);
  meshio_add_case(s, "puml_boundary_formats", test_puml_boundary_formats);
  meshio_add_case(s, "puml_fault_tags", test_puml_fault_tags);
  meshio_add_case(s, "puml_bad_files", test_puml_bad_files);
}
