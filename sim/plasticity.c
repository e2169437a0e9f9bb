/**
 * @file plasticity.c  The plasticity of a run: the per-element parameters and initial stress from the
 * `plasticity:` section (numbers or expressions in x, y, z and group), or from the easi material model
 * (materials.easi) where it gives them.  The parameters (cohesion, bulk friction, Tv) are evaluated at
 * the element centroids; the initial stress at each element's nodal points (the points where the yield
 * criterion is checked), or with `initial_stress_at: centroid` once at the centroid for all of them.
 */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "sq_easi.h"
#include "sq_expr.h"
#include "sq_sim_setup.h"

/* SeisSol's names of the plasticity values in easi material models, in the order of enum sq_plast_param */
static const char *const easi_names[SQ_NPLAST_PARAMS] = {"plastCo", "bulkFriction", "Tv",   "s_xx", "s_yy",
                                                         "s_zz",    "s_xy",         "s_yz", "s_xz"};

/* elements whose initial stress is evaluated in one go (bounds the point buffers of an easi model) */
#define STRESS_CHUNK 4096

/* The easi model of materials.easi when it gives plasticity values: from_easi[i] = 1 for those it gives.
 * Errors where a key gives one too, or where neither gives a required parameter. */
static int easi_model(const sq_sim *s, int from_easi[SQ_NPLAST_PARAMS], sq_easi **model) {
  const sq_config *cfg = &s->cfg;
  *model = NULL;
  if (!cfg->material_easi[0]) return SQ_SUCCESS;
  sq_easi *m;
  SQ_CALL(sq_easi_load(cfg->material_easi, &m));
  int ierr = SQ_SUCCESS, any = 0;
  for (int i = 0; i < SQ_NPLAST_PARAMS && !ierr; ++i) {
    if (!sq_easi_provides(m, easi_names[i])) continue;
    if (cfg->plasticity.param[i].text[0])
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "%s:%d: plasticity.%s is given twice: here and as '%s' by the easi model %s (materials.easi)",
                      cfg->path, cfg->plasticity.param[i].line, sq_plast_param_names[i], easi_names[i],
                      cfg->material_easi);
    from_easi[i] = any = 1;
  }
  for (int i = SQ_PP_COHESION; i <= SQ_PP_TV && !ierr; ++i)
    if (!cfg->plasticity.param[i].text[0] && !from_easi[i])
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "%s:%d: plasticity.%s is missing: the easi model %s (materials.easi) does not give '%s' either",
                      cfg->path, cfg->plasticity.line, sq_plast_param_names[i], cfg->material_easi, easi_names[i]);
  if (ierr || !any) sq_easi_free(m);
  else *model = m;
  return ierr;
}

/* variables of the plasticity expressions: x, y, z, t (always 0 here), then group */
static const char *const plast_vars[] = {"group"};

static int compile(const char *path, const sq_cfg_expr *e, const char *key, sq_expr **out) {
  char err[256];
  *out = NULL;
  if (!e->text[0]) return SQ_SUCCESS;
  const int rc = sq_expr_compile(e->text, plast_vars, 1, out, err, sizeof(err));
  if (rc == SQ_ERR_INPUT)
    return sq_error(rc, __FILE__, __LINE__, "%s:%d: %s: '%s': %s", path, e->line, key, e->text, err);
  return rc;
}

/** What the evaluation of the parameters [first, last] needs: their sources and names. */
typedef struct plast_eval {
  const sq_sim *s;
  sq_easi *model;
  const int *from_easi;
  sq_expr *const *e;
  const sq_cfg_expr *expr;
  const char (*key)[64];
} plast_eval;

/*
 * Values of parameters first..last at the npe points per element of elements [e0, e1): the element
 * centroids (npe = 1) or the nodal points (npe = B).  @p xyz, @p group: buffers of (e1 - e0) npe points;
 * @p v: (e1 - e0) npe rows of SQ_NPLAST_PARAMS values (only first..last written).  Non-finite values are
 * an error naming the key's line, the point and the mesh cell.
 */
