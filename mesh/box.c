/** @file box.c  Built-in generator: a box of cubes split into 5 or 6 tetrahedra, with per-axis
 *  refinement zones, boundary tags per box face and an optional deterministic vertex jitter. */
#include "sq_mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sq_box_params_default(sq_box_params *p) {
  memset(p, 0, sizeof *p);
  for (int a = 0; a < 3; a++) {
    p->n[a] = 4;
    p->lo[a] = 0.0;
    p->hi[a] = 1.0;
  }
  p->tets_per_cube = 6;
  for (int f = 0; f < 6; f++) p->bc[f] = SQ_BC_PERIODIC;
  p->nzones = 0;
  p->jitter = 0.0;
}

static const char axis_name[3] = {'x', 'y', 'z'};

/* Largest jitter accepted; see box_jitter for why positivity still needs a repair pass. */
#define BOX_JITTER_MAX 0.25
/* A jittered tet whose volume falls below this fraction of its unjittered volume is repaired. */
#define BOX_JITTER_MIN_VOLUME_RATIO 0.1
#define BOX_ZONE_FACTOR_MAX         64

/*
 * Tets of one cube, as cube-corner indices c = bx + 2 by + 4 bz (bx, by, bz in {0,1}).
 * Template 0: the 6-tet Kuhn split along the diagonal 0-7, one tet per axis permutation; the same in
 * every cube, and conforming because the split of each cube face depends only on the face.
 * Templates 1 and 2: the 5-tet split (central tet on the corners of one parity plus four corner tets),
 * mirrored in alternating cubes so that the face diagonals of neighbouring cubes agree.
 */
typedef struct box_template {
  int ntet;
  int tet[6][4];
  /* Per tet and reference face: 2*axis+side of the cube face it lies on, or -1 (interior). */
  int cube_face[6][4];
} box_template;

static const int kuhn_tets[6][4] = {{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7}, {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}};
static const int five_even_tets[5][4] = {{1, 2, 4, 7}, {0, 1, 2, 4}, {3, 1, 2, 7}, {5, 1, 4, 7}, {6, 2, 4, 7}};
static const int five_odd_tets[5][4] = {{0, 3, 5, 6}, {1, 0, 3, 5}, {2, 0, 3, 6}, {4, 0, 5, 6}, {7, 3, 5, 6}};

static void corner_coords(int c, double x[3]) {
  for (int a = 0; a < 3; a++) x[a] = (double)((c >> a) & 1);
}

static double tet_det(const double *p0, const double *p1, const double *p2, const double *p3) {
  double a[3], b[3], c[3];
  for (int d = 0; d < 3; d++) {
    a[d] = p1[d] - p0[d];
    b[d] = p2[d] - p0[d];
    c[d] = p3[d] - p0[d];
  }
  return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
}

/* Fill a template: orient every tet positively (swap its last two corners if needed) and find which
 * of its faces lie on the cube's faces. */
