/**
 * @file config_tables.c  Schema tables of the top level and of the sections that set up the run: mesh,
 * equations, output, runtime, receivers and checkpoint.  The sections of the physical model are in
 * config_tables_physics.c.
 *
 * A table lists the keys of one mapping (sq_cfg_key rows): type, required or not, range, and where the
 * value goes.  A handler parses what needs more than a store; a check ties keys of a mapping together.
 * A new section is a new table plus a row in the root table; docs/CONFIG.md documents every row.
 */
#include "config_impl.h"
#include "sq_ref.h"

#include <math.h>
#include <string.h>

/* ---- mesh.box.boundary ----------------------------------------------------------------------- */

/* clang-format off */
static const sq_cfg_word sq_cfg_bc_words[] = {
    {"periodic", SQ_BC_PERIODIC}, {"free_surface", SQ_BC_FREE}, {"absorbing", SQ_BC_ABSORB},
    {NULL, 0}};
/* clang-format on */

static const char *sq_cfg_bc_word(int bc) {
  for (int i = 0; sq_cfg_bc_words[i].word; ++i)
    if (sq_cfg_bc_words[i].value == bc) return sq_cfg_bc_words[i].word;
  return "?";
}

static const char *const sq_cfg_side_names[6] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};

/** Periodic faces come in pairs: both sides of an axis periodic, or neither. */
static int sq_cfg_check_boundary(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  const int *bc = base;
  char keypath[SQ_CFG_PATH];
  for (int axis = 0; axis < 3; ++axis) {
    int a = 2 * axis, b = 2 * axis + 1;
    if ((bc[a] == SQ_BC_PERIODIC) == (bc[b] == SQ_BC_PERIODIC)) continue;
    /* point at a side the file names (the other may be the default) */
    int side = sq_node_find(map, sq_cfg_side_names[a]) >= 0 ? a : b;
    int other = side == a ? b : a;
    int given_other = sq_node_find(map, sq_cfg_side_names[other]) >= 0;
    sq_cfg_join(keypath, sizeof(keypath), path, sq_cfg_side_names[side], strlen(sq_cfg_side_names[side]));
    return SQ_CFG_FAIL(p, sq_node_key_line(map, sq_cfg_side_names[side], line), keypath,
                       "the %c axis would be periodic on one side only (%s is %s, %s is %s%s); "
                       "make both %s and %s periodic, or neither",
                       "xyz"[axis], sq_cfg_side_names[side], sq_cfg_bc_word(bc[side]), sq_cfg_side_names[other],
                       sq_cfg_bc_word(bc[other]), given_other ? "" : ", the default", sq_cfg_side_names[a],
                       sq_cfg_side_names[b]);
  }
  return SQ_SUCCESS;
}

