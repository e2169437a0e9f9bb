/**
 * @file plasticity.c  The plasticity of a run: the per-element parameters and initial stress from the
 * `plasticity:` section (numbers or expressions in x, y, z and group, evaluated at element centroids).
 */
#include <math.h>
#include <mpi.h>
#include <string.h>

#include "sq_expr.h"
#include "sq_sim_setup.h"

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
  for (int i = SQ_PP_S_XX; i <= SQ_PP_S_XZ; ++i) own_stress |= pc->param[i].text[0] != 0;
  for (int i = 0; i < SQ_NPLAST_PARAMS; ++i) snprintf(key[i], sizeof(key[i]), "plasticity.%s", sq_plast_param_names[i]);
  if (!own_stress && s->cfg.fault.enabled) {
    for (int i = 0; i < 6; ++i) {
      expr[SQ_PP_S_XX + i] = s->cfg.fault.param[SQ_FP_S_XX + i];
      fault_stress |= expr[SQ_PP_S_XX + i].text[0] != 0;
      snprintf(key[SQ_PP_S_XX + i], sizeof(key[0]), "fault.initial_stress.%s", sq_fault_param_names[SQ_FP_S_XX + i]);
    }
  }
  SQ_CALL(sq_plastic_state_create(s->disc, &s->plastic));
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
    for (int i = 0; i < SQ_NPLAST_PARAMS && !ierr; ++i) {
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
  SQ_CALL(ierr);
  if (s->nranks > 1) {
    MPI_Allreduce(MPI_IN_PLACE, lo, 3, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, hi, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  if (sq_verbosity >= 1 && s->rank == 0) {
    printf("  plasticity Drucker-Prager, viscoplastic: cohesion %g..%g, bulk friction %g..%g, Tv %g..%g s;\n"
           "             initial stress from %s\n",
           lo[0], hi[0], lo[1], hi[1], lo[2], hi[2],
           own_stress     ? "plasticity.initial_stress"
           : fault_stress ? "fault.initial_stress"
                          : "nowhere (zero)");
  }
  return SQ_SUCCESS;
}
