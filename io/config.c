/**
 * @file config.c  Loading a YAML run configuration: read the file, build the node tree (yaml.c), walk
 * it against the root table (schema.c, config_tables*.c) into a fresh sq_config.
 *
 * Error policy: the first problem found stops the load and is reported exactly once, as
 * "FILE:LINE: key 'section.key': what is wrong and what to do".  On failure the caller's struct holds
 * the defaults, never half a file.
 */
#include "config_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void sq_config_default(sq_config *cfg) {
  memset(cfg, 0, sizeof(*cfg));
  cfg->mesh_kind = SQ_MESH_BOX;
  sq_box_params_default(&cfg->box);
  cfg->material_default = (sq_material){.rho = 1.0, .lambda = 2.0, .mu = 1.0};
  cfg->rule_default.kind = SQ_MAT_DEFAULT;
  cfg->rule_default.mat = cfg->material_default;
  snprintf(cfg->rule_default.key, sizeof(cfg->rule_default.key), "materials.default");
  cfg->ic_kind = SQ_IC_ZERO;
  cfg->ic_profile = SQ_PROFILE_SINE;
  cfg->ic_center = 0.0;
  cfg->ic_width = 0.1;
  cfg->order = 4;
  cfg->precision = SQ_F64;
  cfg->cfl = 0.5;
  cfg->end_time = 0.0; /* must be given */
  cfg->lts_rate = 1;
  cfg->lts_max_clusters = 20;
  snprintf(cfg->output_dir, sizeof(cfg->output_dir), "output");
  snprintf(cfg->output_prefix, sizeof(cfg->output_prefix), "starquake");
  cfg->output_interval = 0.0;
  cfg->tile_size = 0; /* by the workers: runtime/hybrid.c */
  cfg->scheduler[0] = '\0';
  cfg->merge_neighbor_clusters = 0;
  cfg->merge_corrections = 0;
  cfg->cpu_share = -1.0; /* from the workers' calibrated rates: runtime/hybrid.c */
  cfg->stop_within = 2.0;
  cfg->cpu_task_threads = 1;
  cfg->steps_per_task = 1;
  cfg->attenuation.mechanisms = 3;
  cfg->attenuation.frequency_ratio = 100;
  cfg->gpu_affinity = 1;
  cfg->fast_cluster_gpu = 1;
  cfg->fast_gpu_share = 1.0;
  cfg->receiver_hdf5 = 1;
  cfg->output_format = SQ_OUTPUT_XDMF;
  cfg->partition = SQ_PART_BW;
  sq_ps_config_default(&cfg->postseismic);
}

/** Parse @p len bytes of YAML into @p cfg; mesh.file is resolved against @p dir. */
static int sq_cfg_load(const char *text, size_t len, const char *name, const char *dir, const char *const *sets,
                       int nsets, sq_config *cfg) {
  sq_cfg_parse p = {
      .name = name, .dir = dir, .buf = (const unsigned char *)text, .len = len, .sets = sets, .nsets = nsets};
  sq_config *tmp = malloc(sizeof(*tmp));
  if (!tmp) return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory loading %s", name);
  sq_config_default(tmp);
  snprintf(tmp->path, sizeof(tmp->path), "%s", name);
  sq_node *root = NULL;
  int rc = sq_cfg_read_tree(&p, &root);
  if (!rc) rc = sq_cfg_apply_sets(&p, root);
  if (!rc) rc = sq_cfg_map(&p, root, root->line, "", &sq_cfg_root_schema, tmp);
  if (!rc) *cfg = *tmp;
  sq_node_free(root);
  free(tmp);
  return rc;
}

int sq_config_load_string(const char *yaml, const char *name, sq_config *cfg) {
  SQ_CHECK(cfg, SQ_ERR_INTERNAL, "sq_config_load_string: cfg is NULL");
  sq_config_default(cfg);
  if (!name) name = "<string>";
  SQ_CHECK(yaml, SQ_ERR_INTERNAL, "sq_config_load_string: yaml is NULL (%s)", name);
  return sq_cfg_load(yaml, strlen(yaml), name, "", NULL, 0, cfg);
}

int sq_config_load_text(const char *yaml, const char *name, const char *dir, const char *const *sets, int nsets,
                        sq_config *cfg) {
  SQ_CHECK(cfg && yaml, SQ_ERR_INTERNAL, "sq_config_load_text: NULL argument");
  sq_config_default(cfg);
  return sq_cfg_load(yaml, strlen(yaml), name ? name : "<string>", dir ? dir : "", sets, nsets, cfg);
}

int sq_config_load(const char *path, sq_config *cfg) { return sq_config_load_with_sets(path, NULL, 0, cfg); }

int sq_config_load_with_sets(const char *path, const char *const *sets, int nsets, sq_config *cfg) {
  SQ_CHECK(cfg, SQ_ERR_INTERNAL, "sq_config_load: cfg is NULL");
  sq_config_default(cfg);
  SQ_CHECK(path, SQ_ERR_INTERNAL, "sq_config_load: path is NULL");
  SQ_CHECK(path[0], SQ_ERR_IO, "config file path is empty");
  SQ_CHECK(strlen(path) < SQ_PATH_MAX, SQ_ERR_INPUT, "config file path is longer than %d bytes: %.60s...",
           SQ_PATH_MAX - 1, path);
  FILE *file = fopen(path, "rb");
  if (!file) return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot open config file '%s': %s", path, strerror(errno));
  size_t len = 0, cap = 0;
  char *buf = NULL;
  int rc = SQ_SUCCESS;
  for (;;) {
    if (len + 4096 + 1 > cap) {
      size_t ncap = cap ? 2 * cap : 16384;
      char *nbuf = realloc(buf, ncap);
      if (!nbuf) {
        rc = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading '%s'", path);
        break;
      }
      buf = nbuf;
      cap = ncap;
    }
    size_t got = fread(buf + len, 1, cap - len - 1, file);
    len += got;
    if (got == 0) {
      if (ferror(file))
        rc = sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot read config file '%s': %s", path, strerror(errno));
      break;
    }
    if (len > SQ_CFG_MAX_BYTES) {
      rc = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "config file '%s' is larger than %zu MiB", path,
                    SQ_CFG_MAX_BYTES >> 20);
      break;
    }
  }
  fclose(file);
  if (!rc) {
    buf[len] = '\0';
    char dir[SQ_PATH_MAX] = "";
    const char *slash = strrchr(path, '/');
    if (slash) {
      size_t ld = (size_t)(slash - path) + 1;
      memcpy(dir, path, ld);
      dir[ld] = '\0';
    }
    rc = sq_cfg_load(buf, len, path, dir, sets, nsets, cfg);
  }
  free(buf);
  return rc;
}
