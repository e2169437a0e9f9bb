/**
 * @file test_namelist.c  Check suite for the Fortran namelist reader (io/namelist.c) and the SeisSol
 * import (seissol/): values of every kind with their lines, every error naming file and line, the key
 * checks ("did you mean", refused features, warnings) and the translation of the keys that need care
 * (fault sides, friction laws, output intervals).
 */
#include "sq_check.h"
#include "sq_common.h"
#include "sq_namelist.h"
#include "sq_seissol.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char msg[16384];

/* Run @p call with stderr captured into msg. */
#define CAPTURE(rc, call)                                                                                              \
  do {                                                                                                                 \
    FILE *cap_ = tmpfile();                                                                                            \
    ck_assert_ptr_nonnull(cap_);                                                                                       \
    fflush(stderr);                                                                                                    \
    const int saved_ = dup(STDERR_FILENO);                                                                             \
    dup2(fileno(cap_), STDERR_FILENO);                                                                                 \
    (rc) = (call);                                                                                                     \
    fflush(stderr);                                                                                                    \
    dup2(saved_, STDERR_FILENO);                                                                                       \
    close(saved_);                                                                                                     \
    rewind(cap_);                                                                                                      \
    const size_t len_ = fread(msg, 1, sizeof(msg) - 1, cap_);                                                          \
    msg[len_] = '\0';                                                                                                  \
    fclose(cap_);                                                                                                      \
  } while (0)

static sq_namelist *parse_ok(const char *text) {
  sq_namelist *nl = NULL;
  int rc;
  CAPTURE(rc, sq_namelist_parse(text, strlen(text), "t.par", &nl));
  ck_assert_msg(rc == 0, "parse failed: %s", msg);
  return nl;
}

START_TEST(test_values) {
  const char *text = "! a comment line\n"
                     "&Equations\n"
                     "MaterialFileName = 'mat.yaml' ! trailing comment\n"
                     "Plasticity=1\n"
                     "Tv = 1d-2\n"
                     "/\n"
                     "\n"
                     "&Output\n"
                     "  iOutputMask = 0 0 0, 0 0 0 1 1 1\n"
                     "  name = \"it\"\"s\", 'o''k'\n"
                     "  flags = .true. .F. T false\n"
                     "  rep = 3*2.5 -1.5E+3 .5\n"
                     "  split =\n"
                     "     7\n"
                     "/\n"
                     "&empty /\n"
                     "&ender x = 1 &end\n";
  sq_namelist *nl = parse_ok(text);
  ck_assert_int_eq(nl->ngroup, 4);
  const sq_nml_group *eq = sq_namelist_group(nl, "equations");
  ck_assert_ptr_nonnull(eq);
  ck_assert_int_eq(eq->line, 2);
  const sq_nml_item *it = sq_namelist_item(eq, "materialfilename");
  ck_assert_ptr_nonnull(it);
  ck_assert_int_eq(it->line, 3);
  ck_assert_int_eq(it->value[0].type, SQ_NML_STRING);
  ck_assert_str_eq(it->value[0].str, "mat.yaml");
  it = sq_namelist_item(eq, "TV");
  ck_assert_int_eq(it->value[0].type, SQ_NML_REAL);
  ck_assert_double_eq(it->value[0].num, 1e-2);
  it = sq_namelist_item(eq, "Plasticity");
  ck_assert_int_eq(it->value[0].type, SQ_NML_INT);
  ck_assert_double_eq(it->value[0].num, 1);
  const sq_nml_group *out = sq_namelist_group(nl, "OUTPUT");
  it = sq_namelist_item(out, "iOutputMask");
  ck_assert_int_eq(it->nvalue, 9);
  ck_assert_double_eq(it->value[6].num, 1);
  ck_assert_double_eq(it->value[5].num, 0);
  it = sq_namelist_item(out, "name");
  ck_assert_int_eq(it->nvalue, 2);
  ck_assert_str_eq(it->value[0].str, "it\"s");
  ck_assert_str_eq(it->value[1].str, "o'k");
  it = sq_namelist_item(out, "flags");
  ck_assert_int_eq(it->nvalue, 4);
  for (int k = 0; k < 4; ++k) ck_assert_int_eq(it->value[k].type, SQ_NML_LOGICAL);
  ck_assert_double_eq(it->value[0].num, 1);
  ck_assert_double_eq(it->value[1].num, 0);
  ck_assert_double_eq(it->value[2].num, 1);
  ck_assert_double_eq(it->value[3].num, 0);
  it = sq_namelist_item(out, "rep");
  ck_assert_int_eq(it->nvalue, 5);
  ck_assert_double_eq(it->value[2].num, 2.5);
  ck_assert_double_eq(it->value[3].num, -1500);
  ck_assert_double_eq(it->value[4].num, 0.5);
  it = sq_namelist_item(out, "split");
  ck_assert_int_eq(it->line, 13);
  ck_assert_double_eq(it->value[0].num, 7);
  ck_assert_int_eq(sq_namelist_group(nl, "empty")->nitem, 0);
  ck_assert_double_eq(sq_namelist_item(sq_namelist_group(nl, "ender"), "x")->value[0].num, 1);
  ck_assert_ptr_null(sq_namelist_item(out, "nosuch"));
  ck_assert_ptr_null(sq_namelist_group(nl, "nosuch"));
  sq_namelist_free(nl);
}
END_TEST

