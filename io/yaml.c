/**
 * @file yaml.c  The YAML document of a configuration: libyaml events -> node tree, node lookup, and the
 * messages that name a node ("FILE:LINE: key 'section.key': ...").
 *
 * The tree is built completely before the schema walk (schema.c), so YAML syntax errors are reported
 * before schema errors.  Every message goes through sq_cfg_fail(), which reports exactly once.
 */
#include "config_impl.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ============================================================================================== */
/* Node tree                                                                                      */
/* ============================================================================================== */

void sq_node_free(sq_node *node) {
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

sq_node *sq_node_new(sq_node_kind kind, int line) {
  sq_node *node = calloc(1, sizeof(*node));
  if (node) {
    node->kind = kind;
    node->line = line;
  }
  return node;
}

/** Append a pair (map) or an item (seq, @p key NULL); takes ownership of both on success. */
int sq_node_push(sq_node *node, sq_node *key, sq_node *item) {
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

int sq_node_is_null(const sq_node *node) {
  if (!node || node->kind != SQ_NODE_SCALAR || node->quoted) return 0;
  const char *t = node->text;
  return !strcmp(t, "") || !strcmp(t, "~") || !strcmp(t, "null") || !strcmp(t, "Null") || !strcmp(t, "NULL");
}

/** Does the scalar @p key spell @p name exactly? */
int sq_node_is(const sq_node *key, const char *name) {
  return key->kind == SQ_NODE_SCALAR && key->len == strlen(name) && !memcmp(key->text, name, key->len);
}

/** Pair index of @p name in mapping @p map, or -1 (also for a NULL map). */
long sq_node_find(const sq_node *map, const char *name) {
  if (!map || map->kind != SQ_NODE_MAP) return -1;
  for (size_t i = 0; i < map->n; ++i)
    if (sq_node_is(map->keys[i], name)) return (long)i;
  return -1;
}

/** Line of key @p name in @p map, or @p fallback. */
int sq_node_key_line(const sq_node *map, const char *name, int fallback) {
  long i = sq_node_find(map, name);
  return i < 0 ? fallback : map->keys[i]->line;
}

/* ============================================================================================== */
/* Messages                                                                                       */
/* ============================================================================================== */

/** Copy user text for a message: control bytes escaped, cut after SQ_CFG_SHOW characters. */
void sq_cfg_show(char *out, size_t size, const char *text, size_t len) {
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
    if (c < 0x20 || c == 0x7F) o += (size_t)snprintf(out + o, size - o, "\\x%02X", c);
    else out[o++] = (char)c;
  }
  out[o] = '\0';
}

/** What the file holds where a value was expected: "'abc'", "a sequence of 2 items", ... */
const char *sq_cfg_found(const sq_node *node, char *out, size_t size) {
  char shown[4 * SQ_CFG_SHOW + 16];
  if (node->kind == SQ_NODE_MAP) snprintf(out, size, "a mapping");
  else if (node->kind == SQ_NODE_SEQ) snprintf(out, size, "a sequence of %zu item%s", node->n, node->n == 1 ? "" : "s");
  else if (sq_node_is_null(node)) snprintf(out, size, "an empty value");
  else {
    sq_cfg_show(shown, sizeof(shown), node->text, node->len);
    if (node->quoted) snprintf(out, size, "the quoted string \"%s\"", shown);
    else snprintf(out, size, "'%s'", shown);
  }
  return out;
}

/** Mark a cut path buffer with a trailing "..." (paths are bounded; user keys are cut earlier). */
void sq_cfg_path_done(char *out, size_t size, int written) {
  if (written < 0 || (size_t)written >= size) memcpy(out + size - 4, "...", 4);
}

/** "a.b" from @p path and @p key (user text is made printable). */
void sq_cfg_join(char *out, size_t size, const char *path, const char *key, size_t keylen) {
  char shown[4 * SQ_CFG_SHOW + 16];
  sq_cfg_show(shown, sizeof(shown), key, keylen);
  sq_cfg_path_done(out, size, snprintf(out, size, "%s%s%s", path, path[0] ? "." : "", shown));
}

/**
 * Report one input error.  @p path NULL gives "FILE:LINE: msg", otherwise
 * "FILE:LINE: key 'path': msg".  Returns SQ_ERR_INPUT.
 */
int sq_cfg_fail(const char *src_file, int src_line, const sq_cfg_parse *p, int line, const char *path, const char *fmt,
                ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if (line < 0 && p->sets && -1 - line < p->nsets) { /* a node that --set made */
    const char *set = p->sets[-1 - line];
    if (!path) return sq_error(SQ_ERR_INPUT, src_file, src_line, "--set %s: %s", set, msg);
    return sq_error(SQ_ERR_INPUT, src_file, src_line, "--set %s: key '%s': %s", set, path, msg);
  }
  if (!path) return sq_error(SQ_ERR_INPUT, src_file, src_line, "%s:%d: %s", p->name, line, msg);
  return sq_error(SQ_ERR_INPUT, src_file, src_line, "%s:%d: key '%s': %s", p->name, line, path, msg);
}

/** Report a missing required key @p key of the mapping @p section (given at @p line, or absent). */
int sq_cfg_missing(const char *src_file, int src_line, const sq_cfg_parse *p, int given, int line, const char *section,
                   const char *key, const char *hint) {
  char path[SQ_CFG_PATH];
  sq_cfg_join(path, sizeof(path), section, key, strlen(key));
  if (!section[0])
    return sq_cfg_fail(src_file, src_line, p, line, path, "required section is missing; add a '%s:' section%s", key,
                       hint);
  if (given)
    return sq_cfg_fail(src_file, src_line, p, line, path,
                       "required key is missing from section '%s' (line %d); add '%s: ...'%s", section, line, key,
                       hint);
  return sq_cfg_fail(src_file, src_line, p, line, path,
                     "required key is missing: section '%s' is not in the file; add it with '%s: ...'%s", section, key,
                     hint);
}

/* ============================================================================================== */
/* libyaml -> node tree                                                                           */
/* ============================================================================================== */

static int sq_cfg_mark_line(yaml_mark_t mark) { return mark.line >= (size_t)INT_MAX ? INT_MAX : (int)mark.line + 1; }

static int sq_cfg_yaml_error(const sq_cfg_parse *p, const yaml_parser_t *yp) {
  switch (yp->error) {
  case YAML_MEMORY_ERROR:
    return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "%s: out of memory while reading YAML", p->name);
  case YAML_READER_ERROR: {
    int line = 1;
    for (size_t i = 0; i < yp->problem_offset && i < p->len; ++i) line += p->buf[i] == '\n';
    return SQ_CFG_FAIL(p, line, NULL, "not valid YAML text: %s (byte offset %zu); the file must be UTF-8 text",
                       yp->problem ? yp->problem : "unreadable input", yp->problem_offset);
  }
  case YAML_SCANNER_ERROR:
  case YAML_PARSER_ERROR: {
    char context[256] = "";
    size_t at = yp->problem_mark.index;
    if (at < p->len && p->buf[at] == '\t')
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "%s:%d:%zu: YAML syntax error: a tab character; YAML indents with spaces only", p->name,
                      sq_cfg_mark_line(yp->problem_mark), yp->problem_mark.column + 1);
    if (yp->context)
      snprintf(context, sizeof(context), " (%s, line %d column %zu)", yp->context, sq_cfg_mark_line(yp->context_mark),
               yp->context_mark.column + 1);
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "%s:%d:%zu: YAML syntax error: %s%s; check indentation, brackets and quotes", p->name,
                    sq_cfg_mark_line(yp->problem_mark), yp->problem_mark.column + 1,
                    yp->problem ? yp->problem : "invalid YAML", context);
  }
  default:
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: cannot parse YAML (libyaml error %d)", p->name,
                    (int)yp->error);
  }
}

