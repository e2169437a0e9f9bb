/**
 * @file config_reference.c  The schema tables printed as markdown: `starquake config-reference` writes
 * docs/CONFIG_REFERENCE.md with it, and tests/integration/test_config_reference.sh checks that the file is current.
 */
#include "config_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
    {sq_cfg_eta_layer_item, &sq_cfg_eta_layer_schema, NULL, NULL, NULL},
    {sq_cfg_eta_group_item, &sq_cfg_eta_group_schema, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL}};

/* What a value check demands, in words. */
static const char *sq_cfg_ref_validate(sq_cfg_value_fn validate) {
  if (validate == sq_cfg_nonempty) return "non-empty";
  if (validate == sq_cfg_prefix) return "non-empty; letters, digits, `_`, `.` and `-` only";
  if (validate == sq_cfg_direction) return "`1` or `-1`";
  if (validate == sq_cfg_nonzero3) return "not the zero vector";
  if (validate == sq_cfg_ps_duration)
    return "a duration >= 0: a number and a unit (`s`, `min`, `h`, `days`, `weeks`, `months`, `years`)";
  if (validate == sq_cfg_ps_multistep) return "`1` or `4`";
  if (validate == sq_cfg_ps_eta) return "Pa s: a number > 0, an expression in x, y, z and group, or `elastic`";
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
    o += (size_t)snprintf(out + o, size - o, "%s%s",
                          key->type == SQ_KEY_INT3 || key->type == SQ_KEY_FLOAT3 ? "each " : "", part);
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
    else o += (size_t)snprintf(out + o, size - o, "%sat most %d items", o ? "; " : "", key->max_items);
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
      SQ_CALL(
          sq_cfg_ref_map(out, keypath, key->type == SQ_KEY_SEQ ? " (each item)" : "", item->schema, item->defaults));
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
          "<!-- Generated by `starquake config-reference` from the schema tables in io/config_tables*.c; do not edit.\n"
          "     Regenerate with tools/gen-config-reference.sh (tests/integration/test_config_reference.sh checks it). "
          "-->\n\n"
          "Every key of a configuration file, with its type, default and allowed values, as the loader checks\n"
          "them.  docs/CONFIG.md explains what the keys mean and the rules that tie keys together (keys that\n"
          "one `type` needs or forbids, `hi > lo`, `vp > vs`, ...).  Types: *int*, *float* (finite), *bool*,\n"
          "*string*, *word* (one of a list), *float3*/*int3* (`[x, y, z]`), *mapping*, *sequence*.  A default\n"
          "of \"—\" means the key has none: give it where it is needed.  Sequence items are shown as `[i]`.\n");
  int ierr = SQ_SUCCESS;
  for (const sq_cfg_key *key = sq_cfg_root_keys; key->name && !ierr; ++key) {
    const char *title = key->required   ? " (required)"
                        : key->optional ? " (optional: the section switches the feature on; its required keys "
                                          "apply when it is present)"
                                        : "";
    if (key->type == SQ_KEY_MAP && key->sub) {
      ierr = sq_cfg_ref_map(out, key->name, title, key->sub, (const char *)defaults + key->offset);
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
      ierr = sq_cfg_ref_map(out, path, key->type == SQ_KEY_SEQ ? " (each item)" : title, item->schema, item->defaults);
    }
  }
  free(defaults);
  if (!ierr && (fflush(out) != 0 || ferror(out)))
    ierr = sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write the configuration reference: %s", strerror(errno));
  return ierr;
}
