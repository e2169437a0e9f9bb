/**
 * @file materials.c  The materials of a configuration at the cells: the rules (layers, regions, groups)
 * over the default, values that are expressions of the position evaluated per cell, and what each
 * entry matched (the run header's table, the warnings about rules that match nothing and implausible
 * values).
 */
#include "config_impl.h"
#include "sq_easi.h"
#include "sq_expr.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *const sq_mat_value_names[SQ_NMAT_VALUES] = {"rho", "lambda", "mu", "vp", "vs", "qp", "qs"};

/* variables of the material expressions: x, y, z, t (always 0), then group */
static const char *const sq_mat_vars[] = {"group"};

struct sq_material_eval {
  const sq_config *cfg;
  sq_expr *expr[SQ_MAX_MATERIALS + 1][SQ_NMAT_VALUES]; /* entry 0: the default; NULL: constant or not given */
  sq_easi *easi;                                       /* materials.easi: the model, instead of the entries */
  const char *names[5]; /* the values asked of the model: rho, mu, lambda, then Qp, Qs where it gives them */
  int nnames;           /* and the run attenuates */
};

/* Entry @p i: 0 the default, i + 1 rule i. */
static const sq_material_rule *entry(const sq_config *cfg, int i) {
  return i ? &cfg->rules[i - 1] : &cfg->rule_default;
}

static int rule_hits(const sq_material_rule *rule, const double x[3], int group) {
  if (rule->kind == SQ_MAT_LAYER) return x[2] >= rule->z_bottom && x[2] < rule->z_top;
  if (rule->kind == SQ_MAT_REGION)
    return x[0] >= rule->lo[0] && x[0] <= rule->hi[0] && x[1] >= rule->lo[1] && x[1] <= rule->hi[1] &&
           x[2] >= rule->lo[2] && x[2] <= rule->hi[2];
  return group == rule->group;
}

void sq_material_eval_destroy(sq_material_eval *ev) {
  if (!ev) return;
  for (int i = 0; i <= SQ_MAX_MATERIALS; ++i)
    for (int k = 0; k < SQ_NMAT_VALUES; ++k) sq_expr_destroy(ev->expr[i][k]);
  sq_easi_free(ev->easi);
  free(ev);
}

/* materials.easi: the model must give rho, mu and lambda */
static int easi_create(const sq_config *cfg, sq_material_eval *ev) {
  const int rc = sq_easi_load(cfg->material_easi, &ev->easi);
  if (rc) {
    sq_error_more("  (the model of materials.easi, %s line %d)", cfg->path, cfg->material_easi_line);
    return rc;
  }
  static const char *const need[3] = {"rho", "mu", "lambda"};
  for (int k = 0; k < 3; ++k)
    SQ_CHECK(sq_easi_provides(ev->easi, need[k]), SQ_ERR_INPUT,
             "%s:%d: key 'materials.easi': the easi model %s does not give '%s' (a material needs rho, mu, lambda)",
             cfg->path, cfg->material_easi_line, cfg->material_easi, need[k]);
  for (int k = 0; k < 3; ++k) ev->names[k] = need[k];
  ev->nnames = 3;
  static const char *const qnames[2] = {"Qp", "Qs"}; /* SeisSol's names of the quality factors */
  for (int k = 0; k < 2 && cfg->attenuation.enabled; ++k)
    if (sq_easi_provides(ev->easi, qnames[k])) ev->names[ev->nnames++] = qnames[k];
  return SQ_SUCCESS;
}

/* The material of a cell from the easi model's rho, mu, lambda @p v at its centroid @p x (the element's
 * barycentre, where SeisSol evaluates it) and its mesh group: checked. */
static int easi_check(const sq_material_eval *ev, const double *v, const double x[3], int group, int64_t cell,
                      sq_material *mat) {
  const sq_config *cfg = ev->cfg;
  const char *bad = !(v[0] > 0)                    ? "rho must be > 0"
                    : !(v[1] >= 0)                 ? "mu must be >= 0"
                    : !(v[2] + 2.0 * v[1] / 3 > 0) ? "the bulk modulus lambda + 2 mu / 3 must be > 0"
                                                   : NULL;
  if (bad)
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "%s:%d: key 'materials.easi': the model %s gives rho %g, mu %g, lambda %g at (%g, %g, %g) (mesh "
                    "cell %lld, group %d): %s",
                    cfg->path, cfg->material_easi_line, cfg->material_easi, v[0], v[1], v[2], x[0], x[1], x[2],
                    (long long)cell, group, bad);
  *mat = (sq_material){.rho = v[0], .lambda = v[2], .mu = v[1]};
  /* quality factors, where the model gives them (names[3..]) */
  for (int k = 3; k < ev->nnames; ++k) {
    if (!(v[k] > 0))
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "%s:%d: key 'materials.easi': the model %s gives %s %g at (%g, %g, %g) (mesh cell %lld, group "
                      "%d): must be > 0",
                      cfg->path, cfg->material_easi_line, cfg->material_easi, ev->names[k], v[k], x[0], x[1], x[2],
                      (long long)cell, group);
    if (ev->names[k][1] == 'p') mat->qp = v[k];
    else mat->qs = v[k];
  }
  return SQ_SUCCESS;
}

