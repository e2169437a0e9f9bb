/**
 * @file test_config.c  Check suite for the configuration loader (io/config.c, yaml.c, schema.c and the
 * tables): values land in sq_config, and every kind of mistake gives exactly one message naming the file,
 * the line and the key (stderr is captured).
 */
#include "sq_check.h"
#include "sq_config.h"

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- Helpers --------------------------------------------------------------------------------- */

/** What the last captured call wrote to stderr. */
static char msg[16384];

static FILE *capture_file;

/** Point stderr at a scratch file; returns the saved descriptor. */
static int capture_begin(void) {
  if (!capture_file) capture_file = tmpfile();
  ck_assert_ptr_nonnull(capture_file);
  fflush(stderr);
  ck_assert_int_eq(ftruncate(fileno(capture_file), 0), 0);
  ck_assert_int_eq(lseek(fileno(capture_file), 0, SEEK_SET), 0); /* shared with the dup'ed stderr */
  int saved = dup(STDERR_FILENO);
  ck_assert_int_ge(saved, 0);
  ck_assert_int_ge(dup2(fileno(capture_file), STDERR_FILENO), 0);
  return saved;
}

/** Restore stderr and read what was written into msg. */
static void capture_end(int saved) {
  fflush(stderr);
  ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
  close(saved);
  ssize_t n = pread(fileno(capture_file), msg, sizeof(msg) - 1, 0);
  msg[n > 0 ? n : 0] = '\0';
}

/** Number of error messages in msg. */
static int nerrors(void) {
  int n = 0;
  for (const char *s = msg; (s = strstr(s, "starquake: error:")); ++s) ++n;
  return n;
}

static int load_str(const char *yaml, sq_config *cfg) {
  int saved = capture_begin();
  int rc = sq_config_load_string(yaml, "test.yaml", cfg);
  capture_end(saved);
  return rc;
}

static int load_file(const char *path, sq_config *cfg) {
  int saved = capture_begin();
  int rc = sq_config_load(path, cfg);
  capture_end(saved);
  return rc;
}

/** Load @p yaml, expect SQ_ERR_INPUT and exactly one message containing every given fragment. */
#define EXPECT_ERROR(yaml, ...)                                                                                        \
  do {                                                                                                                 \
    sq_config cfg_;                                                                                                    \
    int rc_ = load_str((yaml), &cfg_);                                                                                 \
    ck_assert_msg(rc_ == SQ_ERR_INPUT, "expected SQ_ERR_INPUT, got %d for:\n%s", rc_, (yaml));                         \
    ck_assert_msg(nerrors() == 1, "expected one message, got:\n%s", msg);                                              \
    const char *frags_[] = {__VA_ARGS__};                                                                              \
    for (size_t i_ = 0; i_ < sizeof(frags_) / sizeof(frags_[0]); ++i_)                                                 \
      ck_assert_msg(strstr(msg, frags_[i_]), "message lacks \"%s\":\n%s", frags_[i_], msg);                            \
    /* a failed load leaves the defaults */                                                                            \
    ck_assert_int_eq(cfg_.order, 4);                                                                                   \
    ck_assert_int_eq(cfg_.nrules, 0);                                                                                  \
  } while (0)

/** Load @p yaml, expect success and silence. */
#define EXPECT_OK(yaml, cfg)                                                                                           \
  do {                                                                                                                 \
    int rc_ = load_str((yaml), (cfg));                                                                                 \
    ck_assert_msg(rc_ == 0, "load failed (%d):\n%s\n%s", rc_, (yaml), msg);                                            \
    ck_assert_msg(msg[0] == '\0', "unexpected output: %s", msg);                                                       \
  } while (0)

/* A minimal valid config: lines 1-2 mesh, 3-4 materials, 5-6 equations. */
#define MESH "mesh:\n  type: box\n"
#define MATS "materials:\n  default: {rho: 1, lambda: 2, mu: 1}\n"
#define EQNS "equations:\n  end_time: 1.0\n"
#define BASE MESH MATS EQNS

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  ck_assert_msg(f != NULL, "cannot write %s: %s", path, strerror(errno));
  fputs(text, f);
  fclose(f);
}

