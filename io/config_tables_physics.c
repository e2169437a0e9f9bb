/**
 * @file config_tables_physics.c  Schema tables of the sections that describe the physical model:
 * materials, initial_condition, sources, fault and plasticity (the conventions: config_tables.c).
 */
#include "config_impl.h"
#include "sq_expr.h"
#include "sq_fault.h"
#include "sq_friction.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- materials ------------------------------------------------------------------------------- */

/** Everything a material entry may hold; which keys apply depends on the list. */
typedef struct sq_cfg_rule_in {
  double z_top, z_bottom;
  double lo[3], hi[3];
  int group;
  sq_cfg_expr value[SQ_NMAT_VALUES]; /**< rho, lambda, mu, vp, vs, qp, qs as written */
  double num[SQ_NMAT_VALUES];        /**< their values where constant */
  int varying;                       /**< some value depends on the position */
} sq_cfg_rule_in;

/* variables of the material expressions besides x, y, z */
static const char *const sq_cfg_mat_vars[] = {"group", NULL};

/* clang-format off */
#define SQ_CFG_MATERIAL_VALUE(k, ...)                                                               \
  {.name = #k, .type = SQ_KEY_EXPR, .expr_vars = sq_cfg_mat_vars, .expr_numbers = 1,               \
   .offset = offsetof(sq_cfg_rule_in, value) + SQ_MV_##k * sizeof(sq_cfg_expr), __VA_ARGS__}
#define SQ_MV_rho SQ_MV_RHO
#define SQ_MV_lambda SQ_MV_LAMBDA
#define SQ_MV_mu SQ_MV_MU
#define SQ_MV_vp SQ_MV_VP
#define SQ_MV_vs SQ_MV_VS
#define SQ_MV_qp SQ_MV_QP
#define SQ_MV_qs SQ_MV_QS
#define SQ_CFG_MATERIAL_KEYS                                                                       \
  SQ_CFG_MATERIAL_VALUE(rho, .required = 1, .range = SQ_MIN_GT, .min = 0),                         \
  SQ_CFG_MATERIAL_VALUE(lambda, .range = 0),                                                       \
  SQ_CFG_MATERIAL_VALUE(mu, .range = SQ_MIN_GE, .min = 0),                                         \
  SQ_CFG_MATERIAL_VALUE(vp, .range = SQ_MIN_GT, .min = 0),                                         \
  SQ_CFG_MATERIAL_VALUE(vs, .range = SQ_MIN_GE, .min = 0),                                         \
  SQ_CFG_MATERIAL_VALUE(qp, .range = SQ_MIN_GT, .min = 0),                                         \
  SQ_CFG_MATERIAL_VALUE(qs, .range = SQ_MIN_GT, .min = 0)
/* clang-format on */

/* clang-format off */
static const sq_cfg_key sq_cfg_material_keys[] = {SQ_CFG_MATERIAL_KEYS, {.name = NULL}};
/* clang-format on */
/* clang-format off */
static const sq_cfg_key sq_cfg_layer_keys[] = {
    {.name = "z_top", .type = SQ_KEY_FLOAT, .required = 1,
     .offset = offsetof(sq_cfg_rule_in, z_top)},
    {.name = "z_bottom", .type = SQ_KEY_FLOAT, .required = 1,
     .offset = offsetof(sq_cfg_rule_in, z_bottom)},
    SQ_CFG_MATERIAL_KEYS,
    {.name = NULL}};
/* clang-format on */
/* clang-format off */
static const sq_cfg_key sq_cfg_region_keys[] = {
    {.name = "lo", .type = SQ_KEY_FLOAT3, .required = 1, .offset = offsetof(sq_cfg_rule_in, lo)},
    {.name = "hi", .type = SQ_KEY_FLOAT3, .required = 1, .offset = offsetof(sq_cfg_rule_in, hi)},
    SQ_CFG_MATERIAL_KEYS,
    {.name = NULL}};
/* clang-format on */
/* clang-format off */
static const sq_cfg_key sq_cfg_group_keys[] = {
    {.name = "group", .type = SQ_KEY_INT, .required = 1, .range = SQ_MIN_GE, .min = 0,
     .offset = offsetof(sq_cfg_rule_in, group)},
    SQ_CFG_MATERIAL_KEYS,
    {.name = NULL}};
/* clang-format on */

/**
 * The values that do not depend on the position, as numbers: a plain number as strtod reads it (as
 * before expressions were allowed), a constant expression evaluated once, with the key's range checked.
 */
static int sq_cfg_material_numbers(sq_cfg_parse *p, const sq_node *map, int line, const char *path,
                                   sq_cfg_rule_in *in) {
  char keypath[SQ_CFG_PATH], range[128];
  for (int k = 0; k < SQ_NMAT_VALUES; ++k) {
    const sq_cfg_expr *e = &in->value[k];
    if (!e->text[0]) continue;
    if (sq_cfg_float_syntax(e->text)) in->num[k] = strtod(e->text, NULL); /* plain ones: range checked */
    else {
      sq_expr *ex = NULL;
      SQ_CALL(sq_expr_compile(e->text, sq_cfg_mat_vars, 1, &ex, NULL, 0)); /* compiled once already: no error */
      const int constant = sq_expr_is_constant(ex);
      if (constant) in->num[k] = sq_expr_eval(ex, NULL);
      sq_expr_destroy(ex);
      if (!constant) {
        in->varying = 1;
        continue;
      }
    }
    const sq_cfg_key *key = &sq_cfg_material_keys[k];
    const double x = in->num[k];
    const int bad =
        !isfinite(x) || ((key->range & SQ_MIN_GT) && !(x > key->min)) || ((key->range & SQ_MIN_GE) && !(x >= key->min));
    if (bad) {
      sq_cfg_join(keypath, sizeof(keypath), path, sq_mat_value_names[k], strlen(sq_mat_value_names[k]));
      if (!isfinite(x)) return SQ_CFG_FAIL(p, e->line, keypath, "'%s' is %g, not a finite number", e->text, x);
      sq_cfg_range_text(key, 0, range, sizeof(range));
      return SQ_CFG_FAIL(p, e->line, keypath, "out of range: must be %s (found '%s' = %g)", range, e->text, x);
    }
  }
  (void)map, (void)line;
  return SQ_SUCCESS;
}

/**
 * (rho, lambda, mu) or (rho, vp, vs), not a mix; vp/vs become mu = rho vs^2, lambda = rho vp^2 - 2
 * mu. Requires a positive bulk modulus lambda + 2 mu / 3 for the first form and vp > vs >= 0 for
 * the second (checked here for numbers, at every cell for expressions of the position).
 */
static int sq_cfg_material_check(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  sq_cfg_rule_in *in = base;
  char keypath[SQ_CFG_PATH];
  int has_l = sq_node_find(map, "lambda") >= 0, has_m = sq_node_find(map, "mu") >= 0;
  int has_p = sq_node_find(map, "vp") >= 0, has_s = sq_node_find(map, "vs") >= 0;
  if ((has_l || has_m) && (has_p || has_s)) {
    const char *k = has_p ? "vp" : "vs";
    sq_cfg_join(keypath, sizeof(keypath), path, k, 2);
    return SQ_CFG_FAIL(p, sq_node_key_line(map, k, line), keypath,
                       "give either lambda and mu, or vp and vs, not both kinds");
  }
  SQ_CALL(sq_cfg_material_numbers(p, map, line, path, in));
  if (has_l || has_m) {
    if (!has_l) return SQ_CFG_MISSING(p, map != NULL, line, path, "lambda", " ('mu' needs 'lambda' too)");
    if (!has_m) return SQ_CFG_MISSING(p, map != NULL, line, path, "mu", " ('lambda' needs 'mu' too)");
    const double lambda = in->num[SQ_MV_LAMBDA], mu = in->num[SQ_MV_MU];
    if (!in->varying && !(lambda + 2.0 * mu / 3.0 > 0.0)) {
      sq_cfg_join(keypath, sizeof(keypath), path, "lambda", 6);
      return SQ_CFG_FAIL(p, sq_node_key_line(map, "lambda", line), keypath,
                         "the bulk modulus lambda + 2 mu / 3 must be > 0 (found lambda = %g, mu = %g)", lambda, mu);
    }
    return SQ_SUCCESS;
  }
  if (has_p || has_s) {
    if (!has_p) return SQ_CFG_MISSING(p, map != NULL, line, path, "vp", " ('vs' needs 'vp' too)");
    if (!has_s) return SQ_CFG_MISSING(p, map != NULL, line, path, "vs", " ('vp' needs 'vs' too)");
    const double vp = in->num[SQ_MV_VP], vs = in->num[SQ_MV_VS];
    if (!in->varying && !(vp > vs)) {
      sq_cfg_join(keypath, sizeof(keypath), path, "vp", 2);
      return SQ_CFG_FAIL(p, sq_node_key_line(map, "vp", line), keypath,
                         "must be greater than vs (found vp = %g, vs = %g)", vp, vs);
    }
    return SQ_SUCCESS;
  }
  return SQ_CFG_FAIL(p, line, path, "no elastic moduli; give lambda and mu, or vp and vs, next to rho");
}

const sq_cfg_schema sq_cfg_material_schema = {sq_cfg_material_keys, sq_cfg_material_check};
const sq_cfg_schema sq_cfg_layer_schema = {sq_cfg_layer_keys, sq_cfg_material_check};
const sq_cfg_schema sq_cfg_region_schema = {sq_cfg_region_keys, sq_cfg_material_check};
const sq_cfg_schema sq_cfg_group_schema = {sq_cfg_group_keys, sq_cfg_material_check};

/** The entry as parsed: its values as written and, when none varies, its material. */
static void sq_cfg_material_of(const sq_node *map, const sq_cfg_rule_in *in, int line, const char *path,
                               sq_material_rule *rule) {
  const double *v = in->num;
  sq_material m = {
      .rho = v[SQ_MV_RHO], .lambda = v[SQ_MV_LAMBDA], .mu = v[SQ_MV_MU], .qp = v[SQ_MV_QP], .qs = v[SQ_MV_QS]};
  rule->velocity = sq_node_find(map, "vp") >= 0;
  if (rule->velocity) {
    m.mu = v[SQ_MV_RHO] * v[SQ_MV_VS] * v[SQ_MV_VS];
    m.lambda = v[SQ_MV_RHO] * v[SQ_MV_VP] * v[SQ_MV_VP] - 2.0 * m.mu;
  }
  rule->mat = m;
  rule->varying = in->varying;
  rule->line = line;
  snprintf(rule->key, sizeof(rule->key), "%s", path);
  memcpy(rule->value, in->value, sizeof(in->value));
}

int sq_cfg_material_default(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base) {
  sq_config *cfg = base;
  sq_cfg_rule_in in = {0};
  (void)index;
  SQ_CALL(sq_cfg_map(p, node, line, path, &sq_cfg_material_schema, &in));
  sq_material_rule *rule = &cfg->rule_default;
  memset(rule, 0, sizeof(*rule));
  rule->kind = SQ_MAT_DEFAULT;
  sq_cfg_material_of(node->kind == SQ_NODE_MAP ? node : NULL, &in, line, path, rule);
  cfg->material_default = rule->mat;
  if (rule->varying) { /* the material at the origin stands for the default where one material is needed */
    const double origin[3] = {0, 0, 0};
    cfg->material_default = sq_material_rule_at(rule, origin, 0);
  }
  return SQ_SUCCESS;
}

/** Parse one rule of @p kind with @p schema and append it to cfg->rules. */
static int sq_cfg_rule(sq_cfg_parse *p, const sq_node *node, int line, const char *path, sq_config *cfg, int kind,
                       const sq_cfg_schema *schema) {
  sq_cfg_rule_in in = {0};
  SQ_CALL(sq_cfg_map(p, node, line, path, schema, &in));
  const sq_node *map = node->kind == SQ_NODE_MAP ? node : NULL;
  if (kind == SQ_MAT_LAYER && !(in.z_top > in.z_bottom)) {
    char keypath[SQ_CFG_PATH];
    sq_cfg_join(keypath, sizeof(keypath), path, "z_top", 5);
    return SQ_CFG_FAIL(p, sq_node_key_line(map, "z_top", line), keypath,
                       "must be greater than z_bottom (found z_top = %g, z_bottom = %g)", in.z_top, in.z_bottom);
  }
  if (kind == SQ_MAT_REGION) SQ_CALL(sq_cfg_check_box_order(p, map, line, path, in.lo, in.hi));
  if (cfg->nrules >= SQ_MAX_MATERIALS)
    return SQ_CFG_FAIL(p, line, path, "too many material rules: at most %d layers, regions and groups in total",
                       SQ_MAX_MATERIALS);
  sq_material_rule *rule = &cfg->rules[cfg->nrules++];
  memset(rule, 0, sizeof(*rule));
  rule->kind = kind;
  rule->z_top = in.z_top;
  rule->z_bottom = in.z_bottom;
  memcpy(rule->lo, in.lo, sizeof(in.lo));
  memcpy(rule->hi, in.hi, sizeof(in.hi));
  rule->group = in.group;
  sq_cfg_material_of(map, &in, line, path, rule);
  return SQ_SUCCESS;
}

int sq_cfg_layer_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base) {
  (void)index;
  return sq_cfg_rule(p, node, line, path, base, SQ_MAT_LAYER, &sq_cfg_layer_schema);
}
int sq_cfg_region_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base) {
  (void)index;
  return sq_cfg_rule(p, node, line, path, base, SQ_MAT_REGION, &sq_cfg_region_schema);
}
int sq_cfg_group_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base) {
  (void)index;
  return sq_cfg_rule(p, node, line, path, base, SQ_MAT_GROUP, &sq_cfg_group_schema);
}