static int eval_block(const plast_eval *pe, int first, int last, int64_t e0, int64_t e1, int npe, double *xyz,
                      int *group, double *v) {
  const sq_sim *s = pe->s;
  const sq_disc *d = s->disc;
  const int64_t npt = (e1 - e0) * npe;
  for (int64_t el = e0; el < e1; ++el) {
    const int64_t c = d->cell_of[el], p0 = (el - e0) * npe;
    if (npe == 1) memcpy(&xyz[3 * p0], &s->mesh->centroid[3 * c], 3 * sizeof(double));
    else sq_plastic_state_node_points(s->plastic, d, el, &xyz[3 * p0]);
    for (int i = 0; i < npe; ++i) group[p0 + i] = s->mesh->group[c];
  }
  const char *names[SQ_NPLAST_PARAMS];
  int index[SQ_NPLAST_PARAMS], nnames = 0;
  for (int i = first; i <= last; ++i)
    if (pe->from_easi[i]) names[nnames] = easi_names[i], index[nnames++] = i;
  if (nnames > 0) {
    double *vals = malloc((size_t)npt * nnames * sizeof(double));
    SQ_CHECK(vals, SQ_ERR_MEMORY, "out of memory");
    const int rc = sq_easi_eval(pe->model, npt, xyz, group, nnames, names, vals);
    for (int64_t p = 0; p < npt && !rc; ++p)
      for (int k = 0; k < nnames; ++k) v[p * SQ_NPLAST_PARAMS + index[k]] = vals[p * nnames + k];
    free(vals);
    SQ_CALL(rc);
  }
  for (int64_t p = 0; p < npt; ++p) {
    const double *x = &xyz[3 * p];
    const double vars[SQ_EXPR_NBUILTIN + 1] = {x[0], x[1], x[2], 0.0, (double)group[p]};
    for (int i = first; i <= last; ++i) {
      double *vi = &v[p * SQ_NPLAST_PARAMS + i];
      if (!pe->from_easi[i]) *vi = pe->e[i] ? sq_expr_eval(pe->e[i], vars) : 0.0;
      if (!isfinite(*vi)) {
        const int64_t c = d->cell_of[e0 + p / npe];
        if (pe->from_easi[i])
          return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: '%s' is %g at (%g, %g, %g) (mesh cell %lld)",
                          s->cfg.material_easi, easi_names[i], *vi, x[0], x[1], x[2], (long long)c);
        return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: %s is %g at (%g, %g, %g) (mesh cell %lld)",
                        s->cfg.path, pe->expr[i].line, pe->key[i], *vi, x[0], x[1], x[2], (long long)c);
      }
    }
  }
  return SQ_SUCCESS;
}

/* cohesion, bulk friction and Tv at every element centroid, checked, into ps->params; their ranges */
static int eval_params(const plast_eval *pe, double lo[3], double hi[3]) {
  const sq_sim *s = pe->s;
  const int64_t n = s->disc->nelem;
  sq_plastic_state *ps = s->plastic;
  double *xyz = malloc(3 * (size_t)(n + 1) * sizeof(double)),
         *v = malloc((size_t)(n + 1) * SQ_NPLAST_PARAMS * sizeof(double));
  int *group = malloc((size_t)(n + 1) * sizeof(int));
  int ierr = xyz && v && group ? SQ_SUCCESS : sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory");
  if (!ierr) ierr = eval_block(pe, SQ_PP_COHESION, SQ_PP_TV, 0, n, 1, xyz, group, v);
  for (int64_t el = 0; el < n && !ierr; ++el) {
    const double *ve = &v[el * SQ_NPLAST_PARAMS], *x = &xyz[3 * el];
    if (sq_plasticity_check_params(ve[SQ_PP_COHESION], ve[SQ_PP_BULK_FRICTION], ve[SQ_PP_TV], NULL, 0)) {
      const int bad = ve[SQ_PP_COHESION] < 0        ? SQ_PP_COHESION
                      : ve[SQ_PP_BULK_FRICTION] < 0 ? SQ_PP_BULK_FRICTION
                                                    : SQ_PP_TV;
      ierr =
          pe->from_easi[bad]
              ? sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                         "%s: '%s' = %g at (%g, %g, %g) (mesh cell %lld): must be >= 0", s->cfg.material_easi,
                         easi_names[bad], ve[bad], x[0], x[1], x[2], (long long)s->disc->cell_of[el])
              : sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                         "%s:%d: %s = %g at (%g, %g, %g) (mesh cell %lld): must be >= 0", s->cfg.path,
                         pe->expr[bad].line, pe->key[bad], ve[bad], x[0], x[1], x[2], (long long)s->disc->cell_of[el]);
      break;
    }
    for (int k = 0; k < 3; ++k) {
      ps->params[3 * el + k] = ve[SQ_PP_COHESION + k];
      lo[k] = fmin(lo[k], ve[SQ_PP_COHESION + k]), hi[k] = fmax(hi[k], ve[SQ_PP_COHESION + k]);
    }
  }
  free(xyz), free(v), free(group);
  return ierr;
}

/* the initial stress at the nodal points of every element (or at its centroid for all of them), in
 * blocks of STRESS_CHUNK elements, into ps->initial_stress */