/* @p text must fail to parse with a message holding every one of the NULL-ended @p parts. */
static void expect_parse_error(const char *text, const char *const *parts) {
  sq_namelist *nl = NULL;
  int rc;
  CAPTURE(rc, sq_namelist_parse(text, strlen(text), "bad.par", &nl));
  ck_assert_msg(rc == SQ_ERR_INPUT, "'%s' parsed (rc %d)", text, rc);
  ck_assert_ptr_null(nl);
  for (int i = 0; parts[i]; ++i)
    ck_assert_msg(strstr(msg, parts[i]), "'%s': message lacks '%s': %s", text, parts[i], msg);
}

START_TEST(test_errors) {
  expect_parse_error("&a\nx = 1\n", (const char *[]){"bad.par:1:", "'&a' is not closed", NULL});
  expect_parse_error("&a\nx = 'open\n/\n", (const char *[]){"bad.par:2:", "not closed on its line", NULL});
  expect_parse_error("&a\nx = word\n/\n", (const char *[]){"bad.par:2:", "'word' is not a number", "quotes", NULL});
  expect_parse_error("&a\nx = 1\n/\n&a\n/\n", (const char *[]){"bad.par:4:", "given twice", "line 1", NULL});
  expect_parse_error("&a\nx = 1\nX = 2\n/\n", (const char *[]){"bad.par:3:", "'X' is given twice", NULL});
  expect_parse_error("&a\nx 1\n/\n", (const char *[]){"bad.par:2:", "expected '=' after key 'x'", NULL});
  expect_parse_error("&a\nx = 1.2.3\n/\n", (const char *[]){"bad.par:2:", "'1.2.3' is not a number", NULL});
  expect_parse_error("&a\nx = 1e999\n/\n", (const char *[]){"bad.par:2:", "is not a number", NULL});
  expect_parse_error("&a\nx =\n/\n", (const char *[]){"bad.par:2:", "'x' has no value", NULL});
  expect_parse_error("&a\nx(2) = 1\n/\n", (const char *[]){"bad.par:2:", "array elements", NULL});
  expect_parse_error("stray\n&a\n/\n", (const char *[]){"bad.par:1:", "expected a group", NULL});
  expect_parse_error("&a\nx = 1\n&b\n/\n", (const char *[]){"bad.par:3:", "'&a' (line 1) is not closed", NULL});
  expect_parse_error("&\n/\n", (const char *[]){"bad.par:1:", "without a group name", NULL});
  expect_parse_error("! only a comment\n", (const char *[]){"no group", NULL});
  expect_parse_error("&a\nx = .maybe.\n/\n", (const char *[]){"bad.par:2:", "not a logical", NULL});
  expect_parse_error("&a\nx = 0*1\n/\n", (const char *[]){"bad.par:2:", "repeat count", NULL});
  expect_parse_error("&a\nx = nan\n/\n", (const char *[]){"bad.par:2:", "'nan' is not a number", NULL});
}
END_TEST

