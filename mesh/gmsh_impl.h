/**
 * @file gmsh_impl.h  Private declarations of the Gmsh reader: the state that the parser (gmsh_read.c)
 * fills and the mesh builder (gmsh_build.c) reads, and the helpers they share.
 */
#ifndef SQ_GMSH_IMPL_H
#define SQ_GMSH_IMPL_H

#include "sq_mesh_io.h"

#include <stdint.h>
#include <stdio.h>

/** Growable array of elements of size elem. */
typedef struct vec {
  char *data;
  size_t n, cap, elem; /* elements used, allocated, and the element size */
} vec;

#define VEC_AT(v, type, i) (((type *)(v).data)[i])

/* Map of Gmsh tags (node or element tags) to indices; open addressing, key INT64_MIN = empty. */
typedef struct tag_map {
  int64_t *key, *val;
  uint64_t mask;
} tag_map;

/** Power of two above @p n (so that a table with at most n entries always has a free slot). */
uint64_t sq_gmsh_capacity_above(uint64_t n);
/** Tag map for up to @p n keys / its memory. */
int sq_gmsh_tag_map_create(tag_map *t, size_t n);
void sq_gmsh_tag_map_free(tag_map *t);
/** Slot of @p key: holds it, or is the empty slot where it belongs. */
uint64_t sq_gmsh_tag_map_slot(const tag_map *t, int64_t key);
/** Index of @p key, or -1. */
int64_t sq_gmsh_tag_map_get(const tag_map *t, int64_t key);

/** What the parser collects from one file. */
typedef struct gmsh_reader {
  const char *path;
  FILE *fp;
  long line;     /* line of the next character (ASCII parts) */
  long tok_line; /* line where the last token started */
  int binary;
  int version;         /* 22 or 41 */
  int size_t_bytes;    /* the data-size field (bytes of a size_t in 4.1 binary files) */
  const char *section; /* current section, for messages */
  char section_name[80];
  /* nodes: tags and coordinates, in file order */
  vec node_tag, node_xyz;
  /* tetrahedra: node tags (4 each), element tags, positions, groups */
  vec tet_nodes, tet_tag, tet_where, tet_group;
  /* triangles of physical surfaces: node tags (3 each), element tags, positions, codes, physical tags */
  vec tri_nodes, tri_tag, tri_where, tri_code, tri_phys;
  /* 4.1 entities of dimension 2 and 3: dim, tag, first physical tag index, count; physical tags */
  vec ent_dim, ent_tag, ent_first, ent_count, ent_phys;
} gmsh_reader;

void sq_gmsh_reader_free(gmsh_reader *r);
/** "line 12" or "byte 3456": a position for messages. */
const char *sq_gmsh_where_str(const gmsh_reader *r, int64_t where, char *buf, size_t len);
/** Parse the whole file (the first pass): fill @p r from r->fp. */
int sq_gmsh_parse_file(gmsh_reader *r);

#endif