/* materials.easi: the model file instead of the default and the rules */
static int sq_cfg_check_materials(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  sq_config *cfg = base;
  if (!cfg->material_easi[0]) {
    if (sq_node_find(map, "default") < 0)
      return SQ_CFG_MISSING(p, map != NULL, line, path, "default", " (or 'easi: FILE', an easi model)");
    return SQ_SUCCESS;
  }
  static const char *const rules[] = {"default", "layers", "regions", "groups"};
  for (int i = 0; i < 4; ++i)
    if (sq_node_find(map, rules[i]) >= 0) {
      char keypath[SQ_CFG_PATH];
      sq_cfg_join(keypath, sizeof(keypath), path, rules[i], strlen(rules[i]));
      return SQ_CFG_FAIL(p, sq_node_key_line(map, rules[i], line), keypath,
                         "materials come from the easi model 'easi: %s' (line %d) or from default and rules, not both",
                         cfg->material_easi, sq_node_key_line(map, "easi", line));
    }
  cfg->material_easi_line = sq_node_key_line(map, "easi", line);
  /* the entry that the run header's table and the warnings show */
  memset(&cfg->rule_default, 0, sizeof(cfg->rule_default));
  cfg->rule_default.kind = SQ_MAT_DEFAULT;
  cfg->rule_default.varying = 1;
  cfg->rule_default.line = cfg->material_easi_line;
  snprintf(cfg->rule_default.key, sizeof(cfg->rule_default.key), "%s.easi", path);
  return sq_cfg_resolve(p, map, line, path, "easi", cfg->material_easi);
}

