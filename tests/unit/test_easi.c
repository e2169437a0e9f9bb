/** @file test_easi.c  Check suite for the easi reader (easi/): every component against closed forms, the
 * errors with file and line, and SeisSol's example files against values computed independently. */
#include "sq_check.h"

#include <math.h>
#include <netcdf.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sq_common.h"
#include "sq_easi.h"

static char tmpdir[256];

static void setup(void) {
  snprintf(tmpdir, sizeof(tmpdir), "/tmp/sq_easi_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static const char *put(const char *name, const char *text) {
  static char path[4][512];
  static int k;
  char *p = path[k++ % 4];
  snprintf(p, 512, "%s/%s", tmpdir, name);
  FILE *f = fopen(p, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
  return p;
}

static sq_easi *load(const char *name, const char *text) {
  sq_easi *m = NULL;
  const char *p = put(name, text);
  int rc = sq_easi_load(p, &m);
  ck_assert_msg(rc == 0 && m, "%s did not load", name);
  return m;
}

/* one parameter at one point */
static double at(const sq_easi *m, const char *name, double x, double y, double z, int group) {
  double xyz[3] = {x, y, z}, v = NAN;
  const char *names[1] = {name};
  int rc = sq_easi_eval(m, 1, xyz, &group, 1, names, &v);
  ck_assert_msg(rc == 0, "evaluating %s at (%g, %g, %g) failed", name, x, y, z);
  return v;
}

/* the message of the last error (sq_error prints it to stderr: read it back through a pipe) */
static char errbuf[4096];
static int capture_begin(void) {
  fflush(stderr);
  int saved = dup(2);
  FILE *f = tmpfile();
  dup2(fileno(f), 2);
  return saved * 1000 + fileno(f);
}
static const char *capture_end(int token) {
  fflush(stderr);
  int saved = token / 1000, fd = token % 1000;
  lseek(fd, 0, SEEK_SET);
  ssize_t n = read(fd, errbuf, sizeof(errbuf) - 1);
  errbuf[n > 0 ? n : 0] = 0;
  dup2(saved, 2);
  close(saved);
  return errbuf;
}

static void load_fails(const char *name, const char *text, const char *frag1, const char *frag2) {
  sq_easi *m = NULL;
  const char *p = put(name, text);
  int tok = capture_begin();
  int rc = sq_easi_load(p, &m);
  const char *msg = capture_end(tok);
  ck_assert_msg(rc == SQ_ERR_INPUT && !m, "%s loaded but should not", name);
  ck_assert_msg(strstr(msg, frag1), "%s: message '%s' lacks '%s'", name, msg, frag1);
  if (frag2) ck_assert_msg(strstr(msg, frag2), "%s: message '%s' lacks '%s'", name, msg, frag2);
}

static void eval_fails(const sq_easi *m, const char *name, double x, double y, double z, int group, const char *frag1,
                       const char *frag2) {
  double xyz[3] = {x, y, z}, v;
  const char *names[1] = {name};
  int tok = capture_begin();
  int rc = sq_easi_eval(m, 1, xyz, &group, 1, names, &v);
  const char *msg = capture_end(tok);
  ck_assert_msg(rc == SQ_ERR_INPUT, "evaluating %s should fail", name);
  ck_assert_msg(strstr(msg, frag1), "message '%s' lacks '%s'", msg, frag1);
  if (frag2) ck_assert_msg(strstr(msg, frag2), "message '%s' lacks '%s'", msg, frag2);
}

START_TEST(constant_and_switch) {
  setup();
  sq_easi *m = load("a.yaml", "!Switch\n"
                              "[rho, mu]: !ConstantMap\n"
                              "  map: {rho: 2670, mu: 3.2e10}\n"
                              "[lambda]: !ConstantMap\n"
                              "  map:\n"
                              "    lambda: 1.5e10\n"
                              "    unused: 7\n");
  EXPECT_NEAR(at(m, "rho", 1, 2, 3, 0), 2670, 0);
  EXPECT_NEAR(at(m, "mu", -1, 2, 3, 5), 3.2e10, 0);
  EXPECT_NEAR(at(m, "lambda", 0, 0, 0, 0), 1.5e10, 0);
  EXPECT(sq_easi_provides(m, "rho") && sq_easi_provides(m, "lambda") && !sq_easi_provides(m, "unused") &&
         !sq_easi_provides(m, "plastCo"));
  /* several parameters and points at once, in the caller's order */
  double xyz[6] = {0, 0, 0, 1, 1, 1}, out[6];
  const char *names[3] = {"lambda", "rho", "mu"};
  ck_assert_int_eq(sq_easi_eval(m, 2, xyz, NULL, 3, names, out), 0);
  EXPECT(out[0] == 1.5e10 && out[1] == 2670 && out[2] == 3.2e10 && out[3] == 1.5e10 && out[5] == 3.2e10);
  eval_fails(m, "plastCo", 0, 0, 0, 0, "a.yaml:1: !Switch has no case for parameter 'plastCo'", "(0, 0, 0)");
  sq_easi_free(m);
}
END_TEST

START_TEST(function_map) {
  setup();
  sq_easi *m = load("f.yaml", "!FunctionMap\n"
                              "map:\n"
                              "  a: return x * y + z;\n"
                              "  b: |\n"
                              "    r = sqrt(x*x + y*y);\n"
                              "    if (r <= 1.0) {\n"
                              "      v = 10;\n"
                              "    } else if (r < 2 && z >= 0) {\n"
                              "      v = 20;\n"
                              "    } else {\n"
                              "      v = pow(r, 2) + max(x, y) - min(-1, z) + fabs(-2) + exp(0) + 1e1;\n"
                              "    }\n"
                              "    return v;\n"
                              "  c: \"return {c: -x / 2 + 3 * (y - 1), d: 0};\"\n"
                              "  d: \"return !(x > 0) || (y == 2 && z != 1);\"\n");
  EXPECT_NEAR(at(m, "a", 2, 3, 4, 0), 10, 0);
  EXPECT_NEAR(at(m, "b", 0.5, 0.5, 0, 0), 10, 0);
  EXPECT_NEAR(at(m, "b", 1.5, 0, 1, 0), 20, 0);
  EXPECT_NEAR(at(m, "b", 1.5, 0, -1, 0), 2.25 + 1.5 + 1 + 2 + 1 + 10, 1e-12);
  EXPECT_NEAR(at(m, "b", 3, 4, 5, 0), 25 + 4 + 1 + 2 + 1 + 10, 1e-12);
  EXPECT_NEAR(at(m, "c", 2, 1, 0, 0), -1, 0);
  EXPECT_NEAR(at(m, "d", 1, 2, 1, 0), 0, 0);
  EXPECT_NEAR(at(m, "d", 1, 2, 3, 0), 1, 0);
  EXPECT_NEAR(at(m, "d", -1, 0, 1, 0), 1, 0);
  sq_easi_free(m);
}
END_TEST

START_TEST(lua_both_forms) {
  setup();
  sq_easi *m = load("l.yaml", "!Switch\n"
                              "[s_xy, s_yy]: !LuaMap\n"
                              "  returns: [s_yy, s_xy]\n"
                              "  function: |\n"
                              "    function f (x)\n"
                              "      r = math.max(math.abs(x[\"x\"]), math.abs(x[\"z\"] + 7500))\n"
                              "      if (r <= 1500.0) then s = 81.6e6 else s = 70e6 end\n"
                              "      return { s_xy = s, s_yy = -120e6 + x[2] }\n"
                              "    end\n"
                              "[rho]: !LuaMap\n"
                              "  map:\n"
                              "    rho: return 1600 + 59.5 * (-z) ^ (1/3) + x[1] * 0\n");
  EXPECT_NEAR(at(m, "s_xy", 0, 0, -7500, 0), 81.6e6, 0);
  EXPECT_NEAR(at(m, "s_xy", 2000, 0, -7500, 0), 70e6, 0);
  EXPECT_NEAR(at(m, "s_yy", 0, 5, -7500, 0), -120e6 + 5, 0);
  EXPECT_NEAR(at(m, "rho", 3, 0, -8, 0), 1600 + 59.5 * 2, 1e-9);
  /* many points: the threads each make their own Lua states */
  enum { N = 4000 };
  double *xyz = malloc(3 * N * sizeof(double)), *out = malloc(2 * N * sizeof(double));
  for (int p = 0; p < N; ++p) {
    xyz[3 * p] = -3000 + 1.5 * p;
    xyz[3 * p + 1] = p;
    xyz[3 * p + 2] = -7500;
  }
  const char *names[2] = {"s_xy", "s_yy"};
  ck_assert_int_eq(sq_easi_eval(m, N, xyz, NULL, 2, names, out), 0);
  for (int p = 0; p < N; ++p) {
    EXPECT(out[2 * p] == (fabs(xyz[3 * p]) <= 1500 ? 81.6e6 : 70e6));
    EXPECT(out[2 * p + 1] == -120e6 + p);
  }
  free(xyz);
  free(out);
  sq_easi_free(m);
}
END_TEST

START_TEST(affine_polynomial) {
  setup();
  /* AffineMap's rows act on the inputs in sorted order (x, y, z); PolynomialMap coefficients x^n .. 1 */
  sq_easi *m = load("p.yaml", "!AffineMap\n"
                              "matrix:\n"
                              "  d: [1.0, 2.0, -1.0]\n"
                              "translation:\n"
                              "  d: 3\n"
                              "components: !PolynomialMap\n"
                              "  map:\n"
                              "    rho: [2.0, -1.0, 5.0]\n"
                              "    mu: [7.0]\n");
  double d = 1 + 2 * 2 - 3 + 3;
  EXPECT_NEAR(at(m, "rho", 1, 2, 3, 0), 2 * d * d - d + 5, 1e-12);
  EXPECT_NEAR(at(m, "mu", 1, 2, 3, 0), 7, 0);
  sq_easi_free(m);
}
END_TEST

START_TEST(layered_model) {
  setup();
  static const char *fmt = "!LayeredModel\n"
                           "map: !AffineMap\n"
                           "  matrix:\n"
                           "    zz: [0.0, 0.0, 1.0]\n"
                           "  translation:\n"
                           "    zz: 0\n"
                           "interpolation: %s\n"
                           "parameters: [rho, mu]\n"
                           "nodes:\n"
                           "  0: [10, 100]\n"
                           "  -1000: [20, 200]\n"
                           "  -3000: [40, 400]\n";
  char text[1024];
  snprintf(text, sizeof(text), fmt, "linear");
  sq_easi *m = load("lin.yaml", text);
  EXPECT_NEAR(at(m, "rho", 0, 0, -500, 0), 15, 1e-12);
  EXPECT_NEAR(at(m, "mu", 0, 0, -2000, 0), 300, 1e-12);
  EXPECT_NEAR(at(m, "rho", 0, 0, 500, 0), 10, 0);   /* above the top node: its values */
  EXPECT_NEAR(at(m, "rho", 0, 0, -5000, 0), 40, 0); /* below the last node */
  sq_easi_free(m);
  snprintf(text, sizeof(text), fmt, "lower");
  m = load("low.yaml", text);
  EXPECT_NEAR(at(m, "rho", 0, 0, -500, 0), 20, 0);
  EXPECT_NEAR(at(m, "mu", 0, 0, -2500, 0), 400, 0);
  EXPECT_NEAR(at(m, "rho", 0, 0, -1000, 0), 40, 0); /* on a node: the segment below wins, as in easi */
  sq_easi_free(m);
  snprintf(text, sizeof(text), fmt, "upper");
  m = load("up.yaml", text);
  EXPECT_NEAR(at(m, "rho", 0, 0, -500, 0), 10, 0);
  EXPECT_NEAR(at(m, "mu", 0, 0, -2500, 0), 200, 0);
  sq_easi_free(m);
}
END_TEST

START_TEST(filters) {
  setup();
  sq_easi *m = load("g.yaml", "!Any\n"
                              "components:\n"
                              "  - !GroupFilter\n"
                              "    groups: [6, 7]\n"
                              "    components: !ConstantMap {map: {v: 1}}\n"
                              "  - !SphericalDomainFilter\n"
                              "    radius: 2\n"
                              "    centre: {x: 10, y: 0, z: 0}\n"
                              "    components: !ConstantMap {map: {v: 2}}\n"
                              "  - !AxisAlignedCuboidalDomainFilter\n"
                              "    limits:\n"
                              "      x: [-1, 1]\n"
                              "      y: [-.inf, .inf]\n"
                              "      z: [-5, 0]\n"
                              "    components: !IdentityMap\n"
                              "      components: !FunctionMap {map: {v: return 3 + z;}}\n");
  EXPECT_NEAR(at(m, "v", 10, 0, 0, 7), 1, 0); /* the first accepting child wins */
  EXPECT_NEAR(at(m, "v", 11.9, 0, 0, 0), 2, 0);
  EXPECT_NEAR(at(m, "v", 1, 1e9, -5, 0), -2, 0); /* limits are inclusive */
  eval_fails(m, "v", 1.01, 0, -1, 0, "no component accepts the point (1.01, 0, -1) of group 0", "g.yaml:10");
  sq_easi_free(m);
}
END_TEST

START_TEST(include_and_eval_model) {
  setup();
  put("inc.yaml", "!FunctionMap\nmap:\n  s: return 2 * x;\n");
  sq_easi *m = load("main.yaml", "!Switch\n"
                                 "[s]: !Include inc.yaml\n"
                                 "[e]: !EvalModel\n"
                                 "  parameters: [elevation, zz]\n"
                                 "  model: !Switch\n"
                                 "    [elevation]: !ConstantMap {map: {elevation: 100.0}}\n"
                                 "    [zz]: !AffineMap {matrix: {zz: [0, 0, 1]}, translation: {zz: 0}}\n"
                                 "  components: !FunctionMap\n"
                                 "    map:\n"
                                 "      e: return elevation - zz;\n");
  EXPECT_NEAR(at(m, "s", 4, 0, 0, 0), 8, 0);
  EXPECT_NEAR(at(m, "e", 0, 0, -50, 0), 150, 0);
  sq_easi_free(m);
}
END_TEST

/* a 3D grid of two parameters (a compound, as ASAGI files are) holding linear functions: trilinear
 * interpolation reproduces them exactly inside the grid, and clamps outside */
START_TEST(asagi_grid) {
  setup();
  char path[512];
  snprintf(path, sizeof(path), "%s/grid.nc", tmpdir);
  int nc, dims[3], vx, vy, vz, vd, t;
  ck_assert_int_eq(nc_create(path, NC_NETCDF4, &nc), 0);
  size_t n[3] = {4, 3, 5}; /* z, y, x */
  nc_def_dim(nc, "z", n[0], &dims[0]);
  nc_def_dim(nc, "y", n[1], &dims[1]);
  nc_def_dim(nc, "x", n[2], &dims[2]);
  nc_def_var(nc, "z", NC_DOUBLE, 1, &dims[0], &vz);
  nc_def_var(nc, "y", NC_DOUBLE, 1, &dims[1], &vy);
  nc_def_var(nc, "x", NC_DOUBLE, 1, &dims[2], &vx);
  typedef struct {
    float a;
    double b;
  } rec;
  nc_def_compound(nc, sizeof(rec), "ab", &t);
  nc_insert_compound(nc, t, "a", offsetof(rec, a), NC_FLOAT);
  nc_insert_compound(nc, t, "b", offsetof(rec, b), NC_DOUBLE);
  nc_def_var(nc, "data", t, 3, dims, &vd);
  nc_enddef(nc);
  double zc[4] = {-30, -20, -10, 0}, yc[3] = {0, 50, 100}, xc[5] = {0, 1, 2, 3, 4};
  nc_put_var_double(nc, vz, zc);
  nc_put_var_double(nc, vy, yc);
  nc_put_var_double(nc, vx, xc);
  rec r[60];
  for (size_t k = 0; k < 4; ++k)
    for (size_t j = 0; j < 3; ++j)
      for (size_t i = 0; i < 5; ++i) {
        r[(k * 3 + j) * 5 + i].a = (float)(xc[i] + 2 * yc[j] + 3 * zc[k]);
        r[(k * 3 + j) * 5 + i].b = xc[i] * 10 - zc[k];
      }
  nc_put_var(nc, vd, r);
  nc_close(nc);
  /* 'parameters' in the file's member order; the names need not be sorted */
  sq_easi *m = load("as.yaml", "!ASAGI\nfile: grid.nc\nparameters: [zeta, beta]\nvar: data\n");
  EXPECT_NEAR(at(m, "zeta", 1.25, 30, -12.5, 0), 1.25 + 60 - 37.5, 1e-4);
  EXPECT_NEAR(at(m, "beta", 1.25, 30, -12.5, 0), 12.5 + 12.5, 1e-12);
  EXPECT_NEAR(at(m, "beta", 9, 30, 5, 0), 40, 1e-12); /* clamped to x = 4, z = 0 */
  sq_easi_free(m);
  m = load("asn.yaml", "!ASAGI\nfile: grid.nc\nparameters: [zeta, beta]\ninterpolation: nearest\n");
  EXPECT_NEAR(at(m, "beta", 1.4, 30, -12.6, 0), 10 + 10, 1e-12);
  sq_easi_free(m);
  load_fails("as2.yaml", "!ASAGI\nfile: grid.nc\nparameters: [a]\n", "as2.yaml:1: !ASAGI:", "2 members");
  load_fails("as3.yaml", "!ASAGI\nfile: nothere.nc\nparameters: [a]\n", "as3.yaml:1: !ASAGI:", "nothere.nc");
}
END_TEST

START_TEST(scec_file) {
  setup();
  /* 2 x 1 cells over 200 x 100 m; values linear in the grid coordinates */
  FILE *f = fopen(put("s.txt", ""), "w");
  fprintf(f, "1 2\n2 1 200.0 100.0\n1 0 100.0 0.0 0 0\n");
  for (int j = 0; j <= 1; ++j)
    for (int i = 0; i <= 2; ++i) {
      double xs = 100.0 * i, zs = 100.0 * j;
      fprintf(f, "%d %d %g %g %g %g %g 0 0 %g %g %g %g %g\n", i, j, xs, zs, 1e6 + xs, 2e6 + zs, 3e6, 0.6 + 1e-4 * xs,
              0.5, 0.4, 1000 + zs, 1e9);
    }
  fclose(f);
  sq_easi *m = load("sc2.yaml", "!AffineMap\n"
                                "matrix: {a: [1, 0, 0], b: [0, 0, -1]}\n"
                                "translation: {a: 0, b: 0}\n"
                                "components: !SCECFile\n"
                                "  file: s.txt\n");
  EXPECT_NEAR(at(m, "s_normal", 50, 0, -40, 0), 1e6 + 50, 1e-6);
  EXPECT_NEAR(at(m, "s_strike", 50, 0, -40, 0), 2e6 + 40, 1e-6);
  EXPECT_NEAR(at(m, "s_dip", 50, 0, -40, 0), 3e6, 1e-6);
  EXPECT_NEAR(at(m, "mu_s", 150, 0, -40, 0), 0.615, 1e-12);
  EXPECT_NEAR(at(m, "cohesion", 150, 0, -40, 0), 1040, 1e-9);
  EXPECT_NEAR(at(m, "forced_rupture_time", 150, 0, -40, 0), 1e9, 0);
  sq_easi_free(m);
}
END_TEST

START_TEST(errors_name_file_and_line) {
  setup();
  load_fails("e1.yaml", "!ConstantMap\nmap:\n  rho: abc\n", "e1.yaml:3: !ConstantMap: 'rho' must be a number", NULL);
  load_fails("e2.yaml", "!Switch\n[rho]: !ConstantMap\n  mapp: {rho: 1}\n",
             "e2.yaml:3: !ConstantMap: unknown key 'mapp'", NULL);
  load_fails("e3.yaml", "!Swich\n[rho]: !ConstantMap {map: {rho: 1}}\n", "e3.yaml:1: !Swich: unknown component", NULL);
  load_fails("e4.yaml",
             "!Switch\n[rho]: !ConstantMap {map: {rho: 1}}\n[mu, rho]: !ConstantMap {map: {rho: 1, mu: 2}}\n",
             "e4.yaml:3: !Switch: parameter 'rho' is given by two cases", NULL);
  load_fails("e5.yaml", "!FunctionMap\nmap:\n  a: |\n    b = 1;\n    return q + 1;\n",
             "e5.yaml:5: !FunctionMap: 'q' is neither an input dimension", NULL);
  load_fails("e6.yaml", "!LuaMap\nreturns: [a]\nfunction: |\n  function f (x)\n    return {a = 7500.0.0}\n  end\n",
             "e6.yaml:1: !LuaMap:", "e6.yaml:5: malformed number");
  load_fails("e7.yaml",
             "!LayeredModel\nmap: !AffineMap {matrix: {z: [0, 0, 1]}, translation: {z: 0}}\n"
             "interpolation: linear\nparameters: [rho]\nnodes:\n  0: [1]\n  -.inf: [2]\n",
             "e7.yaml:7: !LayeredModel: infinite nodes", NULL);
  load_fails("e8.yaml", "!AffineMap\nmatrix:\n  d: [1, 2]\ntranslation: {d: 0}\n",
             "e8.yaml:3: !AffineMap: matrix row 'd' must list 3 numbers", NULL);
  load_fails("e9.yaml", "!Switch\n[a]: !Include missing.yaml\n", "e9.yaml:2: !Include:", "missing.yaml");
  load_fails("e10.yaml", "!ConstantMap\nmap: {a: 1\n", "e10.yaml:", "YAML syntax error");
  load_fails("e11.yaml",
             "!AxisAlignedCuboidalDomainFilter\nlimits:\n  w: [0, 1]\ncomponents: !ConstantMap {map: {a: 1}}\n",
             "e11.yaml:3: !AxisAlignedCuboidalDomainFilter: limit 'w' is not an input dimension", NULL);
  load_fails("e12.yaml", "", "e12.yaml:1: the file is empty", NULL);
  load_fails("e12b.yaml", "!FunctionMap\nmap:\n  a: |\n    return sqrt();\n",
             "e12b.yaml:4: !FunctionMap: sqrt() takes 1 argument(s), not 0", NULL);
  load_fails("e13.yaml", "map: {a: 1}\n", "e13.yaml:1: a component needs a tag", NULL);
  /* errors at evaluation name the point and the component */
  sq_easi *m = load("e14.yaml", "!LuaMap\nreturns: [a]\nfunction: |\n  function f (x)\n    return {b = 1}\n  end\n");
  eval_fails(m, "a", 1, 2, 3, 4, "(1, 2, 3) of group 4", "e14.yaml:1: !LuaMap: f (x) returned no number for 'a'");
  eval_fails(m, "c", 1, 2, 3, 4, "e14.yaml:1: !LuaMap does not give parameter 'c'", NULL);
  sq_easi_free(m);
  m = load("e16.yaml", "!LuaMap\nreturns: [a]\nfunction: |\n  function f (x)\n    while true do end\n  end\n");
  eval_fails(m, "a", 0, 0, 0, 0, "e16.yaml:1: !LuaMap:", "more than 10^8 Lua instructions for one point");
  sq_easi_free(m);
  m = load("e15.yaml", "!LuaMap\nreturns: [a]\nfunction: |\n  function f (x)\n    return {a = x.nothere + 1}\n  end\n");
  eval_fails(m, "a", 0, 0, 0, 0, "e15.yaml:1: !LuaMap:", "e15.yaml:5:");
  sq_easi_free(m);
}
END_TEST

/* SeisSol's example files against values written out independently (the SCEC descriptions and our
 * hand-translated configs/tpv5/tpv5.yaml) */
START_TEST(seissol_examples) {
  char dir[1024], path[1100];
  const char *src = getenv("srcdir");
  snprintf(dir, sizeof(dir), "%s/tests/easi/seissol", src ? src : ".");
  sq_easi *m = NULL;
  snprintf(path, sizeof(path), "%s/tpv5_material.yaml", dir);
  ck_assert_int_eq(sq_easi_load(path, &m), 0);
  EXPECT(at(m, "rho", 0, 0, -1000, 0) == 2670 && at(m, "mu", 5, 5, -5, 0) == 32038120320 &&
         at(m, "lambda", 0, 0, 0, 0) == 32043759360);
  sq_easi_free(m);
  snprintf(path, sizeof(path), "%s/tpv5_fault.yaml", dir);
  ck_assert_int_eq(sq_easi_load(path, &m), 0);
  /* tpv5.yaml: xy 70 MPa, patches 81.6 (|x| <= 1.5 km), 78.0 (x around -7.5 km), 62.0 (x around +7.5 km) */
  EXPECT(at(m, "s_xy", 0, 0, -7500, 0) == 81.6e6 && at(m, "s_xy", -7500, 0, -7500, 0) == 78e6 &&
         at(m, "s_xy", 7500, 0, -7500, 0) == 62e6 && at(m, "s_xy", 4500, 0, -7500, 0) == 70e6 &&
         at(m, "s_xy", 0, 0, -3000, 0) == 70e6);
  EXPECT(at(m, "s_yy", 0, 0, -7500, 0) == -120e6 && at(m, "mu_s", 0, 0, 0, 0) == 0.677 &&
         at(m, "mu_d", 0, 0, 0, 0) == 0.525 && at(m, "d_c", 0, 0, 0, 0) == 0.4 && at(m, "cohesion", 0, 0, 0, 0) == 0);
  EXPECT(sq_easi_provides(m, "forced_rupture_time") && !sq_easi_provides(m, "rs_a"));
  sq_easi_free(m);
  /* TPV12/13: !Include, !LuaMap stress, a nucleation box */
  snprintf(path, sizeof(path), "%s/tpv12_13_fault.yaml", dir);
  ck_assert_int_eq(sq_easi_load(path, &m), 0);
  double depth = 5000, smax = 9.8 * (2700.0 - 1000.0);
  EXPECT_NEAR(at(m, "s_xx", 0, 0, -depth, 0), -0.01 * floor(100.0 * (0.5 * 1.3496 * smax) + 0.5) * depth, 1e-6);
  EXPECT_NEAR(at(m, "s_zz", 0, 0, -depth, 0), -smax * depth, 1e-6);
  EXPECT_NEAR(at(m, "s_yy", 0, 0, -13000, 0), -smax * 13000, 1e-6);
  EXPECT(at(m, "mu_s", 0, 0, -10000, 0) == 0.54 && at(m, "mu_s", 2000, 0, -10000, 0) == 0.70 &&
         at(m, "cohesion", 0, 0, 0, 0) == -200000);
  sq_easi_free(m);
  snprintf(path, sizeof(path), "%s/tpv12_13_material.yaml", dir);
  ck_assert_int_eq(sq_easi_load(path, &m), 0);
  EXPECT(at(m, "plastCo", 0, 0, -100, 0) == 5e6 && at(m, "bulkFriction", 0, 0, -100, 0) == 0.85);
  EXPECT(sq_easi_provides(m, "s_xy") && !sq_easi_provides(m, "Tv"));
  sq_easi_free(m);
  /* TPV33: a layered model over y (lower interpolation); TPV101: a Lua rate-and-state box */
  snprintf(path, sizeof(path), "%s/tpv33_material.yaml", dir);
  ck_assert_int_eq(sq_easi_load(path, &m), 0);
  EXPECT(at(m, "mu", 0, 1000, 0, 0) == 3.203812032E+10 && at(m, "mu", 0, 0, 0, 0) == 1.251489075E+10 &&
         at(m, "lambda", 0, -2000, 0, 0) == 2.817615756E+10 && at(m, "rho", 0, 0, 0, 0) == 2670);
  sq_easi_free(m);
  snprintf(path, sizeof(path), "%s/tpv101_fault.yaml", dir);
  ck_assert_int_eq(sq_easi_load(path, &m), 0);
  EXPECT_NEAR(at(m, "rs_a", 0, 0, -7500, 0), 0.008, 1e-15);
  /* x = 16.5 km: x1 = 16500, tanh(3000 / -1500 + 3000 / 1500) = 0, box_x = 1/2; z1 = 15000: box_z = 1 */
  EXPECT_NEAR(at(m, "rs_a", 16500, 0, -7500, 0), 0.012, 1e-15);
  EXPECT_NEAR(at(m, "nuc_xy", 0, 0, -7500, 0), 25e6 * exp(0), 1e-6);
  EXPECT_NEAR(at(m, "nuc_xy", 2000, 0, -7500, 0), 25e6 * exp(4e6 / (4e6 - 9e6)), 1e-6);
  EXPECT(at(m, "rs_sl0", 0, 0, 0, 0) == 0.02 && at(m, "s_xy", 0, 0, 0, 0) == 75e6);
  sq_easi_free(m);
}
END_TEST

/* point-by-point calls from several threads at once (the model is shared; each call takes Lua states) */
typedef struct {
  const sq_easi *m;
  const double *xyz;
  double *out;
  int begin, end, failed;
} caller;

static void *call_points(void *arg) {
  caller *c = arg;
  const char *names[3] = {"rs_a", "nuc_xy", "s_xy"};
  for (int i = c->begin; i < c->end; ++i)
    c->failed |= sq_easi_eval(c->m, 1, c->xyz + 3 * i, NULL, 3, names, c->out + 3 * i);
  return NULL;
}

/* the threaded batch gives the values of point-by-point calls, also when 4 threads make those calls at
 * once; prints the speed of the first two (docs/EASI.md quotes it) */
START_TEST(batch_equals_points) {
  char path[1100];
  const char *src = getenv("srcdir");
  snprintf(path, sizeof(path), "%s/tests/easi/seissol/tpv101_fault.yaml", src ? src : ".");
  sq_easi *m = NULL;
  ck_assert_int_eq(sq_easi_load(path, &m), 0);
  enum { N = 100000 };
  double *xyz = malloc(3 * N * sizeof(double)), *a = malloc(3 * N * sizeof(double)),
         *b = malloc(3 * N * sizeof(double));
  for (int i = 0; i < N; ++i) {
    xyz[3 * i] = -20000 + 40000.0 * i / N;
    xyz[3 * i + 1] = 0;
    xyz[3 * i + 2] = -15000.0 * ((i * 7919) % N) / N;
  }
  const char *names[3] = {"rs_a", "nuc_xy", "s_xy"};
  struct timespec t0, t1, t2;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  ck_assert_int_eq(sq_easi_eval(m, N, xyz, NULL, 3, names, a), 0);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  for (int i = 0; i < N; ++i) EXPECT(sq_easi_eval(m, 1, xyz + 3 * i, NULL, 3, names, b + 3 * i) == 0);
  clock_gettime(CLOCK_MONOTONIC, &t2);
  for (int i = 0; i < 3 * N; ++i) EXPECT(a[i] == b[i]);
  pthread_t th[4];
  caller cl[4];
  memset(b, 0, 3 * N * sizeof(double));
  for (int k = 0; k < 4; ++k) {
    cl[k] = (caller){.m = m, .xyz = xyz, .out = b, .begin = k * N / 4, .end = (k + 1) * N / 4};
    ck_assert_int_eq(pthread_create(&th[k], NULL, call_points, &cl[k]), 0);
  }
  for (int k = 0; k < 4; ++k) {
    pthread_join(th[k], NULL);
    EXPECT(!cl[k].failed);
  }
  for (int i = 0; i < 3 * N; ++i) EXPECT(a[i] == b[i]);
  const double s1 = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  const double s2 = (double)(t2.tv_sec - t1.tv_sec) + 1e-9 * (double)(t2.tv_nsec - t1.tv_nsec);
  printf("tpv101_fault.yaml (!LuaMap), 3 parameters: %.2f us per point in one call, %.2f us point by point\n",
         1e6 * s1 / N, 1e6 * s2 / N);
  free(xyz);
  free(a);
  free(b);
  sq_easi_free(m);
}
END_TEST

int main(void) {
  const TTest *tests[] = {constant_and_switch,
                          function_map,
                          lua_both_forms,
                          affine_polynomial,
                          layered_model,
                          filters,
                          include_and_eval_model,
                          asagi_grid,
                          scec_file,
                          seissol_examples,
                          errors_name_file_and_line,
                          batch_equals_points,
                          NULL};
  return sq_test_run(sq_test_suite("easi", 60, tests), 1);
}
