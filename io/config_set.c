/**
 * @file config_set.c  The command line's `--set KEY=VALUE` overrides: each one replaces (or adds) one
 * value in the file's node tree before the schema walk, so that the schema types and checks it exactly
 * like a value written in the file.  KEY is a dotted path (equations.end_time, materials.layers[0].rho);
 * VALUE is YAML text (3, single, [0, 0, 1], {rho: 2700, vp: 6000, vs: 3464}).  The nodes an override
 * makes carry the line SQ_CFG_SET_LINE(k), so that every message about them names the --set.
 */
#include "config_impl.h"

#include <stdlib.h>
#include <string.h>

/** Give every node of the tree @p node the line @p line. */
static void sq_cfg_set_lines(sq_node *node, int line) {
  if (!node) return;
  node->line = line;
  for (size_t i = 0; i < node->n; ++i) {
    if (node->keys) sq_cfg_set_lines(node->keys[i], line);
    sq_cfg_set_lines(node->items[i], line);
  }
}

/** A new key scalar spelling @p name (@p len bytes). */
static sq_node *sq_cfg_set_key(const char *name, size_t len, int line) {
  sq_node *key = sq_node_new(SQ_NODE_SCALAR, line);
  char *text = malloc(len + 1);
  if (!key || !text) {
    free(key);
    free(text);
    return NULL;
  }
  memcpy(text, name, len);
  text[len] = '\0';
  key->text = text;
  key->len = len;
  return key;
}

/** Parse the YAML text @p value of --set number @p k into a node. */
static int sq_cfg_set_value(const sq_cfg_parse *p, int k, const char *value, sq_node **out) {
  const size_t len = strlen(value);
  char *doc = malloc(len + 8);
  if (!doc) return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading --set %s", p->sets[k]);
  snprintf(doc, len + 8, "v: %s\n", value);
  char name[SQ_CFG_SHOW + 16];
  snprintf(name, sizeof(name), "--set %.*s", SQ_CFG_SHOW, p->sets[k]);
  const sq_cfg_parse vp = {.name = name, .dir = p->dir, .buf = (const unsigned char *)doc, .len = strlen(doc)};
  sq_node *root = NULL;
  int rc = sq_cfg_read_tree(&vp, &root);
  free(doc);
  if (rc) return rc;
  *out = root->items[0];
  root->n = 0; /* the value now belongs to the caller */
  sq_node_free(root->keys[0]);
  sq_node_free(root);
  sq_cfg_set_lines(*out, SQ_CFG_SET_LINE(k));
  return SQ_SUCCESS;
}

/** Apply --set number @p k to @p root. */
static int sq_cfg_apply_set(const sq_cfg_parse *p, int k, sq_node *root) {
  const char *set = p->sets[k], *eq = strchr(set, '=');
  const int line = SQ_CFG_SET_LINE(k);
  SQ_CHECK(eq && eq != set, SQ_ERR_INPUT, "--set needs KEY=VALUE, e.g. --set equations.end_time=3 (got '%s')", set);
  sq_node *value = NULL;
  SQ_CALL(sq_cfg_set_value(p, k, eq + 1, &value));
  sq_node *map = root;
  const char *c = set;
  while (c < eq) {
    const char *end = c;
    while (end < eq && *end != '.' && *end != '[') ++end;
    const size_t len = (size_t)(end - c);
    long index = -1;
    const char *next = end;
    if (next < eq && *next == '[') {
      char *close;
      index = strtol(next + 1, &close, 10);
      if (close == next + 1 || close >= eq || *close != ']' || index < 0) index = -2;
      else next = close + 1;
    }
    const int last = next >= eq;
    if (len == 0 || index == -2 || (!last && *next != '.') || (!last && next + 1 >= eq)) {
      sq_node_free(value);
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "--set %s: '%.*s' is not a key path; write section.key or list[INDEX].key, e.g. "
                      "--set materials.layers[0].rho=2700",
                      set, (int)(eq - set), set);
    }
    if (map->kind != SQ_NODE_MAP) { /* an empty section ("output:") becomes a mapping */
      if (!sq_node_is_null(map)) {
        sq_node_free(value);
        return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                        "--set %s: '%.*s' is not a mapping in %s (line %d), so it has no key '%.*s'", set,
                        (int)(c - 1 - set), set, p->name, map->line, (int)len, c);
      }
      free(map->text);
      map->text = NULL, map->len = 0, map->kind = SQ_NODE_MAP;
    }
    long i;
    for (i = 0; i < (long)map->n; ++i)
      if (map->keys[i]->len == len && !memcmp(map->keys[i]->text, c, len)) break;
    if (i == (long)map->n) { /* not in the file: add it (the schema says whether it exists) */
      if (index >= 0) {
        sq_node_free(value);
        return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                        "--set %s: '%.*s' is not in %s; --set changes items of a list the file has, it adds none", set,
                        (int)(end - set), set, p->name);
      }
      sq_node *key = sq_cfg_set_key(c, len, line), *item = last ? value : sq_node_new(SQ_NODE_MAP, line);
      if (!key || !item || sq_node_push(map, key, item)) {
        sq_node_free(key);
        sq_node_free(item);
        if (!last) sq_node_free(value);
        return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory applying --set %s", set);
      }
      if (last) return SQ_SUCCESS;
      map = item;
    } else {
      map->keys[i]->line = line;
      sq_node **slot = &map->items[i];
      if (index >= 0) {
        sq_node *seq = *slot;
        if (seq->kind != SQ_NODE_SEQ || (size_t)index >= seq->n) {
          const long n = seq->kind == SQ_NODE_SEQ ? (long)seq->n : 0;
          sq_node_free(value);
          return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                          "--set %s: '%.*s' has %ld item%s in %s (line %d); the index counts from 0", set,
                          (int)(end - set), set, n, n == 1 ? "" : "s", p->name, seq->line);
        }
        slot = &seq->items[index];
      }
      if (last) {
        sq_node_free(*slot);
        *slot = value;
        return SQ_SUCCESS;
      }
      map = *slot;
    }
    c = next + 1;
  }
  sq_node_free(value);
  return SQ_SUCCESS;
}

int sq_cfg_apply_sets(const sq_cfg_parse *p, sq_node *root) {
  for (int k = 0; k < p->nsets; ++k) SQ_CALL(sq_cfg_apply_set(p, k, root));
  return SQ_SUCCESS;
}
