/**
 * @file gmsh_read.c  Gmsh `.msh` files, first pass: the tokenizer and the section parsers of formats 2.2
 * and 4.1 (ASCII and binary).  Parsing collects nodes, tetrahedra and tagged triangles with their Gmsh
 * tags and file positions into a gmsh_reader; gmsh_build.c makes the mesh of them.
 */
#include "gmsh_impl.h"
#include "sq_mesh_hash.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------ */
/* Growable arrays and hash tables                                                                   */
/* ------------------------------------------------------------------------------------------------ */

static int vec_push(vec *v, const void *x, size_t count) {
  if (v->n + count > v->cap) {
    size_t cap = v->cap ? v->cap : 256;
    while (cap < v->n + count) cap *= 2;
    char *p = realloc(v->data, cap * v->elem);
    if (!p)
      return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading a Gmsh file (%zu bytes)",
                      cap * v->elem);
    v->data = p;
    v->cap = cap;
  }
  memcpy(v->data + v->n * v->elem, x, count * v->elem);
  v->n += count;
  return SQ_SUCCESS;
}

static void vec_free(vec *v) {
  free(v->data);
  v->data = NULL;
  v->n = v->cap = 0;
}

/* Power of two above @p n (so that a table with at most n entries always has a free slot). */
uint64_t sq_gmsh_capacity_above(uint64_t n) {
  uint64_t cap = 16;
  while (cap <= n) cap *= 2;
  return cap;
}

int sq_gmsh_tag_map_create(tag_map *t, size_t n) {
  uint64_t cap = sq_gmsh_capacity_above(2 * (uint64_t)n);
  t->mask = cap - 1;
  t->val = NULL;
  SQ_CALL(SQ_CALLOC(t->key, cap));
  int ierr = SQ_CALLOC(t->val, cap);
  if (ierr) {
    SQ_FREE(t->key);
    return ierr;
  }
  for (uint64_t s = 0; s < cap; s++) t->key[s] = INT64_MIN;
  return SQ_SUCCESS;
}

void sq_gmsh_tag_map_free(tag_map *t) {
  SQ_FREE(t->key);
  SQ_FREE(t->val);
}

/* Slot of @p key: holds it, or is the empty slot where it belongs. */
uint64_t sq_gmsh_tag_map_slot(const tag_map *t, int64_t key) {
  uint64_t s = sq_mix64((uint64_t)key) & t->mask;
  while (t->key[s] != INT64_MIN && t->key[s] != key) s = (s + 1) & t->mask;
  return s;
}

/* Index of @p key, or -1. */
int64_t sq_gmsh_tag_map_get(const tag_map *t, int64_t key) {
  uint64_t s = sq_gmsh_tag_map_slot(t, key);
  return t->key[s] == key ? t->val[s] : -1;
}

/* ------------------------------------------------------------------------------------------------ */
/* Element types                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

enum { GMSH_LINE = 1, GMSH_TRIANGLE = 2, GMSH_TETRAHEDRON = 4, GMSH_POINT = 15 };

/* Nodes per element of Gmsh element types 1..31 (0: unknown). */
static int gmsh_type_nodes(int64_t type) {
  static const int nodes[32] = {0, 2,  3,  4,  4, 8,  6,  5,  3,  6,  9, 10, 27, 18, 14, 1,
                                8, 20, 15, 13, 9, 10, 12, 15, 15, 21, 4, 5,  6,  20, 35, 56};
  return type >= 1 && type <= 31 ? nodes[type] : 0;
}

static const char *gmsh_type_name(int64_t type) {
  static const char *names[32] = {"?",
                                  "2-node line",
                                  "3-node triangle",
                                  "4-node quadrangle",
                                  "4-node tetrahedron",
                                  "8-node hexahedron",
                                  "6-node prism",
                                  "5-node pyramid",
                                  "3-node second-order line",
                                  "6-node second-order triangle",
                                  "9-node second-order quadrangle",
                                  "10-node second-order tetrahedron",
                                  "27-node second-order hexahedron",
                                  "18-node second-order prism",
                                  "14-node second-order pyramid",
                                  "1-node point",
                                  "8-node second-order quadrangle",
                                  "20-node second-order hexahedron",
                                  "15-node second-order prism",
                                  "13-node second-order pyramid",
                                  "9-node third-order triangle",
                                  "10-node third-order triangle",
                                  "12-node fourth-order triangle",
                                  "15-node fourth-order triangle",
                                  "15-node fifth-order triangle",
                                  "21-node fifth-order triangle",
                                  "4-node third-order line",
                                  "5-node fourth-order line",
                                  "6-node fifth-order line",
                                  "20-node third-order tetrahedron",
                                  "35-node fourth-order tetrahedron",
                                  "56-node fifth-order tetrahedron"};
  return type >= 1 && type <= 31 ? names[type] : "unknown element type";
}