static void box_template_init(box_template *t, int ntet, const int (*tets)[4]) {
  static const int face_vertices[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  t->ntet = ntet;
  for (int e = 0; e < ntet; e++) {
    double x[4][3];
    for (int k = 0; k < 4; k++) {
      t->tet[e][k] = tets[e][k];
      corner_coords(tets[e][k], x[k]);
    }
    if (tet_det(x[0], x[1], x[2], x[3]) < 0) {
      int tmp = t->tet[e][2];
      t->tet[e][2] = t->tet[e][3];
      t->tet[e][3] = tmp;
    }
    for (int j = 0; j < 4; j++) {
      t->cube_face[e][j] = -1;
      for (int a = 0; a < 3; a++) {
        int bits[3];
        for (int k = 0; k < 3; k++) bits[k] = (t->tet[e][face_vertices[j][k]] >> a) & 1;
        if (bits[0] == bits[1] && bits[1] == bits[2]) t->cube_face[e][j] = 2 * a + bits[0];
      }
    }
  }
}

/*
 * Node coordinates along one axis.  Base cell i spans [lo + i h, lo + (i+1) h]; it is split into
 * f_i cells, f_i the largest factor of the zones containing it along this axis (1 if none).
 * A zone that spans the whole box along an axis does not refine that axis: refining every cell of
 * an axis is what a larger n does, and this lets a zone describe a refined slab (graded meshes).
 */
static int box_axis_nodes(const sq_box_params *p, int axis, double **nodes, int *ncells) {
  const int nbase = p->n[axis];
  const double lo = p->lo[axis], hi = p->hi[axis], h = (hi - lo) / nbase, eps = 1e-9 * h;
  int *factor = NULL;
  SQ_CALL(SQ_CALLOC(factor, nbase));
  int covered[4] = {0, 0, 0, 0};
  int total = 0;
  for (int i = 0; i < nbase; i++) {
    double x0 = lo + (hi - lo) * i / nbase, x1 = lo + (hi - lo) * (i + 1) / nbase;
    factor[i] = 1;
    for (int z = 0; z < p->nzones; z++) {
      if (p->zone_lo[z][axis] <= lo + eps && p->zone_hi[z][axis] >= hi - eps) {
        covered[z] = 1; /* whole axis: not refined along it */
        continue;
      }
      if (x0 >= p->zone_lo[z][axis] - eps && x1 <= p->zone_hi[z][axis] + eps) {
        covered[z] = 1;
        if (p->zone_factor[z] > factor[i]) factor[i] = p->zone_factor[z];
      }
    }
    total += factor[i];
  }
  for (int z = 0; z < p->nzones; z++) {
    if (!covered[z]) {
      SQ_FREE(factor);
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "box: refinement zone %d, %c in [%g, %g], contains no whole base cell along %c (base "
                      "spacing %g from %g); align the zone with the base cells",
                      z, axis_name[axis], p->zone_lo[z][axis], p->zone_hi[z][axis], axis_name[axis], h, lo);
    }
  }
  double *x = NULL;
  int ierr = SQ_CALLOC(x, total + 1);
  if (!ierr) {
    int node = 0;
    for (int i = 0; i < nbase; i++) {
      double x0 = lo + (hi - lo) * i / nbase, x1 = lo + (hi - lo) * (i + 1) / nbase;
      for (int s = 0; s < factor[i]; s++) x[node++] = x0 + (x1 - x0) * s / factor[i];
    }
    x[node] = hi;
    *nodes = x;
    *ncells = total;
  }
  SQ_FREE(factor);
  return ierr;
}