/** A fresh temporary folder (no trailing slash). */
static void make_tmpdir(char *dir, size_t size) {
  snprintf(dir, size, "/tmp/sq_test_config_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

static const char *full_config = "# every key, none at its default\n"                                        /* 1 */
                                 "mesh:\n"                                                                   /* 2 */
                                 "  type: box\n"                                                             /* 3 */
                                 "  box:\n"                                                                  /* 4 */
                                 "    cells: [2, 3, 5]\n"                                                    /* 5 */
                                 "    lo: [-1, -2, -3]\n"                                                    /* 6 */
                                 "    hi: [1, 2.5, 0]\n"                                                     /* 7 */
                                 "    tets_per_cube: 5\n"                                                    /* 8 */
                                 "    boundary: {xmin: periodic, xmax: periodic, ymin: absorbing,\n"         /* 9 */
                                 "               ymax: free_surface, zmin: absorbing, zmax: free_surface}\n" /* 10 */
                                 "    refine:\n"                                                             /* 11 */
                                 "      - {lo: [0, 0, -1], hi: [0.5, 0.5, 0], factor: 3}\n"                  /* 12 */
                                 "      - lo: [-0.5, -0.5, -2]\n"                                            /* 13 */
                                 "        hi: [0, 0, -1]\n"                                                  /* 14 */
                                 "    jitter: 0.1\n"                                                         /* 15 */
                                 "materials:\n"                                                              /* 16 */
                                 "  default: {rho: 2.5, lambda: 3, mu: 1.5}\n"                               /* 17 */
                                 "  groups:\n"                                                               /* 18 */
                                 "    - {group: 7, rho: 3, lambda: 4, mu: 5}\n"                              /* 19 */
                                 "  regions:\n"                                                              /* 20 */
                                 "    - {lo: [0, 0, 0], hi: [1, 1, 1], rho: 1, lambda: 1, mu: 0}\n"          /* 21 */
                                 "  layers:\n"                                                               /* 22 */
                                 "    - {z_top: 0, z_bottom: -1, rho: 2, vp: 3, vs: 1}\n"                    /* 23 */
                                 "    - {z_top: -1, z_bottom: -2, rho: 4, lambda: 8, mu: 2}\n"               /* 24 */
                                 "initial_condition:\n"                                                      /* 25 */
                                 "  type: planewave\n"                                                       /* 26 */
                                 "  wave_vector: [6.25, 0, -1e-1]\n"                                         /* 27 */
                                 "  profile: gaussian\n"                                                     /* 28 */
                                 "  center: 0.25\n"                                                          /* 29 */
                                 "  width: 0.05\n"                                                           /* 30 */
                                 "  modes:\n"                                                                /* 31 */
                                 "    - {type: p, amplitude: 2.0, direction: -1}\n"                          /* 32 */
                                 "    - {type: s2}\n"                                                        /* 33 */
                                 "    - {type: s1, amplitude: -0.5, direction: 1}\n"                         /* 34 */
                                 "equations:\n"                                                              /* 35 */
                                 "  order: 6\n"                                                              /* 36 */
                                 "  precision: single\n"                                                     /* 37 */
                                 "  cfl: 0.25\n"                                                             /* 38 */
                                 "  end_time: 1.5\n"                                                         /* 39 */
                                 "  lts: {rate: 2, max_clusters: 3}\n"                                       /* 40 */
                                 "output:\n"                                                                 /* 41 */
                                 "  directory: out/dir\n"                                                    /* 42 */
                                 "  prefix: run-1.a_b\n"                                                     /* 43 */
                                 "  interval: 0.125\n"                                                       /* 44 */
                                 "runtime:\n"                                                                /* 45 */
                                 "  tile_size: 64\n"                                                         /* 46 */
                                 "  scheduler: dmdas\n"                                                      /* 47 */
                                 "  merge_neighbor_clusters: true\n";                                        /* 48 */

/* ---- Valid configurations -------------------------------------------------------------------- */

START_TEST(test_full_round_trip) {
  sq_config cfg;
  EXPECT_OK(full_config, &cfg);
  ck_assert_str_eq(cfg.path, "test.yaml");
  ck_assert_int_eq(cfg.mesh_kind, SQ_MESH_BOX);
  const sq_box_params *b = &cfg.box;
  ck_assert_int_eq(b->n[0], 2);
  ck_assert_int_eq(b->n[1], 3);
  ck_assert_int_eq(b->n[2], 5);
  ck_assert_double_eq(b->lo[0], -1);
  ck_assert_double_eq(b->lo[1], -2);
  ck_assert_double_eq(b->lo[2], -3);
  ck_assert_double_eq(b->hi[0], 1);
  ck_assert_double_eq(b->hi[1], 2.5);
  ck_assert_double_eq(b->hi[2], 0);
  ck_assert_int_eq(b->tets_per_cube, 5);
  int bc[6] = {SQ_BC_PERIODIC, SQ_BC_PERIODIC, SQ_BC_ABSORB, SQ_BC_FREE, SQ_BC_ABSORB, SQ_BC_FREE};
  for (int f = 0; f < 6; ++f) ck_assert_int_eq(b->bc[f], bc[f]);
  ck_assert_int_eq(b->nzones, 2);
  ck_assert_double_eq(b->zone_lo[0][2], -1);
  ck_assert_double_eq(b->zone_hi[0][0], 0.5);
  ck_assert_int_eq(b->zone_factor[0], 3);
  ck_assert_double_eq(b->zone_lo[1][0], -0.5);
  ck_assert_double_eq(b->zone_hi[1][2], -1);
  ck_assert_int_eq(b->zone_factor[1], 2); /* default */
  ck_assert_double_eq(b->jitter, 0.1);

  ck_assert_double_eq(cfg.material_default.rho, 2.5);
  ck_assert_double_eq(cfg.material_default.lambda, 3);
  ck_assert_double_eq(cfg.material_default.mu, 1.5);
  /* layers first, then regions, then groups, whatever the order in the file */
  ck_assert_int_eq(cfg.nrules, 4);
  ck_assert_int_eq(cfg.rules[0].kind, SQ_MAT_LAYER);
  ck_assert_double_eq(cfg.rules[0].z_top, 0);
  ck_assert_double_eq(cfg.rules[0].z_bottom, -1);
  ck_assert_double_eq(cfg.rules[0].mat.rho, 2);
  ck_assert_double_eq(cfg.rules[0].mat.mu, 2.0 * 1 * 1);         /* rho vs^2 */
  ck_assert_double_eq(cfg.rules[0].mat.lambda, 2.0 * 9 - 2 * 2); /* rho vp^2 - 2 mu */
  ck_assert_int_eq(cfg.rules[1].kind, SQ_MAT_LAYER);
  ck_assert_double_eq(cfg.rules[1].z_top, -1);
  ck_assert_double_eq(cfg.rules[1].mat.lambda, 8);
  ck_assert_int_eq(cfg.rules[2].kind, SQ_MAT_REGION);
  ck_assert_double_eq(cfg.rules[2].hi[1], 1);
  ck_assert_double_eq(cfg.rules[2].mat.mu, 0);
  ck_assert_int_eq(cfg.rules[3].kind, SQ_MAT_GROUP);
  ck_assert_int_eq(cfg.rules[3].group, 7);
  ck_assert_double_eq(cfg.rules[3].mat.mu, 5);

  ck_assert_int_eq(cfg.ic_kind, SQ_IC_PLANEWAVE);
  ck_assert_double_eq(cfg.ic_wave_vector[0], 6.25);
  ck_assert_double_eq(cfg.ic_wave_vector[1], 0);
  ck_assert_double_eq(cfg.ic_wave_vector[2], -0.1);
  ck_assert_int_eq(cfg.ic_profile, SQ_PROFILE_GAUSSIAN);
  ck_assert_double_eq(cfg.ic_center, 0.25);
  ck_assert_double_eq(cfg.ic_width, 0.05);
  ck_assert_int_eq(cfg.ic_nmodes, 3);
  ck_assert_int_eq(cfg.ic_modes[0].type, SQ_MODE_P);
  ck_assert_double_eq(cfg.ic_modes[0].amplitude, 2.0);
  ck_assert_int_eq(cfg.ic_modes[0].direction, -1);
  ck_assert_int_eq(cfg.ic_modes[1].type, SQ_MODE_S2);
  ck_assert_double_eq(cfg.ic_modes[1].amplitude, 1.0); /* defaults */
  ck_assert_int_eq(cfg.ic_modes[1].direction, 1);
  ck_assert_int_eq(cfg.ic_modes[2].type, SQ_MODE_S1);
  ck_assert_double_eq(cfg.ic_modes[2].amplitude, -0.5);

  ck_assert_int_eq(cfg.order, 6);
  ck_assert_int_eq(cfg.precision, SQ_F32);
  ck_assert_double_eq(cfg.cfl, 0.25);
  ck_assert_double_eq(cfg.end_time, 1.5);
  ck_assert_int_eq(cfg.lts_rate, 2);
  ck_assert_int_eq(cfg.lts_max_clusters, 3);
  ck_assert_str_eq(cfg.output_dir, "out/dir");
  ck_assert_str_eq(cfg.output_prefix, "run-1.a_b");
  ck_assert_double_eq(cfg.output_interval, 0.125);
  ck_assert_int_eq(cfg.tile_size, 64);
  ck_assert_str_eq(cfg.scheduler, "dmdas");
  ck_assert_int_eq(cfg.merge_neighbor_clusters, 1);
}
END_TEST

START_TEST(test_defaults) {
  sq_config cfg, def;
  sq_config_default(&def);
  ck_assert_int_eq(def.order, 4);
  ck_assert_int_eq(def.precision, SQ_F64);
  ck_assert_double_eq(def.cfl, 0.5);
  ck_assert_double_eq(def.end_time, 0);
  ck_assert_int_eq(def.lts_rate, 1);
  ck_assert_int_eq(def.lts_max_clusters, 20);
  ck_assert_str_eq(def.output_dir, "output");
  ck_assert_str_eq(def.output_prefix, "starquake");
  ck_assert_double_eq(def.output_interval, 0);
  ck_assert_int_eq(def.tile_size, 0); /* by the workers */
  ck_assert_str_eq(def.scheduler, "");
  ck_assert_int_eq(def.merge_neighbor_clusters, 0);
  ck_assert_int_eq(def.merge_corrections, 0);
  ck_assert_double_eq(def.material_default.rho, 1);
  ck_assert_double_eq(def.material_default.lambda, 2);
  ck_assert_double_eq(def.material_default.mu, 1);
  ck_assert_int_eq(def.ic_kind, SQ_IC_ZERO);

  EXPECT_OK(BASE, &cfg);
  ck_assert_int_eq(cfg.order, 4);
  ck_assert_double_eq(cfg.end_time, 1.0);
  ck_assert_int_eq(cfg.mesh_kind, SQ_MESH_BOX);
  sq_box_params box;
  sq_box_params_default(&box);
  ck_assert(memcmp(&box, &cfg.box, sizeof(box)) == 0);
  ck_assert_int_eq(cfg.nrules, 0);
  ck_assert_str_eq(cfg.output_prefix, "starquake");
  ck_assert_str_eq(cfg.scheduler, "");

  /* empty sections are allowed and mean "all defaults" */
  EXPECT_OK(BASE "output:\nruntime: {}\ninitial_condition:\n", &cfg);
  ck_assert_int_eq(cfg.tile_size, 0); /* by the workers */
  ck_assert_int_eq(cfg.cpu_task_threads, 1);
  EXPECT_OK(BASE "runtime: {cpu_task_threads: 14}\n", &cfg);
  ck_assert_int_eq(cfg.cpu_task_threads, 14);
  /* quoted empty scheduler = the default one */
  EXPECT_OK(BASE "runtime: {scheduler: \"\"}\n", &cfg);
  ck_assert_str_eq(cfg.scheduler, "");
}
END_TEST

START_TEST(test_vp_vs_conversion) {
  sq_config cfg;
  EXPECT_OK(MESH "materials:\n  default: {rho: 2700, vp: 6000, vs: 3464}\n" EQNS, &cfg);
  double mu = 2700.0 * 3464.0 * 3464.0;
  ck_assert_double_eq_tol(cfg.material_default.mu, mu, 1e-6 * mu);
  ck_assert_double_eq_tol(cfg.material_default.lambda, 2700.0 * 6000.0 * 6000.0 - 2 * mu, 1e-6 * mu);
  ck_assert_double_eq(cfg.material_default.rho, 2700);
  /* an acoustic material: vs = 0 */
  EXPECT_OK(MESH "materials:\n  default: {rho: 1, vp: 1.5, vs: 0}\n" EQNS, &cfg);
  ck_assert_double_eq(cfg.material_default.mu, 0);
  ck_assert_double_eq(cfg.material_default.lambda, 2.25);
}
END_TEST

START_TEST(test_precision_and_options) {
  sq_config cfg;
  EXPECT_OK(MESH MATS "equations:\n  end_time: 2\n  precision: single\n  order: 2\n  cfl: 1\n", &cfg);
  ck_assert_int_eq(cfg.precision, SQ_F32);
  ck_assert_int_eq(cfg.order, 2);
  ck_assert_double_eq(cfg.cfl, 1.0);
  EXPECT_OK(MESH MATS "equations: {end_time: 2, precision: double, order: 7}\n", &cfg);
  ck_assert_int_eq(cfg.precision, SQ_F64);
  ck_assert_int_eq(cfg.order, 7);
  EXPECT_OK(BASE "runtime: {merge_neighbor_clusters: yes, scheduler: heteroprio}\n", &cfg);
  ck_assert_int_eq(cfg.merge_neighbor_clusters, 1);
  ck_assert_str_eq(cfg.scheduler, "heteroprio");
  EXPECT_OK(BASE "runtime: {merge_neighbor_clusters: False}\n", &cfg);
  ck_assert_int_eq(cfg.merge_neighbor_clusters, 0);
  EXPECT_OK(BASE "runtime: {merge_neighbor_clusters: true, merge_corrections: true}\n", &cfg);
  ck_assert_int_eq(cfg.merge_corrections, 1);
  /* ints are accepted as floats, floats in exponent form too */
  EXPECT_OK(MESH MATS "equations: {end_time: 3}\noutput: {interval: 5e-1}\n", &cfg);
  ck_assert_double_eq(cfg.end_time, 3.0);
  ck_assert_double_eq(cfg.output_interval, 0.5);
}
END_TEST

START_TEST(test_mesh_file_paths) {
  sq_config cfg;
  /* string loader: relative to the current folder, i.e. unchanged */
  EXPECT_OK("mesh: {type: gmsh, file: meshes/m.msh}\n" MATS EQNS, &cfg);
  ck_assert_int_eq(cfg.mesh_kind, SQ_MESH_GMSH);
  ck_assert_str_eq(cfg.mesh_file, "meshes/m.msh");
  EXPECT_OK("mesh: {type: puml, file: /abs/m.h5}\n" MATS EQNS, &cfg);
  ck_assert_int_eq(cfg.mesh_kind, SQ_MESH_PUML);
  ck_assert_str_eq(cfg.mesh_file, "/abs/m.h5");

  /* file loader: relative to the config file's folder */
  char dir[256], sub[300], path[400], expect[400], cwd[PATH_MAX];
  make_tmpdir(dir, sizeof(dir));
  snprintf(sub, sizeof(sub), "%s/a", dir);
  ck_assert_int_eq(mkdir(sub, 0700), 0);
  snprintf(path, sizeof(path), "%s/b.yaml", sub);
  write_file(path, "mesh:\n  type: gmsh\n  file: m.msh\n" MATS EQNS);
  ck_assert_int_eq(load_file(path, &cfg), 0);
  ck_assert_str_eq(cfg.path, path);
  snprintf(expect, sizeof(expect), "%s/a/m.msh", dir);
  ck_assert_str_eq(cfg.mesh_file, expect);

  /* a relative config path gives a relative mesh path (configs/a/b.yaml -> configs/a/m.msh) */
  ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
  ck_assert_int_eq(chdir(dir), 0);
  int rc = load_file("a/b.yaml", &cfg);
  int rc2 = chdir(cwd);
  ck_assert_int_eq(rc, 0);
  ck_assert_int_eq(rc2, 0);
  ck_assert_str_eq(cfg.mesh_file, "a/m.msh");

  /* absolute mesh paths stay as they are */
  write_file(path, "mesh:\n  type: gmsh\n  file: /data/m.msh\n" MATS EQNS);
  ck_assert_int_eq(load_file(path, &cfg), 0);
  ck_assert_str_eq(cfg.mesh_file, "/data/m.msh");
  unlink(path);
  rmdir(sub);
  rmdir(dir);
}
END_TEST

START_TEST(test_edit_distance) {
  ck_assert_int_eq(sq_edit_distance("order", "order"), 0);
  ck_assert_int_eq(sq_edit_distance("ordr", "order"), 1);
  ck_assert_int_eq(sq_edit_distance("kitten", "sitting"), 3);
  ck_assert_int_eq(sq_edit_distance("", "abc"), 3);
  ck_assert_int_eq(sq_edit_distance("abc", ""), 3);
  ck_assert_int_eq(sq_edit_distance("flaw", "lawn"), 2);
  ck_assert_int_eq(sq_edit_distance(NULL, "ab"), 2);
  /* long strings (heap row) */
  char a[200], b[200];
  memset(a, 'x', 150);
  a[150] = '\0';
  memcpy(b, a, 151);
  b[10] = 'y';
  b[149] = '\0';
  ck_assert_int_eq(sq_edit_distance(a, b), 2);
}
END_TEST

/* ---- Unknown keys and suggestions ------------------------------------------------------------ */

START_TEST(test_unknown_key_suggestion) {
  EXPECT_ERROR(MESH MATS "equations:\n  end_time: 1\n  ordr: 4\n", "test.yaml:7: key 'equations.ordr'", "unknown key",
               "did you mean 'order'?");
  EXPECT_ERROR(MESH MATS EQNS "runtime:\n  tile_sise: 3\n", "test.yaml:8: key 'runtime.tile_sise'",
               "did you mean 'tile_size'?");
  EXPECT_ERROR("mesh:\n  box:\n    cels: [1, 1, 1]\n" MATS EQNS, "test.yaml:3: key 'mesh.box.cels'",
               "did you mean 'cells'?");
  /* inside a sequence item */
  EXPECT_ERROR(MESH MATS EQNS "initial_condition:\n  type: planewave\n  wave_vector: [1, 0, 0]\n"
                              "  modes:\n    - {type: p}\n    - {typ: s1}\n",
               "test.yaml:12: key 'initial_condition.modes[1].typ'", "did you mean 'type'?");
  /* nothing near: list the valid keys */
  EXPECT_ERROR(MESH MATS "equations:\n  end_time: 1\n  zzzzzz: 1\n", "test.yaml:7: key 'equations.zzzzzz'",
               "unknown key; valid keys in 'equations' are: order, precision, cfl, end_time, lts");
}
END_TEST

START_TEST(test_unknown_section) {
  EXPECT_ERROR(MESH MATS "equation:\n  end_time: 1\n", "test.yaml:5: key 'equation'",
               "unknown section; did you mean 'equations'?");
  EXPECT_ERROR(BASE "frobnicate:\n  - {}\n", "test.yaml:7: key 'frobnicate'", "unknown section",
               "valid sections at the top level are: mesh, materials");
  /* a key one level too high */
  EXPECT_ERROR(BASE "order: 3\n", "test.yaml:7: key 'order'", "did you mean 'equations.order'?");
  EXPECT_ERROR("mesh:\n  cells: [1, 1, 1]\n" MATS EQNS, "test.yaml:2: key 'mesh.cells'",
               "did you mean 'mesh.box.cells'?");
}
END_TEST

START_TEST(test_bad_words) {
  EXPECT_ERROR(BASE "runtime:\n  scheduler: dmdsa\n", "test.yaml:8: key 'runtime.scheduler'",
               "expected one of: \"\", eager", "found 'dmdsa'", "did you mean");
  EXPECT_ERROR(BASE "runtime:\n  scheduler: fastest\n", "test.yaml:8: key 'runtime.scheduler'", "found 'fastest'");
  EXPECT_ERROR("mesh:\n  type: gmh\n" MATS EQNS, "test.yaml:2: key 'mesh.type'", "expected one of: box, gmsh, puml",
               "did you mean 'gmsh'?");
  EXPECT_ERROR(MESH MATS "equations: {end_time: 1, precision: float}\n", "test.yaml:5: key 'equations.precision'",
               "expected one of: double, single");
  EXPECT_ERROR("mesh:\n  box:\n    boundary: {xmin: free, xmax: free}\n" MATS EQNS,
               "test.yaml:3: key 'mesh.box.boundary.xmin'", "periodic, free_surface, absorbing");
}
END_TEST

/* ---- Wrong types ----------------------------------------------------------------------------- */

START_TEST(test_wrong_type) {
  EXPECT_ERROR(MESH MATS "equations:\n  end_time: 1\n  order: abc\n", "test.yaml:7: key 'equations.order'",
               "expected an integer, found 'abc'");
  EXPECT_ERROR(MESH MATS "equations:\n  end_time: 1\n  cfl: [1]\n", "test.yaml:7: key 'equations.cfl'",
               "expected a number, found a sequence of 1 item");
  EXPECT_ERROR(MESH MATS "equations:\n  end_time: 1\n  order: 4.5\n", "key 'equations.order'",
               "expected an integer, found '4.5'");
  EXPECT_ERROR(MESH MATS "equations:\n  end_time: \"1\"\n", "test.yaml:6: key 'equations.end_time'",
               "the quoted string \"1\"; remove the quotes");
  EXPECT_ERROR(MESH MATS "equations:\n  end_time: {a: 1}\n", "key 'equations.end_time'",
               "expected a number, found a mapping");
  EXPECT_ERROR(MESH MATS "equations:\n  end_time:\n", "key 'equations.end_time'",
               "expected a number, found an empty value");
  EXPECT_ERROR(BASE "runtime: {merge_neighbor_clusters: 2}\n", "key 'runtime.merge_neighbor_clusters'",
               "expected true or false, found '2'");
  EXPECT_ERROR("mesh:\n  box:\n    lo: [0, 0]\n" MATS EQNS, "test.yaml:3: key 'mesh.box.lo'",
               "expected exactly 3 numbers [x, y, z], found a sequence of 2 items");
  EXPECT_ERROR("mesh:\n  box:\n    lo: 0\n" MATS EQNS, "key 'mesh.box.lo'", "expected a sequence of 3 numbers");
  EXPECT_ERROR("mesh:\n  box:\n    cells: [1, x, 1]\n" MATS EQNS, "test.yaml:3: key 'mesh.box.cells[1]'",
               "expected an integer, found 'x'");
  EXPECT_ERROR("mesh: box\n" MATS EQNS, "test.yaml:1: key 'mesh'", "expected a mapping");
  EXPECT_ERROR(MESH "materials:\n  default: {rho: 1, lambda: 2, mu: 1}\n  layers: {z_top: 1}\n" EQNS,
               "test.yaml:5: key 'materials.layers'", "expected a sequence of mappings");
  EXPECT_ERROR(BASE "output: {prefix: [a]}\n", "key 'output.prefix'", "expected a string, found a sequence");
}
END_TEST

/* ---- Out of range ---------------------------------------------------------------------------- */

START_TEST(test_out_of_range) {
  EXPECT_ERROR(MESH MATS "equations:\n  end_time: 1\n  order: 9\n", "test.yaml:7: key 'equations.order'",
               "out of range: must be in the range 2..7", "found '9'");
  EXPECT_ERROR(MESH MATS "equations:\n  end_time: 1\n  order: 99999999999999999999\n", "key 'equations.order'",
               "in the range 2..7");
  EXPECT_ERROR(MESH MATS "equations:\n  end_time: 1\n  cfl: 1.5\n", "test.yaml:7: key 'equations.cfl'",
               "must be in (0, 1]", "found '1.5'");
  EXPECT_ERROR(MESH MATS "equations:\n  end_time: 1\n  cfl: 0\n", "key 'equations.cfl'", "(0, 1]");
  EXPECT_ERROR(MESH "materials:\n  default: {rho: -1, lambda: 2, mu: 1}\n" EQNS,
               "test.yaml:4: key 'materials.default.rho'", "must be > 0", "found '-1'");
  EXPECT_ERROR("mesh:\n  box:\n    jitter: 0.3\n" MATS EQNS, "test.yaml:3: key 'mesh.box.jitter'",
               "must be in [0, 0.25]", "found '0.3'");
  EXPECT_ERROR(MESH MATS "equations:\n  end_time: 0\n", "key 'equations.end_time'", "must be > 0");
  EXPECT_ERROR(MESH MATS "equations:\n  end_time: 1\n  lts: {rate: 0}\n", "key 'equations.lts.rate'", "must be >= 1");
  EXPECT_ERROR("mesh:\n  box:\n    cells: [4, 0, 4]\n" MATS EQNS, "key 'mesh.box.cells[1]'", "in the range 1..100000");
  EXPECT_ERROR("mesh:\n  box:\n    tets_per_cube: 4\n" MATS EQNS, "key 'mesh.box.tets_per_cube'", "in the range 5..6");
  EXPECT_ERROR("mesh:\n  box:\n    refine:\n      - {lo: [0,0,0], hi: [1,1,1], factor: 17}\n" MATS EQNS,
               "test.yaml:4: key 'mesh.box.refine[0].factor'", "in the range 2..16");
  EXPECT_ERROR(BASE "output: {interval: -1}\n", "key 'output.interval'", ">= 0");
  EXPECT_ERROR(BASE "runtime: {tile_size: 0}\n", "key 'runtime.tile_size'", ">= 1");
  EXPECT_ERROR(BASE "runtime: {cpu_task_threads: 0}\n", "key 'runtime.cpu_task_threads'", ">= 1");
  EXPECT_ERROR(MESH "materials:\n  default: {rho: 1, lambda: 2, mu: -1}\n" EQNS, "key 'materials.default.mu'", ">= 0");
  EXPECT_ERROR(MESH MATS EQNS "initial_condition:\n  type: planewave\n  wave_vector: [1, 0, 0]\n"
                              "  profile: gaussian\n  width: 0\n  modes: [{type: p}]\n",
               "test.yaml:11: key 'initial_condition.width'", "must be > 0");
}
END_TEST

START_TEST(test_cross_checks) {
  /* hi > lo */
  EXPECT_ERROR("mesh:\n  box:\n    lo: [0, 1, 0]\n    hi: [1, 1, 1]\n" MATS EQNS, "test.yaml:4: key 'mesh.box.hi'",
               "greater than lo", "y axis");
  /* bulk modulus */
  EXPECT_ERROR(MESH "materials:\n  default: {rho: 1, lambda: -1, mu: 1}\n" EQNS,
               "test.yaml:4: key 'materials.default.lambda'", "bulk modulus");
  /* vp > vs */
  EXPECT_ERROR(MESH "materials:\n  default: {rho: 1, vp: 1, vs: 2}\n" EQNS, "test.yaml:4: key 'materials.default.vp'",
               "greater than vs");
  /* no mixing of the two forms */
  EXPECT_ERROR(MESH "materials:\n  default: {rho: 1, lambda: 1, mu: 1, vs: 1}\n" EQNS, "key 'materials.default.vs'",
               "either lambda and mu, or vp and vs");
  /* layer order */
  EXPECT_ERROR(MESH MATS "  layers:\n    - {z_top: -1, z_bottom: 0, rho: 1, vp: 2, vs: 1}\n" EQNS,
               "test.yaml:6: key 'materials.layers[0].z_top'", "greater than z_bottom");
  /* wave vector */
  EXPECT_ERROR(MESH MATS EQNS "initial_condition:\n  type: planewave\n  wave_vector: [0, 0, 0]\n"
                              "  modes: [{type: p}]\n",
               "test.yaml:9: key 'initial_condition.wave_vector'", "zero vector");
  EXPECT_ERROR(MESH MATS EQNS "initial_condition:\n  type: planewave\n  wave_vector: [1, 0, 0]\n"
                              "  modes: [{type: p, direction: 0}]\n",
               "key 'initial_condition.modes[0].direction'", "1 (along +k) or -1");
  EXPECT_ERROR(MESH MATS EQNS "initial_condition:\n  type: planewave\n  wave_vector: [1, 0, 0]\n"
                              "  modes: []\n",
               "key 'initial_condition.modes'", "at least 1 item");
  /* keys the chosen type does not use */
  EXPECT_ERROR(MESH MATS EQNS "initial_condition:\n  wave_vector: [1, 0, 0]\n",
               "test.yaml:8: key 'initial_condition.wave_vector'", "only used with type: planewave");
  EXPECT_ERROR(MESH MATS EQNS "initial_condition:\n  type: planewave\n  wave_vector: [1, 0, 0]\n"
                              "  width: 0.2\n  modes: [{type: p}]\n",
               "test.yaml:10: key 'initial_condition.width'", "only used with profile: gaussian");
  EXPECT_ERROR("mesh:\n  type: box\n  file: a.msh\n" MATS EQNS, "test.yaml:3: key 'mesh.file'",
               "only used with mesh.type gmsh or puml");
  EXPECT_ERROR("mesh:\n  type: gmsh\n  file: a.msh\n  box: {}\n" MATS EQNS, "test.yaml:4: key 'mesh.box'",
               "only used with mesh.type box");
  /* output prefix characters */
  EXPECT_ERROR(BASE "output:\n  prefix: \"a/b\"\n", "test.yaml:8: key 'output.prefix'", "character '/' is not allowed");
  EXPECT_ERROR(BASE "output:\n  directory: \"\"\n", "key 'output.directory'", "must not be empty");
  /* too many refinement zones */
  EXPECT_ERROR("mesh:\n  box:\n    refine: [{lo: [0,0,0], hi: [1,1,1]}, {lo: [0,0,0], hi: [1,1,1]},\n"
               "      {lo: [0,0,0], hi: [1,1,1]}, {lo: [0,0,0], hi: [1,1,1]}, {lo: [0,0,0], hi: "
               "[1,1,1]}]\n" MATS EQNS,
               "test.yaml:3: key 'mesh.box.refine'", "at most 4");
}
END_TEST

START_TEST(test_periodic_one_side) {
  EXPECT_ERROR("mesh:\n  box:\n    boundary:\n      zmin: free_surface\n" MATS EQNS,
               "test.yaml:4: key 'mesh.box.boundary.zmin'", "z axis", "periodic on one side only",
               "zmax is periodic, the default");
  EXPECT_ERROR("mesh:\n  box:\n    boundary: {xmin: absorbing, xmax: periodic}\n" MATS EQNS,
               "test.yaml:3: key 'mesh.box.boundary.xmin'", "x axis", "xmax is periodic");
  sq_config cfg;
  EXPECT_OK("mesh:\n  box:\n    boundary: {zmin: free_surface, zmax: absorbing}\n" MATS EQNS, &cfg);
  ck_assert_int_eq(cfg.box.bc[4], SQ_BC_FREE);
  ck_assert_int_eq(cfg.box.bc[5], SQ_BC_ABSORB);
  ck_assert_int_eq(cfg.box.bc[0], SQ_BC_PERIODIC);
}
END_TEST

/* ---- Missing values -------------------------------------------------------------------------- */

START_TEST(test_missing_required) {
  EXPECT_ERROR(MESH "materials:\n  layers: []\n" EQNS, "test.yaml:3: key 'materials.default'",
               "required key is missing from section 'materials' (line 3)");
  EXPECT_ERROR(MESH MATS "equations:\n  order: 3\n", "test.yaml:5: key 'equations.end_time'",
               "missing from section 'equations' (line 5)");
  EXPECT_ERROR(MESH MATS, "key 'equations.end_time'", "section 'equations' is not in the file");
  EXPECT_ERROR(MATS EQNS, "key 'mesh'", "required section is missing");
  EXPECT_ERROR(MESH EQNS, "key 'materials'", "required section is missing");
  EXPECT_ERROR(BASE "initial_condition:\n  type: planewave\n  modes: [{type: p}]\n",
               "test.yaml:7: key 'initial_condition.wave_vector'", "missing from section 'initial_condition' (line 7)");
  EXPECT_ERROR(BASE "initial_condition:\n  type: planewave\n  wave_vector: [0, 0, 1]\n",
               "key 'initial_condition.modes'", "missing");
  EXPECT_ERROR(BASE "initial_condition:\n  type: planewave\n  wave_vector: [0, 0, 1]\n  modes: "
                    "[{amplitude: 1}]\n",
               "test.yaml:10: key 'initial_condition.modes[0].type'", "missing");
  EXPECT_ERROR("mesh:\n  type: gmsh\n" MATS EQNS, "test.yaml:1: key 'mesh.file'", "missing from section 'mesh'");
  EXPECT_ERROR(MESH "materials:\n  default: {rho: 1, vp: 2}\n" EQNS, "test.yaml:4: key 'materials.default.vs'",
               "missing");
  EXPECT_ERROR(MESH "materials:\n  default: {vp: 2, vs: 1}\n" EQNS, "test.yaml:4: key 'materials.default.rho'",
               "missing");
  EXPECT_ERROR(MESH "materials:\n  default: {rho: 1}\n" EQNS, "test.yaml:4: key 'materials.default'",
               "give lambda and mu, or vp and vs");
  EXPECT_ERROR(MESH MATS "  regions:\n    - {lo: [0,0,0], rho: 1, vp: 2, vs: 1}\n" EQNS,
               "test.yaml:6: key 'materials.regions[0].hi'", "missing");
}
END_TEST

START_TEST(test_nonfinite) {
  EXPECT_ERROR(MESH MATS "equations:\n  end_time: .nan\n", "test.yaml:6: key 'equations.end_time'", "finite", "'.nan'",
               "NaN and infinity are not allowed");
  EXPECT_ERROR(MESH MATS "equations:\n  end_time: .inf\n", "key 'equations.end_time'", "'.inf'", "finite");
  EXPECT_ERROR(MESH MATS "equations:\n  end_time: 1\n  cfl: -.Inf\n", "key 'equations.cfl'", "finite");
  EXPECT_ERROR(MESH MATS "equations:\n  end_time: nan\n", "key 'equations.end_time'", "finite");
  EXPECT_ERROR(MESH "materials:\n  default: {rho: 1, lambda: .NaN, mu: 1}\n" EQNS, "key 'materials.default.lambda'",
               "finite");
  EXPECT_ERROR("mesh:\n  box:\n    hi: [1, .inf, 1]\n" MATS EQNS, "key 'mesh.box.hi[1]'", "finite");
  EXPECT_ERROR(MESH MATS "equations:\n  end_time: 1e999\n", "key 'equations.end_time'", "too large");
  EXPECT_ERROR(MESH MATS "equations:\n  end_time: 0x10\n", "key 'equations.end_time'", "expected a number");
}
END_TEST

START_TEST(test_duplicate_key) {
  EXPECT_ERROR(MESH MATS "equations:\n  end_time: 1\n  order: 3\n  order: 4\n", "test.yaml:8: key 'equations.order'",
               "duplicate key (first given on line 7)");
  EXPECT_ERROR(BASE "mesh:\n  type: box\n", "test.yaml:7: key 'mesh'", "duplicate key (first given on line 1)");
  EXPECT_ERROR(MESH "materials:\n  default: {rho: 1, rho: 2, lambda: 2, mu: 1}\n" EQNS,
               "test.yaml:4: key 'materials.default.rho'", "duplicate");
}
END_TEST

/* ---- Syntax, empty and missing files --------------------------------------------------------- */

START_TEST(test_yaml_syntax) {
  /* unbalanced bracket on line 7 */
  EXPECT_ERROR(MESH MATS "equations:\n  end_time: 1\n  lts: {rate: 2, max_clusters: [3}\n",
               "test.yaml:7:", "YAML syntax error");
  /* a bracket left open until the end: libyaml names where the sequence started */
  EXPECT_ERROR("mesh:\n  box:\n    cells: [1, 2, 3\n" MATS EQNS, "YAML syntax error", "line 3");
  EXPECT_ERROR("mesh:\n\ttype: box\n", "test.yaml:2:", "tab");
  EXPECT_ERROR("mesh: [\n", "test.yaml:", "YAML syntax error");
  EXPECT_ERROR("a: 'unterminated\n", "YAML syntax error");
  EXPECT_ERROR("mesh: {}\n  bad indent: 1\n", "test.yaml:2:", "YAML syntax error");
  EXPECT_ERROR(BASE "---\nmesh: {}\n", "test.yaml:7:", "second YAML document");
  EXPECT_ERROR("mesh: &m {type: box}\nother: *m\n", "test.yaml:2:", "aliases");
  EXPECT_ERROR("mesh: \xff\xfe\n", "test.yaml:1:", "UTF-8");
  EXPECT_ERROR("? [a, b]\n: 1\n", "test.yaml:1:", "a key must be a plain word");
  EXPECT_ERROR("- mesh\n- materials\n", "test.yaml:1:", "top level must be a mapping");
  /* deep nesting is refused, not recursed into */
  char deep[4096] = "mesh: ";
  for (int i = 0; i < 1000; ++i) strcat(deep, "[");
  EXPECT_ERROR(deep, "test.yaml:1:");
}
END_TEST

START_TEST(test_empty) {
  EXPECT_ERROR("", "test.yaml:1:", "the configuration is empty");
  EXPECT_ERROR("# nothing here\n\n   \n", "test.yaml:1:", "the configuration is empty");
  EXPECT_ERROR("---\n...\n", "the configuration is empty");
  /* a real empty file */
  char dir[256], path[300];
  make_tmpdir(dir, sizeof(dir));
  snprintf(path, sizeof(path), "%s/empty.yaml", dir);
  write_file(path, "");
  sq_config cfg;
  ck_assert_int_eq(load_file(path, &cfg), SQ_ERR_INPUT);
  ck_assert_int_eq(nerrors(), 1);
  ck_assert(strstr(msg, path) && strstr(msg, ":1: the configuration is empty"));
  unlink(path);
  rmdir(dir);
}
END_TEST

START_TEST(test_missing_file) {
  char dir[256], path[300];
  make_tmpdir(dir, sizeof(dir));
  snprintf(path, sizeof(path), "%s/none.yaml", dir);
  sq_config cfg;
  ck_assert_int_eq(load_file(path, &cfg), SQ_ERR_IO);
  ck_assert_int_eq(nerrors(), 1);
  ck_assert_msg(strstr(msg, path) && strstr(msg, strerror(ENOENT)), "%s", msg);
  ck_assert_int_eq(cfg.order, 4); /* defaults */
  /* a folder is not a file */
  ck_assert_int_eq(load_file(dir, &cfg), SQ_ERR_IO);
  ck_assert_int_eq(nerrors(), 1);
  ck_assert_msg(strstr(msg, dir) && strstr(msg, strerror(EISDIR)), "%s", msg);
  rmdir(dir);
}
END_TEST

START_TEST(test_file_errors_name_file) {
  char dir[256], path[300];
  make_tmpdir(dir, sizeof(dir));
  snprintf(path, sizeof(path), "%s/c.yaml", dir);
  write_file(path, MESH MATS "equations:\n  end_time: 1\n  ordr: 3\n");
  sq_config cfg;
  ck_assert_int_eq(load_file(path, &cfg), SQ_ERR_INPUT);
  char expect[400];
  snprintf(expect, sizeof(expect), "%s:7: key 'equations.ordr': unknown key; did you mean 'order'?", path);
  ck_assert_msg(strstr(msg, expect), "%s", msg);
  ck_assert_int_eq(nerrors(), 1);
  unlink(path);
  rmdir(dir);
}
END_TEST

/* ---- Material rules -------------------------------------------------------------------------- */

START_TEST(test_material_rules) {
  sq_config cfg;
  EXPECT_OK(MESH "materials:\n"
                 "  default: {rho: 1, lambda: 1, mu: 1}\n"
                 "  groups:\n"
                 "    - {group: 3, rho: 4, lambda: 4, mu: 4}\n"
                 "  layers:\n"
                 "    - {z_top: 1, z_bottom: 0.5, rho: 2, lambda: 2, mu: 2}\n"
                 "    - {z_top: 0.75, z_bottom: 0.25, rho: 5, lambda: 5, mu: 5}\n"
                 "  regions:\n"
                 "    - {lo: [0, 0, 0], hi: [0.5, 0.5, 0.5], rho: 3, lambda: 3, mu: 3}\n" EQNS,
            &cfg);
  ck_assert_int_eq(cfg.nrules, 4);
  double outside[3] = {0.9, 0.9, 0.1}, top[3] = {0.9, 0.9, 0.9}, overlap[3] = {0.9, 0.9, 0.6},
         corner[3] = {0.25, 0.25, 0.4}, both[3] = {0.25, 0.25, 0.3};
  ck_assert_double_eq(sq_config_material_at(&cfg, outside, 0).rho, 1); /* default */
  ck_assert_double_eq(sq_config_material_at(&cfg, top, 0).rho, 2);     /* first layer */
  ck_assert_double_eq(sq_config_material_at(&cfg, overlap, 0).rho, 5); /* later layer wins */
  ck_assert_double_eq(sq_config_material_at(&cfg, corner, 0).rho, 3);  /* region */
  ck_assert_double_eq(sq_config_material_at(&cfg, both, 0).rho, 3);    /* region after layer */
  ck_assert_double_eq(sq_config_material_at(&cfg, both, 3).rho, 4);    /* group after region */
  ck_assert_double_eq(sq_config_material_at(&cfg, outside, 3).mu, 4);
  /* z_top is exclusive, z_bottom inclusive */
  double at_top[3] = {0.9, 0.9, 1.0}, at_bottom[3] = {0.9, 0.9, 0.5};
  ck_assert_double_eq(sq_config_material_at(&cfg, at_top, 0).rho, 1);
  ck_assert_double_eq(sq_config_material_at(&cfg, at_bottom, 0).rho, 5);
}
END_TEST

START_TEST(test_too_many_rules) {
  char *yaml = malloc(65536);
  ck_assert_ptr_nonnull(yaml);
  strcpy(yaml, MESH MATS "  layers:\n");
  for (int i = 0; i < SQ_MAX_MATERIALS; ++i)
    sprintf(yaml + strlen(yaml), "    - {z_top: %d, z_bottom: %d, rho: 1, vp: 2, vs: 1}\n", i + 1, i);
  strcat(yaml, "  groups:\n    - {group: 1, rho: 1, vp: 2, vs: 1}\n" EQNS);
  /* the first rule past the limit: 4 lines, "layers:", 64 layers, "groups:", then line 71 */
  EXPECT_ERROR(yaml, "test.yaml:71: key 'materials.groups[0]'", "too many material rules");
  free(yaml);
}
END_TEST

/* Material values as expressions: evaluated per cell with the conversion numbers get, constants equal to
 * the numbers bit for bit, bad values named by file, line and key. */
START_TEST(test_material_expressions) {
  sq_config cfg, num;
  EXPECT_OK(MESH "materials:\n"
                 "  default: {rho: 2700, vp: \"6000 - 0.5*z\", vs: \"3000 * 1.1547\"}\n"
                 "  groups:\n"
                 "    - {group: 2, rho: \"2000 + group\", lambda: \"1e9 * (1 + x)\", mu: 2e9}\n" EQNS,
            &cfg);
  ck_assert(cfg.rule_default.varying && cfg.rules[0].varying);
  sq_material_eval *ev = NULL;
  ck_assert_int_eq(sq_material_eval_create(&cfg, &ev), SQ_SUCCESS);
  sq_material_stats st;
  sq_material_stats_init(&st);
  const double deep[3] = {0, 0, -1000}, top[3] = {0, 0, 0}, east[3] = {2, 0, 0};
  sq_material m;
  ck_assert_int_eq(sq_material_eval_cell(ev, deep, 0, 0, &m, &st), SQ_SUCCESS);
  const double vs = 3000 * 1.1547, mu = 2700 * vs * vs;
  ck_assert_double_eq(m.rho, 2700);
  ck_assert_double_eq(m.mu, mu);
  ck_assert_double_eq(m.lambda, 2700.0 * 6500 * 6500 - 2.0 * mu);
  ck_assert_int_eq(sq_material_eval_cell(ev, top, 0, 1, &m, &st), SQ_SUCCESS);
  ck_assert_double_eq(m.lambda, 2700.0 * 6000 * 6000 - 2.0 * mu);
  ck_assert_int_eq(sq_material_eval_cell(ev, east, 2, 2, &m, &st), SQ_SUCCESS); /* the group rule */
  ck_assert_double_eq(m.rho, 2002);
  ck_assert_double_eq(m.lambda, 3e9);
  ck_assert_double_eq(m.mu, 2e9);
  ck_assert_int_eq(st.ncell[0], 2); /* the default: the cells no rule matched */
  ck_assert_int_eq(st.ncell[1], 1);
  ck_assert_double_eq_tol(st.lo[0][0], 6000, 1e-9);
  ck_assert_double_eq_tol(st.hi[0][0], 6500, 1e-9);
  const sq_material at = sq_config_material_at(&cfg, deep, 0); /* the one-cell form agrees */
  ck_assert_double_eq(at.lambda, 2700.0 * 6500 * 6500 - 2.0 * mu);
  sq_material_eval_destroy(ev);
  /* a constant written as an expression is the number */
  EXPECT_OK(MESH "materials:\n  default: {rho: \"2700\", vp: \"3000 * 2\", vs: \"3464\"}\n" EQNS, &cfg);
  EXPECT_OK(MESH "materials:\n  default: {rho: 2700, vp: 6000.0, vs: 3464}\n" EQNS, &num);
  ck_assert(!cfg.rule_default.varying);
  ck_assert(memcmp(&cfg.material_default, &num.material_default, sizeof(sq_material)) == 0);
  /* a value that is bad at some cell: the file, line and key, the value and where */
  EXPECT_OK(MESH "materials:\n  default: {rho: 2700, vp: 6000, vs: 3464}\n  layers:\n"
                 "    - {z_top: 10, z_bottom: -10, rho: \"2700 + z\", vp: 6000, vs: 3464}\n" EQNS,
            &cfg);
  ck_assert_int_eq(sq_material_eval_create(&cfg, &ev), SQ_SUCCESS);
  const double low[3] = {0, 0, -5};
  ck_assert_int_eq(sq_material_eval_cell(ev, low, 0, 0, &m, NULL), SQ_SUCCESS);
  sq_material_eval_destroy(ev);
  EXPECT_OK(MESH "materials:\n  default: {rho: \"2700 + z\", vp: 6000, vs: 3464}\n" EQNS, &cfg);
  ck_assert_int_eq(sq_material_eval_create(&cfg, &ev), SQ_SUCCESS);
  const double below[3] = {0, 0, -3000};
  const int saved = capture_begin();
  const int rc = sq_material_eval_cell(ev, below, 0, 7, &m, NULL);
  capture_end(saved);
  ck_assert_int_eq(rc, SQ_ERR_INPUT);
  ck_assert_msg(strstr(msg, "test.yaml:4: key 'materials.default.rho'") && strstr(msg, "must be > 0") &&
                    strstr(msg, "(0, 0, -3000)"),
                "%s", msg);
  sq_material_eval_destroy(ev);
  /* errors at load: syntax, an unknown name, t, a constant out of range, vp <= vs of constants */
  EXPECT_ERROR(MESH "materials:\n  default: {rho: 2700, vp: \"6000 - 0.5*\", vs: 3464}\n" EQNS,
               "test.yaml:4: key 'materials.default.vp'");
  EXPECT_ERROR(MESH "materials:\n  default: {rho: 2700, vp: \"6000 - 0.5*q\", vs: 3464}\n" EQNS,
               "test.yaml:4: key 'materials.default.vp'", "'q'");
  EXPECT_ERROR(MESH "materials:\n  default: {rho: 2700, vp: \"6000 + t\", vs: 3464}\n" EQNS,
               "test.yaml:4: key 'materials.default.vp'", "depends on t");
  EXPECT_ERROR(MESH "materials:\n  default: {rho: \"-2700\", vp: 6000, vs: 3464}\n" EQNS,
               "test.yaml:4: key 'materials.default.rho'", "out of range: must be > 0");
  EXPECT_ERROR(MESH "materials:\n  default: {rho: 2700, vp: \"3000\", vs: \"2000 * 2\"}\n" EQNS,
               "test.yaml:4: key 'materials.default.vp'", "must be greater than vs");
}
END_TEST

/* ---- Robustness: mutated inputs never crash and always give zero or one message -------------- */

static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;
static unsigned rng(unsigned n) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned)((rng_state >> 33) % n);
}

