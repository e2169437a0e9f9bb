/**
 * @file easi_parse.c  The component tree of an easi model from its YAML tree: every component's input
 * and output dimensions (sorted by name, as easi orders them), its data, and its children.  Every error
 * names the file, the line and the component.
 */
#include "easi_impl.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  struct sq_easi *m;
  char *msg;
  size_t size;
  int failed;
} ep_ctx;

/* a component being built and where it came from, for messages */
typedef struct {
  const char *file;
  int line;
  const char *tag;
} ep_at;

__attribute__((format(printf, 3, 4))) static sq_ecomp *ep_fail(ep_ctx *P, const ep_at *at, const char *fmt, ...) {
  if (P->failed) return NULL;
  P->failed = 1;
  int k = at->tag ? snprintf(P->msg, P->size, "%s:%d: %s: ", at->file, at->line, at->tag)
                  : snprintf(P->msg, P->size, "%s:%d: ", at->file, at->line);
  va_list ap;
  va_start(ap, fmt);
  if (k >= 0 && (size_t)k < P->size) vsnprintf(P->msg + k, P->size - (size_t)k, fmt, ap);
  va_end(ap);
  return NULL;
}

static void ep_free_names(int n, char **names) {
  if (!names) return;
  for (int i = 0; i < n; ++i) free(names[i]);
  free(names);
}

void sq_ecomp_free(sq_ecomp *c) {
  if (!c) return;
  ep_free_names(c->nin, c->in);
  for (int i = 0; i < c->nchild; ++i) {
    sq_ecomp_free(c->child[i]);
    if (c->keys) ep_free_names(c->nkeys[i], c->keys[i]);
  }
  if (c->fn)
    for (int i = 0; i < c->nout; ++i) sq_efunc_free(c->fn[i]);
  if (c->luas)
    for (int i = 0; i < c->nout; ++i) free(c->luas[i]);
  ep_free_names(c->nout, c->out);
  free(c->child);
  free(c->keys);
  free(c->nkeys);
  free(c->val);
  free(c->ncoef);
  free(c->groups);
  free(c->lim);
  free(c->fn);
  free(c->luas);
  free(c->lua);
  sq_ecomp_free(c->map);
  free(c->nodes);
  sq_ecomp_free(c->model);
  sq_egrid_free(&c->grid);
  free(c->perm);
  free(c);
}

/* ---------------------------------------------------------------------------------------------- */
/* Helpers                                                                                        */
/* ---------------------------------------------------------------------------------------------- */

static int ep_number(const sq_ey *n, double *v) {
  if (!n || n->kind != SQ_EY_SCALAR || !n->text[0]) return -1;
  const char *s = n->text;
  int neg = 0;
  if (*s == '+' || *s == '-') neg = *s++ == '-';
  if (strcmp(s, ".inf") == 0 || strcmp(s, ".Inf") == 0 || strcmp(s, ".INF") == 0 || strcmp(s, "inf") == 0) {
    *v = neg ? -INFINITY : INFINITY;
    return 0;
  }
  char *end;
  double x = strtod(n->text, &end);
  while (isspace((unsigned char)*end)) ++end;
  if (*end || isnan(x)) return -1;
  *v = x;
  return 0;
}

static int ep_cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* the order that sorts @p names: perm[k] = index in @p names of the k-th smallest */
static void ep_order(int n, char *const *names, int *perm) {
  for (int i = 0; i < n; ++i) perm[i] = i;
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && strcmp(names[perm[j - 1]], names[perm[j]]) > 0; --j) {
      int t = perm[j];
      perm[j] = perm[j - 1];
      perm[j - 1] = t;
    }
}

static char **ep_dup_names(int n, char *const *names) {
  char **out = calloc(n > 0 ? (size_t)n : 1, sizeof(*out));
  if (!out) return NULL;
  for (int i = 0; i < n; ++i)
    if (!(out[i] = strdup(names[i]))) {
      ep_free_names(i, out);
      return NULL;
    }
  return out;
}

/* names of a scalar or a sequence of scalars (@p what for messages); sorted when @p sort */
static int ep_names(ep_ctx *P, const ep_at *at, const sq_ey *n, const char *what, int *count, char ***names) {
  *count = 0;
  *names = NULL;
  if (!n) return ep_fail(P, at, "'%s' is missing", what), -1;
  size_t k = n->kind == SQ_EY_SCALAR ? 1 : n->kind == SQ_EY_SEQ ? n->n : 0;
  if (n->kind == SQ_EY_MAP || k == 0)
    return ep_fail(P, at, "'%s' (line %d) must be a name or a list of names", what, n->line), -1;
  if (k > SQ_EASI_MAXDIM) return ep_fail(P, at, "'%s' has more than %d names", what, SQ_EASI_MAXDIM), -1;
  char **out = calloc(k, sizeof(*out));
  if (!out) return ep_fail(P, at, "out of memory"), -1;
  for (size_t i = 0; i < k; ++i) {
    const sq_ey *s = n->kind == SQ_EY_SCALAR ? n : n->items[i];
    if (s->kind != SQ_EY_SCALAR || !s->text[0]) {
      ep_free_names((int)i, out);
      return ep_fail(P, at, "'%s' (line %d): item %zu is not a name", what, s->line, i + 1), -1;
    }
    for (size_t j = 0; j < i; ++j)
      if (strcmp(out[j], s->text) == 0) {
        ep_free_names((int)i, out);
        return ep_fail(P, at, "'%s' (line %d) names '%s' twice", what, s->line, s->text), -1;
      }
    if (!(out[i] = strdup(s->text))) {
      ep_free_names((int)i, out);
      return ep_fail(P, at, "out of memory"), -1;
    }
  }
  *count = (int)k;
  *names = out;
  return 0;
}