static int sq_cfg_next(const sq_cfg_parse *p, yaml_parser_t *yp, yaml_event_t *event) {
  if (!yaml_parser_parse(yp, event)) return sq_cfg_yaml_error(p, yp);
  return SQ_SUCCESS;
}

/** Build the node starting with @p event (consumed) and everything below it. */
static int sq_cfg_read_node(const sq_cfg_parse *p, yaml_parser_t *yp, yaml_event_t *event, int depth, sq_node **out) {
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
    node->quoted =
        event->data.scalar.style != YAML_PLAIN_SCALAR_STYLE && event->data.scalar.style != YAML_ANY_SCALAR_STYLE;
    yaml_event_delete(event);
    *out = node;
    return SQ_SUCCESS;
  }
  case YAML_ALIAS_EVENT:
    yaml_event_delete(event);
    return SQ_CFG_FAIL(p, line, NULL, "YAML aliases (*name) are not supported; write the value out");
  case YAML_SEQUENCE_START_EVENT:
  case YAML_MAPPING_START_EVENT: {
    int is_map = event->type == YAML_MAPPING_START_EVENT;
    yaml_event_type_t end = is_map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;
    yaml_event_delete(event);
    sq_node *node = sq_node_new(is_map ? SQ_NODE_MAP : SQ_NODE_SEQ, line);
    if (!node) return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading %s", p->name);
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
    return sq_error(SQ_ERR_INTERNAL, __FILE__, __LINE__, "%s:%d: unexpected YAML event %d", p->name, line, type);
  }
  }
}

static int sq_cfg_empty(const sq_cfg_parse *p, int line) {
  return SQ_CFG_FAIL(p, line, NULL,
                     "the configuration is empty; it needs at least the sections 'mesh', "
                     "'materials' and 'equations' (with end_time)");
}

/** Read the single document of the input into a tree whose root is a mapping. */
int sq_cfg_read_tree(const sq_cfg_parse *p, sq_node **root) {
  yaml_parser_t yp;
  yaml_event_t event;
  int rc;
  *root = NULL;
  if (!yaml_parser_initialize(&yp)) return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "cannot initialise libyaml");
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
        rc = SQ_CFG_FAIL(p, line, NULL, "a second YAML document starts here; put the whole configuration in one");
    }
    if (!rc && sq_node_is_null(*root)) {
      rc = sq_cfg_empty(p, 1);
    } else if (!rc && (*root)->kind != SQ_NODE_MAP) {
      char found[4 * SQ_CFG_SHOW + 64];
      rc = SQ_CFG_FAIL(p, (*root)->line, NULL,
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