START_TEST(test_mutations) {
  static const char alphabet[] = ":[]{},-#'\"\n \t&*!|>%@`~?.0123456789aeinxyz_\\\x01\xc3\xa9\xff";
  size_t base_len = strlen(full_config);
  char *buf = malloc(2 * base_len + 64);
  ck_assert_ptr_nonnull(buf);
  int iterations = getenv("STARQUAKE_LONG_TESTS") ? 50000 : 4000;
  int failures = 0;
  for (int it = 0; it < iterations; ++it) {
    memcpy(buf, full_config, base_len + 1);
    size_t len = base_len;
    int nmut = 1 + (int)rng(4);
    for (int m = 0; m < nmut && len > 0; ++m) {
      size_t at = rng((unsigned)len);
      switch (rng(4)) {
      case 0: /* replace */ buf[at] = alphabet[rng(sizeof(alphabet) - 1)]; break;
      case 1: /* delete */
        memmove(buf + at, buf + at + 1, len - at);
        --len;
        break;
      case 2: /* insert */
        if (len + 1 < 2 * base_len) {
          memmove(buf + at + 1, buf + at, len - at + 1);
          buf[at] = alphabet[rng(sizeof(alphabet) - 1)];
          ++len;
        }
        break;
      default: /* truncate */
        buf[at] = '\0';
        len = at;
        break;
      }
    }
    sq_config cfg;
    int rc = load_str(buf, &cfg);
    if (rc) ++failures;
    ck_assert_msg(rc == 0 || rc == SQ_ERR_INPUT, "rc %d for:\n%s", rc, buf);
    ck_assert_msg(nerrors() == (rc ? 1 : 0), "%d messages for:\n%s\n---\n%s", nerrors(), buf, msg);
    if (rc) {
      ck_assert_msg(strncmp(strstr(msg, "error: ") + 7, "test.yaml:", 10) == 0, "no location: %s", msg);
      for (const char *c = msg; *c; ++c)
        ck_assert_msg((unsigned char)*c >= 0x20 || *c == '\n', "control byte in message: %s", msg);
    }
  }
  ck_assert_int_gt(failures, iterations / 10); /* the mutations did reach the checks */
  free(buf);
}
END_TEST

