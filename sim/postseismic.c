/**
 * @file postseismic.c  `starquake postseismic`: the configuration's mesh and materials, the slip on its fault
 * faces, the elastic solution at t = 0 and the Maxwell viscoelastic steps (src/sq_qs_visco.h), with station series
 * and surface snapshots written after every step (sq_postseismic.h).
 *
 * The slip reaches the solver as a field of position (sq_qs_set_fault): each fault face of the mesh gets its slip
 * vector from the patch file or the rupture's fault output (io/sq_postseismic_io.h), oriented along one reference
 * normal (the first slipping face's "+" normal; a face whose normal points the other way has its slip negated,
 * since the jump of its other side is the opposite); the slip at a fault node (a vertex or an edge midpoint of the
 * faces) is the mean of the faces at that node.
 *
 * Under MPI every rank builds the whole mesh, its P2 mesh, boundary conditions and fault offsets (as the DG
 * solver's start-up reads the whole mesh on every rank), partitions the cells with METIS (the same call, the
 * same parts on every rank) and solves on its part (sq_qs_mesh_part): the products are rank-local task graphs
 * whose shared nodes are then summed over the ranks, the dot products global sums (runtime/sq_qs_comm.h).
 * After each step the whole field is gathered on every rank; rank 0 writes the station series, and the surface
 * snapshots are written collectively by rank 0's rows.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sq_locate.h"
#include "sq_mesh_io.h"
#include "sq_postseismic.h"
#include "sq_postseismic_io.h"
#include "sq_partition.h"
#include "sq_qs.h"
#include "sq_qs_comm.h"
#include "sq_qs_part.h"
#include "sq_qs_visco.h"
#include "sq_ref.h"
#include "sq_run_files.h"
#include "sq_runtime.h"
#include "sq_sim.h"

static double ps_wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* ---- slip at the fault nodes ----------------------------------------------------------------- */

/** A fault node candidate: a vertex or edge midpoint of one fault face, with that face's slip. */
typedef struct ps_point {
  double x[3];
  double slip[3];
} ps_point;

typedef struct ps_slip_ctx {
  ps_point *pt; /**< sorted by x[0] */
  int64_t npt;
  double tol;
  int64_t miss; /**< fault nodes without a face (should not happen) */
  double miss_x[3];
} ps_slip_ctx;

static int ps_point_cmp(const void *a, const void *b) {
  const double xa = ((const ps_point *)a)->x[0], xb = ((const ps_point *)b)->x[0];
  return (xa > xb) - (xa < xb);
}

/* The mean slip of the faces with a node at x. */
static void ps_slip_at(void *vctx, const double x[3], double s[3]) {
  ps_slip_ctx *c = vctx;
  int64_t lo = 0, hi = c->npt; /* first point with x0 >= x[0] - tol */
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (c->pt[mid].x[0] < x[0] - c->tol) lo = mid + 1;
    else hi = mid;
  }
  int n = 0;
  s[0] = s[1] = s[2] = 0;
  for (int64_t i = lo; i < c->npt && c->pt[i].x[0] <= x[0] + c->tol; ++i) {
    const double *p = c->pt[i].x;
    if (fabs(p[1] - x[1]) > c->tol || fabs(p[2] - x[2]) > c->tol) continue;
    for (int d = 0; d < 3; ++d) s[d] += c->pt[i].slip[d];
    ++n;
  }
  if (n) {
    for (int d = 0; d < 3; ++d) s[d] /= n;
  } else if (!c->miss++) memcpy(c->miss_x, x, sizeof(c->miss_x));
}

