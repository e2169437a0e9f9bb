/**
 * @file config_tables_postseismic.c  Schema tables of the `postseismic:` section (`starquake postseismic`,
 * sim/postseismic.c): time step and span with units, the slip (a patch file or a rupture's fault output),
 * boundary conditions per boundary kind, the viscosity per layer and mesh group, stations and solver settings.
 * The mesh and the elastic moduli are the configuration's own (mesh:, materials:).
 */
#include "config_impl.h"
#include "sq_expr.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- durations ------------------------------------------------------------------------------- */

/* clang-format off */
static const struct {
  const char *word;
  double seconds;
} sq_ps_units[] = {
    {"s", 1}, {"second", 1}, {"seconds", 1}, {"min", 60}, {"minute", 60}, {"minutes", 60},
    {"h", 3600}, {"hour", 3600}, {"hours", 3600}, {"d", 86400}, {"day", 86400}, {"days", 86400},
    {"week", 604800}, {"weeks", 604800}, {"month", 2629800}, {"months", 2629800},
    {"yr", 31557600}, {"year", 31557600}, {"years", 31557600}, {"a", 31557600},
    {NULL, 0}};
/* clang-format on */

/** A duration: a number and an optional unit ("30 days", "10 years", "3600"); the text is stored, the
 *  seconds computed; >= 0. */
int sq_cfg_ps_duration(sq_cfg_parse *p, const sq_node *node, const char *path, void *field) {
  sq_ps_duration *d = field;
  char *end = NULL;
  const double v = strtod(d->text, &end);
  if (end == d->text || !isfinite(v) || v < 0)
    return SQ_CFG_FAIL(
        p, node->line, path,
        "expected a duration: a number >= 0 and a unit (s, min, h, days, weeks, months, years), e.g. '30 days'; "
        "found '%s'",
        d->text);
  while (isspace((unsigned char)*end)) ++end;
  if (!*end) {
    d->seconds = v;
    return SQ_SUCCESS;
  }
  for (int i = 0; sq_ps_units[i].word; ++i)
    if (!strcmp(end, sq_ps_units[i].word)) {
      d->seconds = v * sq_ps_units[i].seconds;
      return SQ_SUCCESS;
    }
  return SQ_CFG_FAIL(p, node->line, path,
                     "unknown time unit '%s' in '%s'; use s, min, h, days, weeks, months (1/12 year) or years", end,
                     d->text);
}

#define SQ_CFG_PS_DURATION(n, f)                                                                                       \
  {                                                                                                                    \
    .name = n, .type = SQ_KEY_STRING, .size = sizeof(((sq_ps_duration *)0)->text),                                     \
    .offset = offsetof(sq_ps_config, f) + offsetof(sq_ps_duration, text), .validate = sq_cfg_ps_duration               \
  }

/* ---- viscosity ------------------------------------------------------------------------------- */

static const char *const sq_cfg_eta_vars[] = {"group", NULL};

/** 1 when @p s spells an infinite viscosity (an elastic material). */
static int sq_ps_eta_elastic(const char *s) {
  static const char *const words[] = {"elastic",  "inf",  ".inf", "infinity", "INFINITY",
                                      "Infinity", ".Inf", ".INF", NULL};
  for (int i = 0; words[i]; ++i)
    if (!strcmp(s, words[i])) return 1;
  return 0;
}