static int ep_index(int n, char *const *names, const char *name) {
  for (int i = 0; i < n; ++i)
    if (strcmp(names[i], name) == 0) return i;
  return -1;
}

/* unknown keys of a component are errors (a misspelt key would otherwise be ignored) */
static int ep_keys(ep_ctx *P, const ep_at *at, const sq_ey *node, const char *const *allowed) {
  for (size_t i = 0; i < node->n; ++i) {
    const sq_ey *k = node->keys[i];
    int ok = 0;
    if (k->kind == SQ_EY_SCALAR)
      for (const char *const *a = allowed; *a; ++a) ok |= strcmp(*a, k->text) == 0;
    if (!ok) {
      char list[256] = "";
      for (const char *const *a = allowed; *a; ++a) {
        strncat(list, a == allowed ? "" : ", ", sizeof(list) - strlen(list) - 1);
        strncat(list, *a, sizeof(list) - strlen(list) - 1);
      }
      ep_at kat = {at->file, k->line, at->tag};
      return ep_fail(P, &kat, "unknown key '%s' (keys: %s)", k->kind == SQ_EY_SCALAR ? k->text : "?",
                     list[0] ? list : "none"),
             -1;
    }
  }
  return 0;
}

/* sort a map's outputs (names and, per output, @p width values of @p val) */
static int ep_sort_out(sq_ecomp *c, double *val, int width) {
  int perm[SQ_EASI_MAXDIM];
  ep_order(c->nout, c->out, perm);
  char *names[SQ_EASI_MAXDIM];
  double *tmp = val ? malloc((size_t)(c->nout * width + 1) * sizeof(double)) : NULL;
  if (val && !tmp) return -1;
  for (int k = 0; k < c->nout; ++k) {
    names[k] = c->out[perm[k]];
    if (val) memcpy(tmp + (size_t)k * width, val + (size_t)perm[k] * width, (size_t)width * sizeof(double));
  }
  memcpy(c->out, names, (size_t)c->nout * sizeof(char *));
  if (val) {
    memcpy(val, tmp, (size_t)(c->nout * width) * sizeof(double));
    free(tmp);
  }
  return 0;
}

static sq_ecomp *ep_build(ep_ctx *P, const sq_ey *node, const char *file, int nin, char *const *in, int depth);