static int box_check_params(const sq_box_params *p) {
  for (int a = 0; a < 3; a++) {
    SQ_CHECK(p->n[a] >= 1, SQ_ERR_INPUT, "box: n[%d] (cubes along %c) must be >= 1, got %d", a, axis_name[a], p->n[a]);
    SQ_CHECK(isfinite(p->lo[a]) && isfinite(p->hi[a]) && p->hi[a] > p->lo[a], SQ_ERR_INPUT,
             "box: extent along %c must satisfy lo < hi, got [%g, %g]", axis_name[a], p->lo[a], p->hi[a]);
  }
  SQ_CHECK(p->tets_per_cube == 5 || p->tets_per_cube == 6, SQ_ERR_INPUT, "box: tets_per_cube must be 5 or 6, got %d",
           p->tets_per_cube);
  static const char *face_names[6] = {"-x", "+x", "-y", "+y", "-z", "+z"};
  for (int f = 0; f < 6; f++) {
    int tag = p->bc[f];
    SQ_CHECK(tag == SQ_BC_FREE || tag == SQ_BC_ABSORB || tag == SQ_BC_PERIODIC, SQ_ERR_INPUT,
             "box: boundary tag of face %s is %d; box faces must be free surface (1), absorbing (5) or "
             "periodic (6)",
             face_names[f], tag);
  }
  for (int a = 0; a < 3; a++) {
    SQ_CHECK((p->bc[2 * a] == SQ_BC_PERIODIC) == (p->bc[2 * a + 1] == SQ_BC_PERIODIC), SQ_ERR_INPUT,
             "box: periodic boundaries come in pairs, but face %s is tagged %d and face %s is tagged %d",
             face_names[2 * a], p->bc[2 * a], face_names[2 * a + 1], p->bc[2 * a + 1]);
  }
  SQ_CHECK(p->nzones >= 0 && p->nzones <= 4, SQ_ERR_INPUT, "box: nzones must be 0..4, got %d", p->nzones);
  for (int z = 0; z < p->nzones; z++) {
    SQ_CHECK(p->zone_factor[z] >= 1 && p->zone_factor[z] <= BOX_ZONE_FACTOR_MAX, SQ_ERR_INPUT,
             "box: refinement zone %d has factor %d; it must be 1..%d", z, p->zone_factor[z], BOX_ZONE_FACTOR_MAX);
    for (int a = 0; a < 3; a++)
      SQ_CHECK(p->zone_lo[z][a] < p->zone_hi[z][a], SQ_ERR_INPUT,
               "box: refinement zone %d must satisfy zone_lo < zone_hi along %c, got [%g, %g]", z, axis_name[a],
               p->zone_lo[z][a], p->zone_hi[z][a]);
  }
  SQ_CHECK(p->jitter >= 0 && p->jitter <= BOX_JITTER_MAX, SQ_ERR_INPUT,
           "box: jitter must be in [0, %g] (a fraction of the local spacing), got %g", BOX_JITTER_MAX, p->jitter);
  return SQ_SUCCESS;
}

/* Simple 64-bit LCG (Knuth's MMIX constants), returning a double in [-1, 1). */
static double lcg_uniform(uint64_t *state) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*state >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/*
 * Jitter interior vertices by up to jitter x (local spacing along each axis) in each coordinate.
 * In each cube's own scaled coordinates that is a perturbation of at most jitter per coordinate, and
 * the worst case over such perturbations changes 6V of a unit-cube tet (Kuhn or 5-tet split) by up to
 * 6 jitter: only jitter < 1/6 is safe for every draw.  So tets whose volume falls below
 * BOX_JITTER_MIN_VOLUME_RATIO of the original have their vertices' displacements halved until none
 * does; this terminates because displacements <= 0.15 x spacing cannot trigger it.
 */
static int box_jitter(sq_mesh *m, const double *const nodes[3], const int ncells[3], double jitter) {
  const int64_t nx = ncells[0] + 1, ny = ncells[1] + 1;
  double *orig = NULL, *disp = NULL;
  int8_t *halve = NULL;
  int ierr = SQ_CALLOC(orig, 3 * m->nvert);
  if (!ierr) ierr = SQ_CALLOC(disp, 3 * m->nvert);
  if (!ierr) ierr = SQ_CALLOC(halve, m->nvert);
  if (ierr) goto done;
  memcpy(orig, m->vert, sizeof(double) * 3 * m->nvert);
  uint64_t state = 0x5eed5eed12345678ULL;
  for (int64_t v = 0; v < m->nvert; v++) {
    int idx[3] = {(int)(v % nx), (int)((v / nx) % ny), (int)(v / (nx * ny))};
    int interior = 1;
    for (int a = 0; a < 3; a++) interior &= idx[a] > 0 && idx[a] < ncells[a];
    for (int a = 0; a < 3; a++) {
      double r = lcg_uniform(&state); /* drawn for every vertex so the sequence does not depend on bcs */
      if (!interior) continue;
      const double *x = nodes[a];
      double h = fmin(x[idx[a]] - x[idx[a] - 1], x[idx[a] + 1] - x[idx[a]]);
      disp[3 * v + a] = r * jitter * h;
    }
  }
  for (int round = 0;; round++) {
    if (round > 64) {
      ierr = sq_error(SQ_ERR_INTERNAL, __FILE__, __LINE__, "box: jitter repair did not converge");
      goto done;
    }
    for (int64_t i = 0; i < 3 * m->nvert; i++) m->vert[i] = orig[i] + disp[i];
    int64_t nbad = 0;
    memset(halve, 0, (size_t)m->nvert);
    for (int64_t c = 0; c < m->ncell; c++) {
      const int64_t *cv = &m->cell_vert[4 * c];
      double d0 = tet_det(&orig[3 * cv[0]], &orig[3 * cv[1]], &orig[3 * cv[2]], &orig[3 * cv[3]]);
      double d1 = tet_det(&m->vert[3 * cv[0]], &m->vert[3 * cv[1]], &m->vert[3 * cv[2]], &m->vert[3 * cv[3]]);
      if (d1 < BOX_JITTER_MIN_VOLUME_RATIO * d0) {
        nbad++;
        for (int k = 0; k < 4; k++) halve[cv[k]] = 1;
      }
    }
    if (nbad == 0) break;
    for (int64_t v = 0; v < m->nvert; v++)
      if (halve[v])
        for (int a = 0; a < 3; a++) disp[3 * v + a] *= 0.5;
  }
done:
  SQ_FREE(orig);
  SQ_FREE(disp);
  SQ_FREE(halve);
  return ierr;
}