static int easi_material(const sq_material_eval *ev, const double x[3], int group, int64_t cell, sq_material *mat) {
  const sq_config *cfg = ev->cfg;
  double v[5];
  int rc = sq_easi_eval(ev->easi, 1, x, &group, ev->nnames, ev->names, v);
  if (rc) {
    sq_error_more("  (materials.easi, %s line %d, at mesh cell %lld)", cfg->path, cfg->material_easi_line,
                  (long long)cell);
    return rc;
  }
  return easi_check(ev, v, x, group, cell, mat);
}

int sq_material_eval_create(const sq_config *cfg, sq_material_eval **out) {
  sq_material_eval *ev = calloc(1, sizeof(*ev));
  *out = NULL;
  SQ_CHECK(ev, SQ_ERR_MEMORY, "out of memory for the material expressions");
  ev->cfg = cfg;
  if (cfg->material_easi[0]) {
    const int rc = easi_create(cfg, ev);
    if (rc) {
      sq_material_eval_destroy(ev);
      return rc;
    }
    *out = ev;
    return SQ_SUCCESS;
  }
  for (int i = 0; i <= cfg->nrules; ++i) {
    const sq_material_rule *rule = entry(cfg, i);
    if (!rule->varying) continue;
    for (int k = 0; k < SQ_NMAT_VALUES; ++k) {
      const sq_cfg_expr *e = &rule->value[k];
      if (!e->text[0]) continue;
      char err[256];
      const int rc = sq_expr_compile(e->text, sq_mat_vars, 1, &ev->expr[i][k], err, sizeof(err));
      if (rc) {
        sq_material_eval_destroy(ev);
        if (rc != SQ_ERR_INPUT) return rc;
        return sq_error(rc, __FILE__, __LINE__, "%s:%d: key '%s.%s': '%s': %s", cfg->path, e->line, rule->key,
                        sq_mat_value_names[k], e->text, err);
      }
    }
  }
  *out = ev;
  return SQ_SUCCESS;
}

void sq_material_stats_init(sq_material_stats *stats) {
  memset(stats, 0, sizeof(*stats));
  for (int i = 0; i <= SQ_MAX_MATERIALS; ++i)
    for (int k = 0; k < 3; ++k) stats->lo[i][k] = INFINITY, stats->hi[i][k] = -INFINITY;
  for (int i = 0; i <= SQ_MAX_MATERIALS; ++i) stats->vpvs_lo[i] = INFINITY;
}

/* A bad value of entry @p rule at a cell: the file, line and key, the value and where (@p cfg NULL: silent). */
static int bad_value(const sq_config *cfg, const sq_material_rule *rule, int k, double v, const double x[3],
                     int64_t cell, const char *what) {
  if (!cfg) return SQ_ERR_INPUT;
  const int line = rule->value[k].line ? rule->value[k].line : rule->line;
  return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                  "%s:%d: key '%s.%s': '%s' is %g at (%g, %g, %g) (mesh cell %lld): %s", cfg->path, line, rule->key,
                  sq_mat_value_names[k], rule->value[k].text, v, x[0], x[1], x[2], (long long)cell, what);
}

/* The quality factors qp, qs of an entry at a cell (0: not given), which must be positive. */
static int rule_quality(const sq_config *cfg, const sq_material_rule *rule, const double *v, const double x[3],
                        int64_t cell, sq_material *mat) {
  for (int k = SQ_MV_QP; k <= SQ_MV_QS; ++k)
    if (rule->value[k].text[0] && !(v[k] > 0)) return bad_value(cfg, rule, k, v[k], x, cell, "must be > 0");
  mat->qp = rule->value[SQ_MV_QP].text[0] ? v[SQ_MV_QP] : 0;
  mat->qs = rule->value[SQ_MV_QS].text[0] ? v[SQ_MV_QS] : 0;
  return SQ_SUCCESS;
}