/** eta: `elastic` (or .inf), a number > 0, or an expression in x, y, z and group. */
int sq_cfg_ps_eta(sq_cfg_parse *p, const sq_node *node, const char *path, void *field) {
  const char *text = field;
  if (sq_ps_eta_elastic(text)) return SQ_SUCCESS;
  sq_expr *e = NULL;
  char err[256];
  const int rc = sq_expr_compile(text, sq_cfg_eta_vars, 1, &e, err, sizeof(err));
  if (rc == SQ_ERR_INPUT)
    return SQ_CFG_FAIL(p, node->line, path,
                       "'%s': %s (a viscosity in Pa s, an expression in x, y, z and group, or "
                       "'elastic')",
                       text, err);
  SQ_CALL(rc);
  int bad = sq_expr_uses(e, SQ_EXPR_T);
  double v = 0;
  if (!bad && sq_expr_is_constant(e)) v = sq_expr_eval(e, NULL);
  const int constant = sq_expr_is_constant(e);
  sq_expr_destroy(e);
  if (bad)
    return SQ_CFG_FAIL(p, node->line, path, "'%s' depends on t; a viscosity may depend on x, y, z and group", text);
  if (constant && !(v > 0))
    return SQ_CFG_FAIL(p, node->line, path, "must be > 0 (Pa s), or 'elastic' (found %s)", text);
  return SQ_SUCCESS;
}

typedef struct sq_cfg_eta_in {
  double z_top, z_bottom;
  int group;
  char eta[400];
} sq_cfg_eta_in;

/* clang-format off */
static const sq_cfg_key sq_cfg_eta_layer_keys[] = {
    {.name = "z_top", .type = SQ_KEY_FLOAT, .required = 1, .offset = offsetof(sq_cfg_eta_in, z_top)},
    {.name = "z_bottom", .type = SQ_KEY_FLOAT, .required = 1, .offset = offsetof(sq_cfg_eta_in, z_bottom)},
    {.name = "eta", .type = SQ_KEY_STRING, .required = 1, .size = 400, .offset = offsetof(sq_cfg_eta_in, eta),
     .validate = sq_cfg_ps_eta},
    {.name = NULL}};
static const sq_cfg_key sq_cfg_eta_group_keys[] = {
    {.name = "group", .type = SQ_KEY_INT, .required = 1, .offset = offsetof(sq_cfg_eta_in, group)},
    {.name = "eta", .type = SQ_KEY_STRING, .required = 1, .size = 400, .offset = offsetof(sq_cfg_eta_in, eta),
     .validate = sq_cfg_ps_eta},
    {.name = NULL}};
/* clang-format on */
const sq_cfg_schema sq_cfg_eta_layer_schema = {sq_cfg_eta_layer_keys, NULL};
const sq_cfg_schema sq_cfg_eta_group_schema = {sq_cfg_eta_group_keys, NULL};

static int sq_cfg_eta_rule(sq_cfg_parse *p, const sq_node *node, int line, const char *path, sq_ps_config *ps, int kind,
                           const sq_cfg_schema *schema) {
  sq_cfg_eta_in in = {0};
  SQ_CALL(sq_cfg_map(p, node, line, path, schema, &in));
  const sq_node *map = node->kind == SQ_NODE_MAP ? node : NULL;
  if (kind == SQ_PS_ETA_LAYER && !(in.z_top > in.z_bottom)) {
    char keypath[SQ_CFG_PATH];
    sq_cfg_join(keypath, sizeof(keypath), path, "z_top", 5);
    return SQ_CFG_FAIL(p, sq_node_key_line(map, "z_top", line), keypath,
                       "must be greater than z_bottom (found z_top = %g, z_bottom = %g)", in.z_top, in.z_bottom);
  }
  if (ps->neta >= SQ_PS_MAX_ETA_RULES)
    return SQ_CFG_FAIL(p, line, path, "too many viscosity entries: at most %d layers and groups in total",
                       SQ_PS_MAX_ETA_RULES);
  sq_ps_eta_rule *r = &ps->eta[ps->neta++];
  memset(r, 0, sizeof(*r));
  r->kind = kind;
  r->z_top = in.z_top;
  r->z_bottom = in.z_bottom;
  r->group = in.group;
  memcpy(r->eta, in.eta, sizeof(r->eta));
  r->line = sq_node_key_line(map, "eta", line);
  snprintf(r->key, sizeof(r->key), "%s.eta", path);
  return SQ_SUCCESS;
}

