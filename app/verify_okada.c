/**
 * @file verify_okada.c  `starquake verify okada`: the quasi-static elastic solver (src/sq_qs.h) against Okada's
 * (1992) closed form of a rectangular dislocation in a homogeneous half-space (src/sq_okada.h).  A vertical
 * rectangular fault (length 2, width 1, top 0.5 below the surface, strike north) in a box [-2.5, 2.5]^2 x [-3, 0]
 * meshed with the built-in box generator at spacing 1/k for each k of --meshes: the top is free, the sides and the
 * bottom take Okada's displacement (Dirichlet), the fault's faces the slip as a split-node dislocation.  Cases:
 * strike slip (rake 0) and dip slip (rake 90).  The measure: the relative L2 misfit of the displacement at the
 * surface's nodes, those farther than --exclude from the fault's edges.  Passes when the finest mesh's misfit is
 * at most --tolerance in every case and the misfit falls with every refinement.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sq_app.h"
#include "sq_mesh_io.h"
#include "sq_okada.h"
#include "sq_qs.h"

enum { MAX_MESH = 6, NCASE = 2 };

static double wall_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

typedef struct okada_ctx {
  sq_okada_fault f;
  double lambda, mu;
  double slip[3];
} okada_ctx;

static void okada_u(void *ctx, const double x[3], double u[3]) {
  const okada_ctx *o = ctx;
  if (sq_okada_displacement(&o->f, o->lambda, o->mu, x, u)) u[0] = u[1] = u[2] = 0;
}

static void okada_slip(void *ctx, const double x[3], double s[3]) {
  (void)x;
  const okada_ctx *o = ctx;
  memcpy(s, o->slip, sizeof(o->slip));
}

/* Distance from x to the segment [a, b]. */
static double seg_dist(const double x[3], const double a[3], const double b[3]) {
  double ab[3], ax[3], t = 0, l2 = 0;
  for (int d = 0; d < 3; ++d) {
    ab[d] = b[d] - a[d];
    ax[d] = x[d] - a[d];
    t += ab[d] * ax[d];
    l2 += ab[d] * ab[d];
  }
  t = l2 > 0 ? fmin(1, fmax(0, t / l2)) : 0;
  double r = 0;
  for (int d = 0; d < 3; ++d) r += (ax[d] - t * ab[d]) * (ax[d] - t * ab[d]);
  return sqrt(r);
}

typedef struct okada_result {
  double rel_l2, h, seconds;
  int64_t ncell, ndof, nsurf, ntask;
  sq_qs_solver_opts so;
} okada_result;

/* Geometry: fault in the plane x = 0, y in [-1, 1], depth [0.5, 1.5]; box [-2.5, 2.5]^2 x [-3, 0]. */
static const double FAULT_L = 2, FAULT_W = 1, FAULT_TOP = 0.5, BOX_R = 2.5, BOX_D = 3;

/* The mesh of one run: the box generator's at spacing 1/k (vertical fault), or the file @p path (the same box and
 * fault with the dip of the run: physical surfaces 101 free, 103 fault, 105 Dirichlet). */
static int okada_mesh(int k, const char *path, sq_mesh **m) {
  if (path) {
    SQ_CALL(sq_mesh_read(path, m));
    const double lo[3] = {-BOX_R, -BOX_R, -BOX_D}, hi[3] = {BOX_R, BOX_R, 0};
    for (int d = 0; d < 3; ++d)
      if (fabs((*m)->bbox_lo[d] - lo[d]) > 1e-6 || fabs((*m)->bbox_hi[d] - hi[d]) > 1e-6) {
        const int ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                                  "verify okada: mesh %s spans [%g, %g] along axis %d; the set-up needs the box "
                                  "[-2.5, 2.5] x [-2.5, 2.5] x [-3, 0]",
                                  path, (*m)->bbox_lo[d], (*m)->bbox_hi[d], d);
        sq_mesh_destroy(*m);
        *m = NULL;
        return ierr;
      }
    return SQ_SUCCESS;
  }
  sq_box_params bp;
  sq_box_params_default(&bp);
  bp.n[0] = bp.n[1] = (int)lround(2 * BOX_R * k);
  bp.n[2] = (int)lround(BOX_D * k);
  for (int d = 0; d < 2; ++d) {
    bp.lo[d] = -BOX_R;
    bp.hi[d] = BOX_R;
  }
  bp.lo[2] = -BOX_D;
  bp.hi[2] = 0;
  for (int i = 0; i < 5; ++i) bp.bc[i] = SQ_BC_ABSORB; /* sides and bottom: Dirichlet */
  bp.bc[5] = SQ_BC_FREE;
  bp.has_fault = 1;
  bp.fault_lo[0] = bp.fault_hi[0] = 0;
  bp.fault_lo[1] = -FAULT_L / 2;
  bp.fault_hi[1] = FAULT_L / 2;
  bp.fault_lo[2] = -(FAULT_TOP + FAULT_W);
  bp.fault_hi[2] = -FAULT_TOP;
  return sq_mesh_box(&bp, m);
}

