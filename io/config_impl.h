/**
 * @file config_impl.h  Private declarations shared by the configuration loader's files: the YAML node
 * tree and its messages (yaml.c), the schema engine and its row types (schema.c), the tables
 * (config_tables.c, config_tables_physics.c) and what the reference writer (config_reference.c) and the
 * loader (config.c) need of them.  The layers call downwards only: yaml.c <- schema.c <- tables <-
 * config.c, config_reference.c.
 */
#ifndef SQ_CONFIG_IMPL_H
#define SQ_CONFIG_IMPL_H

#include "sq_config.h"

#include <stddef.h>
#include <stdio.h>

/** Deepest nesting accepted (the schema needs 5; the limit keeps the recursive walk bounded). */
#define SQ_CFG_MAX_DEPTH 32
/** Largest config file read. */
#define SQ_CFG_MAX_BYTES ((size_t)16 << 20)
/** Most keys one schema table may have. */
#define SQ_CFG_MAX_KEYS 64
/** Size of key-path buffers ("materials.layers[3].rho"). */
#define SQ_CFG_PATH 256
/** Characters of user text echoed in a message before it is cut with "...". */
#define SQ_CFG_SHOW 60

_Static_assert(sizeof(((sq_config *)0)->mesh_kind) == sizeof(int), "enum fields are stored as int");
_Static_assert(sizeof(((sq_config *)0)->ic_kind) == sizeof(int), "enum fields are stored as int");
_Static_assert(sizeof(((sq_config *)0)->ic_profile) == sizeof(int), "enum fields are stored as int");
_Static_assert(sizeof(sq_precision) == sizeof(int), "enum fields are stored as int");
_Static_assert(sizeof(((sq_wave_mode *)0)->type) == sizeof(int), "enum fields are stored as int");

/* ============================================================================================== */
/* YAML node tree and messages (yaml.c)                                                           */
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
  const char *const *sets; /**< the command line's --set KEY=VALUE texts (config_set.c) */
  int nsets;
} sq_cfg_parse;

/** The line number of the nodes that --set number @p k made: messages about them name the --set. */
#define SQ_CFG_SET_LINE(k) (-1 - (k))

void sq_node_free(sq_node *node);
/** Is @p node an unquoted null scalar ("", "~", "null")? */
int sq_node_is_null(const sq_node *node);
/** Does the scalar @p key spell @p name exactly? */
int sq_node_is(const sq_node *key, const char *name);
/** Pair index of @p name in mapping @p map, or -1 (also for a NULL map). */
long sq_node_find(const sq_node *map, const char *name);
/** Line of key @p name in @p map, or @p fallback. */
int sq_node_key_line(const sq_node *map, const char *name, int fallback);

/** Read the single document of the input into a tree whose root is a mapping. */
int sq_cfg_read_tree(const sq_cfg_parse *p, sq_node **root);
/** A new node of @p kind at @p line (NULL when out of memory). */
sq_node *sq_node_new(sq_node_kind kind, int line);
/** Append a pair (map) or an item (seq, @p key NULL); takes ownership of both on success. */
int sq_node_push(sq_node *node, sq_node *key, sq_node *item);

/** Apply @p p's --set overrides to the tree of the file (config_set.c), before the schema walk. */
int sq_cfg_apply_sets(const sq_cfg_parse *p, sq_node *root);

/** Copy user text for a message: control bytes escaped, cut after SQ_CFG_SHOW characters. */
void sq_cfg_show(char *out, size_t size, const char *text, size_t len);
/** What the file holds where a value was expected: "'abc'", "a sequence of 2 items", ... */
const char *sq_cfg_found(const sq_node *node, char *out, size_t size);
/** Mark a cut path buffer with a trailing "..." (paths are bounded; user keys are cut earlier). */
void sq_cfg_path_done(char *out, size_t size, int written);
/** "a.b" from @p path and @p key (user text is made printable). */
void sq_cfg_join(char *out, size_t size, const char *path, const char *key, size_t keylen);