/* The mesh's fault faces (each once, from the cell of lower index): 9 coordinates a face. */
static int ps_fault_faces(const sq_mesh *m, int64_t *nface, double **xyz, double *hmin) {
  int64_t n = 0;
  for (int64_t c = 0; c < m->ncell; ++c)
    for (int f = 0; f < 4; ++f)
      if (m->face_bc[4 * c + f] == SQ_BC_RUPTURE && m->face_neighbor[4 * c + f] > c) ++n;
  *nface = n;
  *xyz = NULL;
  *hmin = INFINITY;
  if (!n) return SQ_SUCCESS;
  SQ_CALL(SQ_CALLOC(*xyz, 9 * n));
  n = 0;
  for (int64_t c = 0; c < m->ncell; ++c)
    for (int f = 0; f < 4; ++f)
      if (m->face_bc[4 * c + f] == SQ_BC_RUPTURE && m->face_neighbor[4 * c + f] > c) {
        double *x = *xyz + 9 * n++;
        for (int k = 0; k < 3; ++k)
          memcpy(x + 3 * k, m->vert + 3 * m->cell_vert[4 * c + sq_ref_face_vertices[f][k]], 3 * sizeof(double));
        for (int k = 0; k < 3; ++k) {
          const double *a = x + 3 * k, *b = x + 3 * ((k + 1) % 3);
          *hmin = fmin(*hmin, sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                                   (a[2] - b[2]) * (a[2] - b[2])));
        }
      }
  return SQ_SUCCESS;
}

/* The slip vector and "+" normal of each fault face, from the slip file or the rupture. */
static int ps_face_slip(const sq_config *cfg, int64_t nface, const double *xyz, double hmin, double *slip,
                        double *normal) {
  const sq_ps_config *ps = &cfg->postseismic;
  if (ps->slip_file[0]) {
    int np = 0, *line = NULL;
    sq_okada_fault *patches = NULL;
    SQ_CALL(sq_ps_read_patches(ps->slip_file, &np, &patches, &line));
    int64_t nhit = 0;
    int ierr = sq_ps_patches_faces(patches, np, nface, xyz, 1e-3 * hmin, slip, normal, &nhit);
    if (!ierr && nhit == 0)
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "%s:%d: key 'postseismic.slip_file': no fault face of the mesh (%lld faces) lies in a patch of "
                      "'%s'; the patches must lie on the mesh's fault surface",
                      cfg->path, ps->slip_line > 0 ? ps->slip_line : ps->line, (long long)nface, ps->slip_file);
    free(patches);
    free(line);
    return ierr;
  }
  sq_ps_fault_slip *fs = NULL;
  SQ_CHECK(access(ps->fault_output, R_OK) == 0, SQ_ERR_IO,
           "%s:%d: key 'postseismic.rupture.fault_output': cannot read '%s'; run the rupture first (starquake run "
           "with a fault: section writes PREFIX-fault.h5 into its output directory)",
           cfg->path, ps->slip_line, ps->fault_output);
  SQ_CALL(sq_ps_fault_slip_read(ps->fault_output, ps->seissol_convention, &fs));
  const int ierr = sq_ps_fault_slip_faces(fs, nface, xyz, 1e-6 * hmin, slip, normal);
  if (!ierr && sq_verbosity >= 1 && sq_sim_mpi_rank() == 0)
    fprintf(stderr, "postseismic: final slip of %s at t = %g s (%lld faces)\n", ps->fault_output,
            sq_ps_fault_slip_time(fs), (long long)sq_ps_fault_slip_nface(fs));
  sq_ps_fault_slip_free(fs);
  return ierr;
}

/* The slip field's points, oriented along one reference normal @p nref. */
static int ps_slip_points(int64_t nface, const double *xyz, const double *slip, const double *normal, double hmin,
                          ps_slip_ctx *ctx, double nref[3]) {
  int64_t first = 0;
  for (int64_t k = 0; k < nface; ++k)
    if (slip[3 * k] != 0 || slip[3 * k + 1] != 0 || slip[3 * k + 2] != 0) {
      first = k;
      break;
    }
  memcpy(nref, normal + 3 * first, 3 * sizeof(double));
  ctx->npt = 6 * nface;
  ctx->tol = 1e-6 * hmin;
  SQ_CALL(SQ_CALLOC(ctx->pt, ctx->npt));
  for (int64_t k = 0; k < nface; ++k) {
    const double *n = normal + 3 * k, *x = xyz + 9 * k;
    const double sign = n[0] * nref[0] + n[1] * nref[1] + n[2] * nref[2] < 0 ? -1 : 1;
    for (int a = 0; a < 6; ++a) {
      ps_point *p = &ctx->pt[6 * k + a];
      const int i = a < 3 ? a : a - 3, j = a < 3 ? a : (a - 2) % 3;
      for (int d = 0; d < 3; ++d) {
        p->x[d] = 0.5 * (x[3 * i + d] + x[3 * j + d]);
        p->slip[d] = sign * slip[3 * k + d];
      }
    }
  }
  qsort(ctx->pt, ctx->npt, sizeof(ps_point), ps_point_cmp);
  return SQ_SUCCESS;
}