/* Table order is rule order: layers, then regions, then groups. */
/* clang-format off */
static const sq_cfg_key sq_cfg_materials_keys[] = {
    {.name = "default", .type = SQ_KEY_MAP, .item = sq_cfg_material_default},
    {.name = "layers", .type = SQ_KEY_SEQ, .item = sq_cfg_layer_item,
     .max_items = SQ_MAX_MATERIALS},
    {.name = "regions", .type = SQ_KEY_SEQ, .item = sq_cfg_region_item,
     .max_items = SQ_MAX_MATERIALS},
    {.name = "groups", .type = SQ_KEY_SEQ, .item = sq_cfg_group_item,
     .max_items = SQ_MAX_MATERIALS},
    {.name = "easi", .type = SQ_KEY_STRING, .size = SQ_PATH_MAX,
     .offset = offsetof(sq_config, material_easi), .validate = sq_cfg_nonempty},
    {.name = NULL}};
/* clang-format on */
const sq_cfg_schema sq_cfg_materials_schema = {sq_cfg_materials_keys, sq_cfg_check_materials};

/* ---- initial_condition ----------------------------------------------------------------------- */

/* clang-format off */
static const sq_cfg_word sq_cfg_ic_words[] = {
    {"zero", SQ_IC_ZERO}, {"planewave", SQ_IC_PLANEWAVE}, {NULL, 0}};
/* clang-format on */
/* clang-format off */
static const sq_cfg_word sq_cfg_profile_words[] = {
    {"sine", SQ_PROFILE_SINE}, {"gaussian", SQ_PROFILE_GAUSSIAN}, {NULL, 0}};
/* clang-format on */
/* clang-format off */
static const sq_cfg_word sq_cfg_mode_words[] = {
    {"p", SQ_MODE_P}, {"s1", SQ_MODE_S1}, {"s2", SQ_MODE_S2}, {NULL, 0}};
/* clang-format on */

int sq_cfg_direction(sq_cfg_parse *p, const sq_node *node, const char *path, void *field) {
  int d;
  memcpy(&d, field, sizeof(d));
  if (d != 1 && d != -1) return SQ_CFG_FAIL(p, node->line, path, "must be 1 (along +k) or -1 (along -k), found %d", d);
  return SQ_SUCCESS;
}

/* clang-format off */
static const sq_cfg_key sq_cfg_mode_keys[] = {
    {.name = "type", .type = SQ_KEY_ENUM, .required = 1, .words = sq_cfg_mode_words,
     .offset = offsetof(sq_wave_mode, type)},
    {.name = "amplitude", .type = SQ_KEY_FLOAT, .offset = offsetof(sq_wave_mode, amplitude)},
    {.name = "direction", .type = SQ_KEY_INT, .offset = offsetof(sq_wave_mode, direction),
     .validate = sq_cfg_direction},
    {.name = NULL}};
/* clang-format on */
const sq_cfg_schema sq_cfg_mode_schema = {sq_cfg_mode_keys, NULL};

int sq_cfg_mode_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base) {
  sq_config *cfg = base;
  sq_wave_mode mode = {.type = SQ_MODE_P, .amplitude = 1.0, .direction = 1};
  SQ_CALL(sq_cfg_map(p, node, line, path, &sq_cfg_mode_schema, &mode));
  cfg->ic_modes[index] = mode;
  cfg->ic_nmodes = index + 1;
  return SQ_SUCCESS;
}

int sq_cfg_nonzero3(sq_cfg_parse *p, const sq_node *node, const char *path, void *field) {
  double k[3];
  memcpy(k, field, sizeof(k));
  if (k[0] == 0.0 && k[1] == 0.0 && k[2] == 0.0) return SQ_CFG_FAIL(p, node->line, path, "must not be the zero vector");
  return SQ_SUCCESS;
}

/** Keys that the chosen type/profile does not use are errors; planewave needs wave_vector and
 * modes. */
static int sq_cfg_check_ic(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  static const char *const planewave_only[] = {"wave_vector", "profile", "center", "width", "modes"};
  static const char *const gaussian_only[] = {"center", "width"};
  const sq_config *cfg = base;
  char keypath[SQ_CFG_PATH];
  if (cfg->ic_kind == SQ_IC_ZERO) {
    for (int i = 0; i < 5; ++i)
      if (sq_node_find(map, planewave_only[i]) >= 0) {
        sq_cfg_join(keypath, sizeof(keypath), path, planewave_only[i], strlen(planewave_only[i]));
        return SQ_CFG_FAIL(p, sq_node_key_line(map, planewave_only[i], line), keypath,
                           "only used with type: planewave (type is zero); remove it or set type");
      }
    return SQ_SUCCESS;
  }
  if (sq_node_find(map, "wave_vector") < 0)
    return SQ_CFG_MISSING(p, map != NULL, line, path, "wave_vector", " (type planewave needs it)");
  if (sq_node_find(map, "modes") < 0)
    return SQ_CFG_MISSING(p, map != NULL, line, path, "modes", " (type planewave needs it)");
  if (cfg->ic_profile == SQ_PROFILE_SINE)
    for (int i = 0; i < 2; ++i)
      if (sq_node_find(map, gaussian_only[i]) >= 0) {
        sq_cfg_join(keypath, sizeof(keypath), path, gaussian_only[i], strlen(gaussian_only[i]));
        return SQ_CFG_FAIL(p, sq_node_key_line(map, gaussian_only[i], line), keypath,
                           "only used with profile: gaussian (profile is sine); remove it or set "
                           "profile");
      }
  return SQ_SUCCESS;
}

/* clang-format off */
static const sq_cfg_key sq_cfg_ic_keys[] = {
    {.name = "type", .type = SQ_KEY_ENUM, .words = sq_cfg_ic_words,
     .offset = offsetof(sq_config, ic_kind)},
    {.name = "wave_vector", .type = SQ_KEY_FLOAT3, .offset = offsetof(sq_config, ic_wave_vector),
     .validate = sq_cfg_nonzero3},
    {.name = "profile", .type = SQ_KEY_ENUM, .words = sq_cfg_profile_words,
     .offset = offsetof(sq_config, ic_profile)},
    {.name = "center", .type = SQ_KEY_FLOAT, .offset = offsetof(sq_config, ic_center)},
    {.name = "width", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GT, .min = 0,
     .offset = offsetof(sq_config, ic_width)},
    {.name = "modes", .type = SQ_KEY_SEQ, .item = sq_cfg_mode_item, .min_items = 1,
     .max_items = SQ_MAX_MODES},
    {.name = NULL}};
