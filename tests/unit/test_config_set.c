/**
 * @file test_config_set.c  Check suite for the command line's --set KEY=VALUE overrides (io/config_set.c):
 * a value replaces the file's or adds a key, inside nested sections and list items, and goes through the
 * schema exactly like a value of the file; every mistake names the --set and the key.
 */
#include "sq_check.h"
#include "sq_config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char base_yaml[] = "mesh:\n"
                                "  type: box\n"
                                "  box: {cells: [2, 2, 2]}\n"
                                "materials:\n"
                                "  default: {rho: 2700, vp: 6000, vs: 3464}\n"
                                "  layers:\n"
                                "    - {z_top: 1.0, z_bottom: 0.5, rho: 2000, vp: 3000, vs: 1700}\n"
                                "equations:\n"
                                "  order: 3\n"
                                "  end_time: 0.5\n"
                                "output:\n";

static char path[64];
static char msg[8192];

/* The base file, written once per test. */
static void write_base(void) {
  snprintf(path, sizeof(path), "/tmp/sq_test_config_set_%d.yaml", (int)getpid());
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(base_yaml, f);
  fclose(f);
}

/* Load the base file with @p n sets, stderr captured into msg; returns the loader's code. */
static int load(sq_config *cfg, int n, const char *const *sets) {
  write_base();
  FILE *cap = tmpfile();
  ck_assert_ptr_nonnull(cap);
  fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  dup2(fileno(cap), STDERR_FILENO);
  const int rc = sq_config_load_with_sets(path, sets, n, cfg);
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  rewind(cap);
  const size_t len = fread(msg, 1, sizeof(msg) - 1, cap);
  msg[len] = '\0';
  fclose(cap);
  unlink(path);
  return rc;
}

START_TEST(test_values_replace_and_add) {
  sq_config cfg;
  const char *sets[] = {"equations.end_time=3",
                        "equations.precision=single",
                        "mesh.box.cells[1]=5",
                        "materials.layers[0].rho=2100",
                        "output.prefix=over",
                        "runtime.tile_size=64",
                        "mesh.box.boundary={zmin: free_surface, zmax: absorbing}"};
  EXPECT_MSG(load(&cfg, 7, sets) == SQ_SUCCESS, "%s", msg);
  EXPECT_NEAR(cfg.end_time, 3.0, 0);
  EXPECT_EQ(cfg.precision, SQ_F32);
  EXPECT_EQ(cfg.box.n[0], 2);
  EXPECT_EQ(cfg.box.n[1], 5);
  EXPECT_NEAR(cfg.rules[0].mat.rho, 2100.0, 0);
  EXPECT(!strcmp(cfg.output_prefix, "over"));
  EXPECT_EQ(cfg.tile_size, 64);
  EXPECT_EQ(cfg.order, 3); /* the file's other values stay */
}
END_TEST

START_TEST(test_same_as_file_and_last_wins) {
  sq_config a, b;
  EXPECT(load(&a, 0, NULL) == SQ_SUCCESS);
  const char *sets[] = {"equations.end_time=7", "equations.end_time=0.5", "equations.order=3"};
  EXPECT_MSG(load(&b, 3, sets) == SQ_SUCCESS, "%s", msg);
  EXPECT_NEAR(b.end_time, a.end_time, 0);
  EXPECT_EQ(b.order, a.order);
}
END_TEST

/* Each bad --set fails with one message holding every given piece. */
static void expect_error(const char *set, const char *want1, const char *want2) {
  sq_config cfg;
  const char *sets[] = {"equations.order=3", set};
  EXPECT_MSG(load(&cfg, 2, sets) != SQ_SUCCESS, "--set %s was accepted", set);
  EXPECT_MSG(strstr(msg, want1) != NULL, "--set %s: '%s' is not in: %s", set, want1, msg);
  if (want2) EXPECT_MSG(strstr(msg, want2) != NULL, "--set %s: '%s' is not in: %s", set, want2, msg);
}

START_TEST(test_errors_name_the_set) {
  expect_error("equations.end_time=abc", "--set equations.end_time=abc: key 'equations.end_time'", "expected a number");
  expect_error("equations.end_time=-1", "--set equations.end_time=-1: key 'equations.end_time'", "out of range");
  expect_error("equations.ordr=4", "key 'equations.ordr'", "did you mean 'order'");
  expect_error("equations.precision=half", "--set equations.precision=half", "single");
  expect_error("equations", "--set needs KEY=VALUE", NULL);
  expect_error("=4", "--set needs KEY=VALUE", NULL);
  expect_error("equations..order=4", "not a key path", NULL);
  expect_error("equations.order[0]=4", "has 0 items", NULL);
  expect_error("materials.layers[3].rho=1", "has 1 item", NULL);
  expect_error("materials.regions[0].rho=1", "adds none", NULL);
  expect_error("equations.end_time.x=1", "'equations.end_time' is not a mapping", "line 10");
  expect_error("materials.layers[0]={z_top: 1}", "--set materials.layers[0]", "required");
  expect_error("equations.end_time=[1, 2", "--set equations.end_time=[1, 2", "YAML syntax error");
}
END_TEST

static Suite *config_set_suite(void) {
  const TTest *tests[] = {test_values_replace_and_add, test_same_as_file_and_last_wins, test_errors_name_the_set, NULL};
  Suite *s = sq_test_suite("config_set", 0, tests);
  return s;
}

int main(void) { return sq_test_run(config_set_suite(), 1); }