START_TEST(test_detect) {
  ck_assert(sq_namelist_detect("&equations\n/\n", 13));
  ck_assert(sq_namelist_detect("! comment\n\n  &Output\n", 21));
  ck_assert(!sq_namelist_detect("mesh:\n  type: box\n", 18));
  ck_assert(!sq_namelist_detect("# &equations\n", 13));
  ck_assert(sq_namelist_detect("&\n/\n", 4));
  ck_assert(!sq_namelist_detect("", 0));
}
END_TEST

/* The key checks of a namelist text: rc and the captured messages. */
static int check_keys(const char *text) {
  sq_namelist *nl = parse_ok(text);
  int rc;
  CAPTURE(rc, sq_seissol_check_keys(nl, stderr));
  sq_namelist_free(nl);
  return rc;
}

START_TEST(test_keys) {
  ck_assert_int_eq(check_keys("&AbortCriteria\nEndTim = 3\n/\n"), SQ_ERR_INPUT);
  ck_assert_msg(strstr(msg, "t.par:2: unknown key 'EndTim' in '&AbortCriteria'; did you mean 'EndTime'?"), "%s", msg);
  ck_assert_int_eq(check_keys("&Ouptut\n/\n"), SQ_ERR_INPUT);
  ck_assert_msg(strstr(msg, "t.par:1: unknown group '&Ouptut'; did you mean '&Output'?"), "%s", msg);
  ck_assert_int_eq(check_keys("&Output\nEndTime = 3\n/\n"), SQ_ERR_INPUT);
  ck_assert_msg(strstr(msg, "t.par:2: unknown key 'EndTime' in '&Output'; it belongs to '&AbortCriteria'"), "%s", msg);
  ck_assert_int_eq(check_keys("&equations\n\nGravitationalAcceleration = 9.81\n/\n"), SQ_ERR_INPUT);
  ck_assert_msg(strstr(msg, "t.par:3:") &&
                    strstr(msg, "a gravitational free surface (acoustic ocean) is not supported"),
                "%s", msg);
  ck_assert_int_eq(check_keys("&Discretization\nclusteredlts = 2\nFixTimeStep = 1\n/\n&SpongeLayer\nx = 1\n/\n"), 0);
  ck_assert_msg(strstr(msg, "t.par:3: key 'FixTimeStep' of '&Discretization' is not supported"), "%s", msg);
  ck_assert_msg(strstr(msg, "t.par:5: group '&SpongeLayer' is not supported"), "%s", msg);
  ck_assert_msg(!strstr(msg, "clusteredlts"), "a mapped key was warned about: %s", msg);
  /* a refinement of 0 is what starquake does: no warning; 1 is warned about */
  ck_assert_int_eq(check_keys("&Output\nrefinement = 0\nSurfaceOutputRefinement = 1\n/\n"), 0);
  ck_assert_msg(!strstr(msg, "'refinement'") && strstr(msg, "t.par:3: key 'SurfaceOutputRefinement'"), "%s", msg);
}
END_TEST

/* Import the set-up @p text (with a material model and a fault-receiver file beside it): rc, the YAML
 * into *yaml (or NULL), the messages into msg. */