/* clang-format on */
const sq_cfg_schema sq_cfg_ic_schema = {sq_cfg_ic_keys, sq_cfg_check_ic};

/* ---- sources --------------------------------------------------------------------------------- */

/* clang-format off */
static const sq_cfg_word sq_cfg_stf_words[] = {
    {"gaussian", SQ_STFCFG_GAUSSIAN}, {"ricker", SQ_STFCFG_RICKER}, {"brune", SQ_STFCFG_BRUNE},
    {"loh1", SQ_STFCFG_LOH1}, {"table", SQ_STFCFG_TABLE}, {NULL, 0}};
/* clang-format on */

static int sq_cfg_check_stf(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  static const char *const keys[] = {"delay", "width", "frequency", "corner_frequency", "period", "file", NULL};
  static const char *const need[5][2] = {
      {"width", NULL}, {"frequency", NULL}, {"corner_frequency", NULL}, {"period", NULL}, {"file", NULL}};
  static const char *const delay[] = {"delay", NULL}, *const none[] = {NULL};
  sq_stf_config *stf = base;
  if (!map) return SQ_SUCCESS; /* absent: the source's check decides whether it is needed */
  if (sq_node_find(map, "type") < 0)
    return SQ_CFG_MISSING(p, 1, line, path, "type", " (one of gaussian, ricker, brune, loh1, table)");
  const int k = stf->kind;
  SQ_CALL(sq_cfg_keys_for_type(p, map, line, path, keys, need[k], k <= SQ_STFCFG_RICKER ? delay : none,
                               sq_cfg_stf_words[k].word, "time function type"));
  return sq_cfg_resolve(p, map, line, path, "file", stf->file);
}