/* Material of a varying entry at a cell: its expressions @p expr evaluated and checked there (the same
 * conversion of vp, vs as for numbers: mu = rho vs^2, lambda = rho vp^2 - 2 mu).  @p cfg NULL: no message. */
static int rule_material(const sq_config *cfg, const sq_material_rule *rule, sq_expr *const *expr, const double x[3],
                         int group, int64_t cell, sq_material *mat) {
  const double vars[SQ_EXPR_NBUILTIN + 1] = {x[0], x[1], x[2], 0.0, (double)group};
  double v[SQ_NMAT_VALUES] = {0};
  for (int k = 0; k < SQ_NMAT_VALUES; ++k) {
    if (!rule->value[k].text[0]) continue;
    v[k] = expr[k] ? sq_expr_eval(expr[k], vars) : strtod(rule->value[k].text, NULL);
    if (!isfinite(v[k])) return bad_value(cfg, rule, k, v[k], x, cell, "not a finite number");
  }
  if (!(v[SQ_MV_RHO] > 0)) return bad_value(cfg, rule, SQ_MV_RHO, v[SQ_MV_RHO], x, cell, "must be > 0");
  if (rule->velocity) {
    if (!(v[SQ_MV_VS] >= 0)) return bad_value(cfg, rule, SQ_MV_VS, v[SQ_MV_VS], x, cell, "must be >= 0");
    if (!(v[SQ_MV_VP] > v[SQ_MV_VS])) {
      char what[64];
      snprintf(what, sizeof(what), "must be greater than vs, which is %g there", v[SQ_MV_VS]);
      return bad_value(cfg, rule, SQ_MV_VP, v[SQ_MV_VP], x, cell, what);
    }
    mat->rho = v[SQ_MV_RHO];
    mat->mu = v[SQ_MV_RHO] * v[SQ_MV_VS] * v[SQ_MV_VS];
    mat->lambda = v[SQ_MV_RHO] * v[SQ_MV_VP] * v[SQ_MV_VP] - 2.0 * mat->mu;
    return rule_quality(cfg, rule, v, x, cell, mat);
  }
  if (!(v[SQ_MV_MU] >= 0)) return bad_value(cfg, rule, SQ_MV_MU, v[SQ_MV_MU], x, cell, "must be >= 0");
  if (!(v[SQ_MV_LAMBDA] + 2.0 * v[SQ_MV_MU] / 3.0 > 0))
    return bad_value(cfg, rule, SQ_MV_LAMBDA, v[SQ_MV_LAMBDA], x, cell,
                     "the bulk modulus lambda + 2 mu / 3 must be > 0");
  *mat = (sq_material){.rho = v[SQ_MV_RHO], .lambda = v[SQ_MV_LAMBDA], .mu = v[SQ_MV_MU]};
  return rule_quality(cfg, rule, v, x, cell, mat);
}

/* Material of entry @p i at a cell: its constant material, or its expressions there. */
static int entry_material(const sq_material_eval *ev, int i, const double x[3], int group, int64_t cell,
                          sq_material *mat, int report) {
  const sq_material_rule *rule = entry(ev->cfg, i);
  if (!rule->varying) { /* the default: cfg->material_default, which a caller may set directly */
    *mat = i ? rule->mat : ev->cfg->material_default;
    return SQ_SUCCESS;
  }
  return rule_material(report ? ev->cfg : NULL, rule, ev->expr[i], x, group, cell, mat);
}

sq_material sq_material_rule_at(const sq_material_rule *rule, const double x[3], int group) {
  sq_material mat = rule->mat;
  if (!rule->varying) return mat;
  sq_expr *expr[SQ_NMAT_VALUES] = {NULL};
  int ierr = SQ_SUCCESS;
  for (int k = 0; k < SQ_NMAT_VALUES && !ierr; ++k)
    if (rule->value[k].text[0]) ierr = sq_expr_compile(rule->value[k].text, sq_mat_vars, 1, &expr[k], NULL, 0);
  if (ierr || rule_material(NULL, rule, expr, x, group, -1, &mat))
    mat = (sq_material){.rho = NAN, .lambda = NAN, .mu = NAN};
  for (int k = 0; k < SQ_NMAT_VALUES; ++k) sq_expr_destroy(expr[k]);
  return mat;
}