/* ------------------------------------------------------------------------------------------------ */
/* Reader state and low-level input                                                                  */
/* ------------------------------------------------------------------------------------------------ */

void sq_gmsh_reader_free(gmsh_reader *r) {
  vec *all[] = {&r->node_tag,  &r->node_xyz,  &r->tet_nodes, &r->tet_tag,  &r->tet_where, &r->tet_group,
                &r->tri_nodes, &r->tri_tag,   &r->tri_where, &r->tri_code, &r->tri_phys,  &r->ent_dim,
                &r->ent_tag,   &r->ent_first, &r->ent_count, &r->ent_phys};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) vec_free(all[k]);
}

/* Position for messages: the current token's line (ASCII) or byte offset (binary). */
static int64_t rd_where(const gmsh_reader *r) { return r->binary ? (int64_t)ftell(r->fp) : (int64_t)r->tok_line; }

/* "line 12" or "byte 3456" */
const char *sq_gmsh_where_str(const gmsh_reader *r, int64_t where, char *buf, size_t len) {
  snprintf(buf, len, "%s %lld", r->binary ? "byte" : "line", (long long)where);
  return buf;
}

static int rd_getc(gmsh_reader *r) {
  int c = getc(r->fp);
  if (c == '\n') r->line++;
  return c;
}

static void rd_ungetc(gmsh_reader *r, int c) {
  if (c == EOF) return;
  if (c == '\n') r->line--;
  ungetc(c, r->fp);
}

/* Next whitespace-separated token into @p buf (cut at len-1 characters); 0 at end of file. */
static int rd_token(gmsh_reader *r, char *buf, size_t len) {
  int c;
  do c = rd_getc(r);
  while (c != EOF && isspace(c));
  if (c == EOF) return 0;
  r->tok_line = r->line;
  size_t k = 0;
  while (c != EOF && !isspace(c)) {
    if (k + 1 < len) buf[k++] = (char)c;
    c = rd_getc(r);
  }
  buf[k] = '\0';
  rd_ungetc(r, c);
  return 1;
}

/* Skip the rest of the current line, newline included (before binary data). */
static void rd_skip_line(gmsh_reader *r) {
  int c;
  do c = rd_getc(r);
  while (c != EOF && c != '\n');
}

static int rd_truncated(const gmsh_reader *r, const char *what) {
  if (r->binary)
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "Gmsh file %s: the file ends inside section $%s (byte %ld) while reading %s; the file is "
                    "truncated",
                    r->path, r->section, ftell(r->fp), what);
  return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                  "Gmsh file %s: the file ends inside section $%s (after line %ld) while reading %s; the file is "
                  "truncated",
                  r->path, r->section, r->line, what);
}

/* A section keyword where a number was expected: the section is shorter than its counts say. */
static int rd_early_end(const gmsh_reader *r, const char *what, const char *tok) {
  return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                  "Gmsh file %s, line %ld (section $%s): expected %s, found '%s': the section ends before the "
                  "number of entries announced at its start (the counts in section $%s do not match its content)",
                  r->path, r->tok_line, r->section, what, tok, r->section);
}

static int rd_int(gmsh_reader *r, const char *what, int64_t *out) {
  char tok[64], *end;
  if (!rd_token(r, tok, sizeof tok)) return rd_truncated(r, what);
  if (tok[0] == '$') return rd_early_end(r, what, tok);
  errno = 0;
  long long v = strtoll(tok, &end, 10);
  SQ_CHECK(end != tok && *end == '\0' && errno == 0, SQ_ERR_INPUT,
           "Gmsh file %s, line %ld (section $%s): expected %s (an integer), found '%s'", r->path, r->tok_line,
           r->section, what, tok);
  *out = v;
  return SQ_SUCCESS;
}