/* clang-format off */
static const sq_cfg_key sq_cfg_stf_keys[] = {
    {.name = "type", .type = SQ_KEY_ENUM, .words = sq_cfg_stf_words,
     .offset = offsetof(sq_stf_config, kind)},
    {.name = "delay", .type = SQ_KEY_FLOAT, .offset = offsetof(sq_stf_config, delay)},
    {.name = "width", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GT, .min = 0,
     .offset = offsetof(sq_stf_config, width)},
    {.name = "frequency", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GT, .min = 0,
     .offset = offsetof(sq_stf_config, frequency)},
    {.name = "corner_frequency", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GT, .min = 0,
     .offset = offsetof(sq_stf_config, corner_frequency)},
    {.name = "period", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GT, .min = 0,
     .offset = offsetof(sq_stf_config, period)},
    {.name = "file", .type = SQ_KEY_STRING, .size = SQ_PATH_MAX,
     .offset = offsetof(sq_stf_config, file), .validate = sq_cfg_nonempty},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_stf_schema = {sq_cfg_stf_keys, sq_cfg_check_stf};

/* clang-format off */
static const sq_cfg_key sq_cfg_tensor_keys[] = {
    {.name = "xx", .type = SQ_KEY_FLOAT, .offset = 0 * sizeof(double)},
    {.name = "yy", .type = SQ_KEY_FLOAT, .offset = 1 * sizeof(double)},
    {.name = "zz", .type = SQ_KEY_FLOAT, .offset = 2 * sizeof(double)},
    {.name = "xy", .type = SQ_KEY_FLOAT, .offset = 3 * sizeof(double)},
    {.name = "yz", .type = SQ_KEY_FLOAT, .offset = 4 * sizeof(double)},
    {.name = "xz", .type = SQ_KEY_FLOAT, .offset = 5 * sizeof(double)},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_tensor_schema = {sq_cfg_tensor_keys, NULL};

/* clang-format off */
static const sq_cfg_word sq_cfg_source_words[] = {
    {"moment_tensor", SQ_SRCCFG_MOMENT_TENSOR}, {"double_couple", SQ_SRCCFG_DOUBLE_COUPLE},
    {"force", SQ_SRCCFG_FORCE}, {"finite", SQ_SRCCFG_FINITE}, {"cmtsolution", SQ_SRCCFG_CMTSOLUTION},
    {"nrf", SQ_SRCCFG_NRF}, {NULL, 0}};
/* clang-format on */

static int sq_cfg_check_source(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  static const char *const keys[] = {"location", "moment_tensor", "strike",        "dip",  "rake", "m0",
                                     "force",    "onset",         "time_function", "file", NULL};
  static const char *const need[6][7] = {{"location", "moment_tensor", "time_function", NULL},
                                         {"location", "strike", "dip", "rake", "m0", "time_function", NULL},
                                         {"location", "force", "time_function", NULL},
                                         {"file", NULL},
                                         {"file", NULL},
                                         {"file", NULL}};
  static const char *const onset[] = {"onset", NULL}, *const none[] = {NULL};
  sq_source_config *src = base;
  char keypath[SQ_CFG_PATH];
  const int t = src->type;
  SQ_CALL(sq_cfg_keys_for_type(p, map, line, path, keys, need[t],
                               t == SQ_SRCCFG_FINITE || t == SQ_SRCCFG_NRF ? none : onset, sq_cfg_source_words[t].word,
                               "source type"));
  if (t == SQ_SRCCFG_MOMENT_TENSOR) {
    int nonzero = 0;
    for (int k = 0; k < 6; ++k) nonzero |= src->moment_tensor[k] != 0.0;
    if (!nonzero) {
      sq_cfg_join(keypath, sizeof(keypath), path, "moment_tensor", 13);
      return SQ_CFG_FAIL(p, sq_node_key_line(map, "moment_tensor", line), keypath,
                         "all components are zero; give at least one of xx, yy, zz, xy, yz, xz");
    }
  }
  if (t == SQ_SRCCFG_FORCE && src->force[0] == 0.0 && src->force[1] == 0.0 && src->force[2] == 0.0) {
    sq_cfg_join(keypath, sizeof(keypath), path, "force", 5);
    return SQ_CFG_FAIL(p, sq_node_key_line(map, "force", line), keypath, "must not be the zero vector");
  }
  return sq_cfg_resolve(p, map, line, path, "file", src->file);
}

/* clang-format off */
static const sq_cfg_key sq_cfg_source_keys[] = {
    {.name = "type", .type = SQ_KEY_ENUM, .required = 1, .words = sq_cfg_source_words,
     .offset = offsetof(sq_source_config, type)},
    {.name = "location", .type = SQ_KEY_FLOAT3, .offset = offsetof(sq_source_config, location)},
    {.name = "moment_tensor", .type = SQ_KEY_MAP, .sub = &sq_cfg_tensor_schema,
     .offset = offsetof(sq_source_config, moment_tensor)},
    {.name = "strike", .type = SQ_KEY_FLOAT, .offset = offsetof(sq_source_config, strike)},
    {.name = "dip", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GE | SQ_MAX_LE, .min = 0, .max = 90,
     .offset = offsetof(sq_source_config, dip)},
    {.name = "rake", .type = SQ_KEY_FLOAT, .offset = offsetof(sq_source_config, rake)},
    {.name = "m0", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GT, .min = 0,
     .offset = offsetof(sq_source_config, m0)},
    {.name = "force", .type = SQ_KEY_FLOAT3, .offset = offsetof(sq_source_config, force)},
    {.name = "onset", .type = SQ_KEY_FLOAT, .offset = offsetof(sq_source_config, onset)},
    {.name = "time_function", .type = SQ_KEY_MAP, .sub = &sq_cfg_stf_schema,
     .offset = offsetof(sq_source_config, stf)},
    {.name = "file", .type = SQ_KEY_STRING, .size = SQ_PATH_MAX,
     .offset = offsetof(sq_source_config, file), .validate = sq_cfg_nonempty},
    {.name = NULL}};
/* clang-format on */
const sq_cfg_schema sq_cfg_source_schema = {sq_cfg_source_keys, sq_cfg_check_source};

int sq_cfg_source_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base) {
  sq_config *cfg = base;
  sq_source_config *src = &cfg->sources[index];
  memset(src, 0, sizeof(*src));
  src->line = line;
  SQ_CALL(sq_cfg_map(p, node, line, path, &sq_cfg_source_schema, src));
  cfg->nsources = index + 1;
  return SQ_SUCCESS;
}

/* ---- fault ----------------------------------------------------------------------------------- */

const char *const sq_fault_param_names[SQ_NFAULT_PARAMS] = {"mu_s",
                                                            "mu_d",
                                                            "d_c",
                                                            "cohesion",
                                                            "forced_rupture_time",
                                                            "forced_rupture_duration",
                                                            "a",
                                                            "b",
                                                            "L",
                                                            "f0",
                                                            "V0",
                                                            "f_w",
                                                            "V_w",
                                                            "initial_slip_rate",
                                                            "traction_normal",
                                                            "traction_strike",
                                                            "traction_dip",
                                                            "nucleation_normal",
                                                            "nucleation_strike",
                                                            "nucleation_dip",
                                                            "xx",
                                                            "yy",
                                                            "zz",
                                                            "xy",
                                                            "yz",
                                                            "xz",
                                                            "tp_thermal_diffusivity",
                                                            "tp_hydraulic_diffusivity",
                                                            "tp_heat_capacity",
                                                            "tp_lambda",
                                                            "tp_half_width",
                                                            "tp_initial_temperature",
                                                            "tp_initial_pressure",
                                                            "strike_slip",
                                                            "dip_slip",
                                                            "rupture_onset",
                                                            "tau_S",
                                                            "rise_time"};

#define SQ_FP_KEY(s, i)                                                                                                \
  { .name = #s, .type = SQ_KEY_EXPR, .offset = offsetof(TYPE, param) + (i) * sizeof(sq_cfg_expr) }
#define SQ_FP_KEYS                                                                                                     \
  SQ_FP_KEY(mu_s, SQ_FP_MU_S), SQ_FP_KEY(mu_d, SQ_FP_MU_D), SQ_FP_KEY(d_c, SQ_FP_D_C),                                 \
      SQ_FP_KEY(cohesion, SQ_FP_COHESION), SQ_FP_KEY(forced_rupture_time, SQ_FP_FORCED_TIME),                          \
      SQ_FP_KEY(forced_rupture_duration, SQ_FP_FORCED_DURATION), SQ_FP_KEY(a, SQ_FP_A), SQ_FP_KEY(b, SQ_FP_B),         \
      SQ_FP_KEY(L, SQ_FP_L), SQ_FP_KEY(f0, SQ_FP_F0), SQ_FP_KEY(V0, SQ_FP_V0), SQ_FP_KEY(f_w, SQ_FP_F_W),              \
      SQ_FP_KEY(V_w, SQ_FP_V_W), SQ_FP_KEY(initial_slip_rate, SQ_FP_V_INIT),                                           \
      SQ_FP_KEY(traction_normal, SQ_FP_TRACTION_NORMAL), SQ_FP_KEY(traction_strike, SQ_FP_TRACTION_STRIKE),            \
      SQ_FP_KEY(traction_dip, SQ_FP_TRACTION_DIP), SQ_FP_KEY(nucleation_normal, SQ_FP_NUC_NORMAL),                     \
      SQ_FP_KEY(nucleation_strike, SQ_FP_NUC_STRIKE), SQ_FP_KEY(nucleation_dip, SQ_FP_NUC_DIP),                        \
      SQ_FP_KEY(strike_slip, SQ_FP_STRIKE_SLIP), SQ_FP_KEY(dip_slip, SQ_FP_DIP_SLIP),                                  \
      SQ_FP_KEY(rupture_onset, SQ_FP_RUPTURE_ONSET), SQ_FP_KEY(tau_S, SQ_FP_TAU_S),                                    \
      SQ_FP_KEY(rise_time, SQ_FP_RISE_TIME)

/* clang-format off */
static const sq_cfg_key sq_cfg_stress_keys[] = {
    {.name = "xx", .type = SQ_KEY_EXPR, .offset = 0 * sizeof(sq_cfg_expr)},
    {.name = "yy", .type = SQ_KEY_EXPR, .offset = 1 * sizeof(sq_cfg_expr)},
    {.name = "zz", .type = SQ_KEY_EXPR, .offset = 2 * sizeof(sq_cfg_expr)},
    {.name = "xy", .type = SQ_KEY_EXPR, .offset = 3 * sizeof(sq_cfg_expr)},
    {.name = "yz", .type = SQ_KEY_EXPR, .offset = 4 * sizeof(sq_cfg_expr)},
    {.name = "xz", .type = SQ_KEY_EXPR, .offset = 5 * sizeof(sq_cfg_expr)},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_stress_schema = {sq_cfg_stress_keys, NULL};

static int sq_cfg_check_patch(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  sq_fault_patch *pt = base;
  SQ_CALL(sq_cfg_check_box_order(p, map, line, path, pt->lo, pt->hi));
  for (int i = 0; i < SQ_NFAULT_PARAMS; ++i)
    if (pt->param[i].text[0]) return SQ_SUCCESS;
  return SQ_CFG_FAIL(p, line, path, "the patch sets nothing; give at least one fault value, e.g. traction_strike");
}

/* clang-format off */
#define TYPE sq_fault_patch
static const sq_cfg_key sq_cfg_patch_keys[] = {
    {.name = "lo", .type = SQ_KEY_FLOAT3, .required = 1, .offset = offsetof(sq_fault_patch, lo)},
    {.name = "hi", .type = SQ_KEY_FLOAT3, .required = 1, .offset = offsetof(sq_fault_patch, hi)},
    SQ_FP_KEYS,
    {.name = NULL}};
#undef TYPE
/* clang-format on */
const sq_cfg_schema sq_cfg_patch_schema = {sq_cfg_patch_keys, sq_cfg_check_patch};

int sq_cfg_patch_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base) {
  sq_fault_config *f = base;
  sq_fault_patch *pt = &f->patches[index];
  memset(pt, 0, sizeof(*pt));
  pt->line = line;
  SQ_CALL(sq_cfg_map(p, node, line, path, &sq_cfg_patch_schema, pt));
  f->npatches = index + 1;
  return SQ_SUCCESS;
}

int sq_cfg_station_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base) {
  sq_fault_config *f = base;
  const sq_cfg_key key = {.name = "stations", .type = SQ_KEY_FLOAT3};
  SQ_CALL(sq_cfg_get_triple(p, &key, node, path, f->stations[index]));
  f->station_line[index] = line;
  f->nstations = index + 1;
  return SQ_SUCCESS;
}

/* Is the fault value a plain number?  Then *x is it. */
static int sq_cfg_fault_constant(const sq_cfg_expr *e, double *x) {
  if (!e->text[0] || !sq_cfg_float_syntax(e->text)) return 0;
  *x = strtod(e->text, NULL);
  return 1;
}

/* Thermal pressurization: only with a rate-and-state law; its values are given (by keys or the easi
 * model) exactly when it is on; constant values are checked here, with their line. */
static int sq_cfg_check_fault_tp(sq_cfg_parse *p, const sq_node *map, int line, const char *path, sq_fault_config *f) {
  char keypath[SQ_CFG_PATH];
  if (!f->tp_grid_points) f->tp_grid_points = SQ_TP_MAX_POINTS;
  if (f->thermal_pressurization && f->law == SQ_FRICTION_LSW) {
    sq_cfg_join(keypath, sizeof(keypath), path, "thermal_pressurization", 22);
    return SQ_CFG_FAIL(p, sq_node_key_line(map, "thermal_pressurization", line), keypath,
                       "needs a rate-and-state friction law (the law is linear_slip_weakening)");
  }
  for (int i = SQ_FP_TP_ALPHA_TH; i <= SQ_FP_TP_P0; ++i) {
    const sq_cfg_expr *e = &f->param[i];
    const char *nm = sq_fault_param_names[i];
    sq_cfg_join(keypath, sizeof(keypath), path, nm, strlen(nm));
    if (!f->thermal_pressurization) {
      if (e->text[0]) return SQ_CFG_FAIL(p, e->line, keypath, "is used only with thermal_pressurization: true");
      continue;
    }
    if (!e->text[0]) {
      if (f->easi[0] || i == SQ_FP_TP_P0) continue; /* the model's values are checked at every fault point */
      return SQ_CFG_MISSING(p, 1, line, path, nm, " (thermal pressurization needs it)");
    }
    double v;
    if (!sq_cfg_fault_constant(e, &v)) continue;
    const int ge = i == SQ_FP_TP_LAMBDA || i == SQ_FP_TP_T0, any = i == SQ_FP_TP_P0;
    if (any || (ge ? v >= 0 : v > 0)) continue;
    return SQ_CFG_FAIL(p, e->line, keypath, "%s = %g must be %s", nm, v, ge ? ">= 0" : "> 0");
  }
  return SQ_SUCCESS;
}

static int sq_cfg_check_fault(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  sq_fault_config *f = base;
  if (!map) return SQ_SUCCESS;
  f->enabled = 1;
  f->line = line;
  static const int lsw[] = {SQ_FP_MU_S, SQ_FP_MU_D, SQ_FP_D_C, -1};
  static const int rs[] = {SQ_FP_A, SQ_FP_B, SQ_FP_L, SQ_FP_F0, SQ_FP_V0, SQ_FP_V_INIT, -1};
  static const int fvw[] = {SQ_FP_A, SQ_FP_B, SQ_FP_L, SQ_FP_F0, SQ_FP_V0, SQ_FP_V_INIT, SQ_FP_F_W, SQ_FP_V_W, -1};
  static const int yoffe[] = {SQ_FP_TAU_S, SQ_FP_RISE_TIME, -1}, gaussian[] = {SQ_FP_RISE_TIME, -1}, delta[] = {-1};
  const int *need = f->law == SQ_FRICTION_LSW                  ? lsw
                    : f->law == SQ_FRICTION_RS_FVW             ? fvw
                    : f->law == SQ_FRICTION_KINEMATIC_YOFFE    ? yoffe
                    : f->law == SQ_FRICTION_KINEMATIC_GAUSSIAN ? gaussian
                    : f->law == SQ_FRICTION_KINEMATIC_DELTA    ? delta
                                                               : rs;
  const char *law = sq_friction_law_name((sq_friction_law)f->law);
  char keypath[SQ_CFG_PATH];
  if (f->easi[0]) { /* the model gives values: what it lacks is checked at every fault point */
    f->easi_line = sq_node_key_line(map, "easi", line);
    if (f->npatches) {
      sq_cfg_join(keypath, sizeof(keypath), path, "patches", 7);
      return SQ_CFG_FAIL(
          p, sq_node_key_line(map, "patches", line), keypath,
          "patches and an easi model ('easi', line %d) do not mix: give the patches' values in the model",
          f->easi_line);
    }
    SQ_CALL(sq_cfg_resolve(p, map, line, path, "easi", f->easi));
  }
  for (int i = 0; need[i] >= 0 && !f->easi[0]; ++i)
    if (!f->param[need[i]].text[0]) {
      char hint[128];
      snprintf(hint, sizeof(hint), " (the friction law %s needs it)", law);
      return SQ_CFG_MISSING(p, 1, line, path, sq_fault_param_names[need[i]], hint);
    }
  /* keys the law does not read are mistakes */
  for (int i = 0; i < SQ_NFAULT_PARAMS; ++i) {
    if (i > SQ_FP_V_W && i < SQ_FP_STRIKE_SLIP) continue; /* initial values, stress: every law */
    const int kinematic = sq_friction_is_kinematic((sq_friction_law)f->law);
    int used = i == SQ_FP_COHESION || (kinematic && i >= SQ_FP_STRIKE_SLIP && i <= SQ_FP_RUPTURE_ONSET);
    for (int k = 0; need[k] >= 0; ++k) used |= need[k] == i;
    if (f->law == SQ_FRICTION_LSW) used |= i == SQ_FP_FORCED_TIME || i == SQ_FP_FORCED_DURATION;
    if (used) continue;
    int given = f->param[i].text[0] != 0;
    for (int k = 0; k < f->npatches; ++k) given |= f->patches[k].param[i].text[0] != 0;
    if (given) {
      const char *nm = sq_fault_param_names[i];
      sq_cfg_join(keypath, sizeof(keypath), path, nm, strlen(nm));
      return SQ_CFG_FAIL(p, sq_node_key_line(map, nm, line), keypath, "is not used by the friction law %s", law);
    }
  }
  /* constant values are checked here, with their line; expressions at every fault point */
  double v, w;
  static const struct {
    int index;
    const char *rule;
  } positive[] = {{SQ_FP_D_C, "> 0"},   {SQ_FP_L, "> 0"},      {SQ_FP_A, "> 0"},         {SQ_FP_V0, "> 0"},
                  {SQ_FP_V_W, "> 0"},   {SQ_FP_V_INIT, "> 0"}, {SQ_FP_COHESION, ">= 0"}, {SQ_FP_MU_S, ">= 0"},
                  {SQ_FP_MU_D, ">= 0"}, {SQ_FP_TAU_S, "> 0"},  {SQ_FP_RISE_TIME, "> 0"}, {SQ_FP_RUPTURE_ONSET, ">= 0"}};
  for (int k = -1; k < f->npatches; ++k) {
    const sq_cfg_expr *prm = k < 0 ? f->param : f->patches[k].param;
    for (size_t i = 0; i < sizeof(positive) / sizeof(positive[0]); ++i) {
      const sq_cfg_expr *e = &prm[positive[i].index];
      if (!sq_cfg_fault_constant(e, &v)) continue;
      const int ge = positive[i].rule[1] == '=';
      if (ge ? v >= 0 : v > 0) continue;
      const char *nm = sq_fault_param_names[positive[i].index];
      if (k < 0) snprintf(keypath, sizeof(keypath), "%s.%s", path, nm);
      else snprintf(keypath, sizeof(keypath), "%s.patches[%d].%s", path, k, nm);
      return SQ_CFG_FAIL(p, e->line, keypath, "%s = %g must be %s%s", nm, v, positive[i].rule,
                         positive[i].index == SQ_FP_COHESION
                             ? " (starquake's cohesion adds strength; SeisSol's and TPV13's -0.2 MPa is 0.2e6 here)"
                             : "");
    }
    if (f->law == SQ_FRICTION_LSW && sq_cfg_fault_constant(&prm[SQ_FP_MU_S], &v) &&
        sq_cfg_fault_constant(&prm[SQ_FP_MU_D], &w) && w > v)
      return SQ_CFG_FAIL(p, prm[SQ_FP_MU_D].line, k < 0 ? "fault.mu_d" : "fault.patches[].mu_d",
                         "mu_d = %g is larger than mu_s = %g (line %d); slip weakening needs mu_d <= mu_s", w, v,
                         prm[SQ_FP_MU_S].line);
  }
  SQ_CALL(sq_cfg_check_fault_tp(p, map, line, path, f));
  /* fault.output_mask: SeisSol's OutputMask, up to 12 flags 0 / 1 (groups SRs/SRd ... P_f/Tmp) */
  f->output_mask = f->thermal_pressurization ? 0xfff : 0x7ff; /* everything starquake computes: groups 1 .. 11 (12) */
  if (f->output_mask_text[0]) {
    const int kl = sq_node_key_line(map, "output_mask", line);
    sq_cfg_join(keypath, sizeof(keypath), path, "output_mask", 11);
    int g = 0;
    f->output_mask = 0;
    for (const char *c = f->output_mask_text; *c; ++c) {
      if (*c == ' ' || *c == ',' || *c == '\t') continue;
      if ((*c != '0' && *c != '1') || (c[1] && c[1] != ' ' && c[1] != ',' && c[1] != '\t'))
        return SQ_CFG_FAIL(p, kl, keypath,
                           "'%s': write up to 12 flags 0 or 1 separated by spaces, as SeisSol's "
                           "OutputMask (1: SRs SRd, 2: T_s T_d P_n, 3: u_n, 4: Mud StV, 5: Ts0 Td0 Pn0, 6: Sls Sld, "
                           "7: Vr, 8: ASl, 9: PSR, 10: RT, 11: DS, 12: P_f Tmp)",
                           f->output_mask_text);
      if (g == 12) return SQ_CFG_FAIL(p, kl, keypath, "'%s' has more than 12 flags", f->output_mask_text);
      if (*c == '1') f->output_mask |= 1 << g;
      ++g;
    }
    if ((f->output_mask & (1 << 11)) && !f->thermal_pressurization)
      return SQ_CFG_FAIL(p, kl, keypath,
                         "flag 12 (P_f, Tmp: pore pressure and temperature) needs thermal pressurization "
                         "(fault.thermal_pressurization: true); set it to 0");
  }
  if (f->reference_method == SQ_FAULT_REF_VECTOR && f->reference_convention != SQ_FAULT_REF_SEISSOL)
    return SQ_CFG_FAIL(p, sq_node_key_line(map, "reference_method", line), "fault.reference_method",
                       "'vector' is SeisSol's refPointMethod 1: it needs 'reference_convention: seissol'");
  /* the Prakash-Clifton regularisation of the normal stress (bimaterial faces) takes both of its values */
  if ((sq_node_find(map, "pc_v_star") < 0) != (sq_node_find(map, "pc_length") < 0)) {
    const int has_v = sq_node_find(map, "pc_v_star") >= 0;
    return SQ_CFG_FAIL(p, sq_node_key_line(map, has_v ? "pc_v_star" : "pc_length", line),
                       has_v ? "fault.pc_v_star" : "fault.pc_length",
                       "the Prakash-Clifton regularisation of the normal stress needs both pc_v_star (m/s) and "
                       "pc_length (m); %s is missing",
                       has_v ? "pc_length" : "pc_v_star");
  }
  if (sq_node_find(map, "reference_point") < 0)
    return SQ_CFG_MISSING(p, 1, line, path, "reference_point",
                          " (a point off the fault on its \"+\" side; it fixes the normal and the slip sign)");
  return SQ_SUCCESS;
}

static const sq_cfg_word sq_cfg_friction_words[] = {{"linear_slip_weakening", SQ_FRICTION_LSW},
                                                    {"rate_state_aging", SQ_FRICTION_RS_AGING},
                                                    {"rate_state_slip", SQ_FRICTION_RS_SLIP},
                                                    {"rate_state_fast_velocity_weakening", SQ_FRICTION_RS_FVW},
                                                    {"imposed_slip_rate_yoffe", SQ_FRICTION_KINEMATIC_YOFFE},
                                                    {"imposed_slip_rate_gaussian", SQ_FRICTION_KINEMATIC_GAUSSIAN},
                                                    {"imposed_slip_rate_delta", SQ_FRICTION_KINEMATIC_DELTA},
                                                    {NULL, 0}};

static const sq_cfg_word sq_cfg_refconv_words[] = {
    {"native", SQ_FAULT_REF_NATIVE}, {"seissol", SQ_FAULT_REF_SEISSOL}, {NULL, 0}};
static const sq_cfg_word sq_cfg_refmethod_words[] = {
    {"point", SQ_FAULT_REF_POINT}, {"vector", SQ_FAULT_REF_VECTOR}, {NULL, 0}};

/* clang-format off */
#define TYPE sq_fault_config
static const sq_cfg_key sq_cfg_fault_keys[] = {
    {.name = "friction_law", .type = SQ_KEY_ENUM, .required = 1, .words = sq_cfg_friction_words,
     .offset = offsetof(sq_fault_config, law)},
    {.name = "reference_point", .type = SQ_KEY_FLOAT3, .offset = offsetof(sq_fault_config, reference_point)},
    {.name = "reference_convention", .type = SQ_KEY_ENUM, .words = sq_cfg_refconv_words,
     .offset = offsetof(sq_fault_config, reference_convention)},
    {.name = "reference_method", .type = SQ_KEY_ENUM, .words = sq_cfg_refmethod_words,
     .offset = offsetof(sq_fault_config, reference_method)},
    {.name = "nucleation_time", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GE, .min = 0,
     .offset = offsetof(sq_fault_config, nucleation_time)},
    {.name = "initial_stress", .type = SQ_KEY_MAP, .sub = &sq_cfg_stress_schema,
     .offset = offsetof(sq_fault_config, param) + SQ_FP_S_XX * sizeof(sq_cfg_expr)},
    SQ_FP_KEYS,
    {.name = "patches", .type = SQ_KEY_SEQ, .item = sq_cfg_patch_item, .max_items = SQ_MAX_FAULT_PATCHES},
    {.name = "output_interval", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GE, .min = 0,
     .offset = offsetof(sq_fault_config, output_interval)},
    {.name = "station_interval", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GE, .min = 0,
     .offset = offsetof(sq_fault_config, station_interval)},
    {.name = "stations", .type = SQ_KEY_SEQ, .item = sq_cfg_station_item, .max_items = SQ_MAX_FAULT_STATIONS},
    {.name = "easi", .type = SQ_KEY_STRING, .size = SQ_PATH_MAX, .offset = offsetof(sq_fault_config, easi),
     .validate = sq_cfg_nonempty},
    {.name = "output_mask", .type = SQ_KEY_STRING, .size = sizeof(((sq_fault_config *)0)->output_mask_text),
     .offset = offsetof(sq_fault_config, output_mask_text)},
    {.name = "thermal_pressurization", .type = SQ_KEY_BOOL,
     .offset = offsetof(sq_fault_config, thermal_pressurization)},
    {.name = "tp_grid_points", .type = SQ_KEY_INT, .range = SQ_MIN_GE | SQ_MAX_LE, .min = 2, .max = SQ_TP_MAX_POINTS,
     .offset = offsetof(sq_fault_config, tp_grid_points)},
    SQ_FP_KEY(tp_thermal_diffusivity, SQ_FP_TP_ALPHA_TH), SQ_FP_KEY(tp_hydraulic_diffusivity, SQ_FP_TP_ALPHA_HY),
    SQ_FP_KEY(tp_heat_capacity, SQ_FP_TP_RHO_C), SQ_FP_KEY(tp_lambda, SQ_FP_TP_LAMBDA),
    SQ_FP_KEY(tp_half_width, SQ_FP_TP_HALF_WIDTH), SQ_FP_KEY(tp_initial_temperature, SQ_FP_TP_T0),
    SQ_FP_KEY(tp_initial_pressure, SQ_FP_TP_P0),
    {.name = "pc_v_star", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GT, .min = 0,
     .offset = offsetof(sq_fault_config, pc_v_star)},
    {.name = "pc_length", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GT, .min = 0,
     .offset = offsetof(sq_fault_config, pc_length)},
    {.name = NULL}};
#undef TYPE
/* clang-format on */
const sq_cfg_schema sq_cfg_fault_schema = {sq_cfg_fault_keys, sq_cfg_check_fault};

/* ---- plasticity ------------------------------------------------------------------------------ */

const char *const sq_plast_param_names[SQ_NPLAST_PARAMS] = {
    "cohesion",          "bulk_friction",     "tv",
    "initial_stress.xx", "initial_stress.yy", "initial_stress.zz",
    "initial_stress.xy", "initial_stress.yz", "initial_stress.xz"};

/* plasticity values may also depend on the element's mesh group (regions of Gmsh or PUML meshes) */
static const char *const sq_cfg_plast_vars[] = {"group", NULL};

#define SQ_PP_KEY(s, i, req)                                                                                           \
  {                                                                                                                    \
    .name = #s, .type = SQ_KEY_EXPR, .required = (req), .expr_vars = sq_cfg_plast_vars,                                \
    .offset = offsetof(sq_plasticity_config, param) + (i) * sizeof(sq_cfg_expr)                                        \
  }
#define SQ_PP_STRESS_KEY(s, i)                                                                                         \
  { .name = #s, .type = SQ_KEY_EXPR, .expr_vars = sq_cfg_plast_vars, .offset = (i) * sizeof(sq_cfg_expr) }
/* clang-format off */
static const sq_cfg_key sq_cfg_plast_stress_keys[] = {
    SQ_PP_STRESS_KEY(xx, 0), SQ_PP_STRESS_KEY(yy, 1), SQ_PP_STRESS_KEY(zz, 2),
    SQ_PP_STRESS_KEY(xy, 3), SQ_PP_STRESS_KEY(yz, 4), SQ_PP_STRESS_KEY(xz, 5),
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_plast_stress_schema = {sq_cfg_plast_stress_keys, NULL};

/* Constant values are checked here, with their line; expressions at every element (app/plasticity_app.c). */
static int sq_cfg_check_plasticity(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  sq_plasticity_config *c = base;
  if (!map) return SQ_SUCCESS;
  c->enabled = 1;
  c->line = line;
  static const char *const why[3] = {" (it adds strength: tau_c = cohesion cos(phi) - mean stress sin(phi))",
                                     " (the tangent of the internal friction angle phi)",
                                     " (the viscoplastic relaxation time in seconds; 0: instantaneous return)"};
  char keypath[SQ_CFG_PATH];
  for (int i = SQ_PP_COHESION; i <= SQ_PP_TV; ++i) {
    const sq_cfg_expr *e = &c->param[i];
    if (!e->text[0] || !sq_cfg_float_syntax(e->text)) continue;
    const double v = strtod(e->text, NULL);
    if (v >= 0) continue;
    sq_cfg_join(keypath, sizeof(keypath), path, sq_plast_param_names[i], strlen(sq_plast_param_names[i]));
    return SQ_CFG_FAIL(p, e->line, keypath, "%s = %g must be >= 0%s", sq_plast_param_names[i], v, why[i]);
  }
  return SQ_SUCCESS;
}

/* clang-format off */
static const sq_cfg_word sq_cfg_plast_at_words[] = {
    {"nodes", SQ_PLAST_STRESS_AT_NODES}, {"centroid", SQ_PLAST_STRESS_AT_CENTROID}, {NULL, 0}};
static const sq_cfg_key sq_cfg_plasticity_keys[] = {
    SQ_PP_KEY(cohesion, SQ_PP_COHESION, 0),
    SQ_PP_KEY(bulk_friction, SQ_PP_BULK_FRICTION, 0),
    SQ_PP_KEY(tv, SQ_PP_TV, 0),
    {.name = "initial_stress", .type = SQ_KEY_MAP, .sub = &sq_cfg_plast_stress_schema,
     .offset = offsetof(sq_plasticity_config, param) + SQ_PP_S_XX * sizeof(sq_cfg_expr)},
    {.name = "initial_stress_at", .type = SQ_KEY_ENUM, .words = sq_cfg_plast_at_words,
     .offset = offsetof(sq_plasticity_config, stress_at)},
    {.name = NULL}};
/* clang-format on */
const sq_cfg_schema sq_cfg_plasticity_schema = {sq_cfg_plasticity_keys, sq_cfg_check_plasticity};

/* ---- attenuation ----------------------------------------------------------------------------- */

static int sq_cfg_check_attenuation(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  sq_attenuation_config *c = base;
  (void)path;
  if (!map) return SQ_SUCCESS;
  c->enabled = 1;
  c->line = line;
  return SQ_SUCCESS;
}

/* clang-format off */
static const sq_cfg_key sq_cfg_attenuation_keys[] = {
    {.name = "mechanisms", .type = SQ_KEY_INT, .range = SQ_MIN_GE | SQ_MAX_LE, .min = 1, .max = 5,
     .offset = offsetof(sq_attenuation_config, mechanisms)},
    {.name = "central_frequency", .type = SQ_KEY_FLOAT, .required = 1, .range = SQ_MIN_GT, .min = 0,
     .offset = offsetof(sq_attenuation_config, central_frequency)},
    {.name = "frequency_ratio", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GE, .min = 1,
     .offset = offsetof(sq_attenuation_config, frequency_ratio)},
    {.name = NULL}};
/* clang-format on */
const sq_cfg_schema sq_cfg_attenuation_schema = {sq_cfg_attenuation_keys, sq_cfg_check_attenuation};
