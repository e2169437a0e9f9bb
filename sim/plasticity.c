/**
 * @file plasticity.c  The plasticity of a run: the per-element parameters and initial stress from the
 * `plasticity:` section (numbers or expressions in x, y, z and group, evaluated at element centroids),
 * or from the easi material model (materials.easi) where it gives them.
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

/* The values the easi material model gives, at every element centroid (threaded): @p vals holds
 * nelem x nnames values of the parameters @p index[0..nnames-1].  Errors where a key gives one too. */
static int easi_values(const sq_sim *s, int *index, int *nnames, double **vals) {
  const sq_config *cfg = &s->cfg;
  *nnames = 0;
  *vals = NULL;
  if (!cfg->material_easi[0]) return SQ_SUCCESS;
  sq_easi *m;
  SQ_CALL(sq_easi_load(cfg->material_easi, &m));
  const char *names[SQ_NPLAST_PARAMS];
  int ierr = SQ_SUCCESS;
  for (int i = 0; i < SQ_NPLAST_PARAMS && !ierr; ++i) {
    if (!sq_easi_provides(m, easi_names[i])) continue;
    if (cfg->plasticity.param[i].text[0])
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "%s:%d: plasticity.%s is given twice: here and as '%s' by the easi model %s (materials.easi)",
                      cfg->path, cfg->plasticity.param[i].line, sq_plast_param_names[i], easi_names[i],
                      cfg->material_easi);
    names[*nnames] = easi_names[i];
    index[(*nnames)++] = i;
  }
  for (int i = SQ_PP_COHESION; i <= SQ_PP_TV && !ierr; ++i) {
    int given = cfg->plasticity.param[i].text[0] != 0;
    for (int k = 0; k < *nnames; ++k) given |= index[k] == i;
    if (!given)
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "%s:%d: plasticity.%s is missing: the easi model %s (materials.easi) does not give '%s' either",
                      cfg->path, cfg->plasticity.line, sq_plast_param_names[i], cfg->material_easi, easi_names[i]);
  }
  const sq_disc *d = s->disc;
  double *xyz = NULL;
  int *group = NULL;
  if (!ierr && *nnames > 0) {
    xyz = malloc(3 * (size_t)(d->nelem + 1) * sizeof(double));
    group = malloc((size_t)(d->nelem + 1) * sizeof(int));
    *vals = malloc((size_t)(d->nelem + 1) * (size_t)*nnames * sizeof(double));
    if (!xyz || !group || !*vals) ierr = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory");
  }
  if (!ierr && *nnames > 0) {
    for (int64_t el = 0; el < d->nelem; ++el) {
      const int64_t c = d->cell_of[el];
      memcpy(&xyz[3 * el], &s->mesh->centroid[3 * c], 3 * sizeof(double));
      group[el] = s->mesh->group[c];
    }
    ierr = sq_easi_eval(m, d->nelem, xyz, group, *nnames, names, *vals);
  }
  free(xyz);
  free(group);
  sq_easi_free(m);
  if (ierr) {
    free(*vals);
    *vals = NULL;
  }
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