static int rd_double(gmsh_reader *r, const char *what, double *out) {
  char tok[128], *end;
  if (!rd_token(r, tok, sizeof tok)) return rd_truncated(r, what);
  if (tok[0] == '$') return rd_early_end(r, what, tok);
  errno = 0;
  double v = strtod(tok, &end);
  SQ_CHECK(end != tok && *end == '\0' && errno != ERANGE, SQ_ERR_INPUT,
           "Gmsh file %s, line %ld (section $%s): expected %s (a number), found '%s'", r->path, r->tok_line, r->section,
           what, tok);
  *out = v;
  return SQ_SUCCESS;
}

static int rd_bytes(gmsh_reader *r, void *buf, size_t size, size_t count, const char *what) {
  if (count && fread(buf, size, count, r->fp) != count) return rd_truncated(r, what);
  return SQ_SUCCESS;
}

/* Binary `int` (4 bytes). */
static int rd_bin_int(gmsh_reader *r, const char *what, int64_t *out) {
  int32_t v;
  SQ_CALL(rd_bytes(r, &v, sizeof v, 1, what));
  *out = v;
  return SQ_SUCCESS;
}

/* Binary `size_t` of the file's data size (4 or 8 bytes). */
static int rd_bin_size(gmsh_reader *r, const char *what, int64_t *out) {
  if (r->size_t_bytes == 4) {
    uint32_t v;
    SQ_CALL(rd_bytes(r, &v, sizeof v, 1, what));
    *out = v;
  } else {
    uint64_t v;
    SQ_CALL(rd_bytes(r, &v, sizeof v, 1, what));
    SQ_CHECK(v <= (uint64_t)INT64_MAX, SQ_ERR_INPUT, "Gmsh file %s, byte %ld (section $%s): %s is out of range",
             r->path, ftell(r->fp), r->section, what);
    *out = (int64_t)v;
  }
  return SQ_SUCCESS;
}

/* An integer of 4.1 headers and tag lists: size_t in binary files, text in ASCII ones. */
static int rd_size41(gmsh_reader *r, const char *what, int64_t *out) {
  return r->binary ? rd_bin_size(r, what, out) : rd_int(r, what, out);
}

/* An `int` field of 4.1 (entity dimension, tags, element types). */
static int rd_int41(gmsh_reader *r, const char *what, int64_t *out) {
  return r->binary ? rd_bin_int(r, what, out) : rd_int(r, what, out);
}

static int rd_double_any(gmsh_reader *r, const char *what, double *out) {
  return r->binary ? rd_bytes(r, out, sizeof *out, 1, what) : rd_double(r, what, out);
}

/* Expect the line `$End<section>` (after binary data Gmsh writes a newline first). */
static int rd_expect_end(gmsh_reader *r) {
  char tok[64], want[64];
  snprintf(want, sizeof want, "$End%s", r->section);
  if (!rd_token(r, tok, sizeof tok)) return rd_truncated(r, want);
  SQ_CHECK(!strcmp(tok, want), SQ_ERR_INPUT,
           "Gmsh file %s, line %ld: expected %s, found '%s' (the counts in section $%s do not match its content)",
           r->path, r->tok_line, want, tok, r->section);
  return SQ_SUCCESS;
}

