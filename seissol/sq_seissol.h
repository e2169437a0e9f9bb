/**
 * @file sq_seissol.h  SeisSol compatibility: a SeisSol set-up's parameters.par translated into starquake's
 * native YAML configuration (docs/SEISSOL.md).
 *
 * The translation reads the namelist (io/sq_namelist.h), checks every group and key against the table of
 * SeisSol's keys (seissol/keys.c): a key that starquake maps is translated, a key it knows but does not
 * support is named in a warning, a key of a feature it does not have is an error naming the feature, and a
 * key nobody knows is an error with the nearest valid key.  easi models are referenced, not read.
 */
#ifndef SQ_SEISSOL_H
#define SQ_SEISSOL_H

#include <stdio.h>

#include "sq_namelist.h"

/** What starquake does with a SeisSol key. */
typedef enum sq_seissol_status {
  SQ_SEISSOL_MAPPED,  /**< translated to a native key (its value may still be refused or warned about) */
  SQ_SEISSOL_QUIET,   /**< without effect in starquake, accepted silently (the note says why) */
  SQ_SEISSOL_WARNED,  /**< known, not supported: ignored with a warning */
  SQ_SEISSOL_REFUSED, /**< the key asks for a feature starquake does not have: an error naming it */
} sq_seissol_status;

/** One known key of one group. */
typedef struct sq_seissol_key {
  const char *group, *key;
  sq_seissol_status status;
  const char *note; /**< the native key it maps to, or why it is ignored, or the refused feature */
  int zero_ok;      /**< a warned key: no warning when its value is 0 (the feature off) */
} sq_seissol_key;

/** @brief The table of known keys, ended by a NULL group. */
const sq_seissol_key *sq_seissol_keys(void);
/** @brief The known groups, ended by NULL. */
const char *const *sq_seissol_groups(void);
/** @brief Whether every key of group @p name is ignored with one warning (SpongeLayer, Analysis, ...). */
int sq_seissol_group_ignored(const char *name);

/**
 * @brief Check every group and key of @p nl against the table: unknown group or key: an error
 * "FILE:LINE: ... did you mean ..."; a refused key: an error naming the feature; a warned key: a warning on
 * @p warn (NULL: none).  Mapped keys are left to sq_seissol_translate.
 */
int sq_seissol_check_keys(const sq_namelist *nl, FILE *warn);

/**
 * @brief Translate the set-up @p par_path into native YAML text (*yaml, malloc'd, NUL-terminated).
 * File names of the set-up (mesh, easi models, receiver lists, source files) are taken relative to the
 * folder of @p par_path; in the YAML they are written relative to @p yaml_dir, the folder the YAML will be
 * read from (NULL: the folder of @p par_path, names kept as written; otherwise absolute names).
 * Warnings go to @p warn (NULL: none).  The mesh file need not exist.
 */
int sq_seissol_import(const char *par_path, const char *yaml_dir, char **yaml, FILE *warn);

/** @brief Print the key table as Markdown rows (docs/SEISSOL.md's table is checked against it). */
void sq_seissol_write_keys(FILE *out);

#endif