/* clang-format off */
static const sq_cfg_key sq_cfg_boundary_keys[] = {
    {.name = "xmin", .type = SQ_KEY_ENUM, .words = sq_cfg_bc_words, .offset = 0 * sizeof(int)},
    {.name = "xmax", .type = SQ_KEY_ENUM, .words = sq_cfg_bc_words, .offset = 1 * sizeof(int)},
    {.name = "ymin", .type = SQ_KEY_ENUM, .words = sq_cfg_bc_words, .offset = 2 * sizeof(int)},
    {.name = "ymax", .type = SQ_KEY_ENUM, .words = sq_cfg_bc_words, .offset = 3 * sizeof(int)},
    {.name = "zmin", .type = SQ_KEY_ENUM, .words = sq_cfg_bc_words, .offset = 4 * sizeof(int)},
    {.name = "zmax", .type = SQ_KEY_ENUM, .words = sq_cfg_bc_words, .offset = 5 * sizeof(int)},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_boundary_schema = {sq_cfg_boundary_keys, sq_cfg_check_boundary};

/* ---- mesh.box.refine[i] ---------------------------------------------------------------------- */

static int sq_cfg_check_zone(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  const sq_cfg_zone *zone = base;
  return sq_cfg_check_box_order(p, map, line, path, zone->lo, zone->hi);
}

/* clang-format off */
static const sq_cfg_key sq_cfg_zone_keys[] = {
    {.name = "lo", .type = SQ_KEY_FLOAT3, .required = 1, .offset = offsetof(sq_cfg_zone, lo)},
    {.name = "hi", .type = SQ_KEY_FLOAT3, .required = 1, .offset = offsetof(sq_cfg_zone, hi)},
    {.name = "factor", .type = SQ_KEY_INT, .range = SQ_MIN_GE | SQ_MAX_LE, .min = 2, .max = 16,
     .offset = offsetof(sq_cfg_zone, factor)},
    {.name = NULL}};
/* clang-format on */
const sq_cfg_schema sq_cfg_zone_schema = {sq_cfg_zone_keys, sq_cfg_check_zone};

int sq_cfg_zone_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base) {
  sq_box_params *box = base;
  sq_cfg_zone zone = {.factor = 2};
  SQ_CALL(sq_cfg_map(p, node, line, path, &sq_cfg_zone_schema, &zone));
  memcpy(box->zone_lo[index], zone.lo, sizeof(zone.lo));
  memcpy(box->zone_hi[index], zone.hi, sizeof(zone.hi));
  box->zone_factor[index] = zone.factor;
  box->nzones = index + 1;
  return SQ_SUCCESS;
}

/* ---- mesh.box -------------------------------------------------------------------------------- */

static int sq_cfg_check_box(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  const sq_box_params *box = base;
  return sq_cfg_check_box_order(p, map, line, path, box->lo, box->hi);
}

/* mesh.box.fault: {lo, hi}, a rectangle flat along one axis whose grid faces become rupture faces */
static const sq_cfg_key sq_cfg_box_fault_keys[] = {
    {.name = "lo", .type = SQ_KEY_FLOAT3, .required = 1, .offset = offsetof(sq_box_params, fault_lo)},
    {.name = "hi", .type = SQ_KEY_FLOAT3, .required = 1, .offset = offsetof(sq_box_params, fault_hi)},
    {.name = NULL}};
const sq_cfg_schema sq_cfg_box_fault_schema = {sq_cfg_box_fault_keys, NULL};

int sq_cfg_box_fault(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base) {
  (void)index;
  sq_box_params *box = base;
  SQ_CALL(sq_cfg_map(p, node, line, path, &sq_cfg_box_fault_schema, box));
  box->has_fault = 1;
  int flat = -1, nflat = 0;
  for (int a = 0; a < 3; ++a)
    if (box->fault_lo[a] == box->fault_hi[a]) flat = a, ++nflat;
  if (nflat != 1)
    return SQ_CFG_FAIL(p, line, path,
                       "the fault rectangle must be flat along exactly one axis (lo == hi there), "
                       "found %d flat axes",
                       nflat);
  if (box->nzones == 0) { /* uniform grid: the plane must be one of its interior planes (refined grids: box.c) */
    const double h = (box->hi[flat] - box->lo[flat]) / box->n[flat], k = (box->fault_lo[flat] - box->lo[flat]) / h;
    if (!(fabs(k - round(k)) < 1e-9 && k > 0.5 && k < box->n[flat] - 0.5))
      return SQ_CFG_FAIL(p, line, path,
                         "the fault plane %c = %g is not a grid plane inside the box (planes every %g "
                         "from %g); move it or change mesh.box.cells",
                         "xyz"[flat], box -> fault_lo[flat], h, box -> lo[flat]);
  }
  return SQ_SUCCESS;
}