/* Check a count read from the file. */
static int rd_check_count(const gmsh_reader *r, int64_t n, const char *what) {
  SQ_CHECK(n >= 0, SQ_ERR_INPUT, "Gmsh file %s, %s %ld (section $%s): %s is negative (%lld)", r->path,
           r->binary ? "byte" : "line", r->binary ? ftell(r->fp) : r->tok_line, r->section, what, (long long)n);
  return SQ_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* Sections                                                                                          */
/* ------------------------------------------------------------------------------------------------ */

static int parse_format(gmsh_reader *r) {
  char tok[64];
  int64_t file_type, data_size;
  if (!rd_token(r, tok, sizeof tok)) return rd_truncated(r, "the format version");
  if (!strcmp(tok, "4.1")) r->version = 41;
  else if (!strcmp(tok, "2.2") || !strcmp(tok, "2.1") || !strcmp(tok, "2") || !strcmp(tok, "2.0")) r->version = 22;
  else
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "Gmsh file %s, line %ld: format version %s is not supported; starquake reads versions 2.2 and "
                    "4.1 (save with `gmsh -format msh41` or `-format msh22`)",
                    r->path, r->tok_line, tok);
  SQ_CALL(rd_int(r, "the file type", &file_type));
  SQ_CALL(rd_int(r, "the data size", &data_size));
  SQ_CHECK(file_type == 0 || file_type == 1, SQ_ERR_INPUT,
           "Gmsh file %s, line %ld: file type %lld is neither 0 (ASCII) nor 1 (binary)", r->path, r->tok_line,
           (long long)file_type);
  r->binary = (int)file_type;
  if (r->binary) {
    SQ_CHECK(data_size == 8 || (r->version == 41 && data_size == 4), SQ_ERR_INPUT,
             "Gmsh file %s, line %ld: binary data size %lld is not supported (expected 8)", r->path, r->tok_line,
             (long long)data_size);
    r->size_t_bytes = (int)data_size;
    rd_skip_line(r);
    int32_t one;
    SQ_CALL(rd_bytes(r, &one, sizeof one, 1, "the binary endianness marker"));
    SQ_CHECK(one == 1, SQ_ERR_INPUT,
             "Gmsh file %s: the binary endianness marker reads %d instead of 1; files written on a machine of the "
             "other byte order are not supported (convert with gmsh to ASCII first)",
             r->path, (int)one);
  }
  return rd_expect_end(r);
}

/* Skip a section we do not need, up to its `$End` line (works on binary content too). */
static int skip_section(gmsh_reader *r, const char *name) {
  char want[96], line[96];
  snprintf(want, sizeof want, "$End%s", name);
  size_t k = 0, wlen = strlen(want);
  int overflow = 0;
  for (;;) {
    int c = rd_getc(r);
    if (c == EOF || c == '\n' || c == '\r') {
      if (!overflow && k == wlen && !memcmp(line, want, wlen)) return SQ_SUCCESS;
      if (c == EOF) return rd_truncated(r, want);
      k = 0;
      overflow = 0;
      continue;
    }
    if (k < sizeof line) line[k++] = (char)c;
    else overflow = 1;
  }
}

static int add_node(gmsh_reader *r, int64_t tag, const double x[3]) {
  if (!(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]))) {
    char ws[40];
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "Gmsh file %s, %s (section $Nodes): node %lld has a non-finite coordinate (%g, %g, %g)", r->path,
                    sq_gmsh_where_str(r, rd_where(r), ws, sizeof ws), (long long)tag, x[0], x[1], x[2]);
  }
  SQ_CALL(vec_push(&r->node_tag, &tag, 1));
  return vec_push(&r->node_xyz, x, 3);
}

static int parse_nodes22(gmsh_reader *r) {
  int64_t n;
  SQ_CALL(rd_int(r, "the number of nodes", &n));
  SQ_CALL(rd_check_count(r, n, "the number of nodes"));
  if (r->binary) rd_skip_line(r);
  for (int64_t i = 0; i < n; i++) {
    int64_t tag;
    double x[3];
    if (r->binary) {
      SQ_CALL(rd_bin_int(r, "a node tag", &tag));
      SQ_CALL(rd_bytes(r, x, sizeof(double), 3, "node coordinates"));
    } else {
      SQ_CALL(rd_int(r, "a node tag", &tag));
      for (int d = 0; d < 3; d++) SQ_CALL(rd_double(r, "a node coordinate", &x[d]));
    }
    SQ_CALL(add_node(r, tag, x));
  }
  return rd_expect_end(r);
}