int sq_cfg_eta_layer_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base) {
  (void)index;
  return sq_cfg_eta_rule(p, node, line, path, base, SQ_PS_ETA_LAYER, &sq_cfg_eta_layer_schema);
}
int sq_cfg_eta_group_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base) {
  (void)index;
  return sq_cfg_eta_rule(p, node, line, path, base, SQ_PS_ETA_GROUP, &sq_cfg_eta_group_schema);
}

static int sq_cfg_check_viscosity(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  sq_ps_config *ps = base;
  (void)p;
  sq_ps_eta_rule *r = &ps->eta_default;
  r->kind = SQ_PS_ETA_DEFAULT;
  r->line = sq_node_key_line(map, "default", line);
  snprintf(r->key, sizeof(r->key), "%s.default", path);
  return SQ_SUCCESS;
}

/* clang-format off */
static const sq_cfg_key sq_cfg_viscosity_keys[] = {
    {.name = "default", .type = SQ_KEY_STRING, .size = 400,
     .offset = offsetof(sq_ps_config, eta_default) + offsetof(sq_ps_eta_rule, eta), .validate = sq_cfg_ps_eta},
    {.name = "layers", .type = SQ_KEY_SEQ, .item = sq_cfg_eta_layer_item, .max_items = SQ_PS_MAX_ETA_RULES},
    {.name = "groups", .type = SQ_KEY_SEQ, .item = sq_cfg_eta_group_item, .max_items = SQ_PS_MAX_ETA_RULES},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_viscosity_schema = {sq_cfg_viscosity_keys, sq_cfg_check_viscosity};

int sq_ps_config_eta(const sq_config *cfg, int64_t n, const double *xyz, const int32_t *group, double *eta) {
  const sq_ps_config *ps = &cfg->postseismic;
  const int nrule = ps->neta + 1;
  sq_expr *ex[SQ_PS_MAX_ETA_RULES + 1] = {0};
  int ierr = SQ_SUCCESS;
  for (int i = 0; i < nrule && !ierr; ++i) {
    const sq_ps_eta_rule *r = i ? &ps->eta[i - 1] : &ps->eta_default;
    if (!r->eta[0] || sq_ps_eta_elastic(r->eta)) continue;
    char err[256];
    ierr = sq_expr_compile(r->eta, sq_cfg_eta_vars, 1, &ex[i], err, sizeof(err));
    if (ierr)
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: key '%s': '%s': %s", cfg->path, r->line, r->key, r->eta,
                      err);
  }
  for (int64_t c = 0; c < n && !ierr; ++c) {
    const double *x = xyz + 3 * c;
    const int g = group ? group[c] : 0;
    int hit = 0; /* the last entry that applies */
    for (int i = 1; i < nrule; ++i) {
      const sq_ps_eta_rule *r = &ps->eta[i - 1];
      if ((r->kind == SQ_PS_ETA_LAYER && x[2] >= r->z_bottom && x[2] < r->z_top) ||
          (r->kind == SQ_PS_ETA_GROUP && r->group == g))
        hit = i;
    }
    if (!ex[hit]) {
      eta[c] = INFINITY;
      continue;
    }
    const double vars[SQ_EXPR_NBUILTIN + 1] = {x[0], x[1], x[2], 0, g};
    eta[c] = sq_expr_eval(ex[hit], vars);
    if (!(eta[c] > 0)) {
      const sq_ps_eta_rule *r = hit ? &ps->eta[hit - 1] : &ps->eta_default;
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "%s:%d: key '%s': '%s' gives %g at cell %lld (centroid %g, %g, %g; group %d); a viscosity "
                      "must be > 0 Pa s",
                      cfg->path, r->line, r->key, r->eta, eta[c], (long long)c, x[0], x[1], x[2], g);
    }
  }
  for (int i = 0; i < nrule; ++i) sq_expr_destroy(ex[i]);
  return ierr;
}

/* ---- rupture, boundary ----------------------------------------------------------------------- */