/* ---- stations -------------------------------------------------------------------------------- */

typedef struct ps_stations {
  int n;
  sq_ps_station *st;
  int64_t *cell;
  double *xi; /**< 3 a station */
  double *u;  /**< 3 a station */
  sq_ps_station_writer *w;
} ps_stations;

/* The P2 displacement at the stations (with the fault offsets of their cells). */
static void ps_station_values(const sq_qs_mesh *qm, const double *u, ps_stations *s) {
  for (int k = 0; k < s->n; ++k) {
    const double *xi = s->xi + 3 * k;
    const double L[4] = {1 - xi[0] - xi[1] - xi[2], xi[0], xi[1], xi[2]};
    double N[SQ_QS_NLOC];
    for (int a = 0; a < 4; ++a) N[a] = L[a] * (2 * L[a] - 1);
    for (int e = 0; e < 6; ++e) N[4 + e] = 4 * L[sq_qs_edge_vertices[e][0]] * L[sq_qs_edge_vertices[e][1]];
    double *out = s->u + 3 * k;
    out[0] = out[1] = out[2] = 0;
    for (int a = 0; a < SQ_QS_NLOC; ++a) {
      double ua[3];
      sq_qs_cell_displacement(qm, u, s->cell[k], a, ua);
      for (int d = 0; d < 3; ++d) out[d] += N[a] * ua[d];
    }
  }
}

static int ps_stations_open(const sq_config *cfg, const sq_mesh *m, ps_stations *s) {
  const sq_ps_config *ps = &cfg->postseismic;
  if (!ps->stations[0]) return SQ_SUCCESS;
  SQ_CALL(sq_ps_read_stations(ps->stations, &s->n, &s->st));
  SQ_CALL(SQ_CALLOC(s->cell, s->n));
  SQ_CALL(SQ_CALLOC(s->xi, 3 * s->n));
  SQ_CALL(SQ_CALLOC(s->u, 3 * s->n));
  sq_locator *loc = NULL;
  SQ_CALL(sq_locator_create(m, &loc));
  int ierr = SQ_SUCCESS;
  for (int k = 0; k < s->n && !ierr; ++k) {
    s->cell[k] = sq_locator_find(loc, s->st[k].x, s->xi + 3 * k);
    if (s->cell[k] < 0)
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: station %s at (%g, %g, %g) is outside the mesh",
                      ps->stations, s->st[k].line, s->st[k].name, s->st[k].x[0], s->st[k].x[1], s->st[k].x[2]);
  }
  sq_locator_destroy(loc);
  if (!ierr && sq_sim_mpi_rank() == 0)
    ierr = sq_ps_station_writer_open(cfg->output_dir, cfg->output_prefix, s->n, s->st, &s->w);
  return ierr;
}

static void ps_stations_close(ps_stations *s) {
  sq_ps_station_writer_close(s->w);
  free(s->st);
  SQ_FREE(s->cell);
  SQ_FREE(s->xi);
  SQ_FREE(s->u);
}

/* ---- the run --------------------------------------------------------------------------------- */

/** Everything a run holds, freed by ps_free. */
typedef struct ps_run {
  sq_mesh *m;
  double *lam, *mu, *eta;
  double *fxyz, *fslip, *fnormal;
  ps_slip_ctx slip;
  sq_qs_mesh *qm; /**< the whole P2 mesh (outputs) */
  sq_qs_mesh *qp; /**< the mesh solved on: qm on one rank, this rank's part under MPI */
  sq_qs_part *part;
  sq_qs_comm *comm;
  int *cell_rank;
  double *eta_p; /**< viscosity of qp's cells */
  double *u_p;   /**< qp's field (u itself on one rank) */
  int rank, nranks;
  sq_qs_visco *v;
  sq_qs_runtime *qr_el, *qr_v;
  double *u;
  ps_stations st;
  int64_t nsurf, ntri;
  double *sxyz, *su;
  int64_t *svert, *stri;
  sq_ps_surface *surf;
  int starpu;
} ps_run;