/* "components": one component or a list; their input is c's output */
static int ep_children(ep_ctx *P, sq_ecomp *c, const sq_ey *node, int depth) {
  const sq_ey *cs = sq_ey_get(node, "components");
  if (!cs) return 0;
  size_t k = cs->kind == SQ_EY_SEQ && !cs->tag ? cs->n : 1;
  if (k == 0) return 0;
  c->child = calloc(k, sizeof(*c->child));
  if (!c->child) return ep_fail(P, &(ep_at){c->file, c->line, c->tag}, "out of memory"), -1;
  for (size_t i = 0; i < k; ++i) {
    const sq_ey *item = cs->kind == SQ_EY_SEQ && !cs->tag ? cs->items[i] : cs;
    c->child[i] = ep_build(P, item, c->file, c->nout, c->out, depth + 1);
    if (!c->child[i]) return -1;
    c->nchild = (int)i + 1;
  }
  return 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Components                                                                                     */
/* ---------------------------------------------------------------------------------------------- */

static const struct {
  const char *tag;
  sq_ec_kind kind;
} ep_tags[] = {{"!ConstantMap", SQ_EC_CONSTANT},
               {"!FunctionMap", SQ_EC_FUNCTION},
               {"!LuaMap", SQ_EC_LUA},
               {"!AffineMap", SQ_EC_AFFINE},
               {"!PolynomialMap", SQ_EC_POLY},
               {"!LayeredModel", SQ_EC_LAYERED},
               {"!IdentityMap", SQ_EC_IDENTITY},
               {"!Switch", SQ_EC_SWITCH},
               {"!Any", SQ_EC_ANY},
               {"!GroupFilter", SQ_EC_GROUP},
               {"!AxisAlignedCuboidalDomainFilter", SQ_EC_CUBOID},
               {"!SphericalDomainFilter", SQ_EC_SPHERE},
               {"!EvalModel", SQ_EC_EVAL},
               {"!SCECFile", SQ_EC_SCEC},
               {"!ASAGI", SQ_EC_ASAGI}};

/* the outputs of a map given as "map: {name: value}" (ConstantMap, FunctionMap, PolynomialMap, LuaMap) */
static int ep_map_names(ep_ctx *P, sq_ecomp *c, const sq_ey *map, const ep_at *at) {
  if (!map) return ep_fail(P, at, "'map' is missing"), -1;
  if (map->kind != SQ_EY_MAP || map->n == 0)
    return ep_fail(P, at, "'map' (line %d) must be a mapping of parameter names to values", map->line), -1;
  if (map->n > SQ_EASI_MAXDIM) return ep_fail(P, at, "'map' has more than %d parameters", SQ_EASI_MAXDIM), -1;
  c->out = calloc(map->n, sizeof(*c->out));
  if (!c->out) return ep_fail(P, at, "out of memory"), -1;
  for (size_t i = 0; i < map->n; ++i) {
    const sq_ey *k = map->keys[i];
    if (k->kind != SQ_EY_SCALAR || !k->text[0])
      return ep_fail(P, &(ep_at){c->file, k->line, c->tag}, "'map': a key is not a parameter name"), -1;
    if (ep_index((int)i, c->out, k->text) >= 0)
      return ep_fail(P, &(ep_at){c->file, k->line, c->tag}, "'map' gives '%s' twice", k->text), -1;
    if (!(c->out[i] = strdup(k->text))) return ep_fail(P, at, "out of memory"), -1;
    c->nout = (int)i + 1;
  }
  return 0;
}

static int ep_constant(ep_ctx *P, sq_ecomp *c, const sq_ey *node, const ep_at *at) {
  const sq_ey *map = sq_ey_get(node, "map");
  if (ep_map_names(P, c, map, at)) return -1;
  if (!(c->val = calloc((size_t)c->nout, sizeof(double)))) return ep_fail(P, at, "out of memory"), -1;
  for (int k = 0; k < c->nout; ++k)
    if (ep_number(map->items[k], &c->val[k]))
      return ep_fail(P, &(ep_at){c->file, map->items[k]->line, c->tag}, "'%s' must be a number", c->out[k]), -1;
  return ep_sort_out(c, c->val, 1) ? ep_fail(P, at, "out of memory"), -1 : 0;
}

/* sort a grid's outputs by name, keeping the permutation (c->perm) to its stored columns */
static int ep_sort_keep(ep_ctx *P, sq_ecomp *c, const ep_at *at) {
  int perm[SQ_EASI_MAXDIM];
  ep_order(c->nout, c->out, perm);
  if (!(c->perm = malloc((size_t)c->nout * sizeof(int)))) return ep_fail(P, at, "out of memory"), -1;
  char *sorted[SQ_EASI_MAXDIM];
  for (int k = 0; k < c->nout; ++k) {
    sorted[k] = c->out[perm[k]];
    c->perm[k] = perm[k];
  }
  memcpy(c->out, sorted, (size_t)c->nout * sizeof(char *));
  return 0;
}

static int ep_function(ep_ctx *P, sq_ecomp *c, const sq_ey *node, const ep_at *at) {
  const sq_ey *map = sq_ey_get(node, "map");
  if (ep_map_names(P, c, map, at)) return -1;
  int perm[SQ_EASI_MAXDIM];
  ep_order(c->nout, c->out, perm);
  if (!(c->fn = calloc((size_t)c->nout, sizeof(*c->fn)))) return ep_fail(P, at, "out of memory"), -1;
  char *sorted[SQ_EASI_MAXDIM];
  for (int k = 0; k < c->nout; ++k) {
    const sq_ey *code = map->items[perm[k]];
    sorted[k] = c->out[perm[k]];
    if (code->kind != SQ_EY_SCALAR)
      return ep_fail(P, &(ep_at){c->file, code->line, c->tag}, "the function of '%s' must be text", sorted[k]), -1;
    if (sq_efunc_compile(code->text, c->file, code->line + (code->block ? 1 : 0), c->nin, c->in, sorted[k], &c->fn[k],
                         P->msg, P->size)) {
      P->failed = 1;
      return -1;
    }
  }
  memcpy(c->out, sorted, (size_t)c->nout * sizeof(char *));
  return 0;
}

static int ep_lua(ep_ctx *P, sq_ecomp *c, const sq_ey *node, const ep_at *at) {
  const sq_ey *map = sq_ey_get(node, "map");
  if (map) { /* map form: per parameter a chunk returning its value */
    static const char *const keys[] = {"map", "components", NULL};
    if (ep_keys(P, at, node, keys) || ep_map_names(P, c, map, at)) return -1;
    int perm[SQ_EASI_MAXDIM];
    ep_order(c->nout, c->out, perm);
    char *sorted[SQ_EASI_MAXDIM];
    if (!(c->luas = calloc((size_t)c->nout, sizeof(*c->luas)))) return ep_fail(P, at, "out of memory"), -1;
    for (int k = 0; k < c->nout; ++k) {
      const sq_ey *code = map->items[perm[k]];
      sorted[k] = c->out[perm[k]];
      if (code->kind != SQ_EY_SCALAR)
        return ep_fail(P, &(ep_at){c->file, code->line, c->tag}, "the code of '%s' must be text", sorted[k]), -1;
      /* the code is kept with as many leading newlines as lines before it: Lua's messages then give
       * the file's line numbers */
      int first = code->line + (code->block ? 1 : 0);
      size_t len = strlen(code->text);
      char *s = malloc(len + (size_t)first + 1);
      if (!s) return ep_fail(P, at, "out of memory"), -1;
      memset(s, '\n', (size_t)first - 1);
      memcpy(s + first - 1, code->text, len + 1);
      c->luas[k] = s;
    }
    memcpy(c->out, sorted, (size_t)c->nout * sizeof(char *));
  } else {
    static const char *const keys[] = {"returns", "function", "components", NULL};
    if (ep_keys(P, at, node, keys)) return -1;
    if (ep_names(P, at, sq_ey_get(node, "returns"), "returns", &c->nout, &c->out)) return -1;
    qsort(c->out, (size_t)c->nout, sizeof(char *), ep_cmp_str);
    const sq_ey *code = sq_ey_get(node, "function");
    if (!code || code->kind != SQ_EY_SCALAR)
      return ep_fail(P, at, "'function' must be the Lua code defining 'function f (x)'"), -1;
    int first = code->line + (code->block ? 1 : 0);
    size_t len = strlen(code->text);
    if (!(c->lua = malloc(len + (size_t)first + 1))) return ep_fail(P, at, "out of memory"), -1;
    memset(c->lua, '\n', (size_t)first - 1);
    memcpy(c->lua + first - 1, code->text, len + 1);
    c->lua_line = first;
  }
  if (sq_elua_check(c, P->msg, P->size)) {
    P->failed = 1;
    return -1;
  }
  sq_ecomp **l = realloc(P->m->luac, (size_t)(P->m->nlua + 1) * sizeof(*l));
  if (!l) return ep_fail(P, at, "out of memory"), -1;
  P->m->luac = l;
  c->lua_id = P->m->nlua;
  l[P->m->nlua++] = c;
  return 0;
}

static int ep_affine(ep_ctx *P, sq_ecomp *c, const sq_ey *node, const ep_at *at) {
  const sq_ey *mat = sq_ey_get(node, "matrix"), *tr = sq_ey_get(node, "translation");
  if (!mat || mat->kind != SQ_EY_MAP || mat->n == 0)
    return ep_fail(P, at, "'matrix' must be a mapping of output dimensions to rows"), -1;
  if (ep_map_names(P, c, mat, at)) return -1;
  int w = c->nin + 1;
  if (!(c->val = calloc((size_t)(c->nout * w), sizeof(double)))) return ep_fail(P, at, "out of memory"), -1;
  for (int k = 0; k < c->nout; ++k) {
    const sq_ey *row = mat->items[k];
    ep_at rat = {c->file, row->line, c->tag};
    if (row->kind != SQ_EY_SEQ || (int)row->n != c->nin)
      return ep_fail(P, &rat, "matrix row '%s' must list %d numbers, one per input dimension in sorted order",
                     c->out[k], c->nin),
             -1;
    for (int j = 0; j < c->nin; ++j)
      if (ep_number(row->items[j], &c->val[k * w + j]))
        return ep_fail(P, &rat, "matrix row '%s': item %d is not a number", c->out[k], j + 1), -1;
  }
  if (tr) {
    if (tr->kind != SQ_EY_MAP)
      return ep_fail(P, &(ep_at){c->file, tr->line, c->tag}, "'translation' must be a mapping"), -1;
    for (size_t i = 0; i < tr->n; ++i) {
      int k = tr->keys[i]->kind == SQ_EY_SCALAR ? ep_index(c->nout, c->out, tr->keys[i]->text) : -1;
      ep_at tat = {c->file, tr->keys[i]->line, c->tag};
      if (k < 0) return ep_fail(P, &tat, "'translation' names a dimension that 'matrix' does not have"), -1;
      if (ep_number(tr->items[i], &c->val[k * w + c->nin]))
        return ep_fail(P, &tat, "translation of '%s' must be a number", c->out[k]), -1;
    }
  }
  return ep_sort_out(c, c->val, w) ? ep_fail(P, at, "out of memory"), -1 : 0;
}

static int ep_poly(ep_ctx *P, sq_ecomp *c, const sq_ey *node, const ep_at *at) {
  const sq_ey *map = sq_ey_get(node, "map");
  if (ep_map_names(P, c, map, at)) return -1;
  if (c->nin != 1) return ep_fail(P, at, "needs one input dimension, it has %d", c->nin), -1;
  int perm[SQ_EASI_MAXDIM];
  ep_order(c->nout, c->out, perm);
  size_t total = 0;
  for (int k = 0; k < c->nout; ++k) {
    const sq_ey *row = map->items[k];
    if (row->kind != SQ_EY_SEQ || row->n == 0)
      return ep_fail(P, &(ep_at){c->file, row->line, c->tag}, "'%s' must list the coefficients from x^n down to 1",
                     c->out[k]),
             -1;
    total += row->n;
  }
  c->val = calloc(total, sizeof(double));
  c->ncoef = calloc((size_t)c->nout, sizeof(int));
  if (!c->val || !c->ncoef) return ep_fail(P, at, "out of memory"), -1;
  char *sorted[SQ_EASI_MAXDIM];
  size_t o = 0;
  for (int k = 0; k < c->nout; ++k) {
    const sq_ey *row = map->items[perm[k]];
    sorted[k] = c->out[perm[k]];
    c->ncoef[k] = (int)row->n;
    for (size_t j = 0; j < row->n; ++j)
      if (ep_number(row->items[j], &c->val[o++]))
        return ep_fail(P, &(ep_at){c->file, row->line, c->tag}, "'%s': coefficient %zu is not a number", sorted[k],
                       j + 1),
               -1;
  }
  memcpy(c->out, sorted, (size_t)c->nout * sizeof(char *));
  return 0;
}

typedef struct {
  double z;
  const sq_ey *row;
} ep_node;

static int ep_cmp_node(const void *a, const void *b) {
  double x = ((const ep_node *)a)->z, y = ((const ep_node *)b)->z;
  return (x > y) - (x < y);
}

static int ep_layered(ep_ctx *P, sq_ecomp *c, const sq_ey *node, const ep_at *at, int depth) {
  static const char *const keys[] = {"map", "interpolation", "parameters", "nodes", NULL};
  if (ep_keys(P, at, node, keys)) return -1;
  const sq_ey *map = sq_ey_get(node, "map"), *interp = sq_ey_get(node, "interpolation"),
              *nodes = sq_ey_get(node, "nodes");
  if (!map) return ep_fail(P, at, "'map' is missing (the component that gives the layer coordinate)"), -1;
  if (!(c->map = ep_build(P, map, c->file, c->nin, c->in, depth + 1))) return -1;
  if (c->map->nout != 1 || c->map->kind == SQ_EC_SWITCH || c->map->kind == SQ_EC_ANY ||
      c->map->kind == SQ_EC_IDENTITY || c->map->kind == SQ_EC_GROUP || c->map->kind == SQ_EC_CUBOID ||
      c->map->kind == SQ_EC_SPHERE)
    return ep_fail(P, at, "'map' (line %d) must be a map with one output dimension (it has %d)", map->line,
                   c->map->nout),
           -1;
  if (!interp || interp->kind != SQ_EY_SCALAR)
    return ep_fail(P, at, "'interpolation' is missing (lower, upper or linear)"), -1;
  if (strcasecmp(interp->text, "lower") == 0) c->interp = SQ_EI_LOWER;
  else if (strcasecmp(interp->text, "upper") == 0) c->interp = SQ_EI_UPPER;
  else if (strcasecmp(interp->text, "linear") == 0) c->interp = SQ_EI_LINEAR;
  else
    return ep_fail(P, &(ep_at){c->file, interp->line, c->tag}, "interpolation '%s' is not lower, upper or linear",
                   interp->text),
           -1;
  if (ep_names(P, at, sq_ey_get(node, "parameters"), "parameters", &c->nout, &c->out)) return -1;
  if (!nodes || nodes->kind != SQ_EY_MAP || nodes->n == 0)
    return ep_fail(P, at, "'nodes' must map layer coordinates to lists of parameter values"), -1;
  ep_node *ns = calloc(nodes->n, sizeof(*ns));
  if (!ns) return ep_fail(P, at, "out of memory"), -1;
  for (size_t i = 0; i < nodes->n; ++i) {
    ep_at nat = {c->file, nodes->keys[i]->line, c->tag};
    if (ep_number(nodes->keys[i], &ns[i].z)) {
      free(ns);
      return ep_fail(P, &nat, "node '%s' is not a number", nodes->keys[i]->text ? nodes->keys[i]->text : "?"), -1;
    }
    if (c->interp == SQ_EI_LINEAR && isinf(ns[i].z)) {
      free(ns);
      return ep_fail(P, &nat, "infinite nodes are not allowed with interpolation linear"), -1;
    }
    ns[i].row = nodes->items[i];
    if (ns[i].row->kind != SQ_EY_SEQ || (int)ns[i].row->n != c->nout) {
      free(ns);
      return ep_fail(P, &nat, "node %s must list %d values, one per parameter", nodes->keys[i]->text, c->nout), -1;
    }
  }
  qsort(ns, nodes->n, sizeof(*ns), ep_cmp_node);
  c->nnodes = (int)nodes->n;
  c->nodes = malloc(nodes->n * sizeof(double));
  c->val = malloc(nodes->n * (size_t)c->nout * sizeof(double));
  int rc = 0;
  if (!c->nodes || !c->val) rc = (ep_fail(P, at, "out of memory"), -1);
  for (size_t i = 0; !rc && i < nodes->n; ++i) {
    if (i > 0 && ns[i].z == ns[i - 1].z)
      rc = (ep_fail(P, &(ep_at){c->file, ns[i].row->line, c->tag}, "node %g is given twice", ns[i].z), -1);
    c->nodes[i] = ns[i].z;
    for (int k = 0; !rc && k < c->nout; ++k)
      if (ep_number(ns[i].row->items[k], &c->val[i * (size_t)c->nout + k]))
        rc = (ep_fail(P, &(ep_at){c->file, ns[i].row->line, c->tag}, "node %g: value %d is not a number", ns[i].z,
                      k + 1),
              -1);
  }
  free(ns);
  if (rc) return -1;
  /* outputs sorted: the node rows hold the values in 'parameters' order; keep a permutation */
  if (ep_sort_keep(P, c, at)) return -1;
  return 0;
}

static int ep_filter(ep_ctx *P, sq_ecomp *c, const sq_ey *node, const ep_at *at) {
  if (c->kind == SQ_EC_GROUP) {
    const sq_ey *g = sq_ey_get(node, "groups");
    if (!g) return ep_fail(P, at, "'groups' is missing"), -1;
    size_t k = g->kind == SQ_EY_SCALAR ? 1 : g->kind == SQ_EY_SEQ ? g->n : 0;
    if (k == 0)
      return ep_fail(P, &(ep_at){c->file, g->line, c->tag}, "'groups' must be a number or a list of numbers"), -1;
    if (!(c->groups = calloc(k, sizeof(int)))) return ep_fail(P, at, "out of memory"), -1;
    for (size_t i = 0; i < k; ++i) {
      double v;
      if (ep_number(g->kind == SQ_EY_SCALAR ? g : g->items[i], &v) || v != floor(v) || fabs(v) > 2e9)
        return ep_fail(P, &(ep_at){c->file, g->line, c->tag}, "'groups': item %zu is not an integer", i + 1), -1;
      c->groups[i] = (int)v;
    }
    c->ngroups = (int)k;
  } else if (c->kind == SQ_EC_CUBOID) {
    const sq_ey *lim = sq_ey_get(node, "limits");
    if (!lim || lim->kind != SQ_EY_MAP)
      return ep_fail(P, at, "'limits' must map input dimensions to [lower, upper]"), -1;
    if (!(c->lim = malloc((size_t)(2 * c->nin + 1) * sizeof(double)))) return ep_fail(P, at, "out of memory"), -1;
    for (int j = 0; j < c->nin; ++j) {
      c->lim[2 * j] = -INFINITY;
      c->lim[2 * j + 1] = INFINITY;
    }
    for (size_t i = 0; i < lim->n; ++i) {
      ep_at lat = {c->file, lim->keys[i]->line, c->tag};
      int j = lim->keys[i]->kind == SQ_EY_SCALAR ? ep_index(c->nin, c->in, lim->keys[i]->text) : -1;
      if (j < 0) return ep_fail(P, &lat, "limit '%s' is not an input dimension", lim->keys[i]->text), -1;
      const sq_ey *r = lim->items[i];
      if (r->kind != SQ_EY_SEQ || r->n != 2 || ep_number(r->items[0], &c->lim[2 * j]) ||
          ep_number(r->items[1], &c->lim[2 * j + 1]))
        return ep_fail(P, &lat, "limit '%s' must be [lower, upper]", lim->keys[i]->text), -1;
      if (c->lim[2 * j] > c->lim[2 * j + 1])
        return ep_fail(P, &lat, "limit '%s': lower %g is above upper %g", lim->keys[i]->text, c->lim[2 * j],
                       c->lim[2 * j + 1]),
               -1;
    }
  } else if (c->kind == SQ_EC_SPHERE) {
    const sq_ey *cen = sq_ey_get(node, "centre"), *rad = sq_ey_get(node, "radius");
    if (!rad || ep_number(rad, &c->radius) || c->radius < 0)
      return ep_fail(P, at, "'radius' must be a number >= 0"), -1;
    if (!cen || cen->kind != SQ_EY_MAP) return ep_fail(P, at, "'centre' must map input dimensions to numbers"), -1;
    if (!(c->lim = calloc((size_t)c->nin + 1, sizeof(double)))) return ep_fail(P, at, "out of memory"), -1;
    if ((int)cen->n != c->nin) return ep_fail(P, at, "'centre' must give all %d input dimensions", c->nin), -1;
    for (size_t i = 0; i < cen->n; ++i) {
      int j = cen->keys[i]->kind == SQ_EY_SCALAR ? ep_index(c->nin, c->in, cen->keys[i]->text) : -1;
      if (j < 0 || ep_number(cen->items[i], &c->lim[j]))
        return ep_fail(P, &(ep_at){c->file, cen->keys[i]->line, c->tag},
                       "'centre': '%s' is not an input dimension with a number", cen->keys[i]->text),
               -1;
    }
  }
  return 0;
}

static int ep_switch(ep_ctx *P, sq_ecomp *c, const sq_ey *node, const ep_at *at, int depth) {
  if (node->n == 0) return ep_fail(P, at, "no cases ([parameters]: component)"), -1;
  c->child = calloc(node->n, sizeof(*c->child));
  c->keys = calloc(node->n, sizeof(*c->keys));
  c->nkeys = calloc(node->n, sizeof(int));
  if (!c->child || !c->keys || !c->nkeys) return ep_fail(P, at, "out of memory"), -1;
  for (size_t i = 0; i < node->n; ++i) {
    ep_at kat = {c->file, node->keys[i]->line, c->tag};
    if (ep_names(P, &kat, node->keys[i], "case", &c->nkeys[i], &c->keys[i])) return -1;
    c->nchild = (int)i + 1; /* sq_ecomp_free frees the keys of the first nchild cases */
    for (size_t j = 0; j < i; ++j)
      for (int a = 0; a < c->nkeys[i]; ++a)
        if (ep_index(c->nkeys[j], c->keys[j], c->keys[i][a]) >= 0)
          return ep_fail(P, &kat, "parameter '%s' is given by two cases (lines %d and %d)", c->keys[i][a],
                         node->keys[j]->line, node->keys[i]->line),
                 -1;
    if (!(c->child[i] = ep_build(P, node->items[i], c->file, c->nin, c->in, depth + 1))) return -1;
  }
  return 0;
}

static int ep_grid(ep_ctx *P, sq_ecomp *c, const sq_ey *node, const ep_at *at) {
  const sq_ey *file = sq_ey_get(node, "file"), *interp = sq_ey_get(node, "interpolation");
  if (!file || file->kind != SQ_EY_SCALAR || !file->text[0]) return ep_fail(P, at, "'file' is missing"), -1;
  c->interp = SQ_EI_LINEAR;
  if (interp) {
    if (interp->kind == SQ_EY_SCALAR && strcasecmp(interp->text, "nearest") == 0) c->interp = SQ_EI_NEAREST;
    else if (!(interp->kind == SQ_EY_SCALAR && strcasecmp(interp->text, "linear") == 0))
      return ep_fail(P, &(ep_at){c->file, interp->line, c->tag}, "interpolation must be nearest or linear"), -1;
  }
  /* the file is relative to the model file's folder */
  char path[4096];
  const char *slash = strrchr(c->file, '/');
  if (file->text[0] == '/' || !slash) snprintf(path, sizeof(path), "%s", file->text);
  else snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - c->file), c->file, file->text);
  char why[SQ_EASI_MSG];
  int nparams;
  if (c->kind == SQ_EC_SCEC) {
    static const char *const scec[] = {"cohesion", "d_c",     "forced_rupture_time", "mu_d", "mu_s", "s_dip",
                                       "s_normal", "s_strike"};
    if (c->nin != 2)
      return ep_fail(P, at, "needs two input dimensions (along strike, along dip), it has %d", c->nin), -1;
    if (!(c->out = ep_dup_names(8, (char *const *)scec))) return ep_fail(P, at, "out of memory"), -1;
    c->nout = 8;
    nparams = 8;
    if (sq_egrid_read_scec(path, &c->grid, why, sizeof(why))) return ep_fail(P, at, "%s", why), -1;
  } else {
    const sq_ey *var = sq_ey_get(node, "var");
    if (var && var->kind != SQ_EY_SCALAR) return ep_fail(P, at, "'var' must be a variable name"), -1;
    if (ep_names(P, at, sq_ey_get(node, "parameters"), "parameters", &c->nout, &c->out)) return -1;
    nparams = c->nout;
    if (c->nin < 1 || c->nin > 3) return ep_fail(P, at, "needs 1 to 3 input dimensions, it has %d", c->nin), -1;
    if (sq_egrid_read_netcdf(path, var ? var->text : "data", c->nin, nparams, &c->grid, why, sizeof(why)))
      return ep_fail(P, at, "%s", why), -1;
  }
  if (ep_sort_keep(P, c, at)) return -1;
  (void)nparams;
  return 0;
}