static int parse_nodes41(gmsh_reader *r) {
  int64_t nblocks, nnodes, tmin, tmax;
  SQ_CALL(rd_size41(r, "the number of node blocks", &nblocks));
  SQ_CALL(rd_size41(r, "the number of nodes", &nnodes));
  SQ_CALL(rd_size41(r, "the minimum node tag", &tmin));
  SQ_CALL(rd_size41(r, "the maximum node tag", &tmax));
  SQ_CALL(rd_check_count(r, nblocks, "the number of node blocks"));
  int64_t total = 0;
  vec tags = {.elem = sizeof(int64_t)};
  int ierr = SQ_SUCCESS;
  for (int64_t b = 0; b < nblocks && !ierr; b++) {
    int64_t dim, etag, parametric, count;
    if ((ierr = rd_int41(r, "the entity dimension of a node block", &dim))) break;
    if ((ierr = rd_int41(r, "the entity tag of a node block", &etag))) break;
    if ((ierr = rd_int41(r, "the parametric flag of a node block", &parametric))) break;
    if ((ierr = rd_size41(r, "the number of nodes in a block", &count))) break;
    if ((ierr = rd_check_count(r, count, "the number of nodes in a block"))) break;
    int extra = parametric ? (int)dim : 0; /* u (curves), u v (surfaces), u v w (volumes) */
    if (extra < 0 || extra > 3) {
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "Gmsh file %s (section $Nodes): node block of entity "
                      "dimension %lld",
                      r->path, (long long)dim);
      break;
    }
    tags.n = 0;
    for (int64_t i = 0; i < count && !ierr; i++) {
      int64_t tag;
      if (!(ierr = rd_size41(r, "a node tag", &tag))) ierr = vec_push(&tags, &tag, 1);
    }
    for (int64_t i = 0; i < count && !ierr; i++) {
      double x[6];
      for (int d = 0; d < 3 + extra && !ierr; d++) ierr = rd_double_any(r, "a node coordinate", &x[d]);
      if (!ierr) ierr = add_node(r, VEC_AT(tags, int64_t, i), x);
    }
    total += count;
  }
  vec_free(&tags);
  SQ_CALL(ierr);
  SQ_CHECK(total == nnodes, SQ_ERR_INPUT,
           "Gmsh file %s (section $Nodes): the header announces %lld nodes but the blocks hold %lld", r->path,
           (long long)nnodes, (long long)total);
  return rd_expect_end(r);
}

/* 4.1 $Entities: keep the physical tags of surfaces and volumes. */
static int parse_entities(gmsh_reader *r) {
  int64_t count[4];
  for (int d = 0; d < 4; d++) {
    SQ_CALL(rd_size41(r, "the number of entities", &count[d]));
    SQ_CALL(rd_check_count(r, count[d], "the number of entities"));
  }
  for (int dim = 0; dim < 4; dim++) {
    for (int64_t e = 0; e < count[dim]; e++) {
      int64_t tag, nphys, nbound, v;
      double box[6];
      SQ_CALL(rd_int41(r, "an entity tag", &tag));
      for (int k = 0; k < (dim == 0 ? 3 : 6); k++) SQ_CALL(rd_double_any(r, "an entity coordinate", &box[k]));
      SQ_CALL(rd_size41(r, "the number of physical tags of an entity", &nphys));
      SQ_CALL(rd_check_count(r, nphys, "the number of physical tags of an entity"));
      int64_t first = (int64_t)r->ent_phys.n;
      for (int64_t k = 0; k < nphys; k++) {
        SQ_CALL(rd_int41(r, "a physical tag", &v));
        int32_t p = (int32_t)v;
        SQ_CALL(vec_push(&r->ent_phys, &p, 1));
      }
      if (dim >= 2) {
        int32_t d32 = dim;
        SQ_CALL(vec_push(&r->ent_dim, &d32, 1));
        SQ_CALL(vec_push(&r->ent_tag, &tag, 1));
        SQ_CALL(vec_push(&r->ent_first, &first, 1));
        SQ_CALL(vec_push(&r->ent_count, &nphys, 1));
      }
      if (dim >= 1) {
        SQ_CALL(rd_size41(r, "the number of bounding entities", &nbound));
        SQ_CALL(rd_check_count(r, nbound, "the number of bounding entities"));
        for (int64_t k = 0; k < nbound; k++) SQ_CALL(rd_int41(r, "a bounding entity tag", &v));
      }
    }
  }
  return rd_expect_end(r);
}