static int run_case(int k, const char *path, double dip, double rake, double exclude, int tile_size, int verbose,
                    int serial, FILE *dump, const char *name, okada_result *res) {
  sq_mesh *m = NULL;
  SQ_CALL(okada_mesh(k, path, &m));
  double vol = 0;
  for (int64_t c = 0; c < m->ncell; ++c) vol += m->volume[c];
  const double h = path ? cbrt(6 * vol / m->ncell) : 1.0 / k; /* the cube side of 6 tetrahedra of mean volume */
  okada_ctx oc = {.f = {.x = 0,
                        .y = 0,
                        .depth = FAULT_TOP,
                        .strike_deg = 0,
                        .dip_deg = dip,
                        .rake_deg = rake,
                        .length = FAULT_L,
                        .width = FAULT_W,
                        .slip = 1,
                        .opening = 0},
                  .lambda = 1,
                  .mu = 1};
  sq_okada_slip_vector(&oc.f, oc.slip);
  double nref[3];
  sq_okada_normal(&oc.f, nref);
  double *lam = malloc(sizeof(double) * m->ncell), *mu = malloc(sizeof(double) * m->ncell);
  sq_qs_mesh *qm = NULL;
  double *u = NULL;
  int ierr = lam && mu ? SQ_SUCCESS : sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "verify okada: no memory");
  for (int64_t c = 0; !ierr && c < m->ncell; ++c) {
    lam[c] = oc.lambda;
    mu[c] = oc.mu;
  }
  if (!ierr) ierr = sq_qs_mesh_create(m, lam, mu, tile_size, &qm);
  sq_qs_bc_kind kind[256] = {0};
  kind[SQ_BC_ABSORB] = SQ_QS_DIRICHLET;
  kind[SQ_BC_FREE] = SQ_QS_FREE;
  if (!ierr) ierr = sq_qs_set_bc(qm, kind, okada_u, &oc);
  if (!ierr) ierr = sq_qs_set_fault(qm, nref, okada_slip, &oc);
  if (!ierr && qm->nfault_face == 0)
    ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "verify okada: mesh %s has no fault faces (Gmsh physical 103)",
                    m->source);
  if (!ierr) ierr = SQ_CALLOC(u, 3 * qm->nnode);
  sq_qs_solver_opts_default(&res->so);
  res->so.verbose = verbose;
  sq_qs_runtime *qr = NULL;
  sq_qs_ops ops;
  if (!ierr && !serial) {
    ierr = sq_qs_runtime_create(qm, &qr);
    if (!ierr) sq_qs_runtime_ops(qr, &ops);
  }
  const double t0 = wall_now();
  if (!ierr) ierr = sq_qs_solve(qm, serial ? NULL : &ops, NULL, u, &res->so);
  res->seconds = wall_now() - t0;
  res->ntask = 0;
  if (qr) {
    int64_t ne, nr, ntr;
    sq_qs_runtime_counts(qr, &ne, &nr, &ntr);
    res->ntask = ne + nr + ntr;
  }
  sq_qs_runtime_destroy(qr);
  if (!ierr) {
    /* the fault's edges */
    const double cd = cos(dip * M_PI / 180), sd = sin(dip * M_PI / 180);
    const double c[4][3] = {{0, -FAULT_L / 2, -FAULT_TOP},
                            {0, FAULT_L / 2, -FAULT_TOP},
                            {FAULT_W * cd, FAULT_L / 2, -FAULT_TOP - FAULT_W * sd},
                            {FAULT_W * cd, -FAULT_L / 2, -FAULT_TOP - FAULT_W * sd}};
    double num = 0, den = 0;
    res->nsurf = 0;
    for (int64_t p = 0; p < qm->nnode; ++p) {
      const double *x = qm->xyz + 3 * p;
      if (fabs(x[2]) > 1e-9) continue;
      double dist = INFINITY;
      for (int e = 0; e < 4; ++e) dist = fmin(dist, seg_dist(x, c[e], c[(e + 1) % 4]));
      if (dist < exclude) continue;
      double ue[3];
      if (sq_okada_displacement(&oc.f, oc.lambda, oc.mu, x, ue)) continue;
      for (int d = 0; d < 3; ++d) {
        num += (u[3 * p + d] - ue[d]) * (u[3 * p + d] - ue[d]);
        den += ue[d] * ue[d];
      }
      if (dump)
        fprintf(dump, "%s %g %.6g %.6g %.9e %.9e %.9e %.9e %.9e %.9e\n", name, h, x[0], x[1], u[3 * p], u[3 * p + 1],
                u[3 * p + 2], ue[0], ue[1], ue[2]);
      ++res->nsurf;
    }
    res->rel_l2 = den > 0 ? sqrt(num / den) : INFINITY;
    res->h = h;
    res->ncell = m->ncell;
    res->ndof = 3 * qm->nnode;
  }
  SQ_FREE(u);
  free(lam);
  free(mu);
  sq_qs_mesh_destroy(qm);
  sq_mesh_destroy(m);
  return ierr;
}