static int import(const char *text, char **yaml) {
  char dir[] = "/tmp/sq_test_namelist_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char par[256], mat[256], fr[256];
  snprintf(par, sizeof(par), "%s/parameters.par", dir);
  snprintf(mat, sizeof(mat), "%s/mat.yaml", dir);
  snprintf(fr, sizeof(fr), "%s/fr.dat", dir);
  FILE *f = fopen(par, "w");
  fputs(text, f);
  fclose(f);
  f = fopen(mat, "w");
  fputs("!ConstantMap\nmap:\n  rho: 2700\n  mu: 3e10\n  lambda: 3e10\n", f);
  fclose(f);
  f = fopen(fr, "w");
  fputs("0 0 -100\n1e3 0 -2.5e3\n", f);
  fclose(f);
  *yaml = NULL;
  int rc;
  CAPTURE(rc, sq_seissol_import(par, NULL, yaml, stderr));
  unlink(par), unlink(mat), unlink(fr), rmdir(dir);
  return rc;
}

#define BASE                                                                                                           \
  "&equations\nMaterialFileName = 'mat.yaml'\n/\n&MeshNml\nMeshFile = 'm.puml.h5'\nmeshgenerator = 'PUML'\n/\n"        \
  "&AbortCriteria\nEndTime = 2.5\n/\n"