/* Physical tags of entity (dim, tag) from $Entities; none if the entity is not listed. */
static void entity_physicals(const gmsh_reader *r, int64_t dim, int64_t tag, const int32_t **phys, int64_t *n) {
  *phys = NULL;
  *n = 0;
  for (size_t e = 0; e < r->ent_tag.n; e++) {
    if (VEC_AT(r->ent_dim, int32_t, e) == dim && VEC_AT(r->ent_tag, int64_t, e) == tag) {
      *n = VEC_AT(r->ent_count, int64_t, e);
      /* an entity without physical tags may come before any tag was stored (ent_phys.data NULL) */
      if (*n > 0) *phys = &VEC_AT(r->ent_phys, int32_t, VEC_AT(r->ent_first, int64_t, e));
      return;
    }
  }
}

/* Boundary code of a triangle from its physical tags (0: none, the triangle carries no boundary tag). */
static int triangle_code(const gmsh_reader *r, int64_t tag, int64_t where, const int32_t *phys, int64_t nphys,
                         int *code, int32_t *phys_used) {
  char ws[40];
  *code = 0;
  *phys_used = 0;
  for (int64_t k = 0; k < nphys; k++) {
    int p = phys[k], c = p - 100;
    SQ_CHECK(c == SQ_BC_FREE || c == SQ_BC_RUPTURE || c == SQ_BC_ABSORB || c == SQ_BC_PERIODIC, SQ_ERR_INPUT,
             "Gmsh file %s, %s: triangle element %lld belongs to physical surface %d, which is not a boundary "
             "code; starquake knows 101 (free surface), 103 (dynamic rupture), 105 (absorbing) and 106 (periodic)",
             r->path, sq_gmsh_where_str(r, where, ws, sizeof ws), (long long)tag, p);
    SQ_CHECK(*code == 0 || *code == c, SQ_ERR_INPUT,
             "Gmsh file %s, %s: triangle element %lld belongs to two physical surfaces, %d and %d; a face takes "
             "one boundary code",
             r->path, sq_gmsh_where_str(r, where, ws, sizeof ws), (long long)tag, *phys_used, p);
    *code = c;
    *phys_used = p;
  }
  return SQ_SUCCESS;
}

/* Classify one element; keep tetrahedra and tagged triangles, ignore points and lines. */
static int add_element(gmsh_reader *r, int64_t type, int64_t tag, const int64_t *nodes, const int32_t *phys,
                       int64_t nphys, int64_t where) {
  char ws[40];
  if (type == GMSH_TETRAHEDRON) {
    int32_t group = nphys > 0 ? phys[0] : 0;
    SQ_CALL(vec_push(&r->tet_nodes, nodes, 4));
    SQ_CALL(vec_push(&r->tet_tag, &tag, 1));
    SQ_CALL(vec_push(&r->tet_where, &where, 1));
    return vec_push(&r->tet_group, &group, 1);
  }
  if (type == GMSH_TRIANGLE) {
    int code;
    int32_t p;
    SQ_CALL(triangle_code(r, tag, where, phys, nphys, &code, &p));
    if (!code) return SQ_SUCCESS;
    int8_t c8 = (int8_t)code;
    SQ_CALL(vec_push(&r->tri_nodes, nodes, 3));
    SQ_CALL(vec_push(&r->tri_tag, &tag, 1));
    SQ_CALL(vec_push(&r->tri_where, &where, 1));
    SQ_CALL(vec_push(&r->tri_code, &c8, 1));
    return vec_push(&r->tri_phys, &p, 1);
  }
  if (type == GMSH_POINT || type == GMSH_LINE) return SQ_SUCCESS;
  /* Second- and higher-order types: 8..14 and 16..31. */
  if (type >= 8 && type <= 31 && type != GMSH_POINT)
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "Gmsh file %s, %s: element %lld is a %s (element type %lld); starquake reads first-order meshes "
                    "only (4-node tetrahedra and 3-node triangles): mesh with Mesh.ElementOrder = 1 (`gmsh -order 1`)",
                    r->path, sq_gmsh_where_str(r, where, ws, sizeof ws), (long long)tag, gmsh_type_name(type),
                    (long long)type);
  return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                  "Gmsh file %s, %s: element %lld has element type %lld (%s); starquake needs a tetrahedral mesh "
                  "(element type 4, with type-2 triangles on tagged surfaces)",
                  r->path, sq_gmsh_where_str(r, where, ws, sizeof ws), (long long)tag, (long long)type,
                  gmsh_type_name(type));
}