int sq_sim_plasticity_create(sq_sim *s) {
  const sq_plasticity_config *pc = &s->cfg.plasticity;
  if (!pc->enabled) return SQ_SUCCESS;
  /* the initial stress: plasticity.initial_stress, else fault.initial_stress, else zero */
  sq_cfg_expr expr[SQ_NPLAST_PARAMS];
  char key[SQ_NPLAST_PARAMS][64];
  memcpy(expr, pc->param, sizeof(expr));
  int own_stress = 0, fault_stress = 0;
  int easi_index[SQ_NPLAST_PARAMS], neasi = 0, from_easi[SQ_NPLAST_PARAMS] = {0};
  double *easi_vals = NULL;
  SQ_CALL(easi_values(s, easi_index, &neasi, &easi_vals));
  for (int k = 0; k < neasi; ++k) from_easi[easi_index[k]] = 1;
  for (int i = SQ_PP_S_XX; i <= SQ_PP_S_XZ; ++i) own_stress |= pc->param[i].text[0] != 0 || from_easi[i];
  for (int i = 0; i < SQ_NPLAST_PARAMS; ++i) snprintf(key[i], sizeof(key[i]), "plasticity.%s", sq_plast_param_names[i]);
  if (!own_stress && s->cfg.fault.enabled) {
    for (int i = 0; i < 6; ++i) {
      expr[SQ_PP_S_XX + i] = s->cfg.fault.param[SQ_FP_S_XX + i];
      fault_stress |= expr[SQ_PP_S_XX + i].text[0] != 0;
      snprintf(key[SQ_PP_S_XX + i], sizeof(key[0]), "fault.initial_stress.%s", sq_fault_param_names[SQ_FP_S_XX + i]);
    }
  }
  int rc0 = sq_plastic_state_create(s->disc, &s->plastic);
  if (rc0) free(easi_vals);
  SQ_CALL(rc0);
  sq_plastic_state *ps = s->plastic;
  sq_expr *e[SQ_NPLAST_PARAMS] = {NULL};
  int ierr = SQ_SUCCESS;
  for (int i = 0; i < SQ_NPLAST_PARAMS && !ierr; ++i) ierr = compile(s->cfg.path, &expr[i], key[i], &e[i]);
  const sq_disc *d = s->disc;
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int64_t el = 0; el < d->nelem && !ierr; ++el) {
    const int64_t c = d->cell_of[el];
    const double *x = &s->mesh->centroid[3 * c];
    const double vars[SQ_EXPR_NBUILTIN + 1] = {x[0], x[1], x[2], 0.0, (double)s->mesh->group[c]};
    double v[SQ_NPLAST_PARAMS];
    for (int k = 0; k < neasi; ++k) v[easi_index[k]] = easi_vals[el * neasi + k];
    for (int i = 0; i < SQ_NPLAST_PARAMS && !ierr; ++i) {
      if (from_easi[i]) continue;
      v[i] = e[i] ? sq_expr_eval(e[i], vars) : 0.0;
      if (!isfinite(v[i]))
        ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: %s is %g at (%g, %g, %g) (mesh cell %lld)",
                        s->cfg.path, expr[i].line, key[i], v[i], x[0], x[1], x[2], (long long)c);
    }
    if (ierr) break;
    if (sq_plasticity_check_params(v[SQ_PP_COHESION], v[SQ_PP_BULK_FRICTION], v[SQ_PP_TV], NULL, 0)) {
      const int bad = v[SQ_PP_COHESION] < 0        ? SQ_PP_COHESION
                      : v[SQ_PP_BULK_FRICTION] < 0 ? SQ_PP_BULK_FRICTION
                                                   : SQ_PP_TV;
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: %s = %g at (%g, %g, %g) (mesh cell %lld): must be >= 0",
                      s->cfg.path, expr[bad].line, key[bad], v[bad], x[0], x[1], x[2], (long long)c);
      break;
    }
    for (int k = 0; k < 3; ++k) {
      ps->params[3 * el + k] = v[SQ_PP_COHESION + k];
      lo[k] = fmin(lo[k], v[SQ_PP_COHESION + k]), hi[k] = fmax(hi[k], v[SQ_PP_COHESION + k]);
    }
    for (int k = 0; k < 6; ++k) ps->initial_stress[6 * el + k] = v[SQ_PP_S_XX + k];
  }
  for (int i = 0; i < SQ_NPLAST_PARAMS; ++i) sq_expr_destroy(e[i]);
  free(easi_vals);
  SQ_CALL(ierr);
  if (s->nranks > 1) {
    MPI_Allreduce(MPI_IN_PLACE, lo, 3, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, hi, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  if (sq_verbosity >= 1 && s->rank == 0) {
    printf("  plasticity Drucker-Prager, viscoplastic: cohesion %g..%g, bulk friction %g..%g, Tv %g..%g s;\n"
           "             initial stress from %s\n",
           lo[0], hi[0], lo[1], hi[1], lo[2], hi[2],
           own_stress     ? (from_easi[SQ_PP_S_XX] ? "materials.easi" : "plasticity.initial_stress")
           : fault_stress ? "fault.initial_stress"
                          : "nowhere (zero)");
  }
  return SQ_SUCCESS;
}
