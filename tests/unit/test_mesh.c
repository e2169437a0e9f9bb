/** @file test_mesh.c  Check suite for mesh/: box generator, connectivity, periodic pairing, geometry,
 *  and the errors of sq_mesh_finalize. */
#include "sq_check.h"
#include "sq_mesh.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Face vertex table of sq_ref.h (outward order), repeated so the test needs only the mesh module. */
static const int ref_face_vertices[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};

/* ---------------------------------------------------------------------------------------------- */
/* stderr capture, to check that error messages name the cell                                     */
/* ---------------------------------------------------------------------------------------------- */

typedef struct capture {
  int saved;
  FILE *tmp;
} capture;

static void capture_start(capture *c) {
  fflush(stderr);
  c->tmp = tmpfile();
  ck_assert_ptr_nonnull(c->tmp);
  c->saved = dup(2);
  EXPECT_INT(>=, c->saved, 0);
  EXPECT_INT(>=, dup2(fileno(c->tmp), 2), 0);
}

/* Restore stderr, return what was written (also echoed, so the messages stay visible). */
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

/* ---------------------------------------------------------------------------------------------- */
/* Generic consistency check                                                                       */
/* ---------------------------------------------------------------------------------------------- */

/* Coordinates of local vertex @p local of @p cell. */
static const double *vtx(const sq_mesh *m, int64_t cell, int local) {
  return &m->vert[3 * m->cell_vert[4 * cell + local]];
}

/*
 * Check everything that must hold for any finalized mesh of the box [lo, hi]: positive volumes summing
 * to the box volume, closed cells (sum of area x normal = 0), J^{-1} J = I, neighbour symmetry, and
 * orientation h mapping our face vertices onto the neighbour's (up to a periodic translation, allowed
 * along the axes flagged in @p periodic).
 */
static void check_mesh_volume(const sq_mesh *m, const double lo[3], const double hi[3], const int periodic[3],
                              double expected_volume) {
  double total = 0;
  for (int d = 0; d < 3; d++) {
    EXPECT_NEAR(m->bbox_lo[d], lo[d], 1e-12);
    EXPECT_NEAR(m->bbox_hi[d], hi[d], 1e-12);
  }
  for (int64_t c = 0; c < m->ncell; c++) {
    EXPECT_MSG(m->volume[c] > 0, "cell %lld volume %g", (long long)c, m->volume[c]);
    EXPECT(m->insphere[c] > 0);
    total += m->volume[c];
    /* closed surface */
    double s[3] = {0, 0, 0};
    for (int j = 0; j < 4; j++) {
      const double *n = &m->face_normal[12 * c + 3 * j];
      EXPECT_NEAR(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1.0, 1e-12);
      for (int d = 0; d < 3; d++) s[d] += m->face_area[4 * c + j] * n[d];
      /* outward: the normal points away from the opposite vertex */
      int opposite = 6 - ref_face_vertices[j][0] - ref_face_vertices[j][1] - ref_face_vertices[j][2];
      const double *p0 = vtx(m, c, ref_face_vertices[j][0]), *opp = vtx(m, c, opposite);
      double dot = 0;
      for (int d = 0; d < 3; d++) dot += (p0[d] - opp[d]) * n[d];
      EXPECT(dot > 0);
    }
    for (int d = 0; d < 3; d++) EXPECT_NEAR(s[d], 0.0, 1e-12);
    /* J^{-1} J = I with J[d][e] = (v_{e+1} - v_0)[d] */
    for (int e = 0; e < 3; e++)
      for (int f = 0; f < 3; f++) {
        double sum = 0;
        for (int d = 0; d < 3; d++) sum += m->jac_inv[9 * c + 3 * e + d] * (vtx(m, c, f + 1)[d] - vtx(m, c, 0)[d]);
        EXPECT_NEAR(sum, e == f ? 1.0 : 0.0, 1e-10);
      }
    /* centroid */
    for (int d = 0; d < 3; d++)
      EXPECT_NEAR(m->centroid[3 * c + d],
                  0.25 * (vtx(m, c, 0)[d] + vtx(m, c, 1)[d] + vtx(m, c, 2)[d] + vtx(m, c, 3)[d]), 1e-12);
    /* faces */
    for (int j = 0; j < 4; j++) {
      int64_t cf = 4 * c + j, nb = m->face_neighbor[cf];
      int tag = m->face_bc[cf];
      if (nb < 0) {
        EXPECT_MSG(tag == SQ_BC_FREE || tag == SQ_BC_ABSORB, "cell %lld face %d: no neighbour, tag %d", (long long)c, j,
                   tag);
        continue;
      }
      EXPECT(nb < m->ncell);
      int i = m->face_nbface[cf], h = m->face_orient[cf];
      EXPECT(i >= 0 && i < 4 && h >= 0 && h < 3);
      int64_t nbcf = 4 * nb + i;
      EXPECT_INT(==, m->face_neighbor[nbcf], c);
      EXPECT_INT(==, m->face_nbface[nbcf], j);
      EXPECT_INT(==, m->face_orient[nbcf], h);
      EXPECT_INT(==, m->face_bc[nbcf], tag);
      EXPECT_NEAR(m->face_area[nbcf], m->face_area[cf], 1e-12);
      for (int d = 0; d < 3; d++) EXPECT_NEAR(m->face_normal[3 * nbcf + d], -m->face_normal[3 * cf + d], 1e-12);
      /* neighbour's face vertex k is our face vertex (h - k) mod 3, up to one translation */
      double t[3];
      for (int k = 0; k < 3; k++) {
        const double *ours = vtx(m, c, ref_face_vertices[j][(h - k + 3) % 3]);
        const double *theirs = vtx(m, nb, ref_face_vertices[i][k]);
        for (int d = 0; d < 3; d++) {
          if (k == 0) t[d] = theirs[d] - ours[d];
          else EXPECT_NEAR(theirs[d] - ours[d], t[d], 1e-12);
        }
      }
      int nshift = 0;
      for (int d = 0; d < 3; d++) {
        if (fabs(t[d]) < 1e-12) continue;
        nshift++;
        EXPECT_MSG(periodic[d] && tag == SQ_BC_PERIODIC, "translation along non-periodic axis %d", d);
        EXPECT_NEAR(fabs(t[d]), hi[d] - lo[d], 1e-12);
      }
      EXPECT_INT(<=, nshift, 1);
      if (tag == SQ_BC_PERIODIC) EXPECT_INT(==, nshift, 1);
    }
  }
  EXPECT_NEAR(total, expected_volume, 1e-12 * expected_volume);
}