/* Element type check before reading its nodes (binary files cannot skip an unknown type). */
static int check_type(gmsh_reader *r, int64_t type, int64_t where) {
  char ws[40];
  SQ_CHECK(gmsh_type_nodes(type) > 0, SQ_ERR_INPUT,
           "Gmsh file %s, %s (section $Elements): unknown element type %lld; starquake needs 4-node tetrahedra "
           "(type 4) and 3-node triangles (type 2)",
           r->path, sq_gmsh_where_str(r, where, ws, sizeof ws), (long long)type);
  return SQ_SUCCESS;
}

static int parse_elements22(gmsh_reader *r) {
  int64_t n;
  SQ_CALL(rd_int(r, "the number of elements", &n));
  SQ_CALL(rd_check_count(r, n, "the number of elements"));
  int64_t nodes[64], tags[64];
  int32_t phys;
  if (!r->binary) {
    for (int64_t i = 0; i < n; i++) {
      int64_t tag, type, ntags;
      SQ_CALL(rd_int(r, "an element tag", &tag));
      int64_t where = r->tok_line;
      SQ_CALL(rd_int(r, "an element type", &type));
      SQ_CALL(check_type(r, type, where));
      SQ_CALL(rd_int(r, "the number of element tags", &ntags));
      SQ_CHECK(ntags >= 0 && ntags <= 64, SQ_ERR_INPUT, "Gmsh file %s, line %ld: element %lld has %lld tags", r->path,
               r->tok_line, (long long)tag, (long long)ntags);
      for (int64_t k = 0; k < ntags; k++) SQ_CALL(rd_int(r, "an element tag (physical or entity)", &tags[k]));
      for (int k = 0; k < gmsh_type_nodes(type); k++) SQ_CALL(rd_int(r, "an element node tag", &nodes[k]));
      phys = ntags > 0 ? (int32_t)tags[0] : 0;
      SQ_CALL(add_element(r, type, tag, nodes, &phys, ntags > 0 && phys != 0, where));
    }
  } else {
    rd_skip_line(r);
    for (int64_t i = 0; i < n;) {
      int64_t type, follow, ntags;
      int64_t where = rd_where(r);
      SQ_CALL(rd_bin_int(r, "an element-block type", &type));
      SQ_CALL(rd_bin_int(r, "an element-block count", &follow));
      SQ_CALL(rd_bin_int(r, "an element-block tag count", &ntags));
      SQ_CALL(check_type(r, type, where));
      SQ_CHECK(follow > 0 && follow <= n - i && ntags >= 0 && ntags <= 64, SQ_ERR_INPUT,
               "Gmsh file %s, byte %lld (section $Elements): corrupt element block header (%lld elements, %lld tags)",
               r->path, (long long)where, (long long)follow, (long long)ntags);
      int nn = gmsh_type_nodes(type);
      for (int64_t e = 0; e < follow; e++) {
        int32_t buf[1 + 64 + 64];
        where = rd_where(r);
        SQ_CALL(rd_bytes(r, buf, sizeof(int32_t), (size_t)(1 + ntags + nn), "an element"));
        for (int k = 0; k < nn; k++) nodes[k] = buf[1 + ntags + k];
        phys = ntags > 0 ? buf[1] : 0;
        SQ_CALL(add_element(r, type, buf[0], nodes, &phys, ntags > 0 && phys != 0, where));
      }
      i += follow;
    }
  }
  return rd_expect_end(r);
}