/* clang-format off */
static const sq_cfg_key sq_cfg_box_keys[] = {
    {.name = "cells", .type = SQ_KEY_INT3, .range = SQ_MIN_GE | SQ_MAX_LE, .min = 1, .max = 100000,
     .offset = offsetof(sq_box_params, n)},
    {.name = "lo", .type = SQ_KEY_FLOAT3, .offset = offsetof(sq_box_params, lo)},
    {.name = "hi", .type = SQ_KEY_FLOAT3, .offset = offsetof(sq_box_params, hi)},
    {.name = "tets_per_cube", .type = SQ_KEY_INT, .range = SQ_MIN_GE | SQ_MAX_LE,
     .min = 5, .max = 6,
     .offset = offsetof(sq_box_params, tets_per_cube)},
    {.name = "boundary", .type = SQ_KEY_MAP, .sub = &sq_cfg_boundary_schema,
     .offset = offsetof(sq_box_params, bc)},
    {.name = "refine", .type = SQ_KEY_SEQ, .item = sq_cfg_zone_item,
     .min_items = 0, .max_items = 4},
    {.name = "jitter", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GE | SQ_MAX_LE, .min = 0, .max = 0.25,
     .offset = offsetof(sq_box_params, jitter)},
    {.name = "fault", .type = SQ_KEY_MAP, .item = sq_cfg_box_fault},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_box_schema = {sq_cfg_box_keys, sq_cfg_check_box};

/* ---- mesh ------------------------------------------------------------------------------------ */

/* clang-format off */
static const sq_cfg_word sq_cfg_mesh_words[] = {
    {"box", SQ_MESH_BOX}, {"gmsh", SQ_MESH_GMSH}, {"puml", SQ_MESH_PUML}, {NULL, 0}};
/* clang-format on */

/** file only with gmsh/puml (then required, resolved against the config's folder), box only with
 * box. */
static int sq_cfg_check_mesh(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  sq_config *cfg = base;
  char keypath[SQ_CFG_PATH];
  const char *type = cfg->mesh_kind == SQ_MESH_GMSH ? "gmsh" : cfg->mesh_kind == SQ_MESH_PUML ? "puml" : "box";
  if (cfg->mesh_kind == SQ_MESH_BOX) {
    if (sq_node_find(map, "file") >= 0) {
      sq_cfg_join(keypath, sizeof(keypath), path, "file", 4);
      return SQ_CFG_FAIL(p, sq_node_key_line(map, "file", line), keypath,
                         "only used with mesh.type gmsh or puml (mesh.type is box); remove it or "
                         "set mesh.type");
    }
    return SQ_SUCCESS;
  }
  if (sq_node_find(map, "box") >= 0) {
    sq_cfg_join(keypath, sizeof(keypath), path, "box", 3);
    return SQ_CFG_FAIL(p, sq_node_key_line(map, "box", line), keypath,
                       "only used with mesh.type box (mesh.type is %s); remove it", type);
  }
  if (sq_node_find(map, "file") < 0)
    return SQ_CFG_MISSING(p, map != NULL, line, path, "file", " (mesh.type gmsh and puml read a file)");
  cfg->mesh_file_line = sq_node_key_line(map, "file", line);
  if (cfg->mesh_file[0] != '/' && p->dir[0]) {
    size_t ld = strlen(p->dir), lf = strlen(cfg->mesh_file);
    if (ld + lf >= SQ_PATH_MAX) {
      sq_cfg_join(keypath, sizeof(keypath), path, "file", 4);
      return SQ_CFG_FAIL(p, sq_node_key_line(map, "file", line), keypath,
                         "the path relative to the config's folder '%s' is longer than %d bytes", p->dir,
                         SQ_PATH_MAX - 1);
    }
    memmove(cfg->mesh_file + ld, cfg->mesh_file, lf + 1);
    memcpy(cfg->mesh_file, p->dir, ld);
  }
  return SQ_SUCCESS;
}

/* clang-format off */
static const sq_cfg_key sq_cfg_mesh_keys[] = {
    {.name = "type", .type = SQ_KEY_ENUM, .words = sq_cfg_mesh_words,
     .offset = offsetof(sq_config, mesh_kind)},
    {.name = "file", .type = SQ_KEY_STRING, .size = SQ_PATH_MAX,
     .offset = offsetof(sq_config, mesh_file), .validate = sq_cfg_nonempty},
    {.name = "box", .type = SQ_KEY_MAP, .sub = &sq_cfg_box_schema,
     .offset = offsetof(sq_config, box)},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_mesh_schema = {sq_cfg_mesh_keys, sq_cfg_check_mesh};

/* ---- equations ------------------------------------------------------------------------------- */

/* clang-format off */
static const sq_cfg_word sq_cfg_precision_words[] = {
    {"double", SQ_F64}, {"single", SQ_F32}, {NULL, 0}};
/* clang-format on */

/* clang-format off */
static const sq_cfg_key sq_cfg_lts_keys[] = {
    {.name = "rate", .type = SQ_KEY_INT, .range = SQ_MIN_GE, .min = 1,
     .offset = offsetof(sq_config, lts_rate)},
    {.name = "max_clusters", .type = SQ_KEY_INT, .range = SQ_MIN_GE, .min = 1,
     .offset = offsetof(sq_config, lts_max_clusters)},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_lts_schema = {sq_cfg_lts_keys, NULL};

/* clang-format off */
static const sq_cfg_key sq_cfg_equations_keys[] = {
    {.name = "order", .type = SQ_KEY_INT, .range = SQ_MIN_GE | SQ_MAX_LE, .min = SQ_ORDER_MIN,
     .max = SQ_ORDER_MAX, .offset = offsetof(sq_config, order)},
    {.name = "precision", .type = SQ_KEY_ENUM, .words = sq_cfg_precision_words,
     .offset = offsetof(sq_config, precision)},
    {.name = "cfl", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GT | SQ_MAX_LE, .min = 0, .max = 1,
     .offset = offsetof(sq_config, cfl)},
    {.name = "end_time", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GT, .min = 0,
     .offset = offsetof(sq_config, end_time)},
    {.name = "lts", .type = SQ_KEY_MAP, .sub = &sq_cfg_lts_schema, .offset = 0},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_equations_schema = {sq_cfg_equations_keys, NULL};

/* ---- output ---------------------------------------------------------------------------------- */

int sq_cfg_prefix(sq_cfg_parse *p, const sq_node *node, const char *path, void *field) {
  const char *s = field;
  if (!s[0]) return SQ_CFG_FAIL(p, node->line, path, "must not be empty");
  for (const char *c = s; *c; ++c) {
    int ok = (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_' ||
             *c == '.' || *c == '-';
    if (!ok) {
      /* echo the whole (UTF-8) character */
      unsigned char lead = (unsigned char)*c;
      size_t n = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
      if (n > strlen(c)) n = strlen(c);
      char shown[32];
      sq_cfg_show(shown, sizeof(shown), c, n);
      return SQ_CFG_FAIL(p, node->line, path,
                         "character '%s' is not allowed; use only letters, digits, '_', '.' and '-'", shown);
    }
  }
  return SQ_SUCCESS;
}

/* ---- output.fields --------------------------------------------------------------------------- */

/* clang-format off */
const sq_cfg_word sq_cfg_quantity_words[] = {
    {"s_xx", 0}, {"s_yy", 1}, {"s_zz", 2}, {"s_xy", 3}, {"s_yz", 4}, {"s_xz", 5},
    {"v1", 6},   {"v2", 7},   {"v3", 8},
    {"ep_xx", SQ_FIELD_EP_XX}, {"ep_yy", SQ_FIELD_EP_YY}, {"ep_zz", SQ_FIELD_EP_ZZ}, {"ep_xy", SQ_FIELD_EP_XY},
    {"ep_yz", SQ_FIELD_EP_YZ}, {"ep_xz", SQ_FIELD_EP_XZ}, {"eta", SQ_FIELD_ETA}, {NULL, 0}};
static const sq_cfg_word sq_cfg_format_words[] = {
    {"xdmf", SQ_OUTPUT_XDMF}, {"none", SQ_OUTPUT_NONE}, {NULL, 0}};
static const sq_cfg_word sq_cfg_style_words[] = {
    {"native", SQ_OUTPUT_STYLE_NATIVE}, {"seissol", SQ_OUTPUT_STYLE_SEISSOL}, {NULL, 0}};
/* clang-format on */

int sq_cfg_field_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base) {
  sq_config *cfg = base;
  const sq_cfg_key key = {.name = "fields", .type = SQ_KEY_ENUM, .words = sq_cfg_quantity_words};
  int i = 0;
  (void)line;
  (void)index;
  SQ_CALL(sq_cfg_get_word(p, &key, node, path, &i));
  const int bit = 1 << sq_cfg_quantity_words[i].value;
  if (cfg->output_fields & bit)
    return SQ_CFG_FAIL(p, node->line, path, "'%s' is listed twice", sq_cfg_quantity_words[i].word);
  cfg->output_fields |= bit;
  return SQ_SUCCESS;
}

/* clang-format off */
static const sq_cfg_key sq_cfg_output_keys[] = {
    {.name = "directory", .type = SQ_KEY_STRING, .size = SQ_PATH_MAX,
     .offset = offsetof(sq_config, output_dir), .validate = sq_cfg_nonempty},
    {.name = "prefix", .type = SQ_KEY_STRING, .size = sizeof(((sq_config *)0)->output_prefix),
     .offset = offsetof(sq_config, output_prefix), .validate = sq_cfg_prefix},
    {.name = "interval", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GE, .min = 0,
     .offset = offsetof(sq_config, output_interval)},
    {.name = "fields", .type = SQ_KEY_SEQ, .item = sq_cfg_field_item, .max_items = SQ_NFIELDS},
    {.name = "vertex_values", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, output_vertex)},
    {.name = "surface", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, output_surface)},
    {.name = "surface_displacement", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, output_surface_displacement)},
    {.name = "format", .type = SQ_KEY_ENUM, .words = sq_cfg_format_words,
     .offset = offsetof(sq_config, output_format)},
    {.name = "style", .type = SQ_KEY_ENUM, .words = sq_cfg_style_words,
     .offset = offsetof(sq_config, output_style)},
    {.name = NULL}};
/* clang-format on */
static int sq_cfg_check_output(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  const sq_config *cfg = base;
  if (!map || !cfg->output_surface_displacement || cfg->output_surface) return SQ_SUCCESS;
  char keypath[SQ_CFG_PATH];
  sq_cfg_join(keypath, sizeof(keypath), path, "surface_displacement", 20);
  return SQ_CFG_FAIL(p, sq_node_key_line(map, "surface_displacement", line), keypath,
                     "needs the free-surface snapshots: add 'surface: true'");
}
static const sq_cfg_schema sq_cfg_output_schema = {sq_cfg_output_keys, sq_cfg_check_output};

/* ---- runtime --------------------------------------------------------------------------------- */

/* clang-format off */
static const sq_cfg_word sq_cfg_scheduler_words[] = {
    {"", 0},      {"eager", 0}, {"prio", 0},  {"random", 0},     {"ws", 0},    {"lws", 0},
    {"dm", 0},    {"dmda", 0},  {"dmdar", 0}, {"dmdas", 0},      {"dmdasd", 0}, {"heteroprio", 0},
    {"pheft", 0}, {"peager", 0}, {NULL, 0}};
/* clang-format on */

static const sq_cfg_word sq_cfg_partition_words[] = {
    {"bw", SQ_PART_BW}, {"bwm", SQ_PART_BWM}, {"encoded", SQ_PART_ENCODED}, {NULL, 0}};

/* clang-format off */
static const sq_cfg_key sq_cfg_runtime_keys[] = {
    {.name = "tile_size", .type = SQ_KEY_INT, .range = SQ_MIN_GE, .min = 1,
     .offset = offsetof(sq_config, tile_size)},
    {.name = "scheduler", .type = SQ_KEY_STRING, .size = sizeof(((sq_config *)0)->scheduler),
     .words = sq_cfg_scheduler_words, .offset = offsetof(sq_config, scheduler)},
    {.name = "merge_neighbor_clusters", .type = SQ_KEY_BOOL,
     .offset = offsetof(sq_config, merge_neighbor_clusters)},
    {.name = "merge_corrections", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, merge_corrections)},
    {.name = "fuse_predictor", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, fuse_predictor)},
    {.name = "fuse_steps", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, fuse_steps)},
    {.name = "steps_per_task", .type = SQ_KEY_INT, .range = SQ_MIN_GE | SQ_MAX_LE, .min = 1, .max = 1024,
     .offset = offsetof(sq_config, steps_per_task)},
    {.name = "cpu_share", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GE | SQ_MAX_LE, .min = 0, .max = 1,
     .offset = offsetof(sq_config, cpu_share)},
    {.name = "cpu_tile_size", .type = SQ_KEY_INT, .range = SQ_MIN_GE, .min = 1,
     .offset = offsetof(sq_config, cpu_tile_size)},
    {.name = "cpu_task_threads", .type = SQ_KEY_INT, .range = SQ_MIN_GE, .min = 1,
     .offset = offsetof(sq_config, cpu_task_threads)},
    {.name = "gpu_affinity", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, gpu_affinity)},
    {.name = "fast_cluster_gpu", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, fast_cluster_gpu)},
    {.name = "fast_cluster_chain", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, fast_cluster_chain)},
    {.name = "fast_cluster_tile", .type = SQ_KEY_INT, .range = SQ_MIN_GE, .min = 0,
     .offset = offsetof(sq_config, fast_cluster_tile)},
    {.name = "fast_gpu_share", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GT | SQ_MAX_LE, .min = 0, .max = 1,
     .offset = offsetof(sq_config, fast_gpu_share)},
    {.name = "fuse_chain_correction", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, fuse_chain_correction)},
    {.name = "fuse_chain_prediction", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, fuse_chain_prediction)},
    {.name = "prefetch_halo", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, prefetch_halo)},
    {.name = "chain_priority", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, chain_priority)},
    {.name = "partition", .type = SQ_KEY_ENUM, .words = sq_cfg_partition_words,
     .offset = offsetof(sq_config, partition)},
    {.name = "node_speed_weights", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, node_speed_weights)},
    {.name = NULL}};