static void stats_add(sq_material_stats *stats, int i, const sq_material *m) {
  const double val[3] = {sqrt((m->lambda + 2.0 * m->mu) / m->rho), sqrt(m->mu / m->rho), m->rho};
  stats->ncell[i] += 1;
  for (int k = 0; k < 3; ++k)
    stats->lo[i][k] = fmin(stats->lo[i][k], val[k]), stats->hi[i][k] = fmax(stats->hi[i][k], val[k]);
  if (val[1] > 0) stats->vpvs_lo[i] = fmin(stats->vpvs_lo[i], val[0] / val[1]);
}

/* The rules at a cell; @p report 0: a bad value fails quietly (threads: the caller reports the first). */
static int rules_cell(const sq_material_eval *ev, const double x[3], int group, int64_t cell, sq_material *mat,
                      sq_material_stats *stats, int report) {
  const sq_config *cfg = ev->cfg;
  int last = 0; /* the entry that decides: the last rule that matches, else the default */
  for (int i = 1; i <= cfg->nrules; ++i)
    if (rule_hits(&cfg->rules[i - 1], x, group)) {
      last = i;
      if (stats) { /* every matching rule counts, also one that a later rule overrides */
        sq_material m;
        SQ_CALL(entry_material(ev, i, x, group, cell, &m, report));
        stats_add(stats, i, &m);
      }
    }
  SQ_CALL(entry_material(ev, last, x, group, cell, mat, report));
  if (stats && !last) stats_add(stats, 0, mat);
  return SQ_SUCCESS;
}

int sq_material_eval_cell(const sq_material_eval *ev, const double x[3], int group, int64_t cell, sq_material *mat,
                          sq_material_stats *stats) {
  if (ev->easi) {
    SQ_CALL(easi_material(ev, x, group, cell, mat));
    if (stats) stats_add(stats, 0, mat);
    return SQ_SUCCESS;
  }
  return rules_cell(ev, x, group, cell, mat, stats, 1);
}

/* @p from added into @p to: sums and extremes, the same whatever the order */
static void stats_merge(sq_material_stats *to, const sq_material_stats *from) {
  for (int i = 0; i <= SQ_MAX_MATERIALS; ++i) {
    to->ncell[i] += from->ncell[i];
    for (int k = 0; k < 3; ++k)
      to->lo[i][k] = fmin(to->lo[i][k], from->lo[i][k]), to->hi[i][k] = fmax(to->hi[i][k], from->hi[i][k]);
    to->vpvs_lo[i] = fmin(to->vpvs_lo[i], from->vpvs_lo[i]);
  }
}

/* the easi model at the chosen cells sel[0..nsel-1]: one threaded evaluation, then the checks in cell order */
static int easi_cells(const sq_material_eval *ev, int64_t nsel, const int64_t *sel, const double *xyz,
                      const int32_t *group, const int64_t *id, sq_material *mat, sq_material_stats *stats) {
  double *x = NULL, *v = NULL;
  int *g = NULL;
  int ierr = SQ_CALLOC(x, 3 * nsel + 3);
  const int nv = ev->nnames;
  if (!ierr) ierr = SQ_CALLOC(v, nv * nsel + nv);
  if (!ierr) ierr = SQ_CALLOC(g, nsel + 1);
  if (!ierr) {
    SQ_PARALLEL_FOR
    for (int64_t j = 0; j < nsel; ++j) {
      for (int k = 0; k < 3; ++k) x[3 * j + k] = xyz[3 * sel[j] + k];
      g[j] = group[sel[j]];
    }
    int64_t bad = nsel;
    ierr = sq_easi_eval_first_bad(ev->easi, nsel, x, g, nv, ev->names, v, &bad);
    if (ierr && bad < nsel)
      sq_error_more("  (materials.easi, %s line %d, at mesh cell %lld)", ev->cfg->path, ev->cfg->material_easi_line,
                    (long long)(id ? id[sel[bad]] : sel[bad]));
  }
  for (int64_t j = 0; j < nsel && !ierr; ++j) {
    sq_material m;
    ierr = easi_check(ev, &v[nv * j], &x[3 * j], g[j], id ? id[sel[j]] : sel[j], &m);
    if (ierr) break;
    if (stats) stats_add(stats, 0, &m);
    if (mat) mat[sel[j]] = m;
  }
  SQ_FREE(x);
  SQ_FREE(v);
  SQ_FREE(g);
  return ierr;
}