START_TEST(test_import) {
  char *y;
  /* refPointMethod 1, direction (0, -2, 0): taken as SeisSol takes it (fault.reference_convention: seissol) */
  ck_assert_int_eq(import(BASE "&DynamicRupture\nFL = 16\nModelFileName = 'f.yaml'\nXRef = 0\nYRef = -2\nZRef = 0\n"
                               "refPointMethod = 1\nt_0 = 0.25\nOutputPointType = 5\n/\n&Pickpoint\nPPFileName = "
                               "'fr.dat'\n/\n&Elementwise\nprinttimeinterval_sec = 0.5\n/\n&Output\npickdt = 0.01\n/\n",
                          &y),
                   0);
  ck_assert_msg(
      strstr(y, "  reference_convention: seissol\n  reference_method: vector\n  reference_point: [0, -2, 0]\n"), "%s",
      y);
  ck_assert_msg(strstr(y, "output:\n  style: seissol"), "%s", y);
  ck_assert_msg(strstr(y, "  friction_law: linear_slip_weakening"), "%s", y);
  ck_assert_msg(strstr(y, "  forced_rupture_duration: 0.25"), "%s", y);
  ck_assert_msg(strstr(y, "  nucleation_time: 0.25"), "%s", y);
  ck_assert_msg(strstr(y, "  output_interval: 0.5"), "%s", y);
  ck_assert_msg(strstr(y, "  station_interval: 0.01\n"), "%s", y);
  ck_assert_msg(strstr(y, "    - [0, 0, -100]\n    - [1000, 0, -2500]\n"), "%s", y);
  ck_assert_msg(strstr(y, "  end_time: 2.5\n"), "%s", y);
  ck_assert_msg(strstr(y, "materials:\n  easi: \"mat.yaml\"\n"), "%s", y);
  ck_assert_msg(strstr(y, "fault:\n  easi: \"f.yaml\"\n"), "%s", y);
  free(y);
  /* refPointMethod 0, the point (3, 4, 0) */
  ck_assert_int_eq(import(BASE "&DynamicRupture\nFL = 3\nModelFileName = 'f.yaml'\nXRef = 3\nYRef = 4\nZRef = 0\n"
                               "RS_iniSlipRate1 = 3d-12\nRS_iniSlipRate2 = 4d-12\nRS_f0 = 0.6\nRS_b=0.012\n/\n",
                          &y),
                   0);
  ck_assert_msg(strstr(y, "  reference_convention: seissol\n  reference_method: point\n  reference_point: [3, 4, 0]\n"),
                "%s", y);
  ck_assert_msg(strstr(y, "  friction_law: rate_state_aging"), "%s", y);
  ck_assert_msg(strstr(y, "  initial_slip_rate: 5e-12"), "%s", y);
  ck_assert_msg(strstr(y, "  f0: 0.6") && strstr(y, "  b: 0.012"), "%s", y);
  free(y);
  /* output: the smallest interval of those switched on, fields from the mask, prefix and folder */
  ck_assert_int_eq(import(BASE "&Output\nOutputFile = 'out/run1'\nwavefieldoutput = 1\niOutputMask = 1 0 0 0 0 0 0 0 "
                               "1\nTimeInterval = 2\nSurfaceOutput = 1\nSurfaceOutputInterval = 0.5\nEnergyOutput = "
                               "0\nEnergyOutputInterval = 0.1\n/\n&Discretization\nCFL = 0.4\nClusteredLTS = 3\n/\n",
                          &y),
                   0);
  ck_assert_msg(strstr(y, "  interval: 0.5 # SurfaceOutputInterval\n"), "%s", y);
  ck_assert_msg(strstr(y, "  fields: [s_xx, v3]\n"), "%s", y);
  ck_assert_msg(strstr(y, "  directory: \"out\"\n  prefix: \"run1\"\n"), "%s", y);
  ck_assert_msg(strstr(y, "  surface: true\n"), "%s", y);
  ck_assert_msg(strstr(y, "  cfl: 0.4\n") && strstr(y, "lts: {rate: 3}"), "%s", y);
  ck_assert_msg(!strstr(y, "plasticity"), "%s", y);
  ck_assert_msg(strstr(msg, "one interval"), "no warning about the intervals: %s", msg);
  free(y);
  /* plasticity: on with and without Tv */
  ck_assert_int_eq(import("&equations\nMaterialFileName = 'mat.yaml'\nPlasticity = 1\nTv = 0.05\n/\n&MeshNml\nMeshFile "
                          "= 'm.msh'\nmeshgenerator = 'Gmsh'\n/\n&AbortCriteria\nEndTime = 1\n/\n",
                          &y),
                   0);
  ck_assert_msg(strstr(y, "\nplasticity: {tv: 0.05}") && strstr(y, "  type: gmsh\n"), "%s", y);
  free(y);
  /* SeisSol's PlasticityPointwise: 0 takes the initial stress at the centroids, 1 at the nodal points */
  ck_assert_int_eq(
      import("&equations\nMaterialFileName = 'mat.yaml'\nPlasticity = 1\nTv = 0.05\nPlasticityPointwise = "
             "0\n/\n&MeshNml\nMeshFile = 'm.msh'\nmeshgenerator = 'Gmsh'\n/\n&AbortCriteria\nEndTime = 1\n/\n",
             &y),
      0);
  ck_assert_msg(strstr(y, "\nplasticity: {tv: 0.05, initial_stress_at: centroid}"), "%s", y);
  free(y);
  ck_assert_int_eq(import("&equations\nMaterialFileName = 'mat.yaml'\nPlasticity = 1\nPlasticityPointwise = 1\n/\n"
                          "&MeshNml\nMeshFile = 'm.msh'\nmeshgenerator = 'Gmsh'\n/\n&AbortCriteria\nEndTime = 1\n/\n",
                          &y),
                   0);
  ck_assert_msg(strstr(y, "\nplasticity: {initial_stress_at: nodes}"), "%s", y);
  free(y);
  ck_assert_int_ne(import("&equations\nMaterialFileName = 'mat.yaml'\nPlasticity = 1\nPlasticityPointwise = 2\n/\n"
                          "&MeshNml\nMeshFile = 'm.msh'\nmeshgenerator = 'Gmsh'\n/\n&AbortCriteria\nEndTime = 1\n/\n",
                          &y),
                   0);
  free(y);
  ck_assert_int_eq(import("&equations\nMaterialFileName = 'mat.yaml'\nPlasticity = 1\n/\n&MeshNml\nMeshFile "
                          "= 'm'\n/\n&AbortCriteria\nEndTime = 1\n/\n",
                          &y),
                   0);
  ck_assert_msg(strstr(y, "\nplasticity: {}\n") && strstr(y, "  type: puml\n"), "%s", y);
  ck_assert_msg(strstr(y, "  file: \"m.puml.h5\"\n"), "%s", y);
  ck_assert_msg(strstr(msg, "no meshgenerator") && strstr(msg, "'m' has no extension"), "%s", msg);
  free(y);
  /* refusals name the feature; missing keys name the group */
  ck_assert_int_eq(import(BASE "&DynamicRupture\nFL = 7\n/\n", &y), SQ_ERR_INPUT);
  ck_assert_msg(strstr(msg, "velocity weakening") && strstr(msg, "parameters.par:12:"), "%s", msg);
  /* kinematic sources: FL 33 (Yoffe) and 34 (Gaussian), their values from the fault's easi model */
  for (int k = 0; k < 2; ++k) {
    ck_assert_int_eq(import(k ? BASE "&DynamicRupture\nFL = 34\nModelFileName = 'f.yaml'\nXRef = 0\nYRef = 0\n"
                                     "ZRef = -1\nrefPointMethod = 1\n/\n"
                              : BASE "&DynamicRupture\nFL = 33\nModelFileName = 'f.yaml'\nXRef = 0\nYRef = 0\n"
                                     "ZRef = -1\nrefPointMethod = 1\n/\n",
                            &y),
                     0);
    ck_assert_msg(strstr(y, k ? "  friction_law: imposed_slip_rate_gaussian # FL = 34\n"
                              : "  friction_law: imposed_slip_rate_yoffe # FL = 33\n"),
                  "%s", y);
    ck_assert_msg(!strstr(y, "f0:"), "%s", y);
    free(y);
  }
  /* SourceType 42 (NRF) and 50; another type is refused */
  ck_assert_int_eq(import(BASE "&SourceType\nType = 42\nFileName = 's.nrf'\n/\n", &y), 0);
  ck_assert_msg(strstr(y, "sources:\n  - type: nrf # SourceType 42\n    file: \"s.nrf\"\n"), "%s", y);
  free(y);
  ck_assert_int_eq(import(BASE "&SourceType\nType = 50\nFileName = 's.dat'\n/\n", &y), 0);
  ck_assert_msg(strstr(y, "sources:\n  - type: finite # SourceType 50\n    file: \"s.dat\"\n"), "%s", y);
  free(y);
  ck_assert_int_eq(import(BASE "&SourceType\nType = 1\nFileName = 's.dat'\n/\n", &y), SQ_ERR_INPUT);
  ck_assert_msg(strstr(msg, "source type 1 is not supported"), "%s", msg);
  ck_assert_int_eq(import("&equations\nMaterialFileName = 'mat.yaml'\n/\n&AbortCriteria\nEndTime = 1\n/\n", &y),
                   SQ_ERR_INPUT);
  ck_assert_msg(strstr(msg, "key 'MeshFile' of '&MeshNml' is missing"), "%s", msg);
  ck_assert_int_eq(
      import(BASE "&DynamicRupture\nFL = 16\nModelFileName = 'f.yaml'\nXRef = 0\nYRef = 0\nZRef = 0\n/\n", &y),
      SQ_ERR_INPUT);
  ck_assert_msg(strstr(msg, "must not be the origin"), "%s", msg);
  ck_assert_int_eq(import(BASE "&Output\nOutputFile = 'out/a b'\n/\n", &y), SQ_ERR_INPUT);
  ck_assert_msg(strstr(msg, "OutputFile") && strstr(msg, "letters, digits"), "%s", msg);
  ck_assert_int_eq(import(BASE "&Discretization\nCFL = 'half'\n/\n", &y), SQ_ERR_INPUT);
  ck_assert_msg(strstr(msg, "key 'CFL' of '&Discretization': expected a number, found a string"), "%s", msg);
  ck_assert_ptr_null(y);
}
END_TEST

static Suite *namelist_suite(void) {
  const TTest *tests[] = {test_values, test_errors, test_detect, test_keys, test_import, NULL};
  return sq_test_suite("namelist", 0, tests);
}

int main(void) { return sq_test_run(namelist_suite(), 1); }