/* clang-format off */
static const sq_cfg_word sq_cfg_ps_convention_words[] = {{"native", 0}, {"seissol", 1}, {NULL, 0}};
static const sq_cfg_word sq_cfg_ps_bc_words[] = {{"free", 0}, {"fixed", 1}, {"roller", 2}, {NULL, 0}};
static const sq_cfg_key sq_cfg_ps_rupture_keys[] = {
    {.name = "fault_output", .type = SQ_KEY_STRING, .required = 1, .size = SQ_PATH_MAX,
     .offset = offsetof(sq_ps_config, fault_output), .validate = sq_cfg_nonempty},
    {.name = "convention", .type = SQ_KEY_ENUM, .words = sq_cfg_ps_convention_words,
     .offset = offsetof(sq_ps_config, seissol_convention)},
    {.name = NULL}};
static const sq_cfg_key sq_cfg_ps_boundary_keys[] = {
    {.name = "free_surface", .type = SQ_KEY_ENUM, .words = sq_cfg_ps_bc_words,
     .offset = offsetof(sq_ps_config, bc_free_surface)},
    {.name = "absorbing", .type = SQ_KEY_ENUM, .words = sq_cfg_ps_bc_words,
     .offset = offsetof(sq_ps_config, bc_absorbing)},
    {.name = NULL}};
/* clang-format on */

static int sq_cfg_check_ps_rupture(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  sq_ps_config *ps = base;
  return sq_cfg_resolve(p, map, line, path, "fault_output", ps->fault_output);
}
static const sq_cfg_schema sq_cfg_ps_rupture_schema = {sq_cfg_ps_rupture_keys, sq_cfg_check_ps_rupture};
static const sq_cfg_schema sq_cfg_ps_boundary_schema = {sq_cfg_ps_boundary_keys, NULL};

/* ---- postseismic ----------------------------------------------------------------------------- */

static int sq_cfg_check_postseismic(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  sq_ps_config *ps = base;
  ps->enabled = 1;
  ps->line = line;
  const int has_file = sq_node_find(map, "slip_file") >= 0, has_rupture = sq_node_find(map, "rupture") >= 0;
  if (has_file == has_rupture) {
    if (!has_file)
      return SQ_CFG_FAIL(p, line, path,
                         "no slip; give 'slip_file: FILE' (rectangular patches) or 'rupture: {fault_output: "
                         "PREFIX-fault.h5}' (the final slip of a starquake rupture)");
    char keypath[SQ_CFG_PATH];
    sq_cfg_join(keypath, sizeof(keypath), path, "rupture", 7);
    return SQ_CFG_FAIL(p, sq_node_key_line(map, "rupture", line), keypath,
                       "give the slip once: 'slip_file' (line %d) or 'rupture', not both",
                       sq_node_key_line(map, "slip_file", line));
  }
  if (!(ps->dt.seconds > 0)) {
    char keypath[SQ_CFG_PATH];
    sq_cfg_join(keypath, sizeof(keypath), path, "dt", 2);
    return SQ_CFG_FAIL(p, sq_node_key_line(map, "dt", line), keypath, "must be > 0 (found '%s')", ps->dt.text);
  }
  if (ps->dt.seconds > ps->end_time.seconds) {
    char keypath[SQ_CFG_PATH];
    sq_cfg_join(keypath, sizeof(keypath), path, "dt", 2);
    return SQ_CFG_FAIL(p, sq_node_key_line(map, "dt", line), keypath,
                       "the step '%s' is longer than end_time '%s' (line %d)", ps->dt.text, ps->end_time.text,
                       sq_node_key_line(map, "end_time", line));
  }
  ps->slip_line = sq_node_key_line(map, has_file ? "slip_file" : "rupture", line);
  SQ_CALL(sq_cfg_resolve(p, map, line, path, "slip_file", ps->slip_file));
  return sq_cfg_resolve(p, map, line, path, "stations", ps->stations);
}

