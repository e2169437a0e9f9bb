/**
 * @file schema.c  The table-driven schema engine: walks the node tree (yaml.c) against the tables
 * (config_tables*.c), checking keys, types and ranges and storing values at their offsets.
 *
 * The walk visits keys in table order (not file order); unknown and duplicate keys of a mapping are
 * checked, in file order, before any of its values.  A misspelt key or word gets the nearest valid one
 * as a suggestion.
 */
#include "config_impl.h"
#include "sq_expr.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ============================================================================================== */
/* Levenshtein distance and suggestions                                                           */
/* ============================================================================================== */

int sq_edit_distance(const char *a, const char *b) {
  if (!a) a = "";
  if (!b) b = "";
  size_t la = strlen(a), lb = strlen(b);
  if (la < lb) { /* keep the row as short as possible */
    const char *t = a;
    a = b;
    b = t;
    size_t tl = la;
    la = lb;
    lb = tl;
  }
  if (la > INT_MAX) return INT_MAX;
  if (lb == 0) return (int)la;
  int stack_row[64];
  int *row = lb < 64 ? stack_row : malloc((lb + 1) * sizeof(int));
  if (!row) return (int)la; /* an upper bound: good enough for suggestions */
  for (size_t j = 0; j <= lb; ++j) row[j] = (int)j;
  for (size_t i = 1; i <= la; ++i) {
    int diag = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= lb; ++j) {
      int up = row[j];
      int best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  int d = row[lb];
  if (row != stack_row) free(row);
  return d;
}

/** Suggestion state: the nearest candidate so far. */
typedef struct sq_cfg_near {
  const char *given;
  const char *best;
  int dist;
} sq_cfg_near;

static void sq_cfg_near_consider(sq_cfg_near *near, const char *cand) {
  size_t lg = strlen(near->given), lc = strlen(cand);
  size_t diff = lg > lc ? lg - lc : lc - lg;
  if (near->best && diff >= (size_t)near->dist) return; /* cannot be nearer */
  int d = sq_edit_distance(near->given, cand);
  if (!near->best || d < near->dist) {
    near->best = cand;
    near->dist = d;
  }
}

/**
 * The nearest candidate if it is near enough: distance <= max(2, len/3), and not a complete
 * rewrite (distance below the longer length), so that "xy" does not suggest "lo".
 */
static const char *sq_cfg_near_result(const sq_cfg_near *near) {
  if (!near->best || !near->best[0]) return NULL;
  size_t lg = strlen(near->given), lc = strlen(near->best);
  size_t limit = lg / 3 > 2 ? lg / 3 : 2;
  size_t longer = lg > lc ? lg : lc;
  if ((size_t)near->dist <= limit && (size_t)near->dist < longer) return near->best;
  return NULL;
}

int sq_config_nearest(const char *given, const char *const *candidates, int n) {
  sq_cfg_near near = {.given = given};
  for (int i = 0; i < n; ++i) sq_cfg_near_consider(&near, candidates[i]);
  const char *best = sq_cfg_near_result(&near);
  for (int i = 0; best && i < n; ++i)
    if (candidates[i] == best) return i;
  return -1;
}

/* ============================================================================================== */
/* Schema walk                                                                                    */
/* ============================================================================================== */

/* ---- Scalars --------------------------------------------------------------------------------- */

/** YAML 1.2 core integer: [-+]?[0-9]+ */
static int sq_cfg_int_syntax(const char *s) {
  if (*s == '+' || *s == '-') ++s;
  if (!*s) return 0;
  for (; *s; ++s)
    if (*s < '0' || *s > '9') return 0;
  return 1;
}

/** YAML 1.2 core float: [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
int sq_cfg_float_syntax(const char *s) {
  int digits = 0;
  if (*s == '+' || *s == '-') ++s;
  while (*s >= '0' && *s <= '9') ++s, ++digits;
  if (*s == '.') {
    ++s;
    while (*s >= '0' && *s <= '9') ++s, ++digits;
  }
  if (!digits) return 0;
  if (*s == 'e' || *s == 'E') {
    ++s;
    if (*s == '+' || *s == '-') ++s;
    if (*s < '0' || *s > '9') return 0;
    while (*s >= '0' && *s <= '9') ++s;
  }
  return *s == '\0';
}

static int sq_cfg_lower_eq(const char *a, const char *b) {
  for (; *a && *b; ++a, ++b) {
    char ca = (*a >= 'A' && *a <= 'Z') ? (char)(*a - 'A' + 'a') : *a;
    if (ca != *b) return 0;
  }
  return *a == *b;
}

/** .nan, .inf, -.Inf, nan, infinity, ... */
static int sq_cfg_nonfinite_word(const char *s) {
  if (*s == '+' || *s == '-') ++s;
  if (*s == '.') ++s;
  return sq_cfg_lower_eq(s, "nan") || sq_cfg_lower_eq(s, "inf") || sq_cfg_lower_eq(s, "infinity");
}

/** A plain scalar usable as a number or a bool: no quotes, not null, no embedded NUL. */
static int sq_cfg_plain(const sq_node *node) {
  return node->kind == SQ_NODE_SCALAR && !node->quoted && !sq_node_is_null(node) && strlen(node->text) == node->len;
}

/** "; remove the quotes" when a quoted scalar would have been valid unquoted. */
static const char *sq_cfg_quote_hint(const sq_node *node, int (*valid)(const char *)) {
  if (node->kind == SQ_NODE_SCALAR && node->quoted && strlen(node->text) == node->len && valid(node->text))
    return "; remove the quotes";
  return "";
}

void sq_cfg_range_text(const sq_cfg_key *key, int is_int, char *out, size_t size) {
  int lo = key->range & (SQ_MIN_GE | SQ_MIN_GT), hi = key->range & (SQ_MAX_LE | SQ_MAX_LT);
  if (lo && hi && is_int && (key->range & SQ_MIN_GE) && (key->range & SQ_MAX_LE))
    snprintf(out, size, "in the range %g..%g", key->min, key->max);
  else if (lo && hi)
    snprintf(out, size, "in %c%g, %g%c", (key->range & SQ_MIN_GE) ? '[' : '(', key->min, key->max,
             (key->range & SQ_MAX_LE) ? ']' : ')');
  else if (lo) snprintf(out, size, "%s %g", (key->range & SQ_MIN_GE) ? ">=" : ">", key->min);
  else snprintf(out, size, "%s %g", (key->range & SQ_MAX_LE) ? "<=" : "<", key->max);
}

static int sq_cfg_check_range(sq_cfg_parse *p, const sq_cfg_key *key, const sq_node *node, const char *path, double x,
                              int is_int) {
  int ok = 1;
  if ((key->range & SQ_MIN_GE) && !(x >= key->min)) ok = 0;
  if ((key->range & SQ_MIN_GT) && !(x > key->min)) ok = 0;
  if ((key->range & SQ_MAX_LE) && !(x <= key->max)) ok = 0;
  if ((key->range & SQ_MAX_LT) && !(x < key->max)) ok = 0;
  if (ok) return SQ_SUCCESS;
  char range[128], found[4 * SQ_CFG_SHOW + 64];
  sq_cfg_range_text(key, is_int, range, sizeof(range));
  return SQ_CFG_FAIL(p, node->line, path, "out of range: must be %s (found %s)", range,
                     sq_cfg_found(node, found, sizeof(found)));
}

static int sq_cfg_get_int(sq_cfg_parse *p, const sq_cfg_key *key, const sq_node *node, const char *path, int *out) {
  char found[4 * SQ_CFG_SHOW + 64];
  if (!sq_cfg_plain(node) || !sq_cfg_int_syntax(node->text))
    return SQ_CFG_FAIL(p, node->line, path, "expected an integer, found %s%s", sq_cfg_found(node, found, sizeof(found)),
                       sq_cfg_quote_hint(node, sq_cfg_int_syntax));
  errno = 0;
  long long x = strtoll(node->text, NULL, 10);
  if (errno == ERANGE || x < INT_MIN || x > INT_MAX) {
    double huge = node->text[0] == '-' ? -INFINITY : INFINITY;
    if (key->range) SQ_CALL(sq_cfg_check_range(p, key, node, path, huge, 1));
    return SQ_CFG_FAIL(p, node->line, path, "%s is too large for an integer", sq_cfg_found(node, found, sizeof(found)));
  }
  SQ_CALL(sq_cfg_check_range(p, key, node, path, (double)x, 1));
  *out = (int)x;
  return SQ_SUCCESS;
}

static int sq_cfg_get_float(sq_cfg_parse *p, const sq_cfg_key *key, const sq_node *node, const char *path,
                            double *out) {
  char found[4 * SQ_CFG_SHOW + 64];
  if (sq_cfg_plain(node) && sq_cfg_nonfinite_word(node->text))
    return SQ_CFG_FAIL(p, node->line, path, "expected a finite number, found %s; NaN and infinity are not allowed",
                       sq_cfg_found(node, found, sizeof(found)));
  if (!sq_cfg_plain(node) || !sq_cfg_float_syntax(node->text))
    return SQ_CFG_FAIL(p, node->line, path, "expected a number, found %s%s", sq_cfg_found(node, found, sizeof(found)),
                       sq_cfg_quote_hint(node, sq_cfg_float_syntax));
  double x = strtod(node->text, NULL);
  if (!isfinite(x))
    return SQ_CFG_FAIL(p, node->line, path, "%s is too large for a double-precision number",
                       sq_cfg_found(node, found, sizeof(found)));
  SQ_CALL(sq_cfg_check_range(p, key, node, path, x, 0));
  *out = x;
  return SQ_SUCCESS;
}

static int sq_cfg_bool_word(const char *s) {
  static const char *const words[] = {"true", "false", "yes", "no", "on", "off"};
  for (int i = 0; i < 6; ++i)
    if (sq_cfg_lower_eq(s, words[i])) return i % 2 == 0 ? 1 : 0;
  return -1;
}

static int sq_cfg_is_bool_word(const char *s) { return sq_cfg_bool_word(s) >= 0; }

static int sq_cfg_get_bool(sq_cfg_parse *p, const sq_node *node, const char *path, int *out) {
  char found[4 * SQ_CFG_SHOW + 64];
  int b = sq_cfg_plain(node) ? sq_cfg_bool_word(node->text) : -1;
  if (b < 0)
    return SQ_CFG_FAIL(p, node->line, path, "expected true or false, found %s%s",
                       sq_cfg_found(node, found, sizeof(found)), sq_cfg_quote_hint(node, sq_cfg_is_bool_word));
  *out = b;
  return SQ_SUCCESS;
}

/** "box, gmsh, puml" */
static void sq_cfg_word_list(const sq_cfg_word *words, char *out, size_t size) {
  size_t o = 0;
  out[0] = '\0';
  for (int i = 0; words[i].word && o < size; ++i)
    o += (size_t)snprintf(out + o, size - o, "%s%s", i ? ", " : "", words[i].word[0] ? words[i].word : "\"\"");
}

/** Index of the word @p node spells, or an error listing the allowed words. */
int sq_cfg_get_word(sq_cfg_parse *p, const sq_cfg_key *key, const sq_node *node, const char *path, int *index) {
  char found[4 * SQ_CFG_SHOW + 64], list[512];
  if (node->kind == SQ_NODE_SCALAR && strlen(node->text) == node->len && (node->quoted || !sq_node_is_null(node)))
    for (int i = 0; key->words[i].word; ++i)
      if (!strcmp(node->text, key->words[i].word)) {
        *index = i;
        return SQ_SUCCESS;
      }
  sq_cfg_word_list(key->words, list, sizeof(list));
  const char *suggestion = NULL;
  if (node->kind == SQ_NODE_SCALAR && node->len) {
    sq_cfg_near near = {.given = node->text};
    for (int i = 0; key->words[i].word; ++i) sq_cfg_near_consider(&near, key->words[i].word);
    suggestion = sq_cfg_near_result(&near);
  }
  return SQ_CFG_FAIL(p, node->line, path, "expected one of: %s; found %s%s%s%s", list,
                     sq_cfg_found(node, found, sizeof(found)), suggestion ? "; did you mean '" : "",
                     suggestion ? suggestion : "", suggestion ? "'?" : "");
}

static int sq_cfg_get_string(sq_cfg_parse *p, const sq_cfg_key *key, const sq_node *node, const char *path, char *out) {
  char found[4 * SQ_CFG_SHOW + 64];
  if (node->kind != SQ_NODE_SCALAR || (!node->quoted && sq_node_is_null(node)))
    return SQ_CFG_FAIL(p, node->line, path, "expected a string, found %s%s", sq_cfg_found(node, found, sizeof(found)),
                       node->kind == SQ_NODE_SCALAR ? " (write \"\" for an empty string)" : "");
  if (strlen(node->text) != node->len) return SQ_CFG_FAIL(p, node->line, path, "the string contains a NUL character");
  if (node->len >= key->size)
    return SQ_CFG_FAIL(p, node->line, path, "the string is too long (%zu bytes, at most %zu)", node->len,
                       key->size - 1);
  if (key->words) {
    int index;
    SQ_CALL(sq_cfg_get_word(p, key, node, path, &index));
  }
  memcpy(out, node->text, node->len + 1);
  return SQ_SUCCESS;
}

/** [x, y, z] of ints or floats; the key's range applies to every component. */
int sq_cfg_get_triple(sq_cfg_parse *p, const sq_cfg_key *key, const sq_node *node, const char *path, void *field) {
  char found[4 * SQ_CFG_SHOW + 64], elem[SQ_CFG_PATH];
  const char *what = key->type == SQ_KEY_INT3 ? "integers" : "numbers";
  if (node->kind != SQ_NODE_SEQ)
    return SQ_CFG_FAIL(p, node->line, path, "expected a sequence of 3 %s [x, y, z], found %s", what,
                       sq_cfg_found(node, found, sizeof(found)));
  if (node->n != 3)
    return SQ_CFG_FAIL(p, node->line, path, "expected exactly 3 %s [x, y, z], found %s", what,
                       sq_cfg_found(node, found, sizeof(found)));
  int ints[3];
  double reals[3];
  for (int i = 0; i < 3; ++i) {
    sq_cfg_path_done(elem, sizeof(elem), snprintf(elem, sizeof(elem), "%s[%d]", path, i));
    if (key->type == SQ_KEY_INT3) SQ_CALL(sq_cfg_get_int(p, key, node->items[i], elem, &ints[i]));
    else SQ_CALL(sq_cfg_get_float(p, key, node->items[i], elem, &reals[i]));
  }
  if (key->type == SQ_KEY_INT3) memcpy(field, ints, sizeof(ints));
  else memcpy(field, reals, sizeof(reals));
  return SQ_SUCCESS;
}

static int sq_cfg_get_seq(sq_cfg_parse *p, const sq_cfg_key *key, const sq_node *node, int key_line, const char *path,
                          void *base) {
  char found[4 * SQ_CFG_SHOW + 64], item[SQ_CFG_PATH];
  size_t n = 0;
  if (node->kind == SQ_NODE_SEQ) n = node->n;
  else if (!sq_node_is_null(node))
    return SQ_CFG_FAIL(p, node->line, path,
                       "expected a sequence of mappings ('- key: value' items or [{...}, ...]), "
                       "found %s",
                       sq_cfg_found(node, found, sizeof(found)));
  if (n > (size_t)key->max_items)
    return SQ_CFG_FAIL(p, key_line, path, "too many items: at most %d, found %zu", key->max_items, n);
  if (n < (size_t)key->min_items)
    return SQ_CFG_FAIL(p, key_line, path, "needs at least %d item%s, found %zu", key->min_items,
                       key->min_items == 1 ? "" : "s", n);
  for (size_t i = 0; i < n; ++i) {
    sq_cfg_path_done(item, sizeof(item), snprintf(item, sizeof(item), "%s[%zu]", path, i));
    SQ_CALL(key->item(p, node->items[i], node->items[i]->line, item, (int)i, base));
  }
  return SQ_SUCCESS;
}

/** A number, or an expression in x, y, z and the names @p vars (compiled here once to report syntax errors
 * with the line). */
static int sq_cfg_get_expr(sq_cfg_parse *p, const sq_node *node, const char *path, const char *const *vars,
                           sq_cfg_expr *out) {
  char found[4 * SQ_CFG_SHOW + 64], err[256];
  int nvars = 0;
  while (vars && vars[nvars]) ++nvars;
  if (node->kind != SQ_NODE_SCALAR || (!node->quoted && sq_node_is_null(node)))
    return SQ_CFG_FAIL(p, node->line, path, "expected a number or an expression in x, y, z%s, found %s",
                       nvars ? " and group" : "", sq_cfg_found(node, found, sizeof(found)));
  if (node->len >= sizeof(out->text))
    return SQ_CFG_FAIL(p, node->line, path, "the expression is too long (%zu bytes, at most %zu)", node->len,
                       sizeof(out->text) - 1);
  sq_expr *e = NULL;
  const int rc = sq_expr_compile(node->text, vars, nvars, &e, err, sizeof(err));
  if (rc == SQ_SUCCESS && sq_expr_uses(e, SQ_EXPR_T)) {
    sq_expr_destroy(e);
    if (nvars)
      return SQ_CFG_FAIL(p, node->line, path,
                         "'%s' depends on t; these values are fixed in time and may depend "
                         "on x, y, z and group only",
                         node->text);
    return SQ_CFG_FAIL(p, node->line, path,
                       "'%s' depends on t; fault values may depend on x, y, z only (the "
                       "nucleation ramp is fault.nucleation_time)",
                       node->text);
  }
  sq_expr_destroy(e);
  if (rc == SQ_ERR_INPUT) return SQ_CFG_FAIL(p, node->line, path, "'%s': %s", node->text, err);
  if (rc) return rc;
  memcpy(out->text, node->text, node->len + 1);
  out->line = node->line;
  return SQ_SUCCESS;
}

/** Parse the value @p node of @p key (written on line @p key_line) and store it into @p base. */
static int sq_cfg_value(sq_cfg_parse *p, const sq_cfg_key *key, const sq_node *node, int key_line, const char *path,
                        void *base) {
  void *field = (char *)base + key->offset;
  switch (key->type) {
  case SQ_KEY_INT: {
    int x = 0;
    SQ_CALL(sq_cfg_get_int(p, key, node, path, &x));
    memcpy(field, &x, sizeof(x));
    break;
  }
  case SQ_KEY_FLOAT: {
    double x = 0.0;
    SQ_CALL(sq_cfg_get_float(p, key, node, path, &x));
    memcpy(field, &x, sizeof(x));
    break;
  }
  case SQ_KEY_BOOL: {
    int x = 0;
    SQ_CALL(sq_cfg_get_bool(p, node, path, &x));
    memcpy(field, &x, sizeof(x));
    break;
  }
  case SQ_KEY_STRING: SQ_CALL(sq_cfg_get_string(p, key, node, path, field)); break;
  case SQ_KEY_ENUM: {
    int index = 0;
    SQ_CALL(sq_cfg_get_word(p, key, node, path, &index));
    memcpy(field, &key->words[index].value, sizeof(int));
    break;
  }
  case SQ_KEY_FLOAT3:
  case SQ_KEY_INT3: SQ_CALL(sq_cfg_get_triple(p, key, node, path, field)); break;
  case SQ_KEY_MAP:
    if (key->item) SQ_CALL(key->item(p, node, key_line, path, -1, base));
    else SQ_CALL(sq_cfg_map(p, node, key_line, path, key->sub, field));
    break;
  case SQ_KEY_SEQ: SQ_CALL(sq_cfg_get_seq(p, key, node, key_line, path, base)); break;
  case SQ_KEY_EXPR:
    if (key->expr_numbers && sq_cfg_plain(node) &&
        (sq_cfg_nonfinite_word(node->text) || sq_cfg_float_syntax(node->text))) {
      double x = 0.0; /* a plain number: the checks of SQ_KEY_FLOAT, and its text kept */
      SQ_CALL(sq_cfg_get_float(p, key, node, path, &x));
      sq_cfg_expr *e = field;
      snprintf(e->text, sizeof(e->text), "%s", node->text);
      e->line = node->line;
    } else SQ_CALL(sq_cfg_get_expr(p, node, path, key->expr_vars, field));
    break;
  }
  if (key->validate) SQ_CALL(key->validate(p, node, path, field));
  return SQ_SUCCESS;
}

/* ---- Mappings -------------------------------------------------------------------------------- */

static int sq_cfg_nkeys(const sq_cfg_schema *schema) {
  int n = 0;
  while (schema->keys[n].name) ++n;
  return n;
}

/** Error for a key of @p map that @p schema does not know, with the nearest valid key. */
static int sq_cfg_unknown(sq_cfg_parse *p, const sq_node *key, const char *path, const sq_cfg_schema *schema) {
  char keypath[SQ_CFG_PATH], list[1024], where[SQ_CFG_PATH];
  const char *what = path[0] ? "key" : "section";
  sq_cfg_join(keypath, sizeof(keypath), path, key->text, key->len);
  if (key->kind != SQ_NODE_SCALAR || !key->len || sq_node_is_null(key))
    return SQ_CFG_FAIL(p, key->line, keypath, "a key must be a plain word");
  sq_cfg_near near = {.given = key->text};
  for (const sq_cfg_key *k = schema->keys; k->name; ++k) sq_cfg_near_consider(&near, k->name);
  const char *suggestion = sq_cfg_near_result(&near);
  if (suggestion) return SQ_CFG_FAIL(p, key->line, keypath, "unknown %s; did you mean '%s'?", what, suggestion);
  /* a key of a nested mapping written one level too high ("order" at the top level) */
  for (const sq_cfg_key *s = schema->keys; s->name; ++s)
    if (s->type == SQ_KEY_MAP && s->sub)
      for (const sq_cfg_key *k = s->sub->keys; k->name; ++k)
        if (sq_node_is(key, k->name)) {
          char inner[SQ_CFG_PATH];
          sq_cfg_join(inner, sizeof(inner), path, s->name, strlen(s->name));
          return SQ_CFG_FAIL(p, key->line, keypath, "unknown %s; did you mean '%s.%s'? (move it into '%s')", what,
                             inner, k->name, inner);
        }
  size_t o = 0;
  for (const sq_cfg_key *k = schema->keys; k->name && o < sizeof(list); ++k)
    o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", k == schema->keys ? "" : ", ", k->name);
  if (path[0]) snprintf(where, sizeof(where), "in '%s'", path);
  else snprintf(where, sizeof(where), "at the top level");
  return SQ_CFG_FAIL(p, key->line, keypath, "unknown %s; valid %ss %s are: %s", what, what, where, list);
}

/**
 * Walk mapping @p map (NULL: absent; a null scalar: empty) against @p schema, storing into @p base.
 * @p line is where the mapping is introduced (its key's line; the parent's line when absent): the
 * line that messages about missing keys name.
 */
int sq_cfg_map(sq_cfg_parse *p, const sq_node *map, int line, const char *path, const sq_cfg_schema *schema,
               void *base) {
  char found[4 * SQ_CFG_SHOW + 64], keypath[SQ_CFG_PATH];
  int nkeys = sq_cfg_nkeys(schema);
  if (nkeys > SQ_CFG_MAX_KEYS)
    return sq_error(SQ_ERR_INTERNAL, __FILE__, __LINE__, "config schema '%s' has %d keys, max %d", path, nkeys,
                    SQ_CFG_MAX_KEYS);
  const sq_node *pairs = NULL;
  int given = map != NULL;
  if (map) {
    if (map->kind == SQ_NODE_MAP) pairs = map;
    else if (!sq_node_is_null(map))
      return SQ_CFG_FAIL(p, map->line, path, "expected a mapping ('key: value' lines or {key: value, ...}), found %s",
                         sq_cfg_found(map, found, sizeof(found)));
  }
  size_t first[SQ_CFG_MAX_KEYS];
  int seen[SQ_CFG_MAX_KEYS] = {0};
  for (size_t i = 0; pairs && i < pairs->n; ++i) {
    const sq_node *key = pairs->keys[i];
    int j = 0;
    while (j < nkeys && !sq_node_is(key, schema->keys[j].name)) ++j;
    if (j == nkeys) return sq_cfg_unknown(p, key, path, schema);
    if (seen[j]) {
      sq_cfg_join(keypath, sizeof(keypath), path, key->text, key->len);
      return SQ_CFG_FAIL(p, key->line, keypath, "duplicate key (first given on line %d); give each key once",
                         pairs->keys[first[j]]->line);
    }
    seen[j] = 1;
    first[j] = i;
  }
  for (int j = 0; j < nkeys; ++j) {
    const sq_cfg_key *key = &schema->keys[j];
    sq_cfg_join(keypath, sizeof(keypath), path, key->name, strlen(key->name));
    if (seen[j]) {
      SQ_CALL(sq_cfg_value(p, key, pairs->items[first[j]], pairs->keys[first[j]]->line, keypath, base));
    } else if (key->required) {
      return SQ_CFG_MISSING(p, given, line, path, key->name, "");
    } else if (key->type == SQ_KEY_MAP && !key->item && !key->optional) {
      /* an absent section still gets its required keys and checks (unless it switches a feature on) */
      SQ_CALL(sq_cfg_map(p, NULL, line, keypath, key->sub, (char *)base + key->offset));
    }
  }
  if (schema->check) SQ_CALL(schema->check(p, pairs, line, path, base));
  return SQ_SUCCESS;
}

/* ---- shared checks --------------------------------------------------------------------------- */

int sq_cfg_nonempty(sq_cfg_parse *p, const sq_node *node, const char *path, void *field) {
  if (!((const char *)field)[0]) return SQ_CFG_FAIL(p, node->line, path, "must not be empty");
  return SQ_SUCCESS;
}

/** hi > lo on every axis; the error points at 'hi' (or 'lo', or the mapping). */
int sq_cfg_check_box_order(sq_cfg_parse *p, const sq_node *map, int line, const char *path, const double lo[3],
                           const double hi[3]) {
  static const char axes[] = "xyz";
  char keypath[SQ_CFG_PATH];
  for (int d = 0; d < 3; ++d)
    if (!(hi[d] > lo[d])) {
      int at = sq_node_key_line(map, "hi", sq_node_key_line(map, "lo", line));
      sq_cfg_join(keypath, sizeof(keypath), path, "hi", 2);
      return SQ_CFG_FAIL(p, at, keypath, "must be greater than lo on every axis; on the %c axis lo = %g, hi = %g",
                         axes[d], lo[d], hi[d]);
    }
  return SQ_SUCCESS;
}

/** Resolve the string key @p key of @p map (stored in @p file) against the config's folder. */
int sq_cfg_resolve(sq_cfg_parse *p, const sq_node *map, int line, const char *path, const char *key, char *file) {
  if (!file[0] || file[0] == '/' || !p->dir[0]) return SQ_SUCCESS;
  size_t ld = strlen(p->dir), lf = strlen(file);
  if (ld + lf >= SQ_PATH_MAX) {
    char keypath[SQ_CFG_PATH];
    sq_cfg_join(keypath, sizeof(keypath), path, key, strlen(key));
    return SQ_CFG_FAIL(p, sq_node_key_line(map, key, line), keypath,
                       "the path relative to the config's folder '%s' is longer than %d bytes", p->dir,
                       SQ_PATH_MAX - 1);
  }
  memmove(file + ld, file, lf + 1);
  memcpy(file, p->dir, ld);
  return SQ_SUCCESS;
}

/**
 * Keys of @p map that type @p type_name does not use are errors; keys it needs are required.
 * @p keys lists every optional key of the mapping; @p needed and @p allowed are NULL-terminated.
 */
int sq_cfg_keys_for_type(sq_cfg_parse *p, const sq_node *map, int line, const char *path, const char *const *keys,
                         const char *const *needed, const char *const *allowed, const char *type_name,
                         const char *what) {
  char keypath[SQ_CFG_PATH];
  for (const char *const *k = keys; *k; ++k) {
    int ok = 0;
    for (const char *const *a = needed; *a && !ok; ++a) ok = !strcmp(*a, *k);
    for (const char *const *a = allowed; *a && !ok; ++a) ok = !strcmp(*a, *k);
    if (!ok && sq_node_find(map, *k) >= 0) {
      sq_cfg_join(keypath, sizeof(keypath), path, *k, strlen(*k));
      return SQ_CFG_FAIL(p, sq_node_key_line(map, *k, line), keypath,
                         "not used by %s '%s'; remove it or change the type", what, type_name);
    }
  }
  for (const char *const *k = needed; *k; ++k)
    if (sq_node_find(map, *k) < 0) {
      char hint[128];
      snprintf(hint, sizeof(hint), " (%s '%s' needs it)", what, type_name);
      return SQ_CFG_MISSING(p, map != NULL, line, path, *k, hint);
    }
  return SQ_SUCCESS;
}
