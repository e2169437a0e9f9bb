/**
 * @file config.c  YAML run configuration: libyaml events -> node tree -> schema walk -> sq_config.
 *
 * The schema is a set of static tables (sq_cfg_key rows), one per mapping.  A row names a key, its
 * type, whether it is required, its range and where the value goes (an offset into the struct that
 * the enclosing mapping fills), or a handler for values that need more than a store (material
 * rules, refinement zones, wave modes).  A new section is a new table plus a row in the root table;
 * docs/CONFIG.md documents every row.
 *
 * Error policy: the first problem found stops the load and is reported exactly once, as
 * "FILE:LINE: key 'section.key': what is wrong and what to do".  The tree is built completely
 * before the walk, so YAML syntax errors are reported before schema errors.  The walk visits keys
 * in table order (not file order); unknown and duplicate keys of a mapping are checked, in file
 * order, before any of its values.  On failure the caller's struct holds the defaults, never half a
 * file.
 */
#include "sq_config.h"
#include "sq_expr.h"
#include "sq_friction.h"
#include "sq_ref.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/** Deepest nesting accepted (the schema needs 5; the limit keeps the recursive walk bounded). */
#define SQ_CFG_MAX_DEPTH 32
/** Largest config file read. */
#define SQ_CFG_MAX_BYTES ((size_t)16 << 20)
/** Most keys one schema table may have. */
#define SQ_CFG_MAX_KEYS 32
/** Size of key-path buffers ("materials.layers[3].rho"). */
#define SQ_CFG_PATH 256
/** Characters of user text echoed in a message before it is cut with "...". */
#define SQ_CFG_SHOW 60

_Static_assert(sizeof(((sq_config *)0)->mesh_kind) == sizeof(int), "enum fields are stored as int");
_Static_assert(sizeof(((sq_config *)0)->ic_kind) == sizeof(int), "enum fields are stored as int");
_Static_assert(sizeof(((sq_config *)0)->ic_profile) == sizeof(int),
               "enum fields are stored as int");
_Static_assert(sizeof(sq_precision) == sizeof(int), "enum fields are stored as int");
_Static_assert(sizeof(((sq_wave_mode *)0)->type) == sizeof(int), "enum fields are stored as int");

/* ============================================================================================== */
/* Node tree                                                                                      */
/* ============================================================================================== */

typedef enum { SQ_NODE_SCALAR, SQ_NODE_MAP, SQ_NODE_SEQ } sq_node_kind;

/** One YAML node.  Mappings keep their pairs in file order (keys[i] -> items[i]). */
typedef struct sq_node {
  sq_node_kind kind;
  int line;               /**< 1-based line where the node starts */
  char *text;             /**< scalar: the value, NUL-terminated (it may also contain NULs) */
  size_t len;             /**< scalar: length of text in bytes */
  int quoted;             /**< scalar: written in quotes or as a block scalar, i.e. a string */
  size_t n, cap;          /**< map: pairs, seq: items */
  struct sq_node **keys;  /**< map: key scalars */
  struct sq_node **items; /**< map: values, seq: items */
} sq_node;

/** State of one load. */
typedef struct sq_cfg_parse {
  const char *name; /**< config name used in messages */
  const char *dir;  /**< folder of the config file, "" or ending in '/' */
  const unsigned char *buf;
  size_t len;
} sq_cfg_parse;

static void sq_node_free(sq_node *node) {
  if (!node) return;
  for (size_t i = 0; i < node->n; ++i) {
    if (node->keys) sq_node_free(node->keys[i]);
    sq_node_free(node->items[i]);
  }
  free(node->keys);
  free(node->items);
  free(node->text);
  free(node);
}

static sq_node *sq_node_new(sq_node_kind kind, int line) {
  sq_node *node = calloc(1, sizeof(*node));
  if (node) {
    node->kind = kind;
    node->line = line;
  }
  return node;
}

/** Append a pair (map) or an item (seq, @p key NULL); takes ownership of both on success. */
static int sq_node_push(sq_node *node, sq_node *key, sq_node *item) {
  if (node->n == node->cap) {
    size_t cap = node->cap ? 2 * node->cap : 8;
    sq_node **items = realloc(node->items, cap * sizeof(*items));
    if (!items) return SQ_ERR_MEMORY;
    node->items = items;
    if (node->kind == SQ_NODE_MAP) {
      sq_node **keys = realloc(node->keys, cap * sizeof(*keys));
      if (!keys) return SQ_ERR_MEMORY;
      node->keys = keys;
    }
    node->cap = cap;
  }
  if (node->kind == SQ_NODE_MAP) node->keys[node->n] = key;
  node->items[node->n++] = item;
  return SQ_SUCCESS;
}

static int sq_node_is_null(const sq_node *node) {
  if (!node || node->kind != SQ_NODE_SCALAR || node->quoted) return 0;
  const char *t = node->text;
  return !strcmp(t, "") || !strcmp(t, "~") || !strcmp(t, "null") || !strcmp(t, "Null") ||
         !strcmp(t, "NULL");
}

/** Does the scalar @p key spell @p name exactly? */
static int sq_node_is(const sq_node *key, const char *name) {
  return key->kind == SQ_NODE_SCALAR && key->len == strlen(name) &&
         !memcmp(key->text, name, key->len);
}

/** Pair index of @p name in mapping @p map, or -1 (also for a NULL map). */
static long sq_node_find(const sq_node *map, const char *name) {
  if (!map || map->kind != SQ_NODE_MAP) return -1;
  for (size_t i = 0; i < map->n; ++i)
    if (sq_node_is(map->keys[i], name)) return (long)i;
  return -1;
}

/** Line of key @p name in @p map, or @p fallback. */
static int sq_node_key_line(const sq_node *map, const char *name, int fallback) {
  long i = sq_node_find(map, name);
  return i < 0 ? fallback : map->keys[i]->line;
}

/* ============================================================================================== */
/* Messages                                                                                       */
/* ============================================================================================== */

/** Copy user text for a message: control bytes escaped, cut after SQ_CFG_SHOW characters. */
static void sq_cfg_show(char *out, size_t size, const char *text, size_t len) {
  size_t o = 0;
  for (size_t i = 0; i < len; ++i) {
    unsigned char c = (unsigned char)text[i];
    if (i >= SQ_CFG_SHOW || o + 8 >= size) {
      /* do not leave half a UTF-8 character before the "..." */
      size_t j = o;
      while (j > 0 && ((unsigned char)out[j - 1] & 0xC0) == 0x80) --j;
      if (j > 0 && ((unsigned char)out[j - 1] & 0x80)) {
        unsigned char lead = (unsigned char)out[j - 1];
        size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
        if (o - (j - 1) < need) o = j - 1;
      }
      memcpy(out + o, "...", 3);
      o += 3;
      break;
    }
    if (c < 0x20 || c == 0x7F)
      o += (size_t)snprintf(out + o, size - o, "\\x%02X", c);
    else
      out[o++] = (char)c;
  }
  out[o] = '\0';
}

/** What the file holds where a value was expected: "'abc'", "a sequence of 2 items", ... */
static const char *sq_cfg_found(const sq_node *node, char *out, size_t size) {
  char shown[4 * SQ_CFG_SHOW + 16];
  if (node->kind == SQ_NODE_MAP)
    snprintf(out, size, "a mapping");
  else if (node->kind == SQ_NODE_SEQ)
    snprintf(out, size, "a sequence of %zu item%s", node->n, node->n == 1 ? "" : "s");
  else if (sq_node_is_null(node))
    snprintf(out, size, "an empty value");
  else {
    sq_cfg_show(shown, sizeof(shown), node->text, node->len);
    if (node->quoted)
      snprintf(out, size, "the quoted string \"%s\"", shown);
    else
      snprintf(out, size, "'%s'", shown);
  }
  return out;
}

/** Mark a cut path buffer with a trailing "..." (paths are bounded; user keys are cut earlier). */
static void sq_cfg_path_done(char *out, size_t size, int written) {
  if (written < 0 || (size_t)written >= size) memcpy(out + size - 4, "...", 4);
}

/** "a.b" from @p path and @p key (user text is made printable). */
static void sq_cfg_join(char *out, size_t size, const char *path, const char *key, size_t keylen) {
  char shown[4 * SQ_CFG_SHOW + 16];
  sq_cfg_show(shown, sizeof(shown), key, keylen);
  sq_cfg_path_done(out, size, snprintf(out, size, "%s%s%s", path, path[0] ? "." : "", shown));
}

/**
 * Report one input error.  @p path NULL gives "FILE:LINE: msg", otherwise
 * "FILE:LINE: key 'path': msg".  Returns SQ_ERR_INPUT.
 */