/* Steps solved together: one at a time, or the papers' four (the GPU kernels take 1 or 4 vectors). */
int sq_cfg_ps_multistep(sq_cfg_parse *p, const sq_node *node, const char *path, void *field) {
  int w;
  memcpy(&w, field, sizeof(w));
  if (w != 1 && w != 4)
    return SQ_CFG_FAIL(p, node->line, path, "must be 1 (one step at a time) or 4 (four steps together), found %d", w);
  return SQ_SUCCESS;
}

/* clang-format off */
static const sq_cfg_key sq_cfg_postseismic_keys[] = {
    SQ_CFG_PS_DURATION("dt", dt),
    SQ_CFG_PS_DURATION("end_time", end_time),
    SQ_CFG_PS_DURATION("snapshot_interval", snapshot_interval),
    {.name = "slip_file", .type = SQ_KEY_STRING, .size = SQ_PATH_MAX,
     .offset = offsetof(sq_ps_config, slip_file), .validate = sq_cfg_nonempty},
    {.name = "rupture", .type = SQ_KEY_MAP, .optional = 1, .sub = &sq_cfg_ps_rupture_schema},
    {.name = "stations", .type = SQ_KEY_STRING, .size = SQ_PATH_MAX,
     .offset = offsetof(sq_ps_config, stations), .validate = sq_cfg_nonempty},
    {.name = "boundary", .type = SQ_KEY_MAP, .sub = &sq_cfg_ps_boundary_schema},
    {.name = "viscosity", .type = SQ_KEY_MAP, .sub = &sq_cfg_viscosity_schema},
    {.name = "tolerance", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GT | SQ_MAX_LT, .min = 0, .max = 1,
     .offset = offsetof(sq_ps_config, tolerance)},
    {.name = "max_iterations", .type = SQ_KEY_INT, .range = SQ_MIN_GE, .min = 1,
     .offset = offsetof(sq_ps_config, max_iterations)},
    {.name = "alpha", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GE | SQ_MAX_LE, .min = 0.5, .max = 1,
     .offset = offsetof(sq_ps_config, alpha)},
    {.name = "predictor", .type = SQ_KEY_BOOL, .offset = offsetof(sq_ps_config, predictor)},
    {.name = "serial", .type = SQ_KEY_BOOL, .offset = offsetof(sq_ps_config, serial)},
    {.name = "tile_size", .type = SQ_KEY_INT, .range = SQ_MIN_GE | SQ_MAX_LE, .min = 1, .max = 1 << 24,
     .offset = offsetof(sq_ps_config, tile_size)},
    {.name = "multistep", .type = SQ_KEY_INT, .offset = offsetof(sq_ps_config, multistep),
     .validate = sq_cfg_ps_multistep},
    {.name = NULL}};
/* clang-format on */
const sq_cfg_schema sq_cfg_postseismic_schema = {sq_cfg_postseismic_keys, sq_cfg_check_postseismic};

void sq_ps_config_default(sq_ps_config *ps) {
  memset(ps, 0, sizeof(*ps));
  snprintf(ps->dt.text, sizeof(ps->dt.text), "30 days");
  ps->dt.seconds = 30 * 86400.0;
  snprintf(ps->end_time.text, sizeof(ps->end_time.text), "10 years");
  ps->end_time.seconds = 10 * 31557600.0;
  snprintf(ps->snapshot_interval.text, sizeof(ps->snapshot_interval.text), "1 year");
  ps->snapshot_interval.seconds = 31557600.0;
  ps->bc_free_surface = 0;
  ps->bc_absorbing = 1;
  ps->tolerance = 1e-10;
  ps->max_iterations = 1000;
  ps->alpha = 0.5;
  ps->predictor = 1;
  ps->tile_size = 1024;
  ps->multistep = 4;
  ps->eta_default.kind = SQ_PS_ETA_DEFAULT;
  snprintf(ps->eta_default.key, sizeof(ps->eta_default.key), "postseismic.viscosity.default");
}