int sq_material_eval_cells(const sq_material_eval *ev, int64_t n, const double *xyz, const int32_t *group,
                           const int64_t *id, const int *cell_rank, int rank, sq_material *mat,
                           sq_material_stats *stats) {
  int64_t *sel, nsel = 0;
  SQ_CALL(SQ_CALLOC(sel, n + 1));
  for (int64_t c = 0; c < n; ++c)
    if (!cell_rank || cell_rank[c] == rank) sel[nsel++] = c;
  if (ev->easi) {
    const int ierr = easi_cells(ev, nsel, sel, xyz, group, id, mat, stats);
    SQ_FREE(sel);
    return ierr;
  }
  /* rules: each thread its own statistics, merged (sums and extremes: the same bits in any order); a
   * failure is found quietly, then the lowest failing cell evaluated again to report it */
  int64_t bad = nsel;
#ifdef _OPENMP
#pragma omp parallel
#endif
  {
    sq_material_stats mine;
    sq_material_stats_init(&mine);
#ifdef _OPENMP
#pragma omp for schedule(static) reduction(min : bad)
#endif
    for (int64_t j = 0; j < nsel; ++j) {
      const int64_t c = sel[j];
      sq_material m;
      if (rules_cell(ev, &xyz[3 * c], group[c], id ? id[c] : c, &m, stats ? &mine : NULL, 0)) {
        if (j < bad) bad = j;
      } else if (mat) mat[c] = m;
    }
#ifdef _OPENMP
#pragma omp critical(sq_material_stats_merge)
#endif
    if (stats) stats_merge(stats, &mine);
  }
  int ierr = SQ_SUCCESS;
  if (bad < nsel) {
    const int64_t c = sel[bad];
    sq_material m;
    sq_material_stats scratch; /* (with statistics the overridden rules are evaluated too) */
    sq_material_stats_init(&scratch);
    ierr = rules_cell(ev, &xyz[3 * c], group[c], id ? id[c] : c, &m, stats ? &scratch : NULL, 1);
    if (!ierr)
      ierr = sq_error(SQ_ERR_INTERNAL, __FILE__, __LINE__, "mesh cell %lld: a material failed once only",
                      (long long)(id ? id[c] : c));
  }
  SQ_FREE(sel);
  return ierr;
}

sq_material sq_config_material_at(const sq_config *cfg, const double x[3], int group) {
  sq_material mat =
      cfg->rule_default.varying ? sq_material_rule_at(&cfg->rule_default, x, group) : cfg->material_default;
  for (int i = 0; i < cfg->nrules; ++i) /* the rules in order, later ones win */
    if (rule_hits(&cfg->rules[i], x, group))
      mat = cfg->rules[i].varying ? sq_material_rule_at(&cfg->rules[i], x, group) : cfg->rules[i].mat;
  return mat;
}

/* ---- the run header's table and the warnings ------------------------------------------------------ */

/* What the rule applies to, for the table and the warnings. */
static void rule_where(const sq_material_rule *rule, char *out, size_t size) {
  if (rule->kind == SQ_MAT_LAYER) snprintf(out, size, "z in [%g, %g)", rule->z_bottom, rule->z_top);
  else if (rule->kind == SQ_MAT_REGION)
    snprintf(out, size, "box [%g, %g] x [%g, %g] x [%g, %g]", rule->lo[0], rule->hi[0], rule->lo[1], rule->hi[1],
             rule->lo[2], rule->hi[2]);
  else if (rule->kind == SQ_MAT_GROUP) snprintf(out, size, "group %d", rule->group);
  else snprintf(out, size, "cells no rule matches");
}

void sq_material_stats_print(const sq_config *cfg, const sq_material_stats *stats, FILE *out) {
  for (int i = 0; i <= cfg->nrules; ++i) {
    const sq_material_rule *rule = entry(cfg, i);
    char where[160];
    rule_where(rule, where, sizeof(where));
    fprintf(out, "  %-10s %s (%s): %lld cells", i ? "" : "materials", rule->key, where, (long long)stats->ncell[i]);
    if (stats->ncell[i] > 0)
      fprintf(out, ", vp %.6g..%.6g, vs %.6g..%.6g, rho %.6g..%.6g", stats->lo[i][0], stats->hi[i][0], stats->lo[i][1],
              stats->hi[i][1], stats->lo[i][2], stats->hi[i][2]);
    fputc('\n', out);
  }
}

/* One finding: a warning on stderr, or under --strict the error (the first finding only). */
typedef struct finding {
  const sq_config *cfg;
  int print, nfound;
} finding;