/* check_mesh_volume for a mesh filling the box [lo, hi]. */
static void check_mesh(const sq_mesh *m, const double lo[3], const double hi[3], const int periodic[3]) {
  check_mesh_volume(m, lo, hi, periodic, (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]));
}

static void count_tags(const sq_mesh *m, int64_t count[7]) {
  memset(count, 0, 7 * sizeof count[0]);
  for (int64_t cf = 0; cf < 4 * m->ncell; cf++) count[m->face_bc[cf]]++;
}

static void box_periodic(int tets, int nx, int ny, int nz) {
  sq_box_params p;
  sq_box_params_default(&p);
  p.tets_per_cube = tets;
  p.n[0] = nx;
  p.n[1] = ny;
  p.n[2] = nz;
  p.lo[0] = -2.0;
  p.hi[0] = 3.0;
  p.lo[1] = 1.0;
  p.hi[1] = 2.5;
  p.lo[2] = 0.5;
  p.hi[2] = 4.0;
  sq_mesh *m = NULL;
  EXPECT_INT(==, sq_mesh_box(&p, &m), SQ_SUCCESS);
  EXPECT_INT(==, m->ncell, (int64_t)tets * nx * ny * nz);
  EXPECT_INT(==, m->nvert, (int64_t)(nx + 1) * (ny + 1) * (nz + 1));
  for (int64_t cf = 0; cf < 4 * m->ncell; cf++) EXPECT_INT(>=, m->face_neighbor[cf], 0);
  int64_t count[7];
  count_tags(m, count);
  EXPECT_INT(==, count[SQ_BC_PERIODIC], 2 * 2 * ((int64_t)nx * ny + (int64_t)ny * nz + (int64_t)nx * nz));
  const int periodic[3] = {1, 1, 1};
  check_mesh(m, p.lo, p.hi, periodic);
  sq_mesh_destroy(m);
}

/* ---------------------------------------------------------------------------------------------- */
/* Tests                                                                                           */
/* ---------------------------------------------------------------------------------------------- */