/* clang-format on */

/** steps_per_task groups whole-step tasks only: above 1 it needs fuse_steps (docs/CONFIG.md). */
static int sq_cfg_check_runtime(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  const sq_config *cfg = base;
  if (cfg->steps_per_task > 1 && !cfg->fuse_steps) {
    char keypath[SQ_CFG_PATH];
    sq_cfg_join(keypath, sizeof(keypath), path, "steps_per_task", strlen("steps_per_task"));
    return SQ_CFG_FAIL(p, sq_node_key_line(map, "steps_per_task", line), keypath,
                       "%d steps per task apply only to tiles that take whole steps: set fuse_steps: true, or "
                       "steps_per_task: 1",
                       cfg->steps_per_task);
  }
  return SQ_SUCCESS;
}
static const sq_cfg_schema sq_cfg_runtime_schema = {sq_cfg_runtime_keys, sq_cfg_check_runtime};

/* ---- receivers, checkpoint ------------------------------------------------------------------- */

int sq_cfg_receiver_item(sq_cfg_parse *p, const sq_node *node, int line, const char *path, int index, void *base) {
  sq_config *cfg = base;
  const sq_cfg_key key = {.name = "points", .type = SQ_KEY_FLOAT3};
  SQ_CALL(sq_cfg_get_triple(p, &key, node, path, cfg->receiver_points[index]));
  cfg->receiver_line[index] = line;
  cfg->nreceivers = index + 1;
  return SQ_SUCCESS;
}