static void ps_free(ps_run *r) {
  sq_ps_surface_close(r->surf);
  ps_stations_close(&r->st);
  free(r->sxyz);
  free(r->svert);
  free(r->stri);
  SQ_FREE(r->su);
  sq_qs_runtime_destroy(r->qr_v);
  sq_qs_runtime_destroy(r->qr_el);
  if (r->starpu) sq_sim_starpu_stop();
  sq_qs_visco_destroy(r->v);
  sq_qs_comm_destroy(r->comm);
  if (r->qp != r->qm) {
    sq_qs_mesh_destroy(r->qp);
    SQ_FREE(r->u_p);
    SQ_FREE(r->eta_p);
  }
  sq_qs_part_destroy(r->part);
  SQ_FREE(r->cell_rank);
  sq_qs_mesh_destroy(r->qm);
  SQ_FREE(r->u);
  SQ_FREE(r->slip.pt);
  SQ_FREE(r->fxyz);
  SQ_FREE(r->fslip);
  SQ_FREE(r->fnormal);
  SQ_FREE(r->lam);
  SQ_FREE(r->mu);
  SQ_FREE(r->eta);
  sq_mesh_destroy(r->m);
}

static const sq_qs_bc_kind ps_bc_kind[3] = {SQ_QS_FREE, SQ_QS_DIRICHLET, SQ_QS_ROLLER};

/* MPI: the cells' ranks (METIS, as the DG solver partitions), this rank's part of the P2 mesh and its viscosity. */
static int ps_partition(const sq_config *cfg, ps_run *r) {
  const sq_mesh *m = r->m;
  int *cluster = NULL;
  SQ_CALL(SQ_CALLOC(cluster, m->ncell)); /* one cluster: every cell weighs the same */
  SQ_CALL(SQ_CALLOC(r->cell_rank, m->ncell));
  int ierr = sq_partition(m, cluster, 1, 1, r->nranks, SQ_PART_BW, NULL, r->cell_rank, NULL);
  SQ_FREE(cluster);
  SQ_CALL(ierr);
  SQ_CALL(sq_qs_mesh_part(r->qm, r->cell_rank, r->nranks, r->rank, cfg->postseismic.tile_size, &r->qp, &r->part));
  SQ_CALL(SQ_CALLOC(r->eta_p, r->qp->ncell));
  SQ_CALL(SQ_CALLOC(r->u_p, 3 * r->qp->nnode));
  for (int64_t c = 0, k = 0; c < m->ncell; ++c)
    if (r->cell_rank[c] == r->rank) r->eta_p[k++] = r->eta[c];
  return SQ_SUCCESS;
}