/**
 * Report one input error.  @p path NULL gives "FILE:LINE: msg", otherwise
 * "FILE:LINE: key 'path': msg".  @p src_file and @p src_line name the caller for sq_error's verbose
 * report (SQ_CFG_FAIL fills them in).  Returns SQ_ERR_INPUT.
 */
int sq_cfg_fail(const char *src_file, int src_line, const sq_cfg_parse *p, int line, const char *path, const char *fmt,
                ...) __attribute__((format(printf, 6, 7)));
#define SQ_CFG_FAIL(p, line, path, ...) sq_cfg_fail(__FILE__, __LINE__, (p), (line), (path), __VA_ARGS__)

/** Report a missing required key @p key of the mapping @p section (given at @p line, or absent). */
int sq_cfg_missing(const char *src_file, int src_line, const sq_cfg_parse *p, int given, int line, const char *section,
                   const char *key, const char *hint);
#define SQ_CFG_MISSING(p, given, line, section, key, hint)                                                             \
  sq_cfg_missing(__FILE__, __LINE__, (p), (given), (line), (section), (key), (hint))

/* ============================================================================================== */
/* Schema engine (schema.c)                                                                       */
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
typedef int (*sq_cfg_item_fn)(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base);
/** Extra check of one stored value (@p field points at it). */
typedef int (*sq_cfg_value_fn)(sq_cfg_parse *p, const sq_node *node, const char *path, void *field);
/** Cross-key check of a whole mapping (@p map NULL when the mapping is absent or empty). */
typedef int (*sq_cfg_check_fn)(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base);

/** One row of a schema table. */
typedef struct sq_cfg_key {
  const char *name;
  sq_cfg_type type;
  int required;
  int range; /**< SQ_MIN_* | SQ_MAX_* (numbers, per component for triples) */
  double min, max;
  size_t offset;                /**< where the value goes in the base struct */
  size_t size;                  /**< SQ_KEY_STRING: buffer size */
  const sq_cfg_word *words;     /**< SQ_KEY_ENUM / SQ_KEY_STRING: allowed words, NULL-terminated */
  const sq_cfg_schema *sub;     /**< SQ_KEY_MAP: nested schema (base + offset) */
  sq_cfg_item_fn item;          /**< SQ_KEY_SEQ (per item) or SQ_KEY_MAP (whole mapping) */
  int min_items, max_items;     /**< SQ_KEY_SEQ */
  sq_cfg_value_fn validate;     /**< optional extra check after the store */
  int optional;                 /**< SQ_KEY_MAP: an absent mapping is skipped, so its required keys and checks
                                     apply only when it is given (sections that switch a feature on) */
  const char *const *expr_vars; /**< SQ_KEY_EXPR: extra variable names besides x, y, z (NULL-terminated) */
  int expr_numbers;             /**< SQ_KEY_EXPR: a plain number is checked as SQ_KEY_FLOAT is (range, NaN) */
} sq_cfg_key;

/** A mapping: its keys (terminated by a row with name NULL) and an optional cross-key check. */
struct sq_cfg_schema {
  const sq_cfg_key *keys;
  sq_cfg_check_fn check;
};

/**
 * Walk mapping @p map (NULL: absent; a null scalar: empty) against @p schema, storing into @p base.
 * @p line is where the mapping is introduced (its key's line; the parent's line when absent): the
 * line that messages about missing keys name.
 */
int sq_cfg_map(sq_cfg_parse *p, const sq_node *map, int line, const char *path, const sq_cfg_schema *schema,
               void *base);
/** Index of the word @p node spells, or an error listing the allowed words. */
int sq_cfg_get_word(sq_cfg_parse *p, const sq_cfg_key *key, const sq_node *node, const char *path, int *index);
/** [x, y, z] of ints or floats; the key's range applies to every component. */
int sq_cfg_get_triple(sq_cfg_parse *p, const sq_cfg_key *key, const sq_node *node, const char *path, void *field);
/** YAML 1.2 core float syntax (a plain number). */
int sq_cfg_float_syntax(const char *s);
/** The range of @p key in words ("in [0, 1]", ">= 1", ...). */
void sq_cfg_range_text(const sq_cfg_key *key, int is_int, char *out, size_t size);