static int sq_cfg_check_receivers(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  sq_config *cfg = base;
  if (!map) return SQ_SUCCESS;
  const int has_points = sq_node_find(map, "points") >= 0, has_file = sq_node_find(map, "file") >= 0;
  if (!has_points && !has_file && sq_node_find(map, "stations") < 0)
    return SQ_CFG_FAIL(p, line, path,
                       "no receivers; give 'points: [[x, y, z], ...]', 'file: NAME' or 'stations: STATIONS'");
  if (sq_node_find(map, "interval") < 0)
    return SQ_CFG_MISSING(p, 1, line, path, "interval", " (the sampling interval of the receivers)");
  SQ_CALL(sq_cfg_resolve(p, map, line, path, "stations", cfg->receiver_stations));
  return sq_cfg_resolve(p, map, line, path, "file", cfg->receiver_file);
}

/* clang-format off */
static const sq_cfg_key sq_cfg_receivers_keys[] = {
    {.name = "points", .type = SQ_KEY_SEQ, .item = sq_cfg_receiver_item,
     .max_items = SQ_MAX_RECEIVER_POINTS},
    {.name = "file", .type = SQ_KEY_STRING, .size = SQ_PATH_MAX,
     .offset = offsetof(sq_config, receiver_file), .validate = sq_cfg_nonempty},
    {.name = "interval", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GT, .min = 0,
     .offset = offsetof(sq_config, receiver_interval)},
    {.name = "flush_interval", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GE, .min = 0,
     .offset = offsetof(sq_config, receiver_flush)},
    {.name = "hdf5", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, receiver_hdf5)},
    {.name = "stations", .type = SQ_KEY_STRING, .size = SQ_PATH_MAX,
     .offset = offsetof(sq_config, receiver_stations), .validate = sq_cfg_nonempty},
    {.name = "displacement", .type = SQ_KEY_BOOL, .offset = offsetof(sq_config, receiver_displacement)},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_receivers_schema = {sq_cfg_receivers_keys, sq_cfg_check_receivers};