START_TEST(test_single_tet_geometry) {
  sq_mesh *m = NULL;
  EXPECT_INT(==, sq_mesh_alloc(4, 1, &m), SQ_SUCCESS);
  const double x[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  memcpy(m->vert, x, sizeof x);
  for (int k = 0; k < 4; k++) {
    m->cell_vert[k] = k;
    m->face_bc[k] = SQ_BC_FREE;
  }
  EXPECT_INT(==, sq_mesh_finalize(m), SQ_SUCCESS);
  EXPECT_NEAR(m->volume[0], 1.0 / 6.0, 1e-15);
  double area = 1.5 + sqrt(3.0) / 2.0;
  EXPECT_NEAR(m->insphere[0], 1.0 / area, 1e-15);
  const double normals[4][3] = {{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {1 / sqrt(3.0), 1 / sqrt(3.0), 1 / sqrt(3.0)}};
  for (int j = 0; j < 4; j++) {
    EXPECT_NEAR(m->face_area[j], j < 3 ? 0.5 : sqrt(3.0) / 2.0, 1e-15);
    for (int d = 0; d < 3; d++) EXPECT_NEAR(m->face_normal[3 * j + d], normals[j][d], 1e-15);
    EXPECT_INT(==, m->face_neighbor[j], -1);
  }
  for (int e = 0; e < 9; e++) EXPECT_NEAR(m->jac_inv[e], e % 4 == 0 ? 1.0 : 0.0, 1e-15);
  for (int d = 0; d < 3; d++) EXPECT_NEAR(m->centroid[d], 0.25, 1e-15);
  sq_mesh_destroy(m);
}
END_TEST

/* Two tets glued along z = 0; the second listed so that the orientation is h = 1. */
START_TEST(test_two_tets_orientation) {
  sq_mesh *m = NULL;
  EXPECT_INT(==, sq_mesh_alloc(5, 2, &m), SQ_SUCCESS);
  const double x[5][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, -1}};
  memcpy(m->vert, x, sizeof x);
  const int64_t cv[8] = {0, 1, 2, 3, 2, 1, 0, 4};
  memcpy(m->cell_vert, cv, sizeof cv);
  for (int k = 0; k < 8; k++) m->face_bc[k] = SQ_BC_ABSORB;
  m->face_bc[0] = SQ_BC_REGULAR;
  m->face_bc[4] = SQ_BC_REGULAR;
  EXPECT_INT(==, sq_mesh_finalize(m), SQ_SUCCESS);
  EXPECT_INT(==, m->face_neighbor[0], 1);
  EXPECT_INT(==, m->face_nbface[0], 0);
  EXPECT_INT(==, m->face_orient[0], 1);
  EXPECT_INT(==, m->face_neighbor[4], 0);
  EXPECT_INT(==, m->face_orient[4], 1);
  for (int j = 1; j < 4; j++) EXPECT_INT(==, m->face_neighbor[j], -1);
  const double lo[3] = {0, 0, -1}, hi[3] = {1, 1, 1};
  const int periodic[3] = {0, 0, 0};
  check_mesh_volume(m, lo, hi, periodic, 1.0 / 3.0);
  sq_mesh_destroy(m);
}
END_TEST

START_TEST(test_box6_periodic) {
  box_periodic(6, 4, 4, 4);
  box_periodic(6, 5, 2, 7);
  box_periodic(6, 1, 1, 1);
}
END_TEST

START_TEST(test_box5_periodic) {
  box_periodic(5, 4, 4, 4);
  box_periodic(5, 6, 2, 8);
}
END_TEST

START_TEST(test_box_default) {
  sq_box_params p;
  sq_box_params_default(&p);
  sq_mesh *m = NULL;
  EXPECT_INT(==, sq_mesh_box(&p, &m), SQ_SUCCESS);
  EXPECT_INT(==, m->ncell, 6 * 64);
  ck_assert_str_eq(m->source, "box 4x4x4");
  /* cell order: cube-major, x fastest; tets of a cube consecutive */
  for (int64_t c = 0; c < m->ncell; c++) {
    int64_t cube = c / 6, i = cube % 4, j = (cube / 4) % 4, k = cube / 16;
    for (int d = 0; d < 3; d++) {
      int64_t idx = d == 0 ? i : d == 1 ? j : k;
      EXPECT(m->centroid[3 * c + d] > 0.25 * idx && m->centroid[3 * c + d] < 0.25 * (idx + 1));
    }
  }
  sq_mesh_destroy(m);
}
END_TEST

/* Free top, absorbing elsewhere: boundary face counts, and boundary normals pointing out of the box. */
static void mixed_bc(int tets) {
  sq_box_params p;
  sq_box_params_default(&p);
  p.tets_per_cube = tets;
  p.n[0] = 3;
  p.n[1] = 4;
  p.n[2] = 5;
  for (int f = 0; f < 6; f++) p.bc[f] = SQ_BC_ABSORB;
  p.bc[5] = SQ_BC_FREE;
  sq_mesh *m = NULL;
  EXPECT_INT(==, sq_mesh_box(&p, &m), SQ_SUCCESS);
  const int periodic[3] = {0, 0, 0};
  check_mesh(m, p.lo, p.hi, periodic);
  int64_t per_plane[6] = {0, 0, 0, 0, 0, 0};
  for (int64_t cf = 0; cf < 4 * m->ncell; cf++) {
    int tag = m->face_bc[cf];
    if (m->face_neighbor[cf] >= 0) {
      EXPECT_INT(==, tag, SQ_BC_REGULAR);
      continue;
    }
    const double *n = &m->face_normal[3 * cf];
    int axis = -1;
    for (int d = 0; d < 3; d++)
      if (fabs(fabs(n[d]) - 1.0) < 1e-12) axis = d;
    EXPECT_INT(>=, axis, 0);
    int side = n[axis] > 0;
    /* the face lies on that box plane, so the normal points out of the box */
    int64_t c = cf / 4;
    int j = (int)(cf % 4);
    for (int k = 0; k < 3; k++)
      EXPECT_NEAR(vtx(m, c, ref_face_vertices[j][k])[axis], side ? p.hi[axis] : p.lo[axis], 1e-14);
    per_plane[2 * axis + side]++;
    EXPECT_INT(==, tag, 2 * axis + side == 5 ? SQ_BC_FREE : SQ_BC_ABSORB);
  }
  const int64_t nx = 3, ny = 4, nz = 5;
  EXPECT_INT(==, per_plane[0], 2 * ny * nz);
  EXPECT_INT(==, per_plane[1], 2 * ny * nz);
  EXPECT_INT(==, per_plane[2], 2 * nx * nz);
  EXPECT_INT(==, per_plane[3], 2 * nx * nz);
  EXPECT_INT(==, per_plane[4], 2 * nx * ny);
  EXPECT_INT(==, per_plane[5], 2 * nx * ny);
  int64_t count[7];
  count_tags(m, count);
  EXPECT_INT(==, count[SQ_BC_FREE], 2 * nx * ny);
  EXPECT_INT(==, count[SQ_BC_ABSORB], 2 * (2 * ny * nz + 2 * nx * nz + nx * ny));
  sq_mesh_destroy(m);
}

START_TEST(test_mixed_bc) {
  mixed_bc(6);
  mixed_bc(5);
}
END_TEST

/* Periodic along x and y, free top, absorbing bottom (the usual layered set-up). */
START_TEST(test_partly_periodic) {
  for (int tets = 5; tets <= 6; tets++) {
    sq_box_params p;
    sq_box_params_default(&p);
    p.tets_per_cube = tets;
    p.n[2] = 3;
    p.bc[4] = SQ_BC_ABSORB;
    p.bc[5] = SQ_BC_FREE;
    sq_mesh *m = NULL;
    EXPECT_INT(==, sq_mesh_box(&p, &m), SQ_SUCCESS);
    const int periodic[3] = {1, 1, 0};
    check_mesh(m, p.lo, p.hi, periodic);
    int64_t count[7];
    count_tags(m, count);
    EXPECT_INT(==, count[SQ_BC_FREE], 2 * 16);
    EXPECT_INT(==, count[SQ_BC_ABSORB], 2 * 16);
    EXPECT_INT(==, count[SQ_BC_PERIODIC], 2 * 2 * 2 * (4 * 3));
    sq_mesh_destroy(m);
  }
}
END_TEST

static int in_range(double x, double lo, double hi) { return x > lo && x < hi; }

static void refinement(int tets, int bc) {
  sq_box_params p;
  sq_box_params_default(&p);
  p.tets_per_cube = tets;
  for (int a = 0; a < 3; a++) p.n[a] = 8;
  for (int f = 0; f < 6; f++) p.bc[f] = bc;
  p.nzones = 2;
  for (int a = 0; a < 3; a++) {
    p.zone_lo[0][a] = 0.25;
    p.zone_hi[0][a] = 0.5;
    p.zone_lo[1][a] = 0.375; /* nested zone: the larger factor wins */
    p.zone_hi[1][a] = 0.5;
  }
  p.zone_factor[0] = 2;
  p.zone_factor[1] = 4;
  sq_mesh *m = NULL;
  EXPECT_INT(==, sq_mesh_box(&p, &m), SQ_SUCCESS);
  /* per axis: 6 cells outside, one base cell x2, one base cell x4 */
  const int64_t nper = 6 + 2 + 4;
  EXPECT_INT(==, m->ncell, (int64_t)tets * nper * nper * nper);
  ck_assert_str_eq(m->source, "box 12x12x12");
  const int periodic[3] = {bc == SQ_BC_PERIODIC, bc == SQ_BC_PERIODIC, bc == SQ_BC_PERIODIC};
  check_mesh(m, p.lo, p.hi, periodic);
  /* conforming: interior faces all have a neighbour (finalize guarantees at most two cells per face),
   * and boundary faces are exactly the triangles of the box faces */
  int64_t nboundary = 0;
  for (int64_t cf = 0; cf < 4 * m->ncell; cf++) {
    if (m->face_bc[cf] == SQ_BC_REGULAR) EXPECT_INT(>=, m->face_neighbor[cf], 0);
    else nboundary++;
  }
  EXPECT_INT(==, nboundary, 6 * 2 * nper * nper);
  /* cells inside the zone are smaller than cells outside every zone slab */
  double max_in = 0, min_out = INFINITY, sum_in = 0, sum_out = 0;
  int64_t n_in = 0, n_out = 0;
  for (int64_t c = 0; c < m->ncell; c++) {
    const double *x = &m->centroid[3 * c];
    int inside = 1, outside = 1;
    for (int a = 0; a < 3; a++) {
      inside &= in_range(x[a], 0.25, 0.5);
      outside &= !in_range(x[a], 0.25, 0.5);
    }
    if (inside) {
      max_in = fmax(max_in, m->insphere[c]);
      sum_in += m->insphere[c];
      n_in++;
    }
    if (outside) {
      min_out = fmin(min_out, m->insphere[c]);
      sum_out += m->insphere[c];
      n_out++;
    }
  }
  EXPECT(n_in > 0 && n_out > 0);
  EXPECT_MSG(max_in < min_out, "insphere in zone up to %g, outside down to %g", max_in, min_out);
  /* factor 2 or 4 in the zone: the mean diameter at least halves */
  EXPECT_MSG(sum_in / n_in < 0.5 * sum_out / n_out, "mean insphere in zone %g, outside %g", sum_in / n_in,
             sum_out / n_out);
  sq_mesh_destroy(m);
}

START_TEST(test_refinement_zone) {
  refinement(6, SQ_BC_ABSORB);
  refinement(5, SQ_BC_ABSORB);
  refinement(6, SQ_BC_PERIODIC);
  refinement(5, SQ_BC_PERIODIC);
}
END_TEST

START_TEST(test_refinement_zone_misaligned) {
  sq_box_params p;
  sq_box_params_default(&p);
  p.nzones = 1;
  for (int a = 0; a < 3; a++) {
    p.zone_lo[0][a] = 0.3;
    p.zone_hi[0][a] = 0.45;
  }
  p.zone_factor[0] = 2;
  sq_mesh *m = NULL;
  EXPECT_INT(==, sq_mesh_box(&p, &m), SQ_ERR_INPUT);
  ck_assert_ptr_null(m);
}
END_TEST

static void jitter(int tets, int bc) {
  sq_box_params p;
  sq_box_params_default(&p);
  p.tets_per_cube = tets;
  for (int a = 0; a < 3; a++) p.n[a] = 8;
  for (int f = 0; f < 6; f++) p.bc[f] = bc;
  p.jitter = 0.2;
  p.nzones = 1;
  for (int a = 0; a < 3; a++) {
    p.zone_lo[0][a] = 0.5;
    p.zone_hi[0][a] = 0.75;
  }
  p.zone_factor[0] = 3;
  sq_mesh *m = NULL, *m2 = NULL;
  EXPECT_INT(==, sq_mesh_box(&p, &m), SQ_SUCCESS);
  const int periodic[3] = {bc == SQ_BC_PERIODIC, bc == SQ_BC_PERIODIC, bc == SQ_BC_PERIODIC};
  check_mesh(m, p.lo, p.hi, periodic);
  /* really perturbed: interior vertices moved off the grid; boundary vertices stay on the planes */
  int64_t moved = 0;
  for (int64_t v = 0; v < m->nvert; v++) {
    const double *x = &m->vert[3 * v];
    for (int d = 0; d < 3; d++) {
      double t = x[d] * 8.0;
      if (fabs(t - nearbyint(t)) > 1e-6 && !(x[d] > 0.5 && x[d] < 0.75)) moved++;
    }
  }
  EXPECT_INT(>, moved, m->nvert / 2);
  /* deterministic */
  EXPECT_INT(==, sq_mesh_box(&p, &m2), SQ_SUCCESS);
  EXPECT_INT(==, memcmp(m->vert, m2->vert, sizeof(double) * 3 * m->nvert), 0);
  sq_mesh_destroy(m);
  sq_mesh_destroy(m2);
}

START_TEST(test_jitter) {
  jitter(6, SQ_BC_PERIODIC);
  jitter(5, SQ_BC_PERIODIC);
  jitter(6, SQ_BC_ABSORB);
  jitter(5, SQ_BC_FREE);
}
END_TEST

/* Largest accepted jitter on a large box: every tet must stay positive (the repair pass at work). */
START_TEST(test_jitter_max_large) {
  for (int tets = 5; tets <= 6; tets++) {
    sq_box_params p;
    sq_box_params_default(&p);
    p.tets_per_cube = tets;
    for (int a = 0; a < 3; a++) p.n[a] = 24;
    p.jitter = 0.25;
    sq_mesh *m = NULL;
    EXPECT_INT(==, sq_mesh_box(&p, &m), SQ_SUCCESS);
    const int periodic[3] = {1, 1, 1};
    check_mesh(m, p.lo, p.hi, periodic);
    sq_mesh_destroy(m);
  }
}
END_TEST

START_TEST(test_rupture_one_sided) {
  sq_box_params p;
  sq_box_params_default(&p);
  p.n[0] = p.n[1] = p.n[2] = 2;
  for (int f = 0; f < 6; f++) p.bc[f] = SQ_BC_ABSORB;
  sq_mesh *m = NULL;
  EXPECT_INT(==, sq_mesh_box(&p, &m), SQ_SUCCESS);
  /* tag one side of an interior face as rupture, then finalize again */
  int64_t cf = -1;
  for (int64_t f = 0; f < 4 * m->ncell && cf < 0; f++)
    if (m->face_neighbor[f] >= 0) cf = f;
  EXPECT_INT(>=, cf, 0);
  int64_t nbcf = 4 * m->face_neighbor[cf] + m->face_nbface[cf];
  m->face_bc[cf] = SQ_BC_RUPTURE;
  EXPECT_INT(==, m->face_bc[nbcf], SQ_BC_REGULAR);
  EXPECT_INT(==, sq_mesh_finalize(m), SQ_SUCCESS);
  EXPECT_INT(==, m->face_bc[nbcf], SQ_BC_RUPTURE);
  EXPECT_INT(==, m->face_neighbor[cf], nbcf / 4);
  const int periodic[3] = {0, 0, 0};
  check_mesh(m, p.lo, p.hi, periodic);
  sq_mesh_destroy(m);
}
END_TEST

/* Generate an absorbing 3^3 box; the caller breaks it and finalizes again. */
static sq_mesh *small_box(int tets) {
  sq_box_params p;
  sq_box_params_default(&p);
  p.tets_per_cube = tets;
  p.n[0] = p.n[1] = p.n[2] = 3;
  for (int f = 0; f < 6; f++) p.bc[f] = SQ_BC_ABSORB;
  sq_mesh *m = NULL;
  EXPECT_INT(==, sq_mesh_box(&p, &m), SQ_SUCCESS);
  return m;
}

/* Finalize expecting @p code; the captured message must contain @p needle. */
static void finalize_fails(sq_mesh *m, int code, const char *needle) {
  capture cap;
  char msg[4096];
  capture_start(&cap);
  int ierr = sq_mesh_finalize(m);
  capture_stop(&cap, msg, sizeof msg);
  EXPECT_INT(==, ierr, code);
  EXPECT_MSG(strstr(msg, needle) != NULL, "message lacks '%s': %s", needle, msg);
}

START_TEST(test_err_inverted) {
  sq_mesh *m = small_box(6);
  int64_t *cv = &m->cell_vert[4 * 17];
  int64_t t = cv[1];
  cv[1] = cv[2];
  cv[2] = t;
  finalize_fails(m, SQ_ERR_INPUT, "cell 17 (0-based) is inverted");
  /* the message gives the signed volume: -(1/3)^3 / 6 */
  sq_mesh_destroy(m);
}
END_TEST

START_TEST(test_err_degenerate) {
  sq_mesh *m = small_box(5);
  int64_t *cv = &m->cell_vert[4 * 42];
  cv[3] = cv[0];
  finalize_fails(m, SQ_ERR_INPUT, "cell 42 (0-based) is degenerate");
  sq_mesh_destroy(m);
}
END_TEST

/* Three tets on the face (0,1,2): two above it (overlapping) and one below. */
START_TEST(test_err_three_cells) {
  sq_mesh *m = NULL;
  EXPECT_INT(==, sq_mesh_alloc(6, 3, &m), SQ_SUCCESS);
  const double x[6][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, -1}, {0.2, 0.2, 2}};
  memcpy(m->vert, x, sizeof x);
  const int64_t cv[12] = {0, 1, 2, 3, 0, 2, 1, 4, 0, 1, 2, 5};
  memcpy(m->cell_vert, cv, sizeof cv);
  for (int k = 0; k < 12; k++) m->face_bc[k] = SQ_BC_FREE;
  m->face_bc[0] = m->face_bc[4] = m->face_bc[8] = SQ_BC_REGULAR;
  strcpy(m->source, "three.msh");
  finalize_fails(m, SQ_ERR_INPUT, "cells 0, 1 and 2");
  sq_mesh_destroy(m);
}
END_TEST

