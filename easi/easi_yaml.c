/**
 * @file easi_yaml.c  The YAML tree of an easi file: libyaml events -> nodes that keep their tag
 * ("!Switch") and line.  The configuration's own reader (io/yaml.c) drops tags; easi needs them.
 */
#include "easi_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/** Largest easi file read. */
#define SQ_EY_MAX_BYTES ((size_t)64 << 20)

void sq_ey_free(sq_ey *node) {
  if (!node) return;
  for (size_t i = 0; i < node->n; ++i) {
    if (node->keys) sq_ey_free(node->keys[i]);
    sq_ey_free(node->items[i]);
  }
  free(node->keys);
  free(node->items);
  free(node->tag);
  free(node->text);
  free(node);
}

const sq_ey *sq_ey_get(const sq_ey *map, const char *key) {
  if (!map || map->kind != SQ_EY_MAP) return NULL;
  for (size_t i = 0; i < map->n; ++i)
    if (map->keys[i]->kind == SQ_EY_SCALAR && strcmp(map->keys[i]->text, key) == 0) return map->items[i];
  return NULL;
}

static sq_ey *ey_new(sq_ey_kind kind, int line, const unsigned char *tag) {
  sq_ey *n = calloc(1, sizeof(*n));
  if (!n) return NULL;
  n->kind = kind;
  n->line = line;
  if (tag && !(n->tag = strdup((const char *)tag))) {
    free(n);
    return NULL;
  }
  return n;
}

static int ey_push(sq_ey *parent, sq_ey *key, sq_ey *item) {
  if (parent->n == parent->cap) {
    size_t cap = parent->cap ? 2 * parent->cap : 4;
    sq_ey **items = realloc(parent->items, cap * sizeof(*items));
    if (!items) return -1;
    parent->items = items;
    if (parent->kind == SQ_EY_MAP) {
      sq_ey **keys = realloc(parent->keys, cap * sizeof(*keys));
      if (!keys) return -1;
      parent->keys = keys;
    }
    parent->cap = cap;
  }
  if (parent->kind == SQ_EY_MAP) parent->keys[parent->n] = key;
  parent->items[parent->n++] = item;
  return 0;
}

/* The parse keeps a stack of open collections; a mapping alternates between waiting for a key and for
 * its value (the pending key). */
typedef struct {
  sq_ey *node;
  sq_ey *key;
} ey_frame;

int sq_ey_parse(const char *name, const char *buf, size_t len, sq_ey **root, char *msg, size_t size) {
  *root = NULL;
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser)) {
    snprintf(msg, size, "%s: out of memory", name);
    return -1;
  }
  yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
  ey_frame stack[SQ_EASI_MAXDEPTH * 4];
  int depth = 0, done = 0, rc = 0, ndocs = 0;
  sq_ey *top = NULL;
  while (!done) {
    yaml_event_t ev;
    if (!yaml_parser_parse(&parser, &ev)) {
      snprintf(msg, size, "%s:%d: YAML syntax error: %s", name, (int)parser.problem_mark.line + 1,
               parser.problem ? parser.problem : "unknown");
      rc = -1;
      break;
    }
    int line = (int)ev.start_mark.line + 1;
    sq_ey *node = NULL;
    int opens = 0, closes = 0;
    switch (ev.type) {
    case YAML_STREAM_END_EVENT: done = 1; break;
    case YAML_DOCUMENT_START_EVENT:
      if (++ndocs > 1) {
        snprintf(msg, size, "%s:%d: more than one YAML document", name, line);
        rc = -1;
      }
      break;
    case YAML_ALIAS_EVENT:
      snprintf(msg, size, "%s:%d: YAML aliases (*name) are not supported in easi files", name, line);
      rc = -1;
      break;
    case YAML_SCALAR_EVENT:
      node = ey_new(SQ_EY_SCALAR, line, ev.data.scalar.tag);
      if (node) {
        node->text = malloc(ev.data.scalar.length + 1);
        if (node->text) {
          memcpy(node->text, ev.data.scalar.value, ev.data.scalar.length);
          node->text[ev.data.scalar.length] = 0;
        }
        node->block =
            ev.data.scalar.style == YAML_LITERAL_SCALAR_STYLE || ev.data.scalar.style == YAML_FOLDED_SCALAR_STYLE;
        if (!node->text) {
          sq_ey_free(node);
          node = NULL;
        }
      }
      break;
    case YAML_MAPPING_START_EVENT:
      node = ey_new(SQ_EY_MAP, line, ev.data.mapping_start.tag);
      opens = 1;
      break;
    case YAML_SEQUENCE_START_EVENT:
      node = ey_new(SQ_EY_SEQ, line, ev.data.sequence_start.tag);
      opens = 1;
      break;
    case YAML_MAPPING_END_EVENT:
    case YAML_SEQUENCE_END_EVENT: closes = 1; break;
    default: break;
    }
    int wanted = ev.type == YAML_SCALAR_EVENT || opens;
    yaml_event_delete(&ev);
    if (rc) break;
    if (wanted && !node) {
      snprintf(msg, size, "%s: out of memory", name);
      rc = -1;
      break;
    }
    if (node) {
      /* attach to the open collection (or make it the root) */
      if (depth == 0) {
        top = node;
      } else {
        ey_frame *f = &stack[depth - 1];
        if (f->node->kind == SQ_EY_MAP && !f->key) {
          f->key = node;
        } else {
          if (ey_push(f->node, f->key, node)) {
            sq_ey_free(node);
            snprintf(msg, size, "%s: out of memory", name);
            rc = -1;
            break;
          }
          f->key = NULL;
        }
      }
      if (opens) {
        if (depth == (int)(sizeof(stack) / sizeof(stack[0]))) {
          snprintf(msg, size, "%s:%d: nesting deeper than %d levels", name, line,
                   (int)(sizeof(stack) / sizeof(stack[0])));
          rc = -1;
          break;
        }
        stack[depth].node = node;
        stack[depth].key = NULL;
        ++depth;
      }
    }
    if (closes && depth > 0) --depth;
  }
  /* a pending key of an unfinished mapping is owned by nobody */
  for (int i = 0; i < depth; ++i)
    if (stack[i].key) sq_ey_free(stack[i].key);
  yaml_parser_delete(&parser);
  if (rc) {
    sq_ey_free(top);
    return rc;
  }
  if (!top) {
    snprintf(msg, size, "%s:1: the file is empty (an easi model is one component)", name);
    return -1;
  }
  *root = top;
  return 0;
}

int sq_ey_read(const char *path, sq_ey **root, char *msg, size_t size) {
  *root = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(msg, size, "%s: cannot open the easi file", path);
    return -1;
  }
  char *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len + 4096 > cap) {
      cap = cap ? 2 * cap : 8192;
      char *nb = cap > SQ_EY_MAX_BYTES + 8192 ? NULL : realloc(buf, cap);
      if (!nb) {
        free(buf);
        fclose(f);
        snprintf(msg, size, "%s: larger than %zu MiB or out of memory", path, SQ_EY_MAX_BYTES >> 20);
        return -1;
      }
      buf = nb;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) break;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    snprintf(msg, size, "%s: read error", path);
    return -1;
  }
  int rc = sq_ey_parse(path, buf, len, root, msg, size);
  free(buf);
  return rc;
}