static int sq_cfg_fail(int src_line, const sq_cfg_parse *p, int line, const char *path,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int sq_cfg_fail(int src_line, const sq_cfg_parse *p, int line, const char *path,
                       const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if (!path) return sq_error(SQ_ERR_INPUT, __FILE__, src_line, "%s:%d: %s", p->name, line, msg);
  return sq_error(SQ_ERR_INPUT, __FILE__, src_line, "%s:%d: key '%s': %s", p->name, line, path,
                  msg);
}
#define SQ_CFG_FAIL(p, line, path, ...) sq_cfg_fail(__LINE__, (p), (line), (path), __VA_ARGS__)

/** Report a missing required key @p key of the mapping @p section (given at @p line, or absent). */
static int sq_cfg_missing(int src_line, const sq_cfg_parse *p, int given, int line,
                          const char *section, const char *key, const char *hint) {
  char path[SQ_CFG_PATH];
  sq_cfg_join(path, sizeof(path), section, key, strlen(key));
  if (!section[0])
    return sq_cfg_fail(src_line, p, line, path,
                       "required section is missing; add a '%s:' section%s", key, hint);
  if (given)
    return sq_cfg_fail(src_line, p, line, path,
                       "required key is missing from section '%s' (line %d); add '%s: ...'%s",
                       section, line, key, hint);
  return sq_cfg_fail(
      src_line, p, line, path,
      "required key is missing: section '%s' is not in the file; add it with '%s: ...'%s", section,
      key, hint);
}
#define SQ_CFG_MISSING(p, given, line, section, key, hint)                                         \
  sq_cfg_missing(__LINE__, (p), (given), (line), (section), (key), (hint))

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

/* ============================================================================================== */
/* Schema                                                                                         */
/* ============================================================================================== */

typedef enum {
  SQ_KEY_INT,    /**< int */
  SQ_KEY_FLOAT,  /**< double, finite; integers accepted */
  SQ_KEY_BOOL,   /**< int 0/1 */
  SQ_KEY_STRING, /**< char[size]; optionally restricted to words */
  SQ_KEY_ENUM,   /**< int, from words */
  SQ_KEY_FLOAT3, /**< double[3] */
  SQ_KEY_INT3,   /**< int[3] */
  SQ_KEY_MAP,    /**< nested mapping: sub schema at offset, or the item handler */
  SQ_KEY_SEQ,    /**< sequence of mappings: the item handler is called per item */
  SQ_KEY_EXPR    /**< sq_cfg_expr: a number or an expression in x, y, z */
} sq_cfg_type;

/** Range flags: which bounds apply and whether they are inclusive. */
enum { SQ_MIN_GE = 1, SQ_MIN_GT = 2, SQ_MAX_LE = 4, SQ_MAX_LT = 8 };

/** One allowed word of an enum (or restricted string) and the value it stores. */
typedef struct sq_cfg_word {
  const char *word;
  int value;
} sq_cfg_word;

typedef struct sq_cfg_schema sq_cfg_schema;

/**
 * Handler of a mapping (index -1) or of one sequence item: parse @p node, store into @p base.
 * @p line is where the mapping is introduced (its key's line, or the item's line).
 */
typedef int (*sq_cfg_item_fn)(sq_cfg_parse *p, const sq_node *node, int line, const char *path,
                              int index, void *base);
/** Extra check of one stored value (@p field points at it). */
typedef int (*sq_cfg_value_fn)(sq_cfg_parse *p, const sq_node *node, const char *path, void *field);
/** Cross-key check of a whole mapping (@p map NULL when the mapping is absent or empty). */
typedef int (*sq_cfg_check_fn)(sq_cfg_parse *p, const sq_node *map, int line, const char *path,
                               void *base);

/** One row of a schema table. */
typedef struct sq_cfg_key {
  const char *name;
  sq_cfg_type type;
  int required;
  int range; /**< SQ_MIN_* | SQ_MAX_* (numbers, per component for triples) */
  double min, max;
  size_t offset;            /**< where the value goes in the base struct */
  size_t size;              /**< SQ_KEY_STRING: buffer size */
  const sq_cfg_word *words; /**< SQ_KEY_ENUM / SQ_KEY_STRING: allowed words, NULL-terminated */
  const sq_cfg_schema *sub; /**< SQ_KEY_MAP: nested schema (base + offset) */
  sq_cfg_item_fn item;      /**< SQ_KEY_SEQ (per item) or SQ_KEY_MAP (whole mapping) */
  int min_items, max_items; /**< SQ_KEY_SEQ */
  sq_cfg_value_fn validate; /**< optional extra check after the store */
  int optional;             /**< SQ_KEY_MAP: an absent mapping is skipped, so its required keys and checks
                                 apply only when it is given (sections that switch a feature on) */
  const char *const *expr_vars; /**< SQ_KEY_EXPR: extra variable names besides x, y, z (NULL-terminated) */
} sq_cfg_key;

/** A mapping: its keys (terminated by a row with name NULL) and an optional cross-key check. */
struct sq_cfg_schema {
  const sq_cfg_key *keys;
  sq_cfg_check_fn check;
};

static int sq_cfg_map(sq_cfg_parse *p, const sq_node *map, int line, const char *path,
                      const sq_cfg_schema *schema, void *base);

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
static int sq_cfg_float_syntax(const char *s) {
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
  return node->kind == SQ_NODE_SCALAR && !node->quoted && !sq_node_is_null(node) &&
         strlen(node->text) == node->len;
}

/** "; remove the quotes" when a quoted scalar would have been valid unquoted. */
static const char *sq_cfg_quote_hint(const sq_node *node, int (*valid)(const char *)) {
  if (node->kind == SQ_NODE_SCALAR && node->quoted && strlen(node->text) == node->len &&
      valid(node->text))
    return "; remove the quotes";
  return "";
}

static void sq_cfg_range_text(const sq_cfg_key *key, int is_int, char *out, size_t size) {
  int lo = key->range & (SQ_MIN_GE | SQ_MIN_GT), hi = key->range & (SQ_MAX_LE | SQ_MAX_LT);
  if (lo && hi && is_int && (key->range & SQ_MIN_GE) && (key->range & SQ_MAX_LE))
    snprintf(out, size, "in the range %g..%g", key->min, key->max);
  else if (lo && hi)
    snprintf(out, size, "in %c%g, %g%c", (key->range & SQ_MIN_GE) ? '[' : '(', key->min, key->max,
             (key->range & SQ_MAX_LE) ? ']' : ')');
  else if (lo)
    snprintf(out, size, "%s %g", (key->range & SQ_MIN_GE) ? ">=" : ">", key->min);
  else
    snprintf(out, size, "%s %g", (key->range & SQ_MAX_LE) ? "<=" : "<", key->max);
}

static int sq_cfg_check_range(sq_cfg_parse *p, const sq_cfg_key *key, const sq_node *node,
                              const char *path, double x, int is_int) {
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

static int sq_cfg_get_int(sq_cfg_parse *p, const sq_cfg_key *key, const sq_node *node,
                          const char *path, int *out) {
  char found[4 * SQ_CFG_SHOW + 64];
  if (!sq_cfg_plain(node) || !sq_cfg_int_syntax(node->text))
    return SQ_CFG_FAIL(p, node->line, path, "expected an integer, found %s%s",
                       sq_cfg_found(node, found, sizeof(found)),
                       sq_cfg_quote_hint(node, sq_cfg_int_syntax));
  errno = 0;
  long long x = strtoll(node->text, NULL, 10);
  if (errno == ERANGE || x < INT_MIN || x > INT_MAX) {
    double huge = node->text[0] == '-' ? -INFINITY : INFINITY;
    if (key->range) SQ_CALL(sq_cfg_check_range(p, key, node, path, huge, 1));
    return SQ_CFG_FAIL(p, node->line, path, "%s is too large for an integer",
                       sq_cfg_found(node, found, sizeof(found)));
  }
  SQ_CALL(sq_cfg_check_range(p, key, node, path, (double)x, 1));
  *out = (int)x;
  return SQ_SUCCESS;
}

static int sq_cfg_get_float(sq_cfg_parse *p, const sq_cfg_key *key, const sq_node *node,
                            const char *path, double *out) {
  char found[4 * SQ_CFG_SHOW + 64];
  if (sq_cfg_plain(node) && sq_cfg_nonfinite_word(node->text))
    return SQ_CFG_FAIL(p, node->line, path,
                       "expected a finite number, found %s; NaN and infinity are not allowed",
                       sq_cfg_found(node, found, sizeof(found)));
  if (!sq_cfg_plain(node) || !sq_cfg_float_syntax(node->text))
    return SQ_CFG_FAIL(p, node->line, path, "expected a number, found %s%s",
                       sq_cfg_found(node, found, sizeof(found)),
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

static int sq_cfg_is_bool_word(const char *s) {
  return sq_cfg_bool_word(s) >= 0;
}

static int sq_cfg_get_bool(sq_cfg_parse *p, const sq_node *node, const char *path, int *out) {
  char found[4 * SQ_CFG_SHOW + 64];
  int b = sq_cfg_plain(node) ? sq_cfg_bool_word(node->text) : -1;
  if (b < 0)
    return SQ_CFG_FAIL(p, node->line, path, "expected true or false, found %s%s",
                       sq_cfg_found(node, found, sizeof(found)),
                       sq_cfg_quote_hint(node, sq_cfg_is_bool_word));
  *out = b;
  return SQ_SUCCESS;
}

/** "box, gmsh, puml" */
static void sq_cfg_word_list(const sq_cfg_word *words, char *out, size_t size) {
  size_t o = 0;
  out[0] = '\0';
  for (int i = 0; words[i].word && o < size; ++i)
    o += (size_t)snprintf(out + o, size - o, "%s%s", i ? ", " : "",
                          words[i].word[0] ? words[i].word : "\"\"");
}

/** Index of the word @p node spells, or an error listing the allowed words. */
static int sq_cfg_get_word(sq_cfg_parse *p, const sq_cfg_key *key, const sq_node *node,
                           const char *path, int *index) {
  char found[4 * SQ_CFG_SHOW + 64], list[512];
  if (node->kind == SQ_NODE_SCALAR && strlen(node->text) == node->len &&
      (node->quoted || !sq_node_is_null(node)))
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

static int sq_cfg_get_string(sq_cfg_parse *p, const sq_cfg_key *key, const sq_node *node,
                             const char *path, char *out) {
  char found[4 * SQ_CFG_SHOW + 64];
  if (node->kind != SQ_NODE_SCALAR || (!node->quoted && sq_node_is_null(node)))
    return SQ_CFG_FAIL(p, node->line, path, "expected a string, found %s%s",
                       sq_cfg_found(node, found, sizeof(found)),
                       node->kind == SQ_NODE_SCALAR ? " (write \"\" for an empty string)" : "");
  if (strlen(node->text) != node->len)
    return SQ_CFG_FAIL(p, node->line, path, "the string contains a NUL character");
  if (node->len >= key->size)
    return SQ_CFG_FAIL(p, node->line, path, "the string is too long (%zu bytes, at most %zu)",
                       node->len, key->size - 1);
  if (key->words) {
    int index;
    SQ_CALL(sq_cfg_get_word(p, key, node, path, &index));
  }
  memcpy(out, node->text, node->len + 1);
  return SQ_SUCCESS;
}

/** [x, y, z] of ints or floats; the key's range applies to every component. */
static int sq_cfg_get_triple(sq_cfg_parse *p, const sq_cfg_key *key, const sq_node *node,
                             const char *path, void *field) {
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
    if (key->type == SQ_KEY_INT3)
      SQ_CALL(sq_cfg_get_int(p, key, node->items[i], elem, &ints[i]));
    else
      SQ_CALL(sq_cfg_get_float(p, key, node->items[i], elem, &reals[i]));
  }
  if (key->type == SQ_KEY_INT3)
    memcpy(field, ints, sizeof(ints));
  else
    memcpy(field, reals, sizeof(reals));
  return SQ_SUCCESS;
}

static int sq_cfg_get_seq(sq_cfg_parse *p, const sq_cfg_key *key, const sq_node *node,
                          int key_line, const char *path, void *base) {
  char found[4 * SQ_CFG_SHOW + 64], item[SQ_CFG_PATH];
  size_t n = 0;
  if (node->kind == SQ_NODE_SEQ)
    n = node->n;
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
      return SQ_CFG_FAIL(p, node->line, path, "'%s' depends on t; these values are fixed in time and may depend "
                         "on x, y, z and group only", node->text);
    return SQ_CFG_FAIL(p, node->line, path, "'%s' depends on t; fault values may depend on x, y, z only (the "
                       "nucleation ramp is fault.nucleation_time)", node->text);
  }
  sq_expr_destroy(e);
  if (rc == SQ_ERR_INPUT) return SQ_CFG_FAIL(p, node->line, path, "'%s': %s", node->text, err);
  if (rc) return rc;
  memcpy(out->text, node->text, node->len + 1);
  out->line = node->line;
  return SQ_SUCCESS;
}

/** Parse the value @p node of @p key (written on line @p key_line) and store it into @p base. */
static int sq_cfg_value(sq_cfg_parse *p, const sq_cfg_key *key, const sq_node *node, int key_line,
                        const char *path, void *base) {
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
  case SQ_KEY_STRING:
    SQ_CALL(sq_cfg_get_string(p, key, node, path, field));
    break;
  case SQ_KEY_ENUM: {
    int index = 0;
    SQ_CALL(sq_cfg_get_word(p, key, node, path, &index));
    memcpy(field, &key->words[index].value, sizeof(int));
    break;
  }
  case SQ_KEY_FLOAT3:
  case SQ_KEY_INT3:
    SQ_CALL(sq_cfg_get_triple(p, key, node, path, field));
    break;
  case SQ_KEY_MAP:
    if (key->item)
      SQ_CALL(key->item(p, node, key_line, path, -1, base));
    else
      SQ_CALL(sq_cfg_map(p, node, key_line, path, key->sub, field));
    break;
  case SQ_KEY_SEQ:
    SQ_CALL(sq_cfg_get_seq(p, key, node, key_line, path, base));
    break;
  case SQ_KEY_EXPR:
    SQ_CALL(sq_cfg_get_expr(p, node, path, key->expr_vars, field));
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
static int sq_cfg_unknown(sq_cfg_parse *p, const sq_node *key, const char *path,
                          const sq_cfg_schema *schema) {
  char keypath[SQ_CFG_PATH], list[1024], where[SQ_CFG_PATH];
  const char *what = path[0] ? "key" : "section";
  sq_cfg_join(keypath, sizeof(keypath), path, key->text, key->len);
  if (key->kind != SQ_NODE_SCALAR || !key->len || sq_node_is_null(key))
    return SQ_CFG_FAIL(p, key->line, keypath, "a key must be a plain word");
  sq_cfg_near near = {.given = key->text};
  for (const sq_cfg_key *k = schema->keys; k->name; ++k) sq_cfg_near_consider(&near, k->name);
  const char *suggestion = sq_cfg_near_result(&near);
  if (suggestion)
    return SQ_CFG_FAIL(p, key->line, keypath, "unknown %s; did you mean '%s'?", what, suggestion);
  /* a key of a nested mapping written one level too high ("order" at the top level) */
  for (const sq_cfg_key *s = schema->keys; s->name; ++s)
    if (s->type == SQ_KEY_MAP && s->sub)
      for (const sq_cfg_key *k = s->sub->keys; k->name; ++k)
        if (sq_node_is(key, k->name)) {
          char inner[SQ_CFG_PATH];
          sq_cfg_join(inner, sizeof(inner), path, s->name, strlen(s->name));
          return SQ_CFG_FAIL(p, key->line, keypath,
                             "unknown %s; did you mean '%s.%s'? (move it into '%s')", what, inner,
                             k->name, inner);
        }
  size_t o = 0;
  for (const sq_cfg_key *k = schema->keys; k->name && o < sizeof(list); ++k)
    o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", k == schema->keys ? "" : ", ",
                          k->name);
  if (path[0])
    snprintf(where, sizeof(where), "in '%s'", path);
  else
    snprintf(where, sizeof(where), "at the top level");
  return SQ_CFG_FAIL(p, key->line, keypath, "unknown %s; valid %ss %s are: %s", what, what, where,
                     list);
}

/**
 * Walk mapping @p map (NULL: absent; a null scalar: empty) against @p schema, storing into @p base.
 * @p line is where the mapping is introduced (its key's line; the parent's line when absent): the
 * line that messages about missing keys name.
 */
static int sq_cfg_map(sq_cfg_parse *p, const sq_node *map, int line, const char *path,
                      const sq_cfg_schema *schema, void *base) {
  char found[4 * SQ_CFG_SHOW + 64], keypath[SQ_CFG_PATH];
  int nkeys = sq_cfg_nkeys(schema);
  if (nkeys > SQ_CFG_MAX_KEYS)
    return sq_error(SQ_ERR_INTERNAL, __FILE__, __LINE__, "config schema '%s' has %d keys, max %d",
                    path, nkeys, SQ_CFG_MAX_KEYS);
  const sq_node *pairs = NULL;
  int given = map != NULL;
  if (map) {
    if (map->kind == SQ_NODE_MAP)
      pairs = map;
    else if (!sq_node_is_null(map))
      return SQ_CFG_FAIL(p, map->line, path,
                         "expected a mapping ('key: value' lines or {key: value, ...}), found %s",
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
      return SQ_CFG_FAIL(p, key->line, keypath,
                         "duplicate key (first given on line %d); give each key once",
                         pairs->keys[first[j]]->line);
    }
    seen[j] = 1;
    first[j] = i;
  }
  for (int j = 0; j < nkeys; ++j) {
    const sq_cfg_key *key = &schema->keys[j];
    sq_cfg_join(keypath, sizeof(keypath), path, key->name, strlen(key->name));
    if (seen[j]) {
      SQ_CALL(
          sq_cfg_value(p, key, pairs->items[first[j]], pairs->keys[first[j]]->line, keypath, base));
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

/* ============================================================================================== */
/* The tables and their handlers                                                                  */
/* ============================================================================================== */

/* ---- shared checks --------------------------------------------------------------------------- */

static int sq_cfg_nonempty(sq_cfg_parse *p, const sq_node *node, const char *path, void *field) {
  if (!((const char *)field)[0]) return SQ_CFG_FAIL(p, node->line, path, "must not be empty");
  return SQ_SUCCESS;
}

/** hi > lo on every axis; the error points at 'hi' (or 'lo', or the mapping). */
static int sq_cfg_check_box_order(sq_cfg_parse *p, const sq_node *map, int line, const char *path,
                                  const double lo[3], const double hi[3]) {
  static const char axes[] = "xyz";
  char keypath[SQ_CFG_PATH];
  for (int d = 0; d < 3; ++d)
    if (!(hi[d] > lo[d])) {
      int at = sq_node_key_line(map, "hi", sq_node_key_line(map, "lo", line));
      sq_cfg_join(keypath, sizeof(keypath), path, "hi", 2);
      return SQ_CFG_FAIL(p, at, keypath,
                         "must be greater than lo on every axis; on the %c axis lo = %g, hi = %g",
                         axes[d], lo[d], hi[d]);
    }
  return SQ_SUCCESS;
}

/* ---- mesh.box.boundary ----------------------------------------------------------------------- */

/* clang-format off */
static const sq_cfg_word sq_cfg_bc_words[] = {
    {"periodic", SQ_BC_PERIODIC}, {"free_surface", SQ_BC_FREE}, {"absorbing", SQ_BC_ABSORB},
    {NULL, 0}};
/* clang-format on */

static const char *sq_cfg_bc_word(int bc) {
  for (int i = 0; sq_cfg_bc_words[i].word; ++i)
    if (sq_cfg_bc_words[i].value == bc) return sq_cfg_bc_words[i].word;
  return "?";
}

static const char *const sq_cfg_side_names[6] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};

/** Periodic faces come in pairs: both sides of an axis periodic, or neither. */
static int sq_cfg_check_boundary(sq_cfg_parse *p, const sq_node *map, int line, const char *path,
                                 void *base) {
  const int *bc = base;
  char keypath[SQ_CFG_PATH];
  for (int axis = 0; axis < 3; ++axis) {
    int a = 2 * axis, b = 2 * axis + 1;
    if ((bc[a] == SQ_BC_PERIODIC) == (bc[b] == SQ_BC_PERIODIC)) continue;
    /* point at a side the file names (the other may be the default) */
    int side = sq_node_find(map, sq_cfg_side_names[a]) >= 0 ? a : b;
    int other = side == a ? b : a;
    int given_other = sq_node_find(map, sq_cfg_side_names[other]) >= 0;
    sq_cfg_join(keypath, sizeof(keypath), path, sq_cfg_side_names[side],
                strlen(sq_cfg_side_names[side]));
    return SQ_CFG_FAIL(p, sq_node_key_line(map, sq_cfg_side_names[side], line), keypath,
                       "the %c axis would be periodic on one side only (%s is %s, %s is %s%s); "
                       "make both %s and %s periodic, or neither",
                       "xyz"[axis], sq_cfg_side_names[side], sq_cfg_bc_word(bc[side]),
                       sq_cfg_side_names[other], sq_cfg_bc_word(bc[other]),
                       given_other ? "" : ", the default", sq_cfg_side_names[a],
                       sq_cfg_side_names[b]);
  }
  return SQ_SUCCESS;
}

/* clang-format off */
static const sq_cfg_key sq_cfg_boundary_keys[] = {
    {.name = "xmin", .type = SQ_KEY_ENUM, .words = sq_cfg_bc_words, .offset = 0 * sizeof(int)},
    {.name = "xmax", .type = SQ_KEY_ENUM, .words = sq_cfg_bc_words, .offset = 1 * sizeof(int)},
    {.name = "ymin", .type = SQ_KEY_ENUM, .words = sq_cfg_bc_words, .offset = 2 * sizeof(int)},
    {.name = "ymax", .type = SQ_KEY_ENUM, .words = sq_cfg_bc_words, .offset = 3 * sizeof(int)},
    {.name = "zmin", .type = SQ_KEY_ENUM, .words = sq_cfg_bc_words, .offset = 4 * sizeof(int)},
    {.name = "zmax", .type = SQ_KEY_ENUM, .words = sq_cfg_bc_words, .offset = 5 * sizeof(int)},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_boundary_schema = {sq_cfg_boundary_keys, sq_cfg_check_boundary};

/* ---- mesh.box.refine[i] ---------------------------------------------------------------------- */

typedef struct sq_cfg_zone {
  double lo[3], hi[3];
  int factor;
} sq_cfg_zone;

static int sq_cfg_check_zone(sq_cfg_parse *p, const sq_node *map, int line, const char *path,
                             void *base) {
  const sq_cfg_zone *zone = base;
  return sq_cfg_check_box_order(p, map, line, path, zone->lo, zone->hi);
}

/* clang-format off */
static const sq_cfg_key sq_cfg_zone_keys[] = {
    {.name = "lo", .type = SQ_KEY_FLOAT3, .required = 1, .offset = offsetof(sq_cfg_zone, lo)},
    {.name = "hi", .type = SQ_KEY_FLOAT3, .required = 1, .offset = offsetof(sq_cfg_zone, hi)},
    {.name = "factor", .type = SQ_KEY_INT, .range = SQ_MIN_GE | SQ_MAX_LE, .min = 2, .max = 16,
     .offset = offsetof(sq_cfg_zone, factor)},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_zone_schema = {sq_cfg_zone_keys, sq_cfg_check_zone};

static int sq_cfg_zone_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path,
                            int index, void *base) {
  sq_box_params *box = base;
  sq_cfg_zone zone = {.factor = 2};
  SQ_CALL(sq_cfg_map(p, node, line, path, &sq_cfg_zone_schema, &zone));
  memcpy(box->zone_lo[index], zone.lo, sizeof(zone.lo));
  memcpy(box->zone_hi[index], zone.hi, sizeof(zone.hi));
  box->zone_factor[index] = zone.factor;
  box->nzones = index + 1;
  return SQ_SUCCESS;
}

/* ---- mesh.box -------------------------------------------------------------------------------- */

static int sq_cfg_check_box(sq_cfg_parse *p, const sq_node *map, int line, const char *path,
                            void *base) {
  const sq_box_params *box = base;
  return sq_cfg_check_box_order(p, map, line, path, box->lo, box->hi);
}

/* mesh.box.fault: {lo, hi}, a rectangle flat along one axis whose grid faces become rupture faces */
static const sq_cfg_key sq_cfg_box_fault_keys[] = {
    {.name = "lo", .type = SQ_KEY_FLOAT3, .required = 1, .offset = offsetof(sq_box_params, fault_lo)},
    {.name = "hi", .type = SQ_KEY_FLOAT3, .required = 1, .offset = offsetof(sq_box_params, fault_hi)},
    {.name = NULL}};
static const sq_cfg_schema sq_cfg_box_fault_schema = {sq_cfg_box_fault_keys, NULL};

static int sq_cfg_box_fault(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base) {
  (void)index;
  sq_box_params *box = base;
  SQ_CALL(sq_cfg_map(p, node, line, path, &sq_cfg_box_fault_schema, box));
  box->has_fault = 1;
  int flat = -1, nflat = 0;
  for (int a = 0; a < 3; ++a)
    if (box->fault_lo[a] == box->fault_hi[a]) flat = a, ++nflat;
  if (nflat != 1)
    return SQ_CFG_FAIL(p, line, path, "the fault rectangle must be flat along exactly one axis (lo == hi there), "
                       "found %d flat axes", nflat);
  if (box->nzones == 0) { /* uniform grid: the plane must be one of its interior planes (refined grids: box.c) */
    const double h = (box->hi[flat] - box->lo[flat]) / box->n[flat], k = (box->fault_lo[flat] - box->lo[flat]) / h;
    if (!(fabs(k - round(k)) < 1e-9 && k > 0.5 && k < box->n[flat] - 0.5))
      return SQ_CFG_FAIL(p, line, path, "the fault plane %c = %g is not a grid plane inside the box (planes every %g "
                         "from %g); move it or change mesh.box.cells", "xyz"[flat], box->fault_lo[flat], h,
                         box->lo[flat]);
  }
  return SQ_SUCCESS;
}

/* clang-format off */
static const sq_cfg_key sq_cfg_box_keys[] = {
    {.name = "cells", .type = SQ_KEY_INT3, .range = SQ_MIN_GE | SQ_MAX_LE, .min = 1, .max = 100000,
     .offset = offsetof(sq_box_params, n)},
    {.name = "lo", .type = SQ_KEY_FLOAT3, .offset = offsetof(sq_box_params, lo)},
    {.name = "hi", .type = SQ_KEY_FLOAT3, .offset = offsetof(sq_box_params, hi)},
    {.name = "tets_per_cube", .type = SQ_KEY_INT, .range = SQ_MIN_GE | SQ_MAX_LE,
     .min = 5, .max = 6,
     .offset = offsetof(sq_box_params, tets_per_cube)},
    {.name = "boundary", .type = SQ_KEY_MAP, .sub = &sq_cfg_boundary_schema,
     .offset = offsetof(sq_box_params, bc)},
    {.name = "refine", .type = SQ_KEY_SEQ, .item = sq_cfg_zone_item,
     .min_items = 0, .max_items = 4},
    {.name = "jitter", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GE | SQ_MAX_LE, .min = 0, .max = 0.25,
     .offset = offsetof(sq_box_params, jitter)},
    {.name = "fault", .type = SQ_KEY_MAP, .item = sq_cfg_box_fault},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_box_schema = {sq_cfg_box_keys, sq_cfg_check_box};

/* ---- mesh ------------------------------------------------------------------------------------ */

/* clang-format off */
static const sq_cfg_word sq_cfg_mesh_words[] = {
    {"box", SQ_MESH_BOX}, {"gmsh", SQ_MESH_GMSH}, {"puml", SQ_MESH_PUML}, {NULL, 0}};
/* clang-format on */

/** file only with gmsh/puml (then required, resolved against the config's folder), box only with
 * box. */
static int sq_cfg_check_mesh(sq_cfg_parse *p, const sq_node *map, int line, const char *path,
                             void *base) {
  sq_config *cfg = base;
  char keypath[SQ_CFG_PATH];
  const char *type = cfg->mesh_kind == SQ_MESH_GMSH   ? "gmsh"
                     : cfg->mesh_kind == SQ_MESH_PUML ? "puml"
                                                      : "box";
  if (cfg->mesh_kind == SQ_MESH_BOX) {
    if (sq_node_find(map, "file") >= 0) {
      sq_cfg_join(keypath, sizeof(keypath), path, "file", 4);
      return SQ_CFG_FAIL(p, sq_node_key_line(map, "file", line), keypath,
                         "only used with mesh.type gmsh or puml (mesh.type is box); remove it or "
                         "set mesh.type");
    }
    return SQ_SUCCESS;
  }
  if (sq_node_find(map, "box") >= 0) {
    sq_cfg_join(keypath, sizeof(keypath), path, "box", 3);
    return SQ_CFG_FAIL(p, sq_node_key_line(map, "box", line), keypath,
                       "only used with mesh.type box (mesh.type is %s); remove it", type);
  }
  if (sq_node_find(map, "file") < 0)
    return SQ_CFG_MISSING(p, map != NULL, line, path, "file",
                          " (mesh.type gmsh and puml read a file)");
  if (cfg->mesh_file[0] != '/' && p->dir[0]) {
    size_t ld = strlen(p->dir), lf = strlen(cfg->mesh_file);
    if (ld + lf >= SQ_PATH_MAX) {
      sq_cfg_join(keypath, sizeof(keypath), path, "file", 4);
      return SQ_CFG_FAIL(p, sq_node_key_line(map, "file", line), keypath,
                         "the path relative to the config's folder '%s' is longer than %d bytes",
                         p->dir, SQ_PATH_MAX - 1);
    }
    memmove(cfg->mesh_file + ld, cfg->mesh_file, lf + 1);
    memcpy(cfg->mesh_file, p->dir, ld);
  }
  return SQ_SUCCESS;
}

/* clang-format off */
static const sq_cfg_key sq_cfg_mesh_keys[] = {
    {.name = "type", .type = SQ_KEY_ENUM, .words = sq_cfg_mesh_words,
     .offset = offsetof(sq_config, mesh_kind)},
    {.name = "file", .type = SQ_KEY_STRING, .size = SQ_PATH_MAX,
     .offset = offsetof(sq_config, mesh_file), .validate = sq_cfg_nonempty},
    {.name = "box", .type = SQ_KEY_MAP, .sub = &sq_cfg_box_schema,
     .offset = offsetof(sq_config, box)},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_mesh_schema = {sq_cfg_mesh_keys, sq_cfg_check_mesh};

/* ---- materials ------------------------------------------------------------------------------- */

/** Everything a material entry may hold; which keys apply depends on the list. */
typedef struct sq_cfg_rule_in {
  double z_top, z_bottom;
  double lo[3], hi[3];
  int group;
  double rho, lambda, mu, vp, vs;
} sq_cfg_rule_in;

/* clang-format off */
#define SQ_CFG_MATERIAL_KEYS                                                                       \
  {.name = "rho", .type = SQ_KEY_FLOAT, .required = 1, .range = SQ_MIN_GT, .min = 0,               \
   .offset = offsetof(sq_cfg_rule_in, rho)},                                                       \
  {.name = "lambda", .type = SQ_KEY_FLOAT, .offset = offsetof(sq_cfg_rule_in, lambda)},            \
  {.name = "mu", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GE, .min = 0,                               \
   .offset = offsetof(sq_cfg_rule_in, mu)},                                                        \
  {.name = "vp", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GT, .min = 0,                               \
   .offset = offsetof(sq_cfg_rule_in, vp)},                                                        \
  {.name = "vs", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GE, .min = 0,                               \
   .offset = offsetof(sq_cfg_rule_in, vs)}
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
 * (rho, lambda, mu) or (rho, vp, vs), not a mix; vp/vs become mu = rho vs^2, lambda = rho vp^2 - 2
 * mu. Requires a positive bulk modulus lambda + 2 mu / 3 for the first form and vp > vs >= 0 for
 * the second.
 */
static int sq_cfg_material_check(sq_cfg_parse *p, const sq_node *map, int line, const char *path,
                                 void *base) {
  const sq_cfg_rule_in *in = base;
  char keypath[SQ_CFG_PATH];
  int has_l = sq_node_find(map, "lambda") >= 0, has_m = sq_node_find(map, "mu") >= 0;
  int has_p = sq_node_find(map, "vp") >= 0, has_s = sq_node_find(map, "vs") >= 0;
  if ((has_l || has_m) && (has_p || has_s)) {
    const char *k = has_p ? "vp" : "vs";
    sq_cfg_join(keypath, sizeof(keypath), path, k, 2);
    return SQ_CFG_FAIL(p, sq_node_key_line(map, k, line), keypath,
                       "give either lambda and mu, or vp and vs, not both kinds");
  }
  if (has_l || has_m) {
    if (!has_l)
      return SQ_CFG_MISSING(p, map != NULL, line, path, "lambda", " ('mu' needs 'lambda' too)");
    if (!has_m)
      return SQ_CFG_MISSING(p, map != NULL, line, path, "mu", " ('lambda' needs 'mu' too)");
    if (!(in->lambda + 2.0 * in->mu / 3.0 > 0.0)) {
      sq_cfg_join(keypath, sizeof(keypath), path, "lambda", 6);
      return SQ_CFG_FAIL(
          p, sq_node_key_line(map, "lambda", line), keypath,
          "the bulk modulus lambda + 2 mu / 3 must be > 0 (found lambda = %g, mu = %g)", in->lambda,
          in->mu);
    }
    return SQ_SUCCESS;
  }
  if (has_p || has_s) {
    if (!has_p) return SQ_CFG_MISSING(p, map != NULL, line, path, "vp", " ('vs' needs 'vp' too)");
    if (!has_s) return SQ_CFG_MISSING(p, map != NULL, line, path, "vs", " ('vp' needs 'vs' too)");
    if (!(in->vp > in->vs)) {
      sq_cfg_join(keypath, sizeof(keypath), path, "vp", 2);
      return SQ_CFG_FAIL(p, sq_node_key_line(map, "vp", line), keypath,
                         "must be greater than vs (found vp = %g, vs = %g)", in->vp, in->vs);
    }
    return SQ_SUCCESS;
  }
  return SQ_CFG_FAIL(p, line, path,
                     "no elastic moduli; give lambda and mu, or vp and vs, next to rho");
}

static const sq_cfg_schema sq_cfg_material_schema = {sq_cfg_material_keys, sq_cfg_material_check};
static const sq_cfg_schema sq_cfg_layer_schema = {sq_cfg_layer_keys, sq_cfg_material_check};
static const sq_cfg_schema sq_cfg_region_schema = {sq_cfg_region_keys, sq_cfg_material_check};
static const sq_cfg_schema sq_cfg_group_schema = {sq_cfg_group_keys, sq_cfg_material_check};

static sq_material sq_cfg_material_of(const sq_node *map, const sq_cfg_rule_in *in) {
  sq_material m = {.rho = in->rho, .lambda = in->lambda, .mu = in->mu};
  if (sq_node_find(map, "vp") >= 0) {
    m.mu = in->rho * in->vs * in->vs;
    m.lambda = in->rho * in->vp * in->vp - 2.0 * m.mu;
  }
  return m;
}

static int sq_cfg_material_default(sq_cfg_parse *p, const sq_node *node, int line, const char *path,
                                   int index, void *base) {
  sq_config *cfg = base;
  sq_cfg_rule_in in = {0};
  (void)index;
  SQ_CALL(sq_cfg_map(p, node, line, path, &sq_cfg_material_schema, &in));
  cfg->material_default = sq_cfg_material_of(node->kind == SQ_NODE_MAP ? node : NULL, &in);
  return SQ_SUCCESS;
}

/** Parse one rule of @p kind with @p schema and append it to cfg->rules. */
static int sq_cfg_rule(sq_cfg_parse *p, const sq_node *node, int line, const char *path,
                       sq_config *cfg, int kind, const sq_cfg_schema *schema) {
  sq_cfg_rule_in in = {0};
  SQ_CALL(sq_cfg_map(p, node, line, path, schema, &in));
  const sq_node *map = node->kind == SQ_NODE_MAP ? node : NULL;
  if (kind == SQ_MAT_LAYER && !(in.z_top > in.z_bottom)) {
    char keypath[SQ_CFG_PATH];
    sq_cfg_join(keypath, sizeof(keypath), path, "z_top", 5);
    return SQ_CFG_FAIL(p, sq_node_key_line(map, "z_top", line), keypath,
                       "must be greater than z_bottom (found z_top = %g, z_bottom = %g)", in.z_top,
                       in.z_bottom);
  }
  if (kind == SQ_MAT_REGION) SQ_CALL(sq_cfg_check_box_order(p, map, line, path, in.lo, in.hi));
  if (cfg->nrules >= SQ_MAX_MATERIALS)
    return SQ_CFG_FAIL(p, line, path,
                       "too many material rules: at most %d layers, regions and groups in total",
                       SQ_MAX_MATERIALS);
  sq_material_rule *rule = &cfg->rules[cfg->nrules++];
  memset(rule, 0, sizeof(*rule));
  rule->kind = kind;
  rule->z_top = in.z_top;
  rule->z_bottom = in.z_bottom;
  memcpy(rule->lo, in.lo, sizeof(in.lo));
  memcpy(rule->hi, in.hi, sizeof(in.hi));
  rule->group = in.group;
  rule->mat = sq_cfg_material_of(map, &in);
  return SQ_SUCCESS;
}

static int sq_cfg_layer_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path,
                             int index, void *base) {
  (void)index;
  return sq_cfg_rule(p, node, line, path, base, SQ_MAT_LAYER, &sq_cfg_layer_schema);
}
static int sq_cfg_region_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path,
                              int index, void *base) {
  (void)index;
  return sq_cfg_rule(p, node, line, path, base, SQ_MAT_REGION, &sq_cfg_region_schema);
}
static int sq_cfg_group_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path,
                             int index, void *base) {
  (void)index;
  return sq_cfg_rule(p, node, line, path, base, SQ_MAT_GROUP, &sq_cfg_group_schema);
}

/* Table order is rule order: layers, then regions, then groups. */
/* clang-format off */
static const sq_cfg_key sq_cfg_materials_keys[] = {
    {.name = "default", .type = SQ_KEY_MAP, .required = 1, .item = sq_cfg_material_default},
    {.name = "layers", .type = SQ_KEY_SEQ, .item = sq_cfg_layer_item,
     .max_items = SQ_MAX_MATERIALS},
    {.name = "regions", .type = SQ_KEY_SEQ, .item = sq_cfg_region_item,
     .max_items = SQ_MAX_MATERIALS},
    {.name = "groups", .type = SQ_KEY_SEQ, .item = sq_cfg_group_item,
     .max_items = SQ_MAX_MATERIALS},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_materials_schema = {sq_cfg_materials_keys, NULL};

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

static int sq_cfg_direction(sq_cfg_parse *p, const sq_node *node, const char *path, void *field) {
  int d;
  memcpy(&d, field, sizeof(d));
  if (d != 1 && d != -1)
    return SQ_CFG_FAIL(p, node->line, path, "must be 1 (along +k) or -1 (along -k), found %d", d);
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
static const sq_cfg_schema sq_cfg_mode_schema = {sq_cfg_mode_keys, NULL};

static int sq_cfg_mode_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path,
                            int index, void *base) {
  sq_config *cfg = base;
  sq_wave_mode mode = {.type = SQ_MODE_P, .amplitude = 1.0, .direction = 1};
  SQ_CALL(sq_cfg_map(p, node, line, path, &sq_cfg_mode_schema, &mode));
  cfg->ic_modes[index] = mode;
  cfg->ic_nmodes = index + 1;
  return SQ_SUCCESS;
}

static int sq_cfg_nonzero3(sq_cfg_parse *p, const sq_node *node, const char *path, void *field) {
  double k[3];
  memcpy(k, field, sizeof(k));
  if (k[0] == 0.0 && k[1] == 0.0 && k[2] == 0.0)
    return SQ_CFG_FAIL(p, node->line, path, "must not be the zero vector");
  return SQ_SUCCESS;
}

/** Keys that the chosen type/profile does not use are errors; planewave needs wave_vector and
 * modes. */
static int sq_cfg_check_ic(sq_cfg_parse *p, const sq_node *map, int line, const char *path,
                           void *base) {
  static const char *const planewave_only[] = {"wave_vector", "profile", "center", "width",
                                               "modes"};
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
static const sq_cfg_schema sq_cfg_ic_schema = {sq_cfg_ic_keys, sq_cfg_check_ic};

/* ---- equations ------------------------------------------------------------------------------- */

/* clang-format off */
static const sq_cfg_word sq_cfg_precision_words[] = {
    {"double", SQ_F64}, {"single", SQ_F32}, {NULL, 0}};
/* clang-format on */

/* clang-format off */
static const sq_cfg_key sq_cfg_lts_keys[] = {
    {.name = "rate", .type = SQ_KEY_INT, .range = SQ_MIN_GE, .min = 1,
     .offset = offsetof(sq_config, lts_rate)},
    {.name = "max_clusters", .type = SQ_KEY_INT, .range = SQ_MIN_GE, .min = 1,
     .offset = offsetof(sq_config, lts_max_clusters)},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_lts_schema = {sq_cfg_lts_keys, NULL};

/* clang-format off */
static const sq_cfg_key sq_cfg_equations_keys[] = {
    {.name = "order", .type = SQ_KEY_INT, .range = SQ_MIN_GE | SQ_MAX_LE, .min = SQ_ORDER_MIN,
     .max = SQ_ORDER_MAX, .offset = offsetof(sq_config, order)},
    {.name = "precision", .type = SQ_KEY_ENUM, .words = sq_cfg_precision_words,
     .offset = offsetof(sq_config, precision)},
    {.name = "cfl", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GT | SQ_MAX_LE, .min = 0, .max = 1,
     .offset = offsetof(sq_config, cfl)},
    {.name = "end_time", .type = SQ_KEY_FLOAT, .required = 1, .range = SQ_MIN_GT, .min = 0,
     .offset = offsetof(sq_config, end_time)},
    {.name = "lts", .type = SQ_KEY_MAP, .sub = &sq_cfg_lts_schema, .offset = 0},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_equations_schema = {sq_cfg_equations_keys, NULL};

/* ---- output ---------------------------------------------------------------------------------- */

static int sq_cfg_prefix(sq_cfg_parse *p, const sq_node *node, const char *path, void *field) {
  const char *s = field;
  if (!s[0]) return SQ_CFG_FAIL(p, node->line, path, "must not be empty");
  for (const char *c = s; *c; ++c) {
    int ok = (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
             *c == '_' || *c == '.' || *c == '-';
    if (!ok) {
      /* echo the whole (UTF-8) character */
      unsigned char lead = (unsigned char)*c;
      size_t n = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
      if (n > strlen(c)) n = strlen(c);
      char shown[32];
      sq_cfg_show(shown, sizeof(shown), c, n);
      return SQ_CFG_FAIL(
          p, node->line, path,
          "character '%s' is not allowed; use only letters, digits, '_', '.' and '-'", shown);
    }
  }
  return SQ_SUCCESS;
}

/* ---- output.fields (issue 6) ------------------------------------------------------------------ */

/* clang-format off */
static const sq_cfg_word sq_cfg_quantity_words[] = {
    {"s_xx", 0}, {"s_yy", 1}, {"s_zz", 2}, {"s_xy", 3}, {"s_yz", 4}, {"s_xz", 5},
    {"v1", 6},   {"v2", 7},   {"v3", 8},
    {"ep_xx", SQ_FIELD_EP_XX}, {"ep_yy", SQ_FIELD_EP_YY}, {"ep_zz", SQ_FIELD_EP_ZZ}, {"ep_xy", SQ_FIELD_EP_XY},
    {"ep_yz", SQ_FIELD_EP_YZ}, {"ep_xz", SQ_FIELD_EP_XZ}, {"eta", SQ_FIELD_ETA}, {NULL, 0}};
static const sq_cfg_word sq_cfg_format_words[] = {
    {"xdmf", SQ_OUTPUT_XDMF}, {"none", SQ_OUTPUT_NONE}, {NULL, 0}};
/* clang-format on */

static int sq_cfg_field_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path,
                             int index, void *base) {
  sq_config *cfg = base;
  const sq_cfg_key key = {.name = "fields", .type = SQ_KEY_ENUM, .words = sq_cfg_quantity_words};
  int i = 0;
  (void)line;
  (void)index;
  SQ_CALL(sq_cfg_get_word(p, &key, node, path, &i));
  const int bit = 1 << sq_cfg_quantity_words[i].value;
  if (cfg->output_fields & bit)
    return SQ_CFG_FAIL(p, node->line, path, "'%s' is listed twice", sq_cfg_quantity_words[i].word);
  cfg->output_fields |= bit;
  return SQ_SUCCESS;
}

/* clang-format off */
static const sq_cfg_key sq_cfg_output_keys[] = {
    {.name = "directory", .type = SQ_KEY_STRING, .size = SQ_PATH_MAX,
     .offset = offsetof(sq_config, output_dir), .validate = sq_cfg_nonempty},
    {.name = "prefix", .type = SQ_KEY_STRING, .size = sizeof(((sq_config *)0)->output_prefix),
     .offset = offsetof(sq_config, output_prefix), .validate = sq_cfg_prefix},
    {.name = "interval", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GE, .min = 0,
     .offset = offsetof(sq_config, output_interval)},
    {.name = "fields", .type = SQ_KEY_SEQ, .item = sq_cfg_field_item, .max_items = SQ_NFIELDS},
    {.name = "vertex_values", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, output_vertex)},
    {.name = "surface", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, output_surface)},
    {.name = "format", .type = SQ_KEY_ENUM, .words = sq_cfg_format_words,
     .offset = offsetof(sq_config, output_format)},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_output_schema = {sq_cfg_output_keys, NULL};

/* ---- runtime --------------------------------------------------------------------------------- */

/* clang-format off */
static const sq_cfg_word sq_cfg_scheduler_words[] = {
    {"", 0},      {"eager", 0}, {"prio", 0},  {"random", 0},     {"ws", 0},    {"lws", 0},
    {"dm", 0},    {"dmda", 0},  {"dmdar", 0}, {"dmdas", 0},      {"dmdasd", 0}, {"heteroprio", 0},
    {"pheft", 0}, {"peager", 0}, {NULL, 0}};
/* clang-format on */

static const sq_cfg_word sq_cfg_partition_words[] = {
    {"bw", SQ_PART_BW}, {"bwm", SQ_PART_BWM}, {"encoded", SQ_PART_ENCODED}, {NULL, 0}};

/* clang-format off */
static const sq_cfg_key sq_cfg_runtime_keys[] = {
    {.name = "tile_size", .type = SQ_KEY_INT, .range = SQ_MIN_GE, .min = 1,
     .offset = offsetof(sq_config, tile_size)},
    {.name = "scheduler", .type = SQ_KEY_STRING, .size = sizeof(((sq_config *)0)->scheduler),
     .words = sq_cfg_scheduler_words, .offset = offsetof(sq_config, scheduler)},
    {.name = "merge_neighbor_clusters", .type = SQ_KEY_BOOL,
     .offset = offsetof(sq_config, merge_neighbor_clusters)},
    {.name = "merge_corrections", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, merge_corrections)},
    {.name = "fuse_predictor", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, fuse_predictor)},
    {.name = "fuse_steps", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, fuse_steps)},
    {.name = "steps_per_task", .type = SQ_KEY_INT, .range = SQ_MIN_GE | SQ_MAX_LE, .min = 1, .max = 1024,
     .offset = offsetof(sq_config, steps_per_task)},
    {.name = "cpu_share", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GE | SQ_MAX_LE, .min = 0, .max = 1,
     .offset = offsetof(sq_config, cpu_share)},
    {.name = "cpu_tile_size", .type = SQ_KEY_INT, .range = SQ_MIN_GE, .min = 1,
     .offset = offsetof(sq_config, cpu_tile_size)},
    {.name = "cpu_task_threads", .type = SQ_KEY_INT, .range = SQ_MIN_GE, .min = 1,
     .offset = offsetof(sq_config, cpu_task_threads)},
    {.name = "gpu_affinity", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, gpu_affinity)},
    {.name = "partition", .type = SQ_KEY_ENUM, .words = sq_cfg_partition_words,
     .offset = offsetof(sq_config, partition)},
    {.name = "node_speed_weights", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, node_speed_weights)},
    {.name = NULL}};
/* clang-format on */

/** steps_per_task groups whole-step tasks only: above 1 it needs fuse_steps (docs/CONFIG.md). */
static int sq_cfg_check_runtime(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  const sq_config *cfg = base;
  if (cfg->steps_per_task > 1 && !cfg->fuse_steps) {
    char keypath[SQ_CFG_PATH];
    sq_cfg_join(keypath, sizeof(keypath), path, "steps_per_task", strlen("steps_per_task"));
    return SQ_CFG_FAIL(p, sq_node_key_line(map, "steps_per_task", line), keypath,
                       "%d steps per task apply only to tiles that take whole steps: set fuse_steps: true, or "
                       "steps_per_task: 1",
                       cfg->steps_per_task);
  }
  return SQ_SUCCESS;
}
static const sq_cfg_schema sq_cfg_runtime_schema = {sq_cfg_runtime_keys, sq_cfg_check_runtime};

/* ---- sources, receivers, checkpoint (issue 6) ------------------------------------------------ */

/** Resolve the string key @p key of @p map (stored in @p file) against the config's folder. */
static int sq_cfg_resolve(sq_cfg_parse *p, const sq_node *map, int line, const char *path,
                          const char *key, char *file) {
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
static int sq_cfg_keys_for_type(sq_cfg_parse *p, const sq_node *map, int line, const char *path,
                                const char *const *keys, const char *const *needed,
                                const char *const *allowed, const char *type_name,
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

/* clang-format off */
static const sq_cfg_word sq_cfg_stf_words[] = {
    {"gaussian", SQ_STFCFG_GAUSSIAN}, {"ricker", SQ_STFCFG_RICKER}, {"brune", SQ_STFCFG_BRUNE},
    {"loh1", SQ_STFCFG_LOH1}, {"table", SQ_STFCFG_TABLE}, {NULL, 0}};
/* clang-format on */

static int sq_cfg_check_stf(sq_cfg_parse *p, const sq_node *map, int line, const char *path,
                            void *base) {
  static const char *const keys[] = {"delay", "width", "frequency", "corner_frequency", "period",
                                     "file", NULL};
  static const char *const need[5][2] = {
      {"width", NULL}, {"frequency", NULL}, {"corner_frequency", NULL}, {"period", NULL}, {"file", NULL}};
  static const char *const delay[] = {"delay", NULL}, *const none[] = {NULL};
  sq_stf_config *stf = base;
  if (!map) return SQ_SUCCESS; /* absent: the source's check decides whether it is needed */
  if (sq_node_find(map, "type") < 0)
    return SQ_CFG_MISSING(p, 1, line, path, "type",
                          " (one of gaussian, ricker, brune, loh1, table)");
  const int k = stf->kind;
  SQ_CALL(sq_cfg_keys_for_type(p, map, line, path, keys, need[k],
                               k <= SQ_STFCFG_RICKER ? delay : none, sq_cfg_stf_words[k].word,
                               "time function type"));
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
    {"force", SQ_SRCCFG_FORCE}, {"finite", SQ_SRCCFG_FINITE}, {NULL, 0}};
/* clang-format on */

static int sq_cfg_check_source(sq_cfg_parse *p, const sq_node *map, int line, const char *path,
                               void *base) {
  static const char *const keys[] = {"location", "moment_tensor", "strike", "dip", "rake", "m0",
                                     "force", "onset", "time_function", "file", NULL};
  static const char *const need[4][7] = {
      {"location", "moment_tensor", "time_function", NULL},
      {"location", "strike", "dip", "rake", "m0", "time_function", NULL},
      {"location", "force", "time_function", NULL},
      {"file", NULL}};
  static const char *const onset[] = {"onset", NULL}, *const none[] = {NULL};
  sq_source_config *src = base;
  char keypath[SQ_CFG_PATH];
  const int t = src->type;
  SQ_CALL(sq_cfg_keys_for_type(p, map, line, path, keys, need[t],
                               t == SQ_SRCCFG_FINITE ? none : onset, sq_cfg_source_words[t].word,
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
static const sq_cfg_schema sq_cfg_source_schema = {sq_cfg_source_keys, sq_cfg_check_source};

static int sq_cfg_source_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path,
                              int index, void *base) {
  sq_config *cfg = base;
  sq_source_config *src = &cfg->sources[index];
  memset(src, 0, sizeof(*src));
  src->line = line;
  SQ_CALL(sq_cfg_map(p, node, line, path, &sq_cfg_source_schema, src));
  cfg->nsources = index + 1;
  return SQ_SUCCESS;
}

static int sq_cfg_receiver_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path,
                                int index, void *base) {
  sq_config *cfg = base;
  const sq_cfg_key key = {.name = "points", .type = SQ_KEY_FLOAT3};
  SQ_CALL(sq_cfg_get_triple(p, &key, node, path, cfg->receiver_points[index]));
  cfg->receiver_line[index] = line;
  cfg->nreceivers = index + 1;
  return SQ_SUCCESS;
}

static int sq_cfg_check_receivers(sq_cfg_parse *p, const sq_node *map, int line, const char *path,
                                  void *base) {
  sq_config *cfg = base;
  if (!map) return SQ_SUCCESS;
  const int has_points = sq_node_find(map, "points") >= 0, has_file = sq_node_find(map, "file") >= 0;
  if (!has_points && !has_file)
    return SQ_CFG_FAIL(p, line, path, "no receivers; give 'points: [[x, y, z], ...]' or 'file: NAME'");
  if (sq_node_find(map, "interval") < 0)
    return SQ_CFG_MISSING(p, 1, line, path, "interval", " (the sampling interval of the receivers)");
  return sq_cfg_resolve(p, map, line, path, "file", cfg->receiver_file);
}

/* clang-format off */
static const sq_cfg_key sq_cfg_receivers_keys[] = {
    {.name = "points", .type = SQ_KEY_SEQ, .item = sq_cfg_receiver_item,
     .max_items = SQ_MAX_RECEIVER_POINTS},
    {.name = "file", .type = SQ_KEY_STRING, .size = SQ_PATH_MAX,
     .offset = offsetof(sq_config, receiver_file), .validate = sq_cfg_nonempty},
    {.name = "interval", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GT, .min = 0,
     .offset = offsetof(sq_config, receiver_interval)},
    {.name = "flush_interval", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GE, .min = 0,
     .offset = offsetof(sq_config, receiver_flush)},
    {.name = "hdf5", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, receiver_hdf5)},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_receivers_schema = {sq_cfg_receivers_keys, sq_cfg_check_receivers};

/* clang-format off */
static const sq_cfg_key sq_cfg_checkpoint_keys[] = {
    {.name = "interval", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GE, .min = 0,
     .offset = offsetof(sq_config, checkpoint_interval)},
    {.name = "directory", .type = SQ_KEY_STRING, .size = SQ_PATH_MAX,
     .offset = offsetof(sq_config, checkpoint_dir), .validate = sq_cfg_nonempty},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_checkpoint_schema = {sq_cfg_checkpoint_keys, NULL};

/* ---- fault ----------------------------------------------------------------------------------- */

const char *const sq_fault_param_names[SQ_NFAULT_PARAMS] = {
    "mu_s", "mu_d", "d_c", "cohesion", "forced_rupture_time", "forced_rupture_duration",
    "a", "b", "L", "f0", "V0", "f_w", "V_w", "initial_slip_rate",
    "traction_normal", "traction_strike", "traction_dip",
    "nucleation_normal", "nucleation_strike", "nucleation_dip",
    "xx", "yy", "zz", "xy", "yz", "xz"};

#define SQ_FP_KEY(s, i) {.name = #s, .type = SQ_KEY_EXPR, .offset = offsetof(TYPE, param) + (i) * sizeof(sq_cfg_expr)}
#define SQ_FP_KEYS                                                                                          \
  SQ_FP_KEY(mu_s, SQ_FP_MU_S), SQ_FP_KEY(mu_d, SQ_FP_MU_D), SQ_FP_KEY(d_c, SQ_FP_D_C),                       \
  SQ_FP_KEY(cohesion, SQ_FP_COHESION), SQ_FP_KEY(forced_rupture_time, SQ_FP_FORCED_TIME),                   \
  SQ_FP_KEY(forced_rupture_duration, SQ_FP_FORCED_DURATION), SQ_FP_KEY(a, SQ_FP_A), SQ_FP_KEY(b, SQ_FP_B),  \
  SQ_FP_KEY(L, SQ_FP_L), SQ_FP_KEY(f0, SQ_FP_F0), SQ_FP_KEY(V0, SQ_FP_V0), SQ_FP_KEY(f_w, SQ_FP_F_W),        \
  SQ_FP_KEY(V_w, SQ_FP_V_W), SQ_FP_KEY(initial_slip_rate, SQ_FP_V_INIT),                                    \
  SQ_FP_KEY(traction_normal, SQ_FP_TRACTION_NORMAL), SQ_FP_KEY(traction_strike, SQ_FP_TRACTION_STRIKE),     \
  SQ_FP_KEY(traction_dip, SQ_FP_TRACTION_DIP), SQ_FP_KEY(nucleation_normal, SQ_FP_NUC_NORMAL),              \
  SQ_FP_KEY(nucleation_strike, SQ_FP_NUC_STRIKE), SQ_FP_KEY(nucleation_dip, SQ_FP_NUC_DIP)

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
static const sq_cfg_schema sq_cfg_patch_schema = {sq_cfg_patch_keys, sq_cfg_check_patch};

static int sq_cfg_patch_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index,
                             void *base) {
  sq_fault_config *f = base;
  sq_fault_patch *pt = &f->patches[index];
  memset(pt, 0, sizeof(*pt));
  pt->line = line;
  SQ_CALL(sq_cfg_map(p, node, line, path, &sq_cfg_patch_schema, pt));
  f->npatches = index + 1;
  return SQ_SUCCESS;
}

static int sq_cfg_station_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index,
                               void *base) {
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

static int sq_cfg_check_fault(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  sq_fault_config *f = base;
  if (!map) return SQ_SUCCESS;
  f->enabled = 1;
  f->line = line;
  static const int lsw[] = {SQ_FP_MU_S, SQ_FP_MU_D, SQ_FP_D_C, -1};
  static const int rs[] = {SQ_FP_A, SQ_FP_B, SQ_FP_L, SQ_FP_F0, SQ_FP_V0, SQ_FP_V_INIT, -1};
  static const int fvw[] = {SQ_FP_A, SQ_FP_B, SQ_FP_L, SQ_FP_F0, SQ_FP_V0, SQ_FP_V_INIT, SQ_FP_F_W, SQ_FP_V_W, -1};
  const int *need = f->law == SQ_FRICTION_LSW ? lsw : f->law == SQ_FRICTION_RS_FVW ? fvw : rs;
  const char *law = sq_friction_law_name((sq_friction_law)f->law);
  char keypath[SQ_CFG_PATH];
  for (int i = 0; need[i] >= 0; ++i)
    if (!f->param[need[i]].text[0]) {
      char hint[128];
      snprintf(hint, sizeof(hint), " (the friction law %s needs it)", law);
      return SQ_CFG_MISSING(p, 1, line, path, sq_fault_param_names[need[i]], hint);
    }
  /* keys the law does not read are mistakes */
  for (int i = 0; i <= SQ_FP_V_W; ++i) {
    int used = i == SQ_FP_COHESION;
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
  static const struct { int index; const char *rule; } positive[] = {
      {SQ_FP_D_C, "> 0"}, {SQ_FP_L, "> 0"}, {SQ_FP_A, "> 0"}, {SQ_FP_V0, "> 0"}, {SQ_FP_V_W, "> 0"},
      {SQ_FP_V_INIT, "> 0"}, {SQ_FP_COHESION, ">= 0"}, {SQ_FP_MU_S, ">= 0"}, {SQ_FP_MU_D, ">= 0"}};
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
  if (sq_node_find(map, "reference_point") < 0)
    return SQ_CFG_MISSING(p, 1, line, path, "reference_point",
                          " (a point off the fault on its \"+\" side; it fixes the normal and the slip sign)");
  return SQ_SUCCESS;
}

static const sq_cfg_word sq_cfg_friction_words[] = {
    {"linear_slip_weakening", SQ_FRICTION_LSW}, {"rate_state_aging", SQ_FRICTION_RS_AGING},
    {"rate_state_slip", SQ_FRICTION_RS_SLIP}, {"rate_state_fast_velocity_weakening", SQ_FRICTION_RS_FVW},
    {NULL, 0}};

/* clang-format off */
#define TYPE sq_fault_config
static const sq_cfg_key sq_cfg_fault_keys[] = {
    {.name = "friction_law", .type = SQ_KEY_ENUM, .required = 1, .words = sq_cfg_friction_words,
     .offset = offsetof(sq_fault_config, law)},
    {.name = "reference_point", .type = SQ_KEY_FLOAT3, .offset = offsetof(sq_fault_config, reference_point)},
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
    {.name = NULL}};
#undef TYPE
/* clang-format on */
static const sq_cfg_schema sq_cfg_fault_schema = {sq_cfg_fault_keys, sq_cfg_check_fault};

/* ---- plasticity ------------------------------------------------------------------------------ */

const char *const sq_plast_param_names[SQ_NPLAST_PARAMS] = {
    "cohesion", "bulk_friction", "tv", "initial_stress.xx", "initial_stress.yy", "initial_stress.zz",
    "initial_stress.xy", "initial_stress.yz", "initial_stress.xz"};

/* plasticity values may also depend on the element's mesh group (regions of Gmsh or PUML meshes) */
static const char *const sq_cfg_plast_vars[] = {"group", NULL};

#define SQ_PP_KEY(s, i, req)                                                                                   \
  {.name = #s, .type = SQ_KEY_EXPR, .required = (req), .expr_vars = sq_cfg_plast_vars,                        \
   .offset = offsetof(sq_plasticity_config, param) + (i) * sizeof(sq_cfg_expr)}
#define SQ_PP_STRESS_KEY(s, i)                                                                                 \
  {.name = #s, .type = SQ_KEY_EXPR, .expr_vars = sq_cfg_plast_vars, .offset = (i) * sizeof(sq_cfg_expr)}
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
static const sq_cfg_key sq_cfg_plasticity_keys[] = {
    SQ_PP_KEY(cohesion, SQ_PP_COHESION, 1),
    SQ_PP_KEY(bulk_friction, SQ_PP_BULK_FRICTION, 1),
    SQ_PP_KEY(tv, SQ_PP_TV, 1),
    {.name = "initial_stress", .type = SQ_KEY_MAP, .sub = &sq_cfg_plast_stress_schema,
     .offset = offsetof(sq_plasticity_config, param) + SQ_PP_S_XX * sizeof(sq_cfg_expr)},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_plasticity_schema = {sq_cfg_plasticity_keys, sq_cfg_check_plasticity};

/* Rules across sections. */
static int sq_cfg_check_root(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  const sq_config *cfg = base;
  (void)path;
  const int plastic = ((1 << SQ_NFIELDS) - 1) & ~((1 << SQ_FIELD_EP_XX) - 1);
  if ((cfg->output_fields & plastic) && !cfg->plasticity.enabled) {
    const long i = sq_node_find(map, "output");
    const sq_node *out = i >= 0 ? map->items[i] : NULL;
    return SQ_CFG_FAIL(p, sq_node_key_line(out, "fields", line), "output.fields",
                       "plastic strain (ep_*) and eta are written only by runs with a 'plasticity:' section");
  }
  return SQ_SUCCESS;
}

/* ---- top level ------------------------------------------------------------------------------- */

/* clang-format off */
static const sq_cfg_key sq_cfg_root_keys[] = {
    {.name = "mesh", .type = SQ_KEY_MAP, .required = 1, .sub = &sq_cfg_mesh_schema},
    {.name = "materials", .type = SQ_KEY_MAP, .required = 1, .sub = &sq_cfg_materials_schema},
    {.name = "initial_condition", .type = SQ_KEY_MAP, .sub = &sq_cfg_ic_schema},
    {.name = "equations", .type = SQ_KEY_MAP, .sub = &sq_cfg_equations_schema},
    {.name = "output", .type = SQ_KEY_MAP, .sub = &sq_cfg_output_schema},
    {.name = "runtime", .type = SQ_KEY_MAP, .sub = &sq_cfg_runtime_schema},
    {.name = "sources", .type = SQ_KEY_SEQ, .item = sq_cfg_source_item,
     .max_items = SQ_MAX_SOURCES},
    {.name = "receivers", .type = SQ_KEY_MAP, .sub = &sq_cfg_receivers_schema},
    {.name = "checkpoint", .type = SQ_KEY_MAP, .sub = &sq_cfg_checkpoint_schema},
    {.name = "fault", .type = SQ_KEY_MAP, .optional = 1, .sub = &sq_cfg_fault_schema,
     .offset = offsetof(sq_config, fault)},
    {.name = "plasticity", .type = SQ_KEY_MAP, .optional = 1, .sub = &sq_cfg_plasticity_schema,
     .offset = offsetof(sq_config, plasticity)},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_root_schema = {sq_cfg_root_keys, sq_cfg_check_root};

/* ============================================================================================== */
/* libyaml -> node tree                                                                           */
/* ============================================================================================== */

static int sq_cfg_mark_line(yaml_mark_t mark) {
  return mark.line >= (size_t)INT_MAX ? INT_MAX : (int)mark.line + 1;
}

static int sq_cfg_yaml_error(const sq_cfg_parse *p, const yaml_parser_t *yp) {
  switch (yp->error) {
  case YAML_MEMORY_ERROR:
    return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "%s: out of memory while reading YAML",
                    p->name);
  case YAML_READER_ERROR: {
    int line = 1;
    for (size_t i = 0; i < yp->problem_offset && i < p->len; ++i) line += p->buf[i] == '\n';
    return SQ_CFG_FAIL(p, line, NULL,
                       "not valid YAML text: %s (byte offset %zu); the file must be UTF-8 text",
                       yp->problem ? yp->problem : "unreadable input", yp->problem_offset);
  }
  case YAML_SCANNER_ERROR:
  case YAML_PARSER_ERROR: {
    char context[256] = "";
    size_t at = yp->problem_mark.index;
    if (at < p->len && p->buf[at] == '\t')
      return sq_error(
          SQ_ERR_INPUT, __FILE__, __LINE__,
          "%s:%d:%zu: YAML syntax error: a tab character; YAML indents with spaces only", p->name,
          sq_cfg_mark_line(yp->problem_mark), yp->problem_mark.column + 1);
    if (yp->context)
      snprintf(context, sizeof(context), " (%s, line %d column %zu)", yp->context,
               sq_cfg_mark_line(yp->context_mark), yp->context_mark.column + 1);
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "%s:%d:%zu: YAML syntax error: %s%s; check indentation, brackets and quotes",
                    p->name, sq_cfg_mark_line(yp->problem_mark), yp->problem_mark.column + 1,
                    yp->problem ? yp->problem : "invalid YAML", context);
  }
  default:
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: cannot parse YAML (libyaml error %d)",
                    p->name, (int)yp->error);
  }
}

static int sq_cfg_next(const sq_cfg_parse *p, yaml_parser_t *yp, yaml_event_t *event) {
  if (!yaml_parser_parse(yp, event)) return sq_cfg_yaml_error(p, yp);
  return SQ_SUCCESS;
}

/** Build the node starting with @p event (consumed) and everything below it. */
static int sq_cfg_read_node(const sq_cfg_parse *p, yaml_parser_t *yp, yaml_event_t *event,
                            int depth, sq_node **out) {
  int line = sq_cfg_mark_line(event->start_mark);
  *out = NULL;
  if (depth > SQ_CFG_MAX_DEPTH) {
    yaml_event_delete(event);
    return SQ_CFG_FAIL(p, line, NULL, "nested deeper than %d levels", SQ_CFG_MAX_DEPTH);
  }
  switch (event->type) {
  case YAML_SCALAR_EVENT: {
    sq_node *node = sq_node_new(SQ_NODE_SCALAR, line);
    char *text = malloc(event->data.scalar.length + 1);
    if (!node || !text) {
      free(node);
      free(text);
      yaml_event_delete(event);
      return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading %s", p->name);
    }
    memcpy(text, event->data.scalar.value, event->data.scalar.length);
    text[event->data.scalar.length] = '\0';
    node->text = text;
    node->len = event->data.scalar.length;
    node->quoted = event->data.scalar.style != YAML_PLAIN_SCALAR_STYLE &&
                   event->data.scalar.style != YAML_ANY_SCALAR_STYLE;
    yaml_event_delete(event);
    *out = node;
    return SQ_SUCCESS;
  }
  case YAML_ALIAS_EVENT:
    yaml_event_delete(event);
    return SQ_CFG_FAIL(p, line, NULL,
                       "YAML aliases (*name) are not supported; write the value out");
  case YAML_SEQUENCE_START_EVENT:
  case YAML_MAPPING_START_EVENT: {
    int is_map = event->type == YAML_MAPPING_START_EVENT;
    yaml_event_type_t end = is_map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;
    yaml_event_delete(event);
    sq_node *node = sq_node_new(is_map ? SQ_NODE_MAP : SQ_NODE_SEQ, line);
    if (!node)
      return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading %s", p->name);
    for (;;) {
      yaml_event_t next;
      sq_node *key = NULL, *item = NULL;
      int rc = sq_cfg_next(p, yp, &next);
      if (!rc && next.type == end) {
        yaml_event_delete(&next);
        break;
      }
      if (!rc && is_map) {
        rc = sq_cfg_read_node(p, yp, &next, depth + 1, &key);
        if (!rc && key->kind != SQ_NODE_SCALAR)
          rc = SQ_CFG_FAIL(p, key->line, NULL, "a key must be a plain word, not a %s",
                           key->kind == SQ_NODE_MAP ? "mapping" : "sequence");
        if (!rc) rc = sq_cfg_next(p, yp, &next);
      }
      if (!rc) rc = sq_cfg_read_node(p, yp, &next, depth + 1, &item);
      if (!rc && sq_node_push(node, key, item))
        rc = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading %s", p->name);
      if (rc) {
        sq_node_free(key);
        sq_node_free(item);
        sq_node_free(node);
        return rc;
      }
    }
    *out = node;
    return SQ_SUCCESS;
  }
  default: {
    int type = (int)event->type;
    yaml_event_delete(event);
    return sq_error(SQ_ERR_INTERNAL, __FILE__, __LINE__, "%s:%d: unexpected YAML event %d", p->name,
                    line, type);
  }
  }
}

static int sq_cfg_empty(const sq_cfg_parse *p, int line) {
  return SQ_CFG_FAIL(p, line, NULL,
                     "the configuration is empty; it needs at least the sections 'mesh', "
                     "'materials' and 'equations' (with end_time)");
}

/** Read the single document of the input into a tree whose root is a mapping. */
static int sq_cfg_read_tree(const sq_cfg_parse *p, sq_node **root) {
  yaml_parser_t yp;
  yaml_event_t event;
  int rc;
  *root = NULL;
  if (!yaml_parser_initialize(&yp))
    return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "cannot initialise libyaml");
  yaml_parser_set_input_string(&yp, p->buf, p->len);
  rc = sq_cfg_next(p, &yp, &event); /* STREAM-START */
  if (!rc) {
    yaml_event_delete(&event);
    rc = sq_cfg_next(p, &yp, &event); /* DOCUMENT-START or STREAM-END */
  }
  if (!rc && event.type == YAML_STREAM_END_EVENT) {
    yaml_event_delete(&event);
    rc = sq_cfg_empty(p, 1);
  } else if (!rc) {
    yaml_event_delete(&event); /* DOCUMENT-START */
    rc = sq_cfg_next(p, &yp, &event);
    if (!rc) rc = sq_cfg_read_node(p, &yp, &event, 0, root);
    if (!rc) rc = sq_cfg_next(p, &yp, &event); /* DOCUMENT-END */
    if (!rc) {
      yaml_event_delete(&event);
      rc = sq_cfg_next(p, &yp, &event); /* STREAM-END or a second document */
    }
    if (!rc) {
      int line = sq_cfg_mark_line(event.start_mark);
      int second = event.type != YAML_STREAM_END_EVENT;
      yaml_event_delete(&event);
      if (second)
        rc = SQ_CFG_FAIL(p, line, NULL,
                         "a second YAML document starts here; put the whole configuration in one");
    }
    if (!rc && sq_node_is_null(*root)) {
      rc = sq_cfg_empty(p, 1);
    } else if (!rc && (*root)->kind != SQ_NODE_MAP) {
      char found[4 * SQ_CFG_SHOW + 64];
      rc = SQ_CFG_FAIL(
          p, (*root)->line, NULL,
          "the top level must be a mapping of sections (mesh:, materials:, ...), found %s",
          sq_cfg_found(*root, found, sizeof(found)));
    }
  }
  yaml_parser_delete(&yp);
  if (rc) {
    sq_node_free(*root);
    *root = NULL;
  }
  return rc;
}

/* ============================================================================================== */
/* Public API                                                                                     */
/* ============================================================================================== */

void sq_config_default(sq_config *cfg) {
  memset(cfg, 0, sizeof(*cfg));
  cfg->mesh_kind = SQ_MESH_BOX;
  sq_box_params_default(&cfg->box);
  cfg->material_default = (sq_material){.rho = 1.0, .lambda = 2.0, .mu = 1.0};
  cfg->ic_kind = SQ_IC_ZERO;
  cfg->ic_profile = SQ_PROFILE_SINE;
  cfg->ic_center = 0.0;
  cfg->ic_width = 0.1;
  cfg->order = 4;
  cfg->precision = SQ_F64;
  cfg->cfl = 0.5;
  cfg->end_time = 0.0; /* must be given */
  cfg->lts_rate = 1;
  cfg->lts_max_clusters = 20;
  snprintf(cfg->output_dir, sizeof(cfg->output_dir), "output");
  snprintf(cfg->output_prefix, sizeof(cfg->output_prefix), "starquake");
  cfg->output_interval = 0.0;
  cfg->tile_size = 256;
  cfg->scheduler[0] = '\0';
  cfg->merge_neighbor_clusters = 0;
  cfg->merge_corrections = 0;
  cfg->cpu_share = -1.0; /* StarPU places every task */
  cfg->cpu_task_threads = 1;
  cfg->steps_per_task = 1;
  cfg->gpu_affinity = 1;
  cfg->receiver_hdf5 = 1;
  cfg->output_format = SQ_OUTPUT_XDMF;
  cfg->partition = SQ_PART_BW;
}

/** Parse @p len bytes of YAML into @p cfg; mesh.file is resolved against @p dir. */
static int sq_cfg_load(const char *text, size_t len, const char *name, const char *dir,
                       sq_config *cfg) {
  sq_cfg_parse p = {.name = name, .dir = dir, .buf = (const unsigned char *)text, .len = len};
  sq_config *tmp = malloc(sizeof(*tmp));
  if (!tmp) return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory loading %s", name);
  sq_config_default(tmp);
  snprintf(tmp->path, sizeof(tmp->path), "%s", name);
  sq_node *root = NULL;
  int rc = sq_cfg_read_tree(&p, &root);
  if (!rc) rc = sq_cfg_map(&p, root, root->line, "", &sq_cfg_root_schema, tmp);
  if (!rc) *cfg = *tmp;
  sq_node_free(root);
  free(tmp);
  return rc;
}

int sq_config_load_string(const char *yaml, const char *name, sq_config *cfg) {
  SQ_CHECK(cfg, SQ_ERR_INTERNAL, "sq_config_load_string: cfg is NULL");
  sq_config_default(cfg);
  if (!name) name = "<string>";
  SQ_CHECK(yaml, SQ_ERR_INTERNAL, "sq_config_load_string: yaml is NULL (%s)", name);
  return sq_cfg_load(yaml, strlen(yaml), name, "", cfg);
}

int sq_config_load(const char *path, sq_config *cfg) {
  SQ_CHECK(cfg, SQ_ERR_INTERNAL, "sq_config_load: cfg is NULL");
  sq_config_default(cfg);
  SQ_CHECK(path, SQ_ERR_INTERNAL, "sq_config_load: path is NULL");
  SQ_CHECK(path[0], SQ_ERR_IO, "config file path is empty");
  SQ_CHECK(strlen(path) < SQ_PATH_MAX, SQ_ERR_INPUT,
           "config file path is longer than %d bytes: %.60s...", SQ_PATH_MAX - 1, path);
  FILE *file = fopen(path, "rb");
  if (!file)
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot open config file '%s': %s", path,
                    strerror(errno));
  size_t len = 0, cap = 0;
  char *buf = NULL;
  int rc = SQ_SUCCESS;
  for (;;) {
    if (len + 4096 + 1 > cap) {
      size_t ncap = cap ? 2 * cap : 16384;
      char *nbuf = realloc(buf, ncap);
      if (!nbuf) {
        rc = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading '%s'", path);
        break;
      }
      buf = nbuf;
      cap = ncap;
    }
    size_t got = fread(buf + len, 1, cap - len - 1, file);
    len += got;
    if (got == 0) {
      if (ferror(file))
        rc = sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot read config file '%s': %s", path,
                      strerror(errno));
      break;
    }
    if (len > SQ_CFG_MAX_BYTES) {
      rc = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "config file '%s' is larger than %zu MiB",
                    path, SQ_CFG_MAX_BYTES >> 20);
      break;
    }
  }
  fclose(file);
  if (!rc) {
    buf[len] = '\0';
    char dir[SQ_PATH_MAX] = "";
    const char *slash = strrchr(path, '/');
    if (slash) {
      size_t ld = (size_t)(slash - path) + 1;
      memcpy(dir, path, ld);
      dir[ld] = '\0';
    }
    rc = sq_cfg_load(buf, len, path, dir, cfg);
  }
  free(buf);
  return rc;
}

sq_material sq_config_material_at(const sq_config *cfg, const double x[3], int group) {
  sq_material mat = cfg->material_default;
  for (int i = 0; i < cfg->nrules; ++i) {
    const sq_material_rule *rule = &cfg->rules[i];
    int hit = 0;
    if (rule->kind == SQ_MAT_LAYER)
      hit = x[2] >= rule->z_bottom && x[2] < rule->z_top;
    else if (rule->kind == SQ_MAT_REGION)
      hit = x[0] >= rule->lo[0] && x[0] <= rule->hi[0] && x[1] >= rule->lo[1] &&
            x[1] <= rule->hi[1] && x[2] >= rule->lo[2] && x[2] <= rule->hi[2];
    else
      hit = group == rule->group;
    if (hit) mat = rule->mat;
  }
  return mat;
}

/* ============================================================================================== */
/* Reference: the schema tables printed as markdown (docs/CONFIG_REFERENCE.md)                    */
/* ============================================================================================== */

/* The rows that a handler parses (SQ_KEY_MAP with item, SQ_KEY_SEQ) do not name what they hold;
 * this table does.  A handler missing here is printed without its keys (the test that compares the
 * reference with docs/CONFIG_REFERENCE.md then shows the gap). */
static const sq_cfg_zone sq_cfg_ref_zone_default = {.factor = 2};
static const sq_wave_mode sq_cfg_ref_mode_default = {.type = SQ_MODE_P, .amplitude = 1.0, .direction = 1};
static const sq_source_config sq_cfg_ref_source_default = {.type = SQ_SRCCFG_MOMENT_TENSOR};

typedef struct sq_cfg_ref_item {
  sq_cfg_item_fn item;
  const sq_cfg_schema *schema; /**< the keys of a mapping item (NULL: the items are not mappings) */
  const void *defaults;        /**< an item before its keys are read (NULL: no defaults to show) */
  const char *items;           /**< non-mapping items: their type */
  const sq_cfg_word *words;    /**< non-mapping word items: the allowed words */
} sq_cfg_ref_item;

static const sq_cfg_ref_item sq_cfg_ref_items[] = {
    {sq_cfg_zone_item, &sq_cfg_zone_schema, &sq_cfg_ref_zone_default, NULL, NULL},
    {sq_cfg_material_default, &sq_cfg_material_schema, NULL, NULL, NULL},
    {sq_cfg_layer_item, &sq_cfg_layer_schema, NULL, NULL, NULL},
    {sq_cfg_region_item, &sq_cfg_region_schema, NULL, NULL, NULL},
    {sq_cfg_group_item, &sq_cfg_group_schema, NULL, NULL, NULL},
    {sq_cfg_mode_item, &sq_cfg_mode_schema, &sq_cfg_ref_mode_default, NULL, NULL},
    {sq_cfg_source_item, &sq_cfg_source_schema, &sq_cfg_ref_source_default, NULL, NULL},
    {sq_cfg_field_item, NULL, NULL, "word", sq_cfg_quantity_words},
    {sq_cfg_receiver_item, NULL, NULL, "float3", NULL},
    {sq_cfg_box_fault, &sq_cfg_box_fault_schema, NULL, NULL, NULL},
    {sq_cfg_patch_item, &sq_cfg_patch_schema, NULL, NULL, NULL},
    {sq_cfg_station_item, NULL, NULL, "float3", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

/* What a value check demands, in words. */
static const char *sq_cfg_ref_validate(sq_cfg_value_fn validate) {
  if (validate == sq_cfg_nonempty) return "non-empty";
  if (validate == sq_cfg_prefix) return "non-empty; letters, digits, `_`, `.` and `-` only";
  if (validate == sq_cfg_direction) return "`1` or `-1`";
  if (validate == sq_cfg_nonzero3) return "not the zero vector";
  return validate ? "checked (see docs/CONFIG.md)" : "";
}

static const sq_cfg_ref_item *sq_cfg_ref_item_of(sq_cfg_item_fn item) {
  for (const sq_cfg_ref_item *r = sq_cfg_ref_items; r->item; ++r)
    if (r->item == item) return r;
  return NULL;
}

static const char *sq_cfg_ref_type(const sq_cfg_key *key) {
  switch (key->type) {
  case SQ_KEY_INT: return "int";
  case SQ_KEY_FLOAT: return "float";
  case SQ_KEY_BOOL: return "bool";
  case SQ_KEY_STRING: return key->words ? "word" : "string";
  case SQ_KEY_ENUM: return "word";
  case SQ_KEY_FLOAT3: return "float3";
  case SQ_KEY_INT3: return "int3";
  case SQ_KEY_MAP: return "mapping";
  case SQ_KEY_SEQ: return "sequence";
  case SQ_KEY_EXPR: return "float or expression";
  }
  return "?";
}

/* "`a`, `b`, `c`" */
static void sq_cfg_ref_words(const sq_cfg_word *words, char *out, size_t size) {
  size_t o = 0;
  out[0] = '\0';
  for (int i = 0; words[i].word && o < size; ++i)
    o += (size_t)snprintf(out + o, size - o, "%s`%s`", i ? ", " : "", words[i].word[0] ? words[i].word : "\"\"");
}

/* Is @p x inside the key's range?  (A default outside it means "no default: give a value".) */
static int sq_cfg_ref_in_range(const sq_cfg_key *key, double x) {
  return !((key->range & SQ_MIN_GE) && !(x >= key->min)) && !((key->range & SQ_MIN_GT) && !(x > key->min)) &&
         !((key->range & SQ_MAX_LE) && !(x <= key->max)) && !((key->range & SQ_MAX_LT) && !(x < key->max));
}

/* The default of @p key, read from the defaults struct @p base ("—" when there is none). */
static void sq_cfg_ref_default(const sq_cfg_key *key, const void *base, char *out, size_t size) {
  snprintf(out, size, "%s", key->type == SQ_KEY_MAP || key->type == SQ_KEY_SEQ ? "" : "—");
  if (key->required) {
    snprintf(out, size, "required");
    return;
  }
  if (!base) return;
  const char *field = (const char *)base + key->offset;
  int i3[3];
  double x, d3[3];
  switch (key->type) {
  case SQ_KEY_INT:
  case SQ_KEY_BOOL:
    memcpy(&i3[0], field, sizeof(int));
    if (key->type == SQ_KEY_BOOL) snprintf(out, size, "`%s`", i3[0] ? "true" : "false");
    else if (sq_cfg_ref_in_range(key, i3[0])) snprintf(out, size, "`%d`", i3[0]);
    break;
  case SQ_KEY_FLOAT:
    memcpy(&x, field, sizeof(x));
    if (sq_cfg_ref_in_range(key, x)) snprintf(out, size, "`%.15g`", x);
    break;
  case SQ_KEY_STRING:
    snprintf(out, size, "`\"%.200s\"`", field);
    if (key->validate && !field[0]) snprintf(out, size, "—");
    break;
  case SQ_KEY_ENUM:
    memcpy(&i3[0], field, sizeof(int));
    for (int w = 0; key->words[w].word; ++w)
      if (key->words[w].value == i3[0]) {
        snprintf(out, size, "`%s`", key->words[w].word);
        break;
      }
    break;
  case SQ_KEY_INT3:
    memcpy(i3, field, sizeof(i3));
    if (sq_cfg_ref_in_range(key, i3[0])) snprintf(out, size, "`[%d, %d, %d]`", i3[0], i3[1], i3[2]);
    break;
  case SQ_KEY_FLOAT3:
    memcpy(d3, field, sizeof(d3));
    if (!key->validate) snprintf(out, size, "`[%.15g, %.15g, %.15g]`", d3[0], d3[1], d3[2]);
    break;
  case SQ_KEY_MAP:
  case SQ_KEY_SEQ: out[0] = '\0'; break;
  case SQ_KEY_EXPR: break;
  }
}

/* What the value may be: range, words, value check, sizes. */
static void sq_cfg_ref_allowed(const sq_cfg_key *key, char *out, size_t size) {
  char part[512] = "";
  size_t o = 0;
  out[0] = '\0';
  if (key->range && key->type != SQ_KEY_SEQ) {
    sq_cfg_range_text(key, key->type == SQ_KEY_INT || key->type == SQ_KEY_INT3, part, sizeof(part));
    o += (size_t)snprintf(out + o, size - o, "%s%s", key->type == SQ_KEY_INT3 || key->type == SQ_KEY_FLOAT3 ?
                                                      "each " : "", part);
  }
  if (key->words && o < size) {
    sq_cfg_ref_words(key->words, part, sizeof(part));
    o += (size_t)snprintf(out + o, size - o, "%s%s", o ? "; " : "", part);
  }
  const char *check = sq_cfg_ref_validate(key->validate);
  if (check[0] && o < size) o += (size_t)snprintf(out + o, size - o, "%s%s", o ? "; " : "", check);
  if ((key->type == SQ_KEY_FLOAT || key->type == SQ_KEY_FLOAT3) && !o)
    o += (size_t)snprintf(out + o, size - o, "finite");
  if (key->type == SQ_KEY_STRING && !key->words && o < size)
    o += (size_t)snprintf(out + o, size - o, "%sat most %zu bytes", o ? "; " : "", key->size - 1);
  if (key->type == SQ_KEY_SEQ && o < size) {
    if (key->min_items > 0)
      o += (size_t)snprintf(out + o, size - o, "%s%d to %d items", o ? "; " : "", key->min_items, key->max_items);
    else
      o += (size_t)snprintf(out + o, size - o, "%sat most %d items", o ? "; " : "", key->max_items);
  }
}

/* Print the table of the mapping @p schema at @p path (defaults in @p base, may be NULL), then its
 * nested mappings and sequences, depth first. */
static int sq_cfg_ref_map(FILE *out, const char *path, const char *title, const sq_cfg_schema *schema,
                          const void *base) {
  char keypath[SQ_CFG_PATH], def[512], allowed[1024];
  fprintf(out, "\n## `%s`%s\n\n| key | type | default | allowed |\n|---|---|---|---|\n", path, title);
  for (const sq_cfg_key *key = schema->keys; key->name; ++key) {
    sq_cfg_join(keypath, sizeof(keypath), path, key->name, strlen(key->name));
    sq_cfg_ref_default(key, base, def, sizeof(def));
    sq_cfg_ref_allowed(key, allowed, sizeof(allowed));
    const sq_cfg_ref_item *item = key->item ? sq_cfg_ref_item_of(key->item) : NULL;
    const char *type = sq_cfg_ref_type(key);
    char seqtype[64];
    if (key->type == SQ_KEY_SEQ) {
      snprintf(seqtype, sizeof(seqtype), "sequence of %ss", item && item->items ? item->items : "mapping");
      type = seqtype;
      if (item && item->words) {
        char words[512];
        sq_cfg_ref_words(item->words, words, sizeof(words));
        size_t o = strlen(allowed);
        snprintf(allowed + o, sizeof(allowed) - o, "; items: %s; each at most once", words);
      }
    }
    if ((key->type == SQ_KEY_MAP || key->type == SQ_KEY_SEQ) && (!item || item->schema)) {
      size_t o = strlen(allowed);
      snprintf(allowed + o, sizeof(allowed) - o, "%skeys: `%s%s`", o ? "; " : "", keypath,
               key->type == SQ_KEY_SEQ ? "[i]" : "");
    }
    fprintf(out, "| `%s` | %s | %s | %s |\n", keypath, type, def, allowed);
  }
  for (const sq_cfg_key *key = schema->keys; key->name; ++key) {
    sq_cfg_join(keypath, sizeof(keypath), path, key->name, strlen(key->name));
    if (key->type == SQ_KEY_MAP && key->sub) {
      SQ_CALL(sq_cfg_ref_map(out, keypath, "", key->sub, base ? (const char *)base + key->offset : NULL));
    } else if (key->type == SQ_KEY_MAP || key->type == SQ_KEY_SEQ) {
      const sq_cfg_ref_item *item = sq_cfg_ref_item_of(key->item);
      SQ_CHECK(item, SQ_ERR_INTERNAL, "config reference: key '%s' has a handler that sq_cfg_ref_items lacks", keypath);
      if (!item->schema) continue;
      if (key->type == SQ_KEY_SEQ) {
        size_t o = strlen(keypath);
        snprintf(keypath + o, sizeof(keypath) - o, "[i]");
      }
      SQ_CALL(sq_cfg_ref_map(out, keypath, key->type == SQ_KEY_SEQ ? " (each item)" : "", item->schema,
                             item->defaults));
    }
  }
  return SQ_SUCCESS;
}

int sq_config_write_reference(FILE *out) {
  sq_config *defaults = malloc(sizeof(*defaults));
  if (!defaults) return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory");
  sq_config_default(defaults);
  fprintf(out,
          "# starquake configuration keys\n\n"
          "<!-- Generated by `starquake config-reference` from the schema tables in io/config.c; do not edit.\n"
          "     Regenerate with tools/gen-config-reference.sh (tests/test_config_reference.sh checks it). -->\n\n"
          "Every key of a configuration file, with its type, default and allowed values, as the loader checks\n"
          "them.  docs/CONFIG.md explains what the keys mean and the rules that tie keys together (keys that\n"
          "one `type` needs or forbids, `hi > lo`, `vp > vs`, ...).  Types: *int*, *float* (finite), *bool*,\n"
          "*string*, *word* (one of a list), *float3*/*int3* (`[x, y, z]`), *mapping*, *sequence*.  A default\n"
          "of \"—\" means the key has none: give it where it is needed.  Sequence items are shown as `[i]`.\n");
  int ierr = SQ_SUCCESS;
  for (const sq_cfg_key *key = sq_cfg_root_keys; key->name && !ierr; ++key) {
    const char *title = key->required ? " (required)"
                        : key->optional ? " (optional: the section switches the feature on; its required keys "
                                          "apply when it is present)"
                                        : "";
    if (key->type == SQ_KEY_MAP && key->sub) {
      ierr = sq_cfg_ref_map(out, key->name, title, key->sub, defaults);
    } else {
      const sq_cfg_ref_item *item = sq_cfg_ref_item_of(key->item);
      if (!item || !item->schema) {
        ierr = sq_error(SQ_ERR_INTERNAL, __FILE__, __LINE__,
                        "config reference: top-level key '%s' has a handler that sq_cfg_ref_items lacks", key->name);
        break;
      }
      char path[SQ_CFG_PATH];
      snprintf(path, sizeof(path), "%s%s", key->name, key->type == SQ_KEY_SEQ ? "[i]" : "");
      fprintf(out, "\n`%s` is a sequence of at most %d mappings, each with the keys below.\n", key->name,
              key->max_items);
      ierr = sq_cfg_ref_map(out, path, key->type == SQ_KEY_SEQ ? " (each item)" : title, item->schema,
                            item->defaults);
    }
  }
  free(defaults);
  if (!ierr && (fflush(out) != 0 || ferror(out)))
    ierr = sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write the configuration reference: %s", strerror(errno));
  return ierr;
}