/* clang-format off */
static const sq_cfg_key sq_cfg_checkpoint_keys[] = {
    {.name = "interval", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GE, .min = 0,
     .offset = offsetof(sq_config, checkpoint_interval)},
    {.name = "directory", .type = SQ_KEY_STRING, .size = SQ_PATH_MAX,
     .offset = offsetof(sq_config, checkpoint_dir), .validate = sq_cfg_nonempty},
    {.name = "stop_within", .type = SQ_KEY_FLOAT, .range = SQ_MIN_GE, .min = 0,
     .offset = offsetof(sq_config, stop_within)},
    {.name = NULL}};
/* clang-format on */
static const sq_cfg_schema sq_cfg_checkpoint_schema = {sq_cfg_checkpoint_keys, NULL};

/* Rules across sections. */
static int sq_cfg_check_root(sq_cfg_parse *p, const sq_node *map, int line, const char *path, void *base) {
  const sq_config *cfg = base;
  (void)path;
  /* equations.end_time: required, except in a configuration of a post-seismic run alone */
  if (!(cfg->end_time > 0) && !cfg->postseismic.enabled) {
    const long i = sq_node_find(map, "equations");
    const sq_node *eq = i >= 0 ? map->items[i] : NULL;
    return SQ_CFG_MISSING(p, eq != NULL, sq_node_key_line(map, "equations", line), "equations", "end_time",
                          " (or a 'postseismic:' section alone)");
  }
  const int plastic = ((1 << SQ_NFIELDS) - 1) & ~((1 << SQ_FIELD_EP_XX) - 1);
  if ((cfg->output_fields & plastic) && !cfg->plasticity.enabled) {
    const long i = sq_node_find(map, "output");
    const sq_node *out = i >= 0 ? map->items[i] : NULL;
    return SQ_CFG_FAIL(p, sq_node_key_line(out, "fields", line), "output.fields",
                       "plastic strain (ep_*) and eta are written only by runs with a 'plasticity:' section");
  }
  /* plasticity's cohesion, bulk_friction and tv: required, unless an easi material model may give them */
  if (cfg->plasticity.enabled && !cfg->material_easi[0])
    for (int i = SQ_PP_COHESION; i <= SQ_PP_TV; ++i)
      if (!cfg->plasticity.param[i].text[0])
        return SQ_CFG_MISSING(p, 1, cfg->plasticity.line, "plasticity", sq_plast_param_names[i], "");
  /* quality factors belong to viscoelastic runs */
  if (!cfg->attenuation.enabled)
    for (int i = 0; i <= cfg->nrules; ++i) {
      const sq_material_rule *r = i ? &cfg->rules[i - 1] : &cfg->rule_default;
      for (int k = SQ_MV_QP; k <= SQ_MV_QS; ++k)
        if (r->value[k].text[0]) {
          char keypath[SQ_CFG_PATH];
          snprintf(keypath, sizeof(keypath), "%s.%s", r->key, sq_mat_value_names[k]);
          return SQ_CFG_FAIL(p, r->value[k].line, keypath,
                             "a quality factor needs attenuation: add an 'attenuation:' section with its "
                             "central_frequency");
        }
    }
  return SQ_SUCCESS;
}