/* Is face `side` (0 low, 1 high) along axis a of cube idx inside the fault rectangle? */
static int on_fault(const sq_box_params *p, double *const nodes[3], const int64_t idx[3], int a, int side) {
  const double x = nodes[a][idx[a] + side], tol = 1e-9 * (p->hi[a] - p->lo[a]);
  if (p->fault_lo[a] != p->fault_hi[a] || fabs(x - p->fault_lo[a]) > tol) return 0;
  for (int b = 0; b < 3; ++b) {
    if (b == a) continue;
    const double t = 1e-9 * (p->hi[b] - p->lo[b]);
    if (nodes[b][idx[b]] < p->fault_lo[b] - t || nodes[b][idx[b] + 1] > p->fault_hi[b] + t) return 0;
  }
  return 1;
}

/* The fault rectangle must be flat along one axis and lie on a grid plane. */
static int box_check_fault(const sq_box_params *p, double *const nodes[3], const int ncells[3]) {
  if (!p->has_fault) return SQ_SUCCESS;
  int flat = -1, nflat = 0;
  for (int a = 0; a < 3; ++a)
    if (p->fault_lo[a] == p->fault_hi[a]) flat = a, ++nflat;
    else
      SQ_CHECK(p->fault_hi[a] > p->fault_lo[a], SQ_ERR_INPUT, "box: fault hi must be >= lo on the %c axis",
               axis_name[a]);
  SQ_CHECK(nflat == 1, SQ_ERR_INPUT,
           "box: the fault rectangle must be flat along exactly one axis (lo == hi there), found %d flat axes", nflat);
  const double tol = 1e-9 * (p->hi[flat] - p->lo[flat]);
  int found = 0;
  for (int i = 1; i < ncells[flat]; ++i) found |= fabs(nodes[flat][i] - p->fault_lo[flat]) <= tol;
  SQ_CHECK(found, SQ_ERR_INPUT,
           "box: the fault plane %c = %g is not an interior grid plane of the box; choose cells "
           "so that a grid plane falls there",
           axis_name[flat], p->fault_lo[flat]);
  return SQ_SUCCESS;
}