static int ep_include(ep_ctx *P, const sq_ey *node, const char *file, sq_ecomp **out, int nin, char *const *in,
                      int depth) {
  ep_at at = {file, node->line, "!Include"};
  if (node->kind != SQ_EY_SCALAR || !node->text[0]) return ep_fail(P, &at, "must name a file"), -1;
  char path[4096];
  const char *slash = strrchr(file, '/');
  if (node->text[0] == '/' || !slash) snprintf(path, sizeof(path), "%s", node->text);
  else snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - file), file, node->text);
  char **files = realloc(P->m->files, (size_t)(P->m->nfiles + 1) * sizeof(char *));
  if (!files) return ep_fail(P, &at, "out of memory"), -1;
  P->m->files = files;
  if (!(files[P->m->nfiles] = strdup(path))) return ep_fail(P, &at, "out of memory"), -1;
  const char *fname = files[P->m->nfiles++];
  sq_ey *root;
  char why[SQ_EASI_MSG];
  if (sq_ey_read(fname, &root, why, sizeof(why))) return ep_fail(P, &at, "%s", why), -1;
  *out = ep_build(P, root, fname, nin, in, depth + 1);
  sq_ey_free(root);
  return *out ? 0 : -1;
}

static sq_ecomp *ep_build(ep_ctx *P, const sq_ey *node, const char *file, int nin, char *const *in, int depth) {
  ep_at at = {file, node->line, node->tag};
  if (depth > SQ_EASI_MAXDEPTH) return ep_fail(P, &at, "components nested deeper than %d levels", SQ_EASI_MAXDEPTH);
  if (node->tag && strcmp(node->tag, "!Include") == 0) {
    sq_ecomp *c = NULL;
    ep_include(P, node, file, &c, nin, in, depth);
    return c;
  }
  if (!node->tag && node->kind == SQ_EY_SCALAR)
    return ep_fail(P, &at,
                   "'%.60s' is text, not a component (a tagged mapping such as !ConstantMap; a symbolic link "
                   "stored as a file?)",
                   node->text);
  if (!node->tag) return ep_fail(P, &at, "a component needs a tag (!ConstantMap, !Switch, ...)");
  int t = -1;
  for (size_t i = 0; i < sizeof(ep_tags) / sizeof(ep_tags[0]); ++i)
    if (strcmp(ep_tags[i].tag, node->tag) == 0) t = (int)i;
  if (t < 0) return ep_fail(P, &at, "unknown component (docs/EASI.md lists the supported ones)");
  if (node->kind != SQ_EY_MAP) return ep_fail(P, &at, "must be a mapping of its keys");
  sq_ecomp *c = calloc(1, sizeof(*c));
  if (!c) return ep_fail(P, &at, "out of memory");
  c->kind = ep_tags[t].kind;
  c->tag = ep_tags[t].tag;
  c->file = file;
  c->line = node->line;
  at.tag = c->tag;
  c->nin = nin;
  if (!(c->in = ep_dup_names(nin, in))) {
    free(c);
    return ep_fail(P, &at, "out of memory");
  }
  int rc = 0;
  switch (c->kind) {
  case SQ_EC_CONSTANT: {
    static const char *const k[] = {"map", "components", NULL};
    rc = ep_keys(P, &at, node, k) || ep_constant(P, c, node, &at);
  } break;
  case SQ_EC_FUNCTION: {
    static const char *const k[] = {"map", "components", NULL};
    rc = ep_keys(P, &at, node, k) || ep_function(P, c, node, &at);
  } break;
  case SQ_EC_LUA: rc = ep_lua(P, c, node, &at); break;
  case SQ_EC_AFFINE: {
    static const char *const k[] = {"matrix", "translation", "components", NULL};
    rc = ep_keys(P, &at, node, k) || ep_affine(P, c, node, &at);
  } break;
  case SQ_EC_POLY: {
    static const char *const k[] = {"map", "components", NULL};
    rc = ep_keys(P, &at, node, k) || ep_poly(P, c, node, &at);
  } break;
  case SQ_EC_LAYERED: rc = ep_layered(P, c, node, &at, depth); break;
  case SQ_EC_SWITCH: rc = ep_switch(P, c, node, &at, depth); break;
  case SQ_EC_EVAL: {
    static const char *const k[] = {"parameters", "model", "components", NULL};
    const sq_ey *model = sq_ey_get(node, "model");
    rc = ep_keys(P, &at, node, k);
    if (!rc && !model) rc = (ep_fail(P, &at, "'model' is missing"), -1);
    if (!rc && !(c->model = ep_build(P, model, file, nin, in, depth + 1))) rc = -1;
    if (!rc && ep_names(P, &at, sq_ey_get(node, "parameters"), "parameters", &c->nout, &c->out)) rc = -1;
    if (!rc) qsort(c->out, (size_t)c->nout, sizeof(char *), ep_cmp_str);
  } break;
  case SQ_EC_SCEC:
  case SQ_EC_ASAGI: {
    static const char *const k[] = {"file", "parameters", "var", "interpolation", "components", NULL};
    static const char *const ks[] = {"file", "interpolation", "components", NULL};
    rc = ep_keys(P, &at, node, c->kind == SQ_EC_SCEC ? ks : k) || ep_grid(P, c, node, &at);
  } break;
  default: { /* filters: their output is their input */
    static const char *const kg[] = {"groups", "components", NULL}, *const kc[] = {"limits", "components", NULL},
                             *const ks[] = {"centre", "radius", "components", NULL}, *const ka[] = {"components", NULL};
    const char *const *k = c->kind == SQ_EC_GROUP    ? kg
                           : c->kind == SQ_EC_CUBOID ? kc
                           : c->kind == SQ_EC_SPHERE ? ks
                                                     : ka;
    rc = ep_keys(P, &at, node, k) || ep_filter(P, c, node, &at);
    if (!rc && !(c->out = ep_dup_names(nin, in))) rc = (ep_fail(P, &at, "out of memory"), -1);
    c->nout = nin;
  } break;
  }
  if (!rc && c->kind != SQ_EC_SWITCH && c->kind != SQ_EC_LAYERED) rc = ep_children(P, c, node, depth);
  if (rc) {
    sq_ecomp_free(c);
    return NULL;
  }
  return c;
}

int sq_easi_parse(const char *path, struct sq_easi *m, char *msg, size_t size) {
  ep_ctx P = {.m = m, .msg = msg, .size = size};
  if (!(m->files = calloc(1, sizeof(char *))) || !(m->files[0] = strdup(path))) {
    snprintf(msg, size, "%s: out of memory", path);
    return -1;
  }
  m->nfiles = 1;
  sq_ey *root;
  if (sq_ey_read(path, &root, msg, size)) return -1;
  char *xyz[3] = {"x", "y", "z"};
  m->root = ep_build(&P, root, m->files[0], 3, xyz, 0);
  sq_ey_free(root);
  return m->root ? 0 : -1;
}