/* Mesh, materials, viscosity, boundary conditions and slip. */
static int ps_setup(const sq_config *cfg, ps_run *r) {
  const sq_ps_config *ps = &cfg->postseismic;
  if (cfg->mesh_kind == SQ_MESH_BOX) SQ_CALL(sq_mesh_box(&cfg->box, &r->m));
  else {
    SQ_CHECK(access(cfg->mesh_file, R_OK) == 0, SQ_ERR_IO, "%s:%d: key 'mesh.file': cannot read the mesh '%s'",
             cfg->path, cfg->mesh_file_line, cfg->mesh_file);
    SQ_CALL(sq_mesh_read(cfg->mesh_file, &r->m));
  }
  const sq_mesh *m = r->m;
  SQ_CHECK(m->ncell >= r->nranks, SQ_ERR_INPUT,
           "%s: %d MPI ranks for the mesh %s of %lld cells; starquake postseismic needs at least one cell per rank "
           "(run with at most %lld ranks)",
           cfg->path, r->nranks, m->source, (long long)m->ncell, (long long)m->ncell);
  /* elastic moduli and viscosity per cell */
  SQ_CALL(SQ_CALLOC(r->lam, m->ncell));
  SQ_CALL(SQ_CALLOC(r->mu, m->ncell));
  SQ_CALL(SQ_CALLOC(r->eta, m->ncell));
  sq_material *mat = malloc(sizeof(sq_material) * m->ncell);
  SQ_CHECK(mat, SQ_ERR_MEMORY, "postseismic: no memory for %lld materials", (long long)m->ncell);
  sq_material_eval *ev = NULL;
  int ierr = sq_material_eval_create(cfg, &ev);
  if (!ierr) ierr = sq_material_eval_cells(ev, m->ncell, m->centroid, m->group, NULL, NULL, 0, mat, NULL);
  sq_material_eval_destroy(ev);
  for (int64_t c = 0; !ierr && c < m->ncell; ++c) {
    r->lam[c] = mat[c].lambda;
    r->mu[c] = mat[c].mu;
    if (!(mat[c].mu > 0))
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "%s: cell %lld (centroid %g, %g, %g) has mu = %g; the quasi-static solver needs a solid "
                      "(mu > 0) everywhere",
                      cfg->path, (long long)c, m->centroid[3 * c], m->centroid[3 * c + 1], m->centroid[3 * c + 2],
                      mat[c].mu);
  }
  free(mat);
  SQ_CALL(ierr);
  SQ_CALL(sq_ps_config_eta(cfg, m->ncell, m->centroid, m->group, r->eta));
  /* boundary conditions */
  int has_tag[8] = {0};
  for (int64_t i = 0; i < 4 * m->ncell; ++i)
    if (m->face_bc[i] >= 0 && m->face_bc[i] < 8) has_tag[m->face_bc[i]] = 1;
  SQ_CHECK(!has_tag[SQ_BC_PERIODIC], SQ_ERR_INPUT,
           "%s: the mesh has periodic faces; the post-seismic solver takes free, fixed or roller boundaries only",
           cfg->path);
  SQ_CHECK((has_tag[SQ_BC_FREE] && ps->bc_free_surface) || (has_tag[SQ_BC_ABSORB] && ps->bc_absorbing), SQ_ERR_INPUT,
           "%s:%d: key 'postseismic.boundary': every boundary face of the mesh is free, so the displacement is not "
           "unique; make 'absorbing' fixed or roller",
           cfg->path, ps->line);
  sq_qs_bc_kind kind[256] = {0};
  kind[SQ_BC_FREE] = ps_bc_kind[ps->bc_free_surface];
  kind[SQ_BC_ABSORB] = ps_bc_kind[ps->bc_absorbing];
  SQ_CALL(sq_qs_mesh_create(m, r->lam, r->mu, ps->tile_size, &r->qm));
  SQ_CALL(sq_qs_set_bc(r->qm, kind, NULL, NULL));
  /* slip */
  int64_t nface = 0;
  double hmin = 0;
  SQ_CALL(ps_fault_faces(m, &nface, &r->fxyz, &hmin));
  SQ_CHECK(nface > 0, SQ_ERR_INPUT,
           "%s: the mesh %s has no fault faces (dynamic rupture faces: Gmsh physical surface 103, or mesh.box.fault); "
           "the slip needs them",
           cfg->path, m->source);
  SQ_CALL(SQ_CALLOC(r->fslip, 3 * nface));
  SQ_CALL(SQ_CALLOC(r->fnormal, 3 * nface));
  SQ_CALL(ps_face_slip(cfg, nface, r->fxyz, hmin, r->fslip, r->fnormal));
  double nref[3];
  SQ_CALL(ps_slip_points(nface, r->fxyz, r->fslip, r->fnormal, hmin, &r->slip, nref));
  SQ_CALL(sq_qs_set_fault(r->qm, nref, ps_slip_at, &r->slip));
  SQ_CHECK(!r->slip.miss, SQ_ERR_INTERNAL,
           "postseismic: %lld fault nodes without a fault face, the first at (%g, %g, %g)", (long long)r->slip.miss,
           r->slip.miss_x[0], r->slip.miss_x[1], r->slip.miss_x[2]);
  /* the viscoelastic problem */
  sq_qs_visco_opts vo;
  sq_qs_visco_opts_default(&vo);
  vo.dt = ps->dt.seconds;
  vo.alpha = ps->alpha;
  vo.predictor = ps->predictor;
  vo.multistep = ps->multistep;
  vo.solver.tol = ps->tolerance;
  vo.solver.max_outer = ps->max_iterations;
  SQ_CALL(SQ_CALLOC(r->u, 3 * r->qm->nnode));
  r->qp = r->qm;
  r->eta_p = r->eta;
  r->u_p = r->u;
  if (r->nranks > 1) SQ_CALL(ps_partition(cfg, r));
  return sq_qs_visco_create(r->qp, r->eta_p, &vo, &r->v);
}