int sq_mesh_box(const sq_box_params *p, sq_mesh **mesh) {
  SQ_CHECK(p && mesh, SQ_ERR_INTERNAL, "sq_mesh_box: NULL argument");
  *mesh = NULL;
  SQ_CALL(box_check_params(p));

  double *nodes[3] = {NULL, NULL, NULL};
  int ncells[3] = {0, 0, 0};
  sq_mesh *m = NULL;
  int ierr = SQ_SUCCESS;
  for (int a = 0; a < 3 && !ierr; a++) ierr = box_axis_nodes(p, a, &nodes[a], &ncells[a]);
  for (int a = 0; a < 3 && !ierr; a++) {
    if (p->tets_per_cube == 5 && p->bc[2 * a] == SQ_BC_PERIODIC && ncells[a] % 2 != 0) {
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "box: the 5-tet split alternates between neighbouring cubes, so a periodic direction "
                      "needs an even number of cubes, but %c has %d%s; use an even count or 6 tets per cube",
                      axis_name[a], ncells[a], p->nzones ? " after refinement" : "");
    }
  }
  if (!ierr) ierr = box_check_fault(p, nodes, ncells);
  if (ierr) goto fail;

  const int64_t nx = ncells[0], ny = ncells[1], nz = ncells[2];
  const int64_t nvert = (nx + 1) * (ny + 1) * (nz + 1);
  const int64_t ncube = nx * ny * nz;
  ierr = sq_mesh_alloc(nvert, ncube * p->tets_per_cube, &m);
  if (ierr) goto fail;
  snprintf(m->source, sizeof m->source, "box %lldx%lldx%lld", (long long)nx, (long long)ny, (long long)nz);

  /* Vertices lexicographic, x fastest. */
  for (int64_t k = 0; k <= nz; k++)
    for (int64_t j = 0; j <= ny; j++)
      for (int64_t i = 0; i <= nx; i++) {
        double *x = &m->vert[3 * (i + (nx + 1) * (j + (ny + 1) * k))];
        x[0] = nodes[0][i];
        x[1] = nodes[1][j];
        x[2] = nodes[2][k];
      }

  box_template templates[3];
  box_template_init(&templates[0], 6, kuhn_tets);
  box_template_init(&templates[1], 5, five_even_tets);
  box_template_init(&templates[2], 5, five_odd_tets);

  /* Cells: cubes lexicographic (x fastest), the tets of one cube consecutive. */
  int64_t cell = 0;
  for (int64_t k = 0; k < nz; k++)
    for (int64_t j = 0; j < ny; j++)
      for (int64_t i = 0; i < nx; i++) {
        const box_template *t = p->tets_per_cube == 6 ? &templates[0] : &templates[1 + (int)((i + j + k) % 2)];
        const int64_t cube_idx[3] = {i, j, k}, cube_n[3] = {nx, ny, nz};
        int64_t corner[8];
        for (int c = 0; c < 8; c++) {
          int64_t ci = i + (c & 1), cj = j + ((c >> 1) & 1), ck = k + ((c >> 2) & 1);
          corner[c] = ci + (nx + 1) * (cj + (ny + 1) * ck);
        }
        for (int e = 0; e < t->ntet; e++, cell++) {
          for (int q = 0; q < 4; q++) m->cell_vert[4 * cell + q] = corner[t->tet[e][q]];
          for (int f = 0; f < 4; f++) {
            int cf = t->cube_face[e][f], tag = SQ_BC_REGULAR;
            if (cf >= 0) {
              int a = cf / 2, side = cf % 2;
              if ((side == 0 && cube_idx[a] == 0) || (side == 1 && cube_idx[a] == cube_n[a] - 1)) tag = p->bc[cf];
              else if (p->has_fault && on_fault(p, nodes, cube_idx, a, side)) tag = SQ_BC_RUPTURE;
            }
            m->face_bc[4 * cell + f] = (int8_t)tag;
          }
          m->group[cell] = 0;
        }
      }

  if (p->jitter > 0) {
    ierr = box_jitter(m, (const double *const *)nodes, ncells, p->jitter);
    if (ierr) goto fail;
  }
  ierr = sq_mesh_finalize(m);
  if (ierr) goto fail;
  for (int a = 0; a < 3; a++) SQ_FREE(nodes[a]);
  *mesh = m;
  return SQ_SUCCESS;

fail:
  for (int a = 0; a < 3; a++) SQ_FREE(nodes[a]);
  sq_mesh_destroy(m);
  return ierr;
}