static int eval_stress(const plast_eval *pe, int at_nodes) {
  const sq_sim *s = pe->s;
  sq_plastic_state *ps = s->plastic;
  const int64_t n = s->disc->nelem;
  const int B = ps->ref->nbasis, npe = at_nodes ? B : 1;
  const size_t cap = (size_t)STRESS_CHUNK * npe;
  double *xyz = malloc(3 * cap * sizeof(double)), *v = malloc(cap * SQ_NPLAST_PARAMS * sizeof(double));
  int *group = malloc(cap * sizeof(int));
  int ierr = xyz && v && group ? SQ_SUCCESS : sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory");
  for (int64_t e0 = 0; e0 < n && !ierr; e0 += STRESS_CHUNK) {
    const int64_t e1 = e0 + STRESS_CHUNK < n ? e0 + STRESS_CHUNK : n;
    ierr = eval_block(pe, SQ_PP_S_XX, SQ_PP_S_XZ, e0, e1, npe, xyz, group, v);
    for (int64_t el = e0; el < e1 && !ierr; ++el)
      for (int i = 0; i < npe; ++i)
        sq_plasticity_stress_set(ps->precision, B, sq_plastic_state_stress(ps, el), at_nodes ? i : -1,
                                 &v[((el - e0) * npe + i) * SQ_NPLAST_PARAMS + SQ_PP_S_XX]);
  }
  free(xyz), free(v), free(group);
  return ierr;
}

int sq_sim_plasticity_create(sq_sim *s) {
  const sq_plasticity_config *pc = &s->cfg.plasticity;
  if (!pc->enabled) return SQ_SUCCESS;
  /* the initial stress: plasticity.initial_stress, else fault.initial_stress, else zero */
  sq_cfg_expr expr[SQ_NPLAST_PARAMS];
  char key[SQ_NPLAST_PARAMS][64];
  memcpy(expr, pc->param, sizeof(expr));
  int own_stress = 0, fault_stress = 0, from_easi[SQ_NPLAST_PARAMS] = {0};
  sq_easi *model = NULL;
  SQ_CALL(easi_model(s, from_easi, &model));
  for (int i = SQ_PP_S_XX; i <= SQ_PP_S_XZ; ++i) own_stress |= pc->param[i].text[0] != 0 || from_easi[i];
  for (int i = 0; i < SQ_NPLAST_PARAMS; ++i) snprintf(key[i], sizeof(key[i]), "plasticity.%s", sq_plast_param_names[i]);
  if (!own_stress && s->cfg.fault.enabled) {
    for (int i = 0; i < 6; ++i) {
      expr[SQ_PP_S_XX + i] = s->cfg.fault.param[SQ_FP_S_XX + i];
      fault_stress |= expr[SQ_PP_S_XX + i].text[0] != 0;
      snprintf(key[SQ_PP_S_XX + i], sizeof(key[0]), "fault.initial_stress.%s", sq_fault_param_names[SQ_FP_S_XX + i]);
    }
  }
  int ierr = sq_plastic_state_create(s->disc, &s->plastic);
  sq_expr *e[SQ_NPLAST_PARAMS] = {NULL};
  for (int i = 0; i < SQ_NPLAST_PARAMS && !ierr; ++i) ierr = compile(s->cfg.path, &expr[i], key[i], &e[i]);
  const plast_eval pe = {.s = s, .model = model, .from_easi = from_easi, .e = e, .expr = expr, .key = key};
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  const int at_nodes = pc->stress_at == SQ_PLAST_STRESS_AT_NODES;
  if (!ierr) ierr = eval_params(&pe, lo, hi);
  if (!ierr) ierr = eval_stress(&pe, at_nodes);
  for (int i = 0; i < SQ_NPLAST_PARAMS; ++i) sq_expr_destroy(e[i]);
  sq_easi_free(model);
  SQ_CALL(ierr);
  if (s->nranks > 1) {
    MPI_Allreduce(MPI_IN_PLACE, lo, 3, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, hi, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  if (sq_verbosity >= 1 && s->rank == 0) {
    printf("  plasticity Drucker-Prager, viscoplastic: cohesion %g..%g, bulk friction %g..%g, Tv %g..%g s;\n"
           "             initial stress from %s, at %s\n",
           lo[0], hi[0], lo[1], hi[1], lo[2], hi[2],
           own_stress     ? (from_easi[SQ_PP_S_XX] ? "materials.easi" : "plasticity.initial_stress")
           : fault_stress ? "fault.initial_stress"
                          : "nowhere (zero)",
           at_nodes ? "the nodal points of each element" : "the element centroids");
  }
  return SQ_SUCCESS;
}