static int ps_outputs_open(const sq_config *cfg, ps_run *r) {
  SQ_CALL(sq_mkdir_p(cfg->output_dir, "output "));
  SQ_CALL(ps_stations_open(cfg, r->m, &r->st));
  SQ_CALL(sq_ps_surface_triangles(r->m, &r->nsurf, &r->sxyz, &r->svert, &r->ntri, &r->stri));
  SQ_CALL(SQ_CALLOC(r->su, 3 * r->nsurf));
  return sq_ps_surface_open(cfg->output_dir, cfg->output_prefix, r->nsurf, r->sxyz, NULL, r->ntri, r->stri, NULL,
                            &r->surf);
}

/* The fewest and most cells of a rank. */
static void ps_rank_cells(const ps_run *r, int64_t *fewest, int64_t *most) {
  *fewest = r->m->ncell;
  *most = 0;
  for (int k = 0; k < r->nranks; ++k) {
    int64_t n = 0;
    for (int64_t c = 0; c < r->m->ncell; ++c) n += r->cell_rank[c] == k;
    if (n < *fewest) *fewest = n;
    if (n > *most) *most = n;
  }
}

/* Under MPI: the whole field on every rank, from the parts' owned nodes. */
static int ps_gather(ps_run *r) { return r->comm ? sq_qs_comm_gather(r->comm, 3, r->u_p, r->u) : SQ_SUCCESS; }

static int ps_write_stations(ps_run *r, double t) {
  if (!r->st.w) return SQ_SUCCESS;
  ps_station_values(r->qm, r->u, &r->st);
  return sq_ps_station_writer_append(r->st.w, t, r->st.u);
}

static int ps_write_surface(ps_run *r, double t) {
  for (int64_t i = 0; i < r->nsurf; ++i) memcpy(r->su + 3 * i, r->u + 3 * r->svert[i], 3 * sizeof(double));
  return sq_ps_surface_write(r->surf, t, r->su, NULL);
}