/* Checks that several tables share. */
/** Value check: a non-empty string. */
int sq_cfg_nonempty(sq_cfg_parse *p, const sq_node *node, const char *path, void *field);
/** hi > lo on every axis; the error points at 'hi' (or 'lo', or the mapping). */
int sq_cfg_check_box_order(sq_cfg_parse *p, const sq_node *map, int line, const char *path, const double lo[3],
                           const double hi[3]);
/** Resolve the string key @p key of @p map (stored in @p file) against the config's folder. */
int sq_cfg_resolve(sq_cfg_parse *p, const sq_node *map, int line, const char *path, const char *key, char *file);
/**
 * Keys of @p map that type @p type_name does not use are errors; keys it needs are required.
 * @p keys lists every optional key of the mapping; @p needed and @p allowed are NULL-terminated.
 */
int sq_cfg_keys_for_type(sq_cfg_parse *p, const sq_node *map, int line, const char *path, const char *const *keys,
                         const char *const *needed, const char *const *allowed, const char *type_name,
                         const char *what);

/* ============================================================================================== */
/* Tables (config_tables.c, config_tables_physics.c)                                              */
/* ============================================================================================== */

/** The top level of a configuration: the loader walks it, the reference writer prints it. */
extern const sq_cfg_key sq_cfg_root_keys[];
extern const sq_cfg_schema sq_cfg_root_schema;

/* The sections of config_tables_physics.c that the root table names. */
extern const sq_cfg_schema sq_cfg_materials_schema, sq_cfg_ic_schema, sq_cfg_fault_schema, sq_cfg_plasticity_schema;
extern const sq_cfg_schema sq_cfg_attenuation_schema;

/* Handlers of mappings and sequence items, their item schemas, and value checks: the reference
 * writer shows what each handler reads (sq_cfg_ref_items) and what each check demands. */
typedef struct sq_cfg_zone {
  double lo[3], hi[3];
  int factor;
} sq_cfg_zone;

int sq_cfg_zone_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base);
int sq_cfg_box_fault(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base);
int sq_cfg_field_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base);
int sq_cfg_receiver_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base);
int sq_cfg_material_default(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base);
int sq_cfg_layer_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base);
int sq_cfg_region_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base);
int sq_cfg_group_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base);
int sq_cfg_mode_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base);
int sq_cfg_source_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base);
int sq_cfg_patch_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base);
int sq_cfg_station_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base);
/* the postseismic section (config_tables_postseismic.c) */
int sq_cfg_eta_layer_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base);
int sq_cfg_eta_group_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base);
extern const sq_cfg_schema sq_cfg_postseismic_schema, sq_cfg_eta_layer_schema, sq_cfg_eta_group_schema;
void sq_ps_config_default(sq_ps_config *ps);
/* value checks: a duration with its unit, a viscosity */
int sq_cfg_ps_duration(sq_cfg_parse *p, const sq_node *node, const char *path, void *field);
int sq_cfg_ps_eta(sq_cfg_parse *p, const sq_node *node, const char *path, void *field);
int sq_cfg_ps_multistep(sq_cfg_parse *p, const sq_node *node, const char *path, void *field);

extern const sq_cfg_schema sq_cfg_zone_schema, sq_cfg_box_fault_schema, sq_cfg_material_schema, sq_cfg_layer_schema,
    sq_cfg_region_schema, sq_cfg_group_schema, sq_cfg_mode_schema, sq_cfg_source_schema, sq_cfg_patch_schema;
/** The words of output.fields. */
extern const sq_cfg_word sq_cfg_quantity_words[];

int sq_cfg_prefix(sq_cfg_parse *p, const sq_node *node, const char *path, void *field);
int sq_cfg_direction(sq_cfg_parse *p, const sq_node *node, const char *path, void *field);
int sq_cfg_nonzero3(sq_cfg_parse *p, const sq_node *node, const char *path, void *field);

#endif