static int parse_elements41(gmsh_reader *r) {
  int64_t nblocks, nelem, tmin, tmax, total = 0;
  SQ_CALL(rd_size41(r, "the number of element blocks", &nblocks));
  SQ_CALL(rd_size41(r, "the number of elements", &nelem));
  SQ_CALL(rd_size41(r, "the minimum element tag", &tmin));
  SQ_CALL(rd_size41(r, "the maximum element tag", &tmax));
  SQ_CALL(rd_check_count(r, nblocks, "the number of element blocks"));
  for (int64_t b = 0; b < nblocks; b++) {
    int64_t dim, etag, type, count;
    SQ_CALL(rd_int41(r, "the entity dimension of an element block", &dim));
    int64_t where = rd_where(r);
    SQ_CALL(rd_int41(r, "the entity tag of an element block", &etag));
    SQ_CALL(rd_int41(r, "the element type of an element block", &type));
    SQ_CALL(rd_size41(r, "the number of elements in a block", &count));
    SQ_CALL(rd_check_count(r, count, "the number of elements in a block"));
    SQ_CALL(check_type(r, type, where));
    const int32_t *phys;
    int64_t nphys;
    entity_physicals(r, dim, etag, &phys, &nphys);
    int nn = gmsh_type_nodes(type);
    for (int64_t e = 0; e < count; e++) {
      int64_t tag, nodes[64];
      SQ_CALL(rd_size41(r, "an element tag", &tag));
      where = rd_where(r);
      for (int k = 0; k < nn; k++) SQ_CALL(rd_size41(r, "an element node tag", &nodes[k]));
      SQ_CALL(add_element(r, type, tag, nodes, phys, nphys, where));
    }
    total += count;
  }
  SQ_CHECK(total == nelem, SQ_ERR_INPUT,
           "Gmsh file %s (section $Elements): the header announces %lld elements but the blocks hold %lld", r->path,
           (long long)nelem, (long long)total);
  return rd_expect_end(r);
}

/* Parse the whole file into @p r. */
int sq_gmsh_parse_file(gmsh_reader *r) {
  char tok[80];
  int seen_format = 0, seen_nodes = 0, seen_elements = 0;
  r->section = "MeshFormat";
  if (!rd_token(r, tok, sizeof tok) || strcmp(tok, "$MeshFormat"))
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "Gmsh file %s: not a Gmsh mesh file (it does not start with $MeshFormat)", r->path);
  do {
    SQ_CHECK(tok[0] == '$' && strncmp(tok, "$End", 4), SQ_ERR_INPUT,
             "Gmsh file %s, line %ld: expected a section header such as $Nodes, found '%s'", r->path, r->tok_line, tok);
    char *name = r->section_name;
    snprintf(name, sizeof r->section_name, "%s", tok + 1);
    r->section = name;
    if (r->binary) rd_skip_line(r); /* binary data starts on the next line */
    if (!strcmp(name, "MeshFormat")) {
      SQ_CALL(parse_format(r));
      seen_format = 1;
      continue;
    }
    SQ_CHECK(seen_format, SQ_ERR_INPUT, "Gmsh file %s, line %ld: section $%s comes before $MeshFormat", r->path,
             r->tok_line, name);
    if (!strcmp(name, "Nodes")) {
      SQ_CHECK(!seen_nodes, SQ_ERR_INPUT, "Gmsh file %s, line %ld: a second $Nodes section", r->path, r->tok_line);
      SQ_CALL(r->version == 41 ? parse_nodes41(r) : parse_nodes22(r));
      seen_nodes = 1;
    } else if (!strcmp(name, "Elements")) {
      SQ_CHECK(!seen_elements, SQ_ERR_INPUT, "Gmsh file %s, line %ld: a second $Elements section", r->path,
               r->tok_line);
      SQ_CALL(r->version == 41 ? parse_elements41(r) : parse_elements22(r));
      seen_elements = 1;
    } else if (!strcmp(name, "Entities") && r->version == 41) {
      SQ_CALL(parse_entities(r));
    } else if (!strcmp(name, "PartitionedEntities")) {
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "Gmsh file %s, line %ld: partitioned Gmsh files are not supported; save the mesh without "
                      "partitions (starquake partitions it itself)",
                      r->path, r->tok_line);
    } else {
      SQ_CALL(skip_section(r, name));
    }
  } while (rd_token(r, tok, sizeof tok));
  r->section = "(end of file)";
  SQ_CHECK(seen_nodes && seen_elements, SQ_ERR_INPUT, "Gmsh file %s: the file ends before section %s (truncated?)",
           r->path, seen_nodes ? "$Elements" : "$Nodes");
  return SQ_SUCCESS;
}