int sq_postseismic_run(const sq_config *cfg, volatile sig_atomic_t *stop, sq_ps_summary *sum) {
  const sq_ps_config *ps = &cfg->postseismic;
  memset(sum, 0, sizeof(*sum));
  SQ_CHECK(ps->enabled, SQ_ERR_INPUT, "%s: no 'postseismic:' section; starquake postseismic needs one (docs/CONFIG.md)",
           cfg->path);
  ps_run r = {0};
  r.rank = sq_sim_mpi_rank();
  r.nranks = sq_sim_mpi_nranks();
  const int talk = r.rank == 0 && sq_verbosity >= 1;
  const double w0 = ps_wall();
  sq_sim_hold_errors(); /* every rank sets up the same whole mesh: rank 0 alone reports its errors */
  int ierr = ps_setup(cfg, &r);
  ierr = sq_sim_release_errors(ierr);
  if (!ierr && !ps->serial) {
    ierr = sq_sim_starpu_start(cfg->scheduler, 1);
    r.starpu = !ierr;
  }
  sq_qs_ops ops_el, ops_v;
  memset(&ops_el, 0, sizeof(ops_el));
  memset(&ops_v, 0, sizeof(ops_v));
  if (!ierr && !ps->serial) ierr = sq_qs_runtime_create(r.qp, &r.qr_el);
  if (!ierr && !ps->serial) ierr = sq_qs_runtime_create(sq_qs_visco_mesh(r.v), &r.qr_v);
  if (!ierr && !ps->serial) {
    sq_qs_runtime_ops(r.qr_el, &ops_el);
    sq_qs_runtime_ops(r.qr_v, &ops_v);
  }
  if (!ierr && r.nranks > 1) ierr = sq_qs_comm_create(r.qp, r.part, !ps->serial, &r.comm);
  if (!ierr && r.comm) {
    sq_qs_comm_ops(r.comm, &ops_el);
    sq_qs_comm_ops(r.comm, &ops_v);
  }
  const int use_ops = !ps->serial || r.comm;
  if (!ierr) ierr = ps_outputs_open(cfg, &r);
  const double year = SQ_PS_YEAR, dt = ps->dt.seconds, t_end = ps->end_time.seconds;
  const int nstep = (int)ceil(t_end / dt - 1e-9);
  if (!ierr) {
    sum->ncell = r.m->ncell;
    sum->ndof = 3 * r.qm->nnode;
    sum->nfault_face = r.qm->nfault_face;
    sum->nstation = r.st.n;
    int64_t nvisc = 0;
    for (int64_t c = 0; c < r.m->ncell; ++c) nvisc += isfinite(r.eta[c]);
    if (talk && r.nranks > 1) {
      int64_t fewest, most;
      ps_rank_cells(&r, &fewest, &most);
      fprintf(stderr,
              "postseismic: %d MPI ranks, %lld to %lld cells each (METIS); rank 0 shares %lld nodes with %d "
              "ranks\n",
              r.nranks, (long long)fewest, (long long)most, (long long)r.part->nshared, r.part->npeer);
    }
    if (talk)
      fprintf(stderr,
              "postseismic: %lld cells (%lld viscoelastic), %lld degrees of freedom, %lld fault faces, %d stations; "
              "%d steps of %s to %s (setup %.1f s)\n",
              (long long)r.m->ncell, (long long)nvisc, (long long)sum->ndof, (long long)r.qm->nfault_face, r.st.n,
              nstep, ps->dt.text, ps->end_time.text, ps_wall() - w0);
  }
  const double w1 = ps_wall();
  if (!ierr) ierr = sq_qs_visco_elastic(r.v, use_ops ? &ops_el : NULL, r.u_p);
  if (!ierr) ierr = ps_gather(&r);
  if (!ierr) ierr = ps_write_stations(&r, 0);
  if (!ierr) ierr = ps_write_surface(&r, 0);
  double next_snap = ps->snapshot_interval.seconds;
  sq_qs_visco_stats vs;
  if (!ierr && talk) {
    sq_qs_visco_get_stats(r.v, &vs);
    fprintf(stderr, "postseismic: elastic solution at t = 0: %d outer, %lld inner iterations (%.1f s)\n", vs.last_outer,
            (long long)vs.last_inner, ps_wall() - w1);
  }
  for (int n = 1; n <= nstep && !ierr; ++n) {
    double stopping = stop && *stop;
    if (r.comm) ierr = sq_qs_allreduce(&ops_v, &stopping, 1); /* every rank stops after the same step */
    if (ierr) break;
    if (stopping > 0) {
      sum->stopped = 1;
      break;
    }
    ierr = sq_qs_visco_step(r.v, use_ops ? &ops_v : NULL, r.u_p);
    if (!ierr) ierr = ps_gather(&r);
    const double t = sq_qs_visco_time(r.v);
    if (!ierr) ierr = ps_write_stations(&r, t);
    if (!ierr && (t >= next_snap - 1e-6 * dt || n == nstep)) {
      ierr = ps_write_surface(&r, t);
      while (next_snap <= t + 1e-6 * dt)
        next_snap += ps->snapshot_interval.seconds > 0 ? ps->snapshot_interval.seconds : dt;
    }
    sum->nstep = n;
    if (!ierr && talk) {
      sq_qs_visco_get_stats(r.v, &vs);
      const double el = ps_wall() - w1;
      fprintf(stderr,
              "postseismic: step %d/%d  t = %.4g yr  iterations %d outer, %lld inner, %lld coarse  elapsed %.1f s  "
              "ETA %.1f s\n",
              n, nstep, t / year, vs.last_outer, (long long)vs.last_inner, (long long)vs.last_coarse, el,
              el / n * (nstep - n));
    }
  }
  if (r.v) {
    sq_qs_visco_get_stats(r.v, &vs);
    sum->time = sq_qs_visco_time(r.v);
    sum->outer_iters = vs.outer_iters;
    sum->inner_iters = vs.inner_iters;
    sum->coarse_iters = vs.coarse_iters;
  }
  if (r.surf) sum->nsnapshot = (int)sq_ps_surface_count(r.surf);
  sum->seconds = ps_wall() - w1;
  ps_free(&r);
  if (!ierr && sum->stopped) return SQ_STOPPED;
  return ierr;
}