int sq_cmd_verify_okada(int argc, char **argv) {
  const char *dump_path = NULL, *files[MAX_MESH];
  char *mesh_list = NULL;
  int nfile = 0;
  double dip = 90;
  int json = 0, verbose = 0, serial = 0, nmesh = 0, mesh[MAX_MESH], tile_size = 1024;
  double tol = 0.01, exclude = 0.25;
  for (int i = 0; i < argc; ++i) {
    const char *a = argv[i];
    const int more = i + 1 < argc;
    if (!strcmp(a, "--json")) json = 1;
    else if (!strcmp(a, "--verbose")) verbose = 1;
    else if (!strcmp(a, "--serial")) serial = 1;
    else if (!strcmp(a, "--dump") && more) dump_path = argv[++i];
    else if (!strcmp(a, "--dip") && more) dip = atof(argv[++i]);
    else if (!strcmp(a, "--mesh") && more) mesh_list = argv[++i];
    else if (!strcmp(a, "--tolerance") && more) tol = atof(argv[++i]);
    else if (!strcmp(a, "--exclude") && more) exclude = atof(argv[++i]);
    else if (!strcmp(a, "--tile-size") && more) tile_size = atoi(argv[++i]);
    else if (!strcmp(a, "--meshes") && more) {
      char *s = argv[++i];
      nmesh = 0;
      while (*s) {
        SQ_CHECK(nmesh < MAX_MESH, SQ_ERR_INPUT, "verify okada: at most %d meshes in --meshes", MAX_MESH);
        char *end;
        const long v = strtol(s, &end, 10);
        SQ_CHECK(end != s && v >= 1 && v <= 16, SQ_ERR_INPUT,
                 "verify okada: --meshes takes cells per unit length 1..16, comma-separated (got '%s')", argv[i]);
        mesh[nmesh++] = (int)v;
        s = *end == ',' ? end + 1 : end;
        SQ_CHECK(*end == ',' || *end == 0, SQ_ERR_INPUT, "verify okada: bad --meshes '%s'", argv[i]);
      }
    } else return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "verify okada: unknown or incomplete option '%s'", a);
  }
  SQ_CHECK(dip > 0 && dip <= 90, SQ_ERR_INPUT, "verify okada: --dip must be in (0, 90] degrees (got %g)", dip);
  SQ_CHECK(mesh_list || dip == 90, SQ_ERR_INPUT,
           "verify okada: the box generator's fault is vertical: --dip %g needs --mesh files (Gmsh, "
           "tests/meshes/okada_dip.geo)",
           dip);
  SQ_CHECK(!(mesh_list && nmesh), SQ_ERR_INPUT,
           "verify okada: give --meshes (box generator) or --mesh (files), not both");
  if (mesh_list) {
    for (char *t = strtok(mesh_list, ","); t; t = strtok(NULL, ",")) {
      SQ_CHECK(nfile < MAX_MESH, SQ_ERR_INPUT, "verify okada: at most %d files in --mesh", MAX_MESH);
      files[nfile++] = t;
    }
    SQ_CHECK(nfile > 0, SQ_ERR_INPUT, "verify okada: --mesh needs at least one file");
    nmesh = nfile;
    for (int k = 0; k < nmesh; ++k) mesh[k] = 0;
  }
  SQ_CHECK(tol > 0, SQ_ERR_INPUT, "verify okada: --tolerance must be > 0 (got %g)", tol);
  SQ_CHECK(tile_size >= 1, SQ_ERR_INPUT, "verify okada: --tile-size must be >= 1 (got %d)", tile_size);
  if (!nmesh) {
    mesh[0] = 2;
    mesh[1] = 4;
    nmesh = 2;
  }
  const char *names[NCASE] = {"strike_slip", "dip_slip"};
  const double rakes[NCASE] = {0, 90};
  okada_result r[NCASE][MAX_MESH];
  int pass = 1;
  double worst = 0;
  FILE *dump = NULL;
  if (dump_path) {
    dump = fopen(dump_path, "w");
    SQ_CHECK(dump, SQ_ERR_IO, "verify okada: cannot write --dump file '%s'", dump_path);
    fprintf(dump, "# case h x y ux uy uz ux_okada uy_okada uz_okada (surface nodes)\n");
  }
  if (!serial) {
    const int e = sq_sim_starpu_start(NULL, 1);
    if (e) {
      if (dump) fclose(dump);
      return e;
    }
  }
  int ierr = SQ_SUCCESS;
  for (int c = 0; c < NCASE && !ierr; ++c)
    for (int k = 0; k < nmesh && !ierr; ++k) {
      if (!json && nfile) fprintf(stderr, "verify okada: %s, mesh %s ...\n", names[c], files[k]);
      else if (!json) fprintf(stderr, "verify okada: %s, spacing 1/%d ...\n", names[c], mesh[k]);
      ierr = run_case(mesh[k], nfile ? files[k] : NULL, dip, rakes[c], exclude, tile_size, verbose, serial, dump,
                      names[c], &r[c][k]);
      if (!ierr && k > 0 && !(r[c][k].rel_l2 < r[c][k - 1].rel_l2)) pass = 0;
    }
  if (!serial) sq_sim_starpu_stop();
  if (dump) fclose(dump);
  if (ierr) return ierr;
  for (int c = 0; c < NCASE; ++c) {
    worst = fmax(worst, r[c][nmesh - 1].rel_l2);
    if (!(r[c][nmesh - 1].rel_l2 <= tol)) pass = 0;
  }
  if (json) {
    printf("{\"test\": \"okada\", \"rel_l2\": %.6e, \"tolerance\": %g, \"exclude\": %g, \"dip\": %g, \"pass\": %s, "
           "\"cases\": [",
           worst, tol, exclude, dip, pass ? "true" : "false");
    for (int c = 0; c < NCASE; ++c)
      for (int k = 0; k < nmesh; ++k) {
        const okada_result *q = &r[c][k];
        printf("%s\n  {\"case\": \"%s\", \"h\": %g, \"cells\": %lld, \"dofs\": %lld, \"surface_nodes\": %lld, "
               "\"rel_l2\": %.6e, \"outer_iterations\": %d, \"inner_iterations\": %lld, "
               "\"coarse_iterations\": %lld, \"rel_residual\": %.3e, \"tasks\": %lld, \"seconds\": %.3f}",
               c || k ? "," : "", names[c], q->h, (long long)q->ncell, (long long)q->ndof, (long long)q->nsurf,
               q->rel_l2, q->so.outer_iters, (long long)q->so.inner_iters, (long long)q->so.coarse_iters,
               q->so.rel_residual, (long long)q->ntask, q->seconds);
      }
    printf("]}\n");
  } else {
    printf("case         h        cells     dofs  rel_l2      outer  inner  coarse  residual  seconds\n");
    for (int c = 0; c < NCASE; ++c)
      for (int k = 0; k < nmesh; ++k) {
        const okada_result *q = &r[c][k];
        printf("%-11s  %-7.4g  %7lld  %7lld  %.3e  %5d  %5lld  %6lld  %.1e  %.2f\n", names[c], q->h,
               (long long)q->ncell, (long long)q->ndof, q->rel_l2, q->so.outer_iters, (long long)q->so.inner_iters,
               (long long)q->so.coarse_iters, q->so.rel_residual, q->seconds);
      }
    printf("verify okada: %s (finest mesh: largest rel_l2 %.3e, tolerance %g; rel_l2 must fall with the mesh)\n",
           pass ? "PASS" : "FAIL", worst, tol);
  }
  return pass ? SQ_SUCCESS : SQ_ERR_NUMERIC;
}