/* ---- top level ------------------------------------------------------------------------------- */

/* clang-format off */
const sq_cfg_key sq_cfg_root_keys[] = {
    {.name = "mesh", .type = SQ_KEY_MAP, .required = 1, .sub = &sq_cfg_mesh_schema},
    {.name = "materials", .type = SQ_KEY_MAP, .required = 1, .sub = &sq_cfg_materials_schema},
    {.name = "initial_condition", .type = SQ_KEY_MAP, .sub = &sq_cfg_ic_schema},
    {.name = "equations", .type = SQ_KEY_MAP, .sub = &sq_cfg_equations_schema},
    {.name = "output", .type = SQ_KEY_MAP, .sub = &sq_cfg_output_schema},
    {.name = "runtime", .type = SQ_KEY_MAP, .sub = &sq_cfg_runtime_schema},
    {.name = "sources", .type = SQ_KEY_SEQ, .item = sq_cfg_source_item,
     .max_items = SQ_MAX_SOURCES},
    {.name = "receivers", .type = SQ_KEY_MAP, .sub = &sq_cfg_receivers_schema},
    {.name = "checkpoint", .type = SQ_KEY_MAP, .sub = &sq_cfg_checkpoint_schema},
    {.name = "fault", .type = SQ_KEY_MAP, .optional = 1, .sub = &sq_cfg_fault_schema,
     .offset = offsetof(sq_config, fault)},
    {.name = "plasticity", .type = SQ_KEY_MAP, .optional = 1, .sub = &sq_cfg_plasticity_schema,
     .offset = offsetof(sq_config, plasticity)},
    {.name = "attenuation", .type = SQ_KEY_MAP, .optional = 1, .sub = &sq_cfg_attenuation_schema,
     .offset = offsetof(sq_config, attenuation)},
    {.name = "postseismic", .type = SQ_KEY_MAP, .optional = 1, .sub = &sq_cfg_postseismic_schema,
     .offset = offsetof(sq_config, postseismic)},
    {.name = NULL}};
/* clang-format on */
const sq_cfg_schema sq_cfg_root_schema = {sq_cfg_root_keys, sq_cfg_check_root};