START_TEST(test_err_duplicate_cell) {
  sq_mesh *m = NULL;
  EXPECT_INT(==, sq_mesh_alloc(4, 2, &m), SQ_SUCCESS);
  const double x[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  memcpy(m->vert, x, sizeof x);
  const int64_t cv[8] = {0, 1, 2, 3, 1, 2, 0, 3};
  memcpy(m->cell_vert, cv, sizeof cv);
  finalize_fails(m, SQ_ERR_INPUT, "same side");
  sq_mesh_destroy(m);
}
END_TEST

START_TEST(test_err_boundary_regular) {
  sq_mesh *m = small_box(6);
  int64_t cf = -1;
  for (int64_t f = 0; f < 4 * m->ncell && cf < 0; f++)
    if (m->face_neighbor[f] < 0 && f / 4 >= 10) cf = f;
  m->face_bc[cf] = SQ_BC_REGULAR;
  char needle[64];
  snprintf(needle, sizeof needle, "face %d of cell %lld (0-based)", (int)(cf % 4), (long long)(cf / 4));
  finalize_fails(m, SQ_ERR_INPUT, needle);
  m->face_bc[cf] = SQ_BC_RUPTURE;
  finalize_fails(m, SQ_ERR_INPUT, needle);
  sq_mesh_destroy(m);
}
END_TEST

START_TEST(test_err_boundary_tag_inside) {
  sq_mesh *m = small_box(5);
  int64_t cf = -1;
  for (int64_t f = 0; f < 4 * m->ncell && cf < 0; f++)
    if (m->face_neighbor[f] >= 0 && f / 4 >= 20) cf = f;
  m->face_bc[cf] = SQ_BC_ABSORB;
  char needle[64];
  snprintf(needle, sizeof needle, "cell %lld (0-based)", (long long)(cf / 4));
  finalize_fails(m, SQ_ERR_INPUT, needle);
  m->face_bc[cf] = SQ_BC_PERIODIC;
  finalize_fails(m, SQ_ERR_INPUT, needle);
  m->face_bc[cf] = 2;
  finalize_fails(m, SQ_ERR_INPUT, "valid tags");
  sq_mesh_destroy(m);
}
END_TEST

START_TEST(test_err_periodic_unpaired) {
  sq_mesh *m = small_box(6);
  int64_t cf = -1;
  for (int64_t f = 0; f < 4 * m->ncell && cf < 0; f++)
    if (m->face_neighbor[f] < 0 && m->face_normal[3 * f] < -0.5) cf = f;
  EXPECT_INT(>=, cf, 0);
  m->face_bc[cf] = SQ_BC_PERIODIC;
  char needle[64];
  snprintf(needle, sizeof needle, "periodic face %d of cell %lld (0-based)", (int)(cf % 4), (long long)(cf / 4));
  finalize_fails(m, SQ_ERR_INPUT, needle);
  sq_mesh_destroy(m);
}
END_TEST

/* A periodic box whose +x plane is shifted in y: the faces do not translate onto each other. */
START_TEST(test_err_periodic_mismatch) {
  sq_box_params p;
  sq_box_params_default(&p);
  p.n[0] = p.n[1] = p.n[2] = 3;
  sq_mesh *m = NULL;
  EXPECT_INT(==, sq_mesh_box(&p, &m), SQ_SUCCESS);
  for (int64_t v = 0; v < m->nvert; v++) {
    double *x = &m->vert[3 * v];
    if (x[0] == 1.0 && x[1] > 0 && x[1] < 1) x[1] += 0.1;
  }
  finalize_fails(m, SQ_ERR_INPUT, "has no partner");
  sq_mesh_destroy(m);
}
END_TEST

START_TEST(test_err_box_params) {
  sq_box_params p;
  sq_mesh *m = NULL;
  capture cap;
  char msg[4096];
  /* odd periodic count with 5 tets */
  sq_box_params_default(&p);
  p.tets_per_cube = 5;
  p.n[1] = 3;
  capture_start(&cap);
  int ierr = sq_mesh_box(&p, &m);
  capture_stop(&cap, msg, sizeof msg);
  EXPECT_INT(==, ierr, SQ_ERR_INPUT);
  ck_assert_ptr_null(m);
  ck_assert_ptr_nonnull(strstr(msg, "even"));
  /* the same without periodicity along y is fine */
  p.bc[2] = p.bc[3] = SQ_BC_ABSORB;
  EXPECT_INT(==, sq_mesh_box(&p, &m), SQ_SUCCESS);
  sq_mesh_destroy(m);
  m = NULL;
  /* jitter too large */
  sq_box_params_default(&p);
  p.jitter = 0.3;
  EXPECT_INT(==, sq_mesh_box(&p, &m), SQ_ERR_INPUT);
  ck_assert_ptr_null(m);
  /* periodic on one side only */
  sq_box_params_default(&p);
  p.bc[1] = SQ_BC_FREE;
  EXPECT_INT(==, sq_mesh_box(&p, &m), SQ_ERR_INPUT);
  /* regular tag on a box face */
  sq_box_params_default(&p);
  p.bc[4] = p.bc[5] = SQ_BC_REGULAR;
  EXPECT_INT(==, sq_mesh_box(&p, &m), SQ_ERR_INPUT);
  /* bad counts and extents */
  sq_box_params_default(&p);
  p.n[2] = 0;
  EXPECT_INT(==, sq_mesh_box(&p, &m), SQ_ERR_INPUT);
  sq_box_params_default(&p);
  p.hi[0] = p.lo[0];
  EXPECT_INT(==, sq_mesh_box(&p, &m), SQ_ERR_INPUT);
  sq_box_params_default(&p);
  p.tets_per_cube = 4;
  EXPECT_INT(==, sq_mesh_box(&p, &m), SQ_ERR_INPUT);
  ck_assert_ptr_null(m);
}
END_TEST

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* 40^3 cubes x 6 tets = 384k cells, periodic: generation and finalize times (reported, not asserted). */
START_TEST(test_performance) {
  sq_box_params p;
  sq_box_params_default(&p);
  for (int a = 0; a < 3; a++) p.n[a] = 40;
  sq_mesh *m = NULL;
  double t0 = seconds();
  EXPECT_INT(==, sq_mesh_box(&p, &m), SQ_SUCCESS);
  double t1 = seconds();
  EXPECT_INT(==, sq_mesh_finalize(m), SQ_SUCCESS);
  double t2 = seconds();
  EXPECT_INT(==, m->ncell, 384000);
  for (int64_t cf = 0; cf < 4 * m->ncell; cf++) EXPECT_INT(>=, m->face_neighbor[cf], 0);
  printf("test_mesh: 40^3 periodic box, %lld cells: sq_mesh_box %.3f s, sq_mesh_finalize %.3f s\n", (long long)m->ncell,
         t1 - t0, t2 - t1);
  fflush(stdout);
  sq_mesh_destroy(m);
}
END_TEST

/* sq_mesh_extract: the parts of a periodic jittered box cut into 3 slabs cover every cell once as
 * owned, hold the face neighbours of their owned cells, keep the whole mesh's connectivity and
 * geometry (by global id) and agree on one writer per vertex and on the surface numbering. */
START_TEST(test_extract_parts) {
  sq_box_params p;
  sq_box_params_default(&p);
  p.n[0] = 6, p.n[1] = p.n[2] = 3;
  p.jitter = 0.1;
  p.bc[5] = SQ_BC_FREE, p.bc[4] = SQ_BC_ABSORB; /* z: free top, absorbing bottom; x, y periodic */
  sq_mesh *w = NULL;
  EXPECT_INT(==, sq_mesh_box(&p, &w), SQ_SUCCESS);
  const int nparts = 3;
  int *rank = calloc((size_t)w->ncell, sizeof(int)), *owned = calloc((size_t)w->ncell, sizeof(int));
  int *writes = calloc((size_t)w->nvert, sizeof(int));
  ck_assert(rank && owned && writes);
  for (int64_t c = 0; c < w->ncell; c++) rank[c] = (int)(w->centroid[3 * c] * nparts) % nparts;
  int64_t nsurf = 0;
  for (int64_t cf = 0; cf < 4 * w->ncell; cf++) nsurf += w->face_bc[cf] == SQ_BC_FREE;
  for (int r = 0; r < nparts; r++) {
    sq_mesh *m = NULL;
    EXPECT_INT(==, sq_mesh_extract(w, rank, r, &m), SQ_SUCCESS);
    EXPECT_INT(==, m->nglobal, w->ncell);
    EXPECT_INT(==, m->nvert_global, w->nvert);
    EXPECT_INT(==, m->nsurface_global, nsurf);
    EXPECT_INT(<, m->ncell, w->ncell);
    for (int64_t v = 0; v < m->nvert; v++) {
      if (v > 0) EXPECT_INT(<, m->vert_global[v - 1], m->vert_global[v]);
      ck_assert(!memcmp(&m->vert[3 * v], &w->vert[3 * m->vert_global[v]], 3 * sizeof(double)));
      writes[m->vert_global[v]] += m->vert_writer[v] == r;
    }
    for (int64_t c = 0; c < m->ncell; c++) {
      const int64_t g = m->global_id[c];
      if (c > 0) EXPECT_INT(<, m->global_id[c - 1], g);
      ck_assert(m->volume[c] == w->volume[g] && m->insphere[c] == w->insphere[g]);
      int64_t first = 0; /* the whole mesh's free faces before cell g */
      for (int64_t cf = 0; cf < 4 * g; cf++) first += w->face_bc[cf] == SQ_BC_FREE;
      EXPECT_INT(==, m->surface_first[c], first);
      for (int f = 0; f < 4; f++) {
        EXPECT_INT(==, m->cell_vert[4 * c + f] >= 0, 1);
        EXPECT_INT(==, m->vert_global[m->cell_vert[4 * c + f]], w->cell_vert[4 * g + f]);
        const int64_t nb = m->face_neighbor[4 * c + f], wnb = w->face_neighbor[4 * g + f];
        if (rank[g] == r) EXPECT_INT(==, nb >= 0 ? m->global_id[nb] : -1, wnb); /* owned: every neighbour */
        else if (nb >= 0) EXPECT_INT(==, m->global_id[nb], wnb);                /* ghost: those held */
        if (nb >= 0) EXPECT_INT(==, m->face_orient[4 * c + f], w->face_orient[4 * g + f]);
      }
      if (rank[g] == r) owned[g]++;
    }
    sq_mesh_destroy(m);
  }
  for (int64_t c = 0; c < w->ncell; c++) EXPECT_INT(==, owned[c], 1);
  for (int64_t v = 0; v < w->nvert; v++) EXPECT_INT(==, writes[v], 1);
  free(rank), free(owned), free(writes);
  sq_mesh_destroy(w);
}
END_TEST

static Suite *mesh_suite(void) {
  Suite *s = suite_create("mesh");
  struct {
    const char *name;
    const TTest *test;
  } cases[] = {
      {"single_tet_geometry", test_single_tet_geometry},
      {"two_tets_orientation", test_two_tets_orientation},
      {"box6_periodic", test_box6_periodic},
      {"box5_periodic", test_box5_periodic},
      {"box_default", test_box_default},
      {"mixed_bc", test_mixed_bc},
      {"partly_periodic", test_partly_periodic},
      {"refinement_zone", test_refinement_zone},
      {"refinement_zone_misaligned", test_refinement_zone_misaligned},
      {"jitter", test_jitter},
      {"jitter_max_large", test_jitter_max_large},
      {"rupture_one_sided", test_rupture_one_sided},
      {"err_inverted", test_err_inverted},
      {"err_degenerate", test_err_degenerate},
      {"err_three_cells", test_err_three_cells},
      {"err_duplicate_cell", test_err_duplicate_cell},
      {"err_boundary_regular", test_err_boundary_regular},
      {"err_boundary_tag_inside", test_err_boundary_tag_inside},
      {"err_periodic_unpaired", test_err_periodic_unpaired},
      {"err_periodic_mismatch", test_err_periodic_mismatch},
      {"err_box_params", test_err_box_params},
      {"extract_parts", test_extract_parts},
      {"performance", test_performance},
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
  SRunner *sr = srunner_create(mesh_suite());
  srunner_run_all(sr, CK_NORMAL);
  int nfailed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
