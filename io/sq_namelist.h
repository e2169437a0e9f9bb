/**
 * @file sq_namelist.h  A Fortran namelist reader (SeisSol's parameters.par): groups `&name ... /`,
 * `key = value` items, quoted strings, logicals, numbers (with Fortran `d` exponents and `r*c` repeats),
 * arrays of values separated by blanks or commas, `!` comments; every item keeps its line.
 *
 * The reader knows no keys: the meaning of the groups and keys is the caller's (seissol/). Errors name
 * "FILE:LINE:" and what was expected.
 */
#ifndef SQ_NAMELIST_H
#define SQ_NAMELIST_H

#include <stddef.h>

/** The kind of one value. */
typedef enum sq_nml_type {
  SQ_NML_INT,     /**< digits, no point or exponent: num holds it */
  SQ_NML_REAL,    /**< a number with a point or an exponent: num holds it */
  SQ_NML_STRING,  /**< a quoted string: str holds it, quotes removed, doubled quotes undone */
  SQ_NML_LOGICAL, /**< .true. / .false. / T / F: num holds 1 or 0 */
} sq_nml_type;

typedef struct sq_nml_value {
  sq_nml_type type;
  double num; /**< the number or the logical (not for strings) */
  char *str;  /**< the string (strings only), else NULL */
} sq_nml_value;

/** One `key = value value ...` item. */
typedef struct sq_nml_item {
  char *key; /**< as written */
  int line;  /**< the line of the key */
  int nvalue;
  sq_nml_value *value;
} sq_nml_item;

/** One group `&name ... /`. */
typedef struct sq_nml_group {
  char *name; /**< as written */
  int line;   /**< the line of `&name` */
  int nitem;
  sq_nml_item *item;
} sq_nml_group;

typedef struct sq_namelist {
  char *file; /**< the name used in messages */
  int ngroup;
  sq_nml_group *group;
} sq_namelist;

/** Largest namelist file that is read (bytes). */
#define SQ_NML_MAX_BYTES ((size_t)4 << 20)

/**
 * @brief Parse @p len bytes of @p text (need not end in NUL) into @p *out; @p name names it in messages.
 * A group or key given twice, text outside a group, an unquoted word as a value, an unterminated string or
 * group are errors (SQ_ERR_INPUT) "NAME:LINE: ...".
 */
int sq_namelist_parse(const char *text, size_t len, const char *name, sq_namelist **out);
/** @brief Read and parse the file @p path (SQ_ERR_IO when it cannot be read). */
int sq_namelist_read(const char *path, sq_namelist **out);
/** @brief Free it (NULL is fine). */
void sq_namelist_free(sq_namelist *nl);

/** @brief Whether @p text is a namelist: its first character that is not blank or in a `!` comment is '&' (a
 * YAML configuration cannot start so: the configuration takes no anchors). */
int sq_namelist_detect(const char *text, size_t len);
/** @brief Whether the file @p path is a namelist (sq_namelist_detect of its first 64 KiB; 0 when unreadable). */
int sq_namelist_file_detect(const char *path);

/** @brief The group named @p name (case-insensitive), or NULL. */
const sq_nml_group *sq_namelist_group(const sq_namelist *nl, const char *name);
/** @brief The item @p key of @p group (case-insensitive; @p group may be NULL), or NULL. */
const sq_nml_item *sq_namelist_item(const sq_nml_group *group, const char *key);

/** @brief Text of the type of @p v for messages ("a number", "a string", "a logical"). */
const char *sq_nml_type_name(sq_nml_type type);

#endif