/* The plasticity section: optional, then its keys are required; expressions in x, y, z, group. */
START_TEST(test_plasticity_section) {
  sq_config cfg;
  EXPECT_OK(BASE, &cfg);
  ck_assert_int_eq(cfg.plasticity.enabled, 0);
  ck_assert_int_eq(cfg.fault.enabled, 0); /* absent optional sections do not demand their keys */
  EXPECT_OK(BASE "plasticity:\n  cohesion: 5e6\n  bulk_friction: if(group == 2, 0.6, 0.85)\n  tv: 0.03\n"
                 "  initial_stress: {zz: 16660 * z, xy: 1e6}\n"
                 "output:\n  fields: [v1, ep_xy, eta]\n",
            &cfg);
  ck_assert_int_eq(cfg.plasticity.enabled, 1);
  ck_assert_int_eq(cfg.plasticity.line, 7);
  ck_assert_str_eq(cfg.plasticity.param[SQ_PP_COHESION].text, "5e6");
  ck_assert_int_eq(cfg.plasticity.param[SQ_PP_BULK_FRICTION].line, 9);
  ck_assert_str_eq(cfg.plasticity.param[SQ_PP_S_ZZ].text, "16660 * z");
  ck_assert_str_eq(cfg.plasticity.param[SQ_PP_S_XY].text, "1e6");
  ck_assert_str_eq(cfg.plasticity.param[SQ_PP_S_XX].text, "");
  ck_assert_int_eq(cfg.output_fields, (1 << 6) | (1 << SQ_FIELD_EP_XY) | (1 << SQ_FIELD_ETA));
  EXPECT_ERROR(BASE "plasticity:\n  cohesion: 1\n  tv: 0\n", "test.yaml:7: key 'plasticity.bulk_friction'",
               "required key is missing");
  EXPECT_ERROR(BASE "plasticity:\n  cohesion: -1\n  bulk_friction: 0.6\n  tv: 0\n",
               "test.yaml:8: key 'plasticity.cohesion'", ">= 0");
  EXPECT_ERROR(BASE "plasticity:\n  cohesion: 1\n  bulk_friction: -0.6\n  tv: 0\n",
               "test.yaml:9: key 'plasticity.bulk_friction'", ">= 0");
  EXPECT_ERROR(BASE "plasticity:\n  cohesion: 1\n  bulk_friction: 0.6\n  tv: 0.1 * t\n",
               "test.yaml:10: key 'plasticity.tv'", "depends on t");
  EXPECT_ERROR(BASE "plasticity:\n  cohesion: 1 + groop\n  bulk_friction: 0.6\n  tv: 0\n",
               "test.yaml:8: key 'plasticity.cohesion'", "groop");
  EXPECT_ERROR(BASE "plasticity:\n  cohesion: 1\n  bulk_friction: 0.6\n  tv: 0\n  initial_stress: {zx: 1}\n",
               "test.yaml:11: key 'plasticity.initial_stress.zx'", "unknown key");
  EXPECT_ERROR(BASE "output:\n  fields: [eta]\n", "test.yaml:8: key 'output.fields'", "plasticity");
  EXPECT_ERROR(BASE "fault:\n  mu_s: 0.6\n", "key 'fault.friction_law'", "required key is missing");
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */

static Suite *config_suite(void) {
  Suite *s = suite_create("config");
  struct {
    const char *name;
    const TTest *tests[16];
  } groups[] = {
      {"valid",
       {test_full_round_trip, test_defaults, test_vp_vs_conversion, test_precision_and_options, test_mesh_file_paths,
        test_edit_distance}},
      {"unknown", {test_unknown_key_suggestion, test_unknown_section, test_bad_words}},
      {"type", {test_wrong_type}},
      {"range", {test_out_of_range, test_cross_checks, test_periodic_one_side}},
      {"missing", {test_missing_required}},
      {"values", {test_nonfinite, test_duplicate_key}},
      {"files", {test_yaml_syntax, test_empty, test_missing_file, test_file_errors_name_file}},
      {"materials", {test_material_rules, test_too_many_rules, test_material_expressions}},
      {"plasticity", {test_plasticity_section}},
      {"robustness", {test_mutations}},
  };
  for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); ++g) {
    TCase *tc = tcase_create(groups[g].name);
    tcase_set_timeout(tc, 120);
    for (int t = 0; groups[g].tests[t]; ++t) tcase_add_test(tc, groups[g].tests[t]);
    suite_add_tcase(s, tc);
  }
  return s;
}

int main(void) { return sq_test_run(config_suite(), 1); }