static int found(finding *f, int line, const char *key, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int found(finding *f, int line, const char *key, const char *fmt, ...) {
  char what[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof(what), fmt, ap);
  va_end(ap);
  f->nfound++;
  if (f->cfg->strict)
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: key '%s': %s (an error with --strict)", f->cfg->path,
                    line, key, what);
  if (f->print) fprintf(stderr, "starquake: warning: %s:%d: key '%s': %s\n", f->cfg->path, line, key, what);
  return SQ_SUCCESS;
}

/* The line of value @p k of @p rule, or of the first value it is derived from. */
static int value_line(const sq_material_rule *rule, int k) {
  if (rule->value[k].line) return rule->value[k].line;
  if (k == SQ_MV_VP && rule->value[SQ_MV_LAMBDA].line) return rule->value[SQ_MV_LAMBDA].line;
  if (k == SQ_MV_VS && rule->value[SQ_MV_MU].line) return rule->value[SQ_MV_MU].line;
  return rule->line;
}

int sq_material_stats_check(const sq_config *cfg, const sq_material_stats *stats, const double mesh_lo[3],
                            const double mesh_hi[3], int print) {
  finding f = {.cfg = cfg, .print = print};
  char key[SQ_CFG_PATH], where[160];
  double extent = 0;
  for (int k = 0; k < 3; ++k) extent = fmax(extent, mesh_hi[k] - mesh_lo[k]);
  for (int i = 0; i <= cfg->nrules; ++i) {
    const sq_material_rule *rule = entry(cfg, i);
    double vp = stats->lo[i][0], rho = stats->lo[i][2], ratio = stats->vpvs_lo[i];
    if (stats->ncell[i] == 0 && !rule->varying) { /* its numbers: implausible ones are mistakes all the same */
      const sq_material m = i ? rule->mat : cfg->material_default;
      vp = sqrt((m.lambda + 2.0 * m.mu) / m.rho), rho = m.rho;
      ratio = m.mu > 0 ? vp / sqrt(m.mu / m.rho) : INFINITY;
    }
    if (stats->ncell[i] == 0 && i) { /* (the default matching nothing: the rules cover every cell) */
      rule_where(rule, where, sizeof(where));
      char hint[256] = "";
      if (rule->kind == SQ_MAT_LAYER && rule->z_bottom >= mesh_hi[2] && mesh_hi[2] <= 0)
        snprintf(hint, sizeof(hint), "; depth is negative z (the mesh spans z in [%g, %g]): z_top: %g, z_bottom: %g?",
                 mesh_lo[2], mesh_hi[2], -rule->z_bottom + 0.0, -rule->z_top + 0.0);
      else if (rule->kind == SQ_MAT_LAYER || rule->kind == SQ_MAT_REGION)
        snprintf(hint, sizeof(hint), " (the mesh spans [%g, %g] x [%g, %g] x [%g, %g])", mesh_lo[0], mesh_hi[0],
                 mesh_lo[1], mesh_hi[1], mesh_lo[2], mesh_hi[2]);
      else snprintf(hint, sizeof(hint), " (no cell of the mesh is in group %d)", rule->group);
      SQ_CALL(found(&f, rule->line, rule->key, "matches no cell: %s%s", where, hint));
    }
    if (stats->ncell[i] == 0 && rule->varying) continue;
    if (extent >= 1000 && vp < 100) {
      snprintf(key, sizeof(key), "%s.%s", rule->key, rule->velocity ? "vp" : "lambda");
      SQ_CALL(found(&f, value_line(rule, SQ_MV_VP), key,
                    "vp: %g looks like km/s; the mesh is in metres (it spans %g m): %g?", vp, extent, vp * 1000));
    }
    if (extent >= 1000 && rho < 500) {
      snprintf(key, sizeof(key), "%s.rho", rule->key);
      SQ_CALL(found(&f, value_line(rule, SQ_MV_RHO), key, "rho: %g looks like g/cm^3; the mesh is in metres: %g?", rho,
                    rho * 1000));
    }
    if (ratio < sqrt(2.0)) { /* cells with vs = 0 (a fluid) have no ratio */
      snprintf(key, sizeof(key), "%s.%s", rule->key, rule->velocity ? "vs" : "mu");
      SQ_CALL(found(&f, value_line(rule, SQ_MV_VS), key,
                    "vp/vs is %.4g, below sqrt(2) (lambda < 0, a negative Poisson's ratio): vs too large, or vp and vs "
                    "swapped?",
                    ratio));
    }
  }
  return SQ_SUCCESS;
}
