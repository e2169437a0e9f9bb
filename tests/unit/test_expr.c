/** @file test_expr.c  Check suite for the config expression language (io/expr.c). */
#include "sq_check.h"
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sq_expr.h"

/* Deterministic generator so that failures reproduce (no global state: the caller owns it). */
static uint64_t rng_next(uint64_t *s) {
  *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
  return *s;
}
static double rng_uniform(uint64_t *s, double lo, double hi) {
  return lo + (hi - lo) * (double)(rng_next(s) >> 11) / 9007199254740992.0;
}

/* Compile (must succeed), evaluate at vars, destroy. */
static double eval_text(const char *text, const double *vars) {
  static const char *const names[] = {"r", "mu_s"};
  sq_expr *e = NULL;
  char err[256];
  const int ierr = sq_expr_compile(text, names, 2, &e, err, sizeof(err));
  ck_assert_msg(ierr == 0, "'%s' did not compile: %s", text, err);
  const double v = sq_expr_eval(e, vars);
  sq_expr_destroy(e);
  return v;
}

/* Compile must fail with SQ_ERR_INPUT and a message containing every given fragment. */
static void expect_error(const char *text, const char *frag1, const char *frag2) {
  static const char *const names[] = {"r"};
  sq_expr *e = (sq_expr *)&e;
  char err[256];
  ck_assert_int_eq(sq_expr_compile(text, names, 1, &e, err, sizeof(err)), SQ_ERR_INPUT);
  ck_assert_ptr_null(e);
  ck_assert_msg(strstr(err, frag1) != NULL, "'%s': message '%s' lacks '%s'", text, err, frag1);
  if (frag2) ck_assert_msg(strstr(err, frag2) != NULL, "'%s': message '%s' lacks '%s'", text, err, frag2);
}

static int same_bits(double a, double b) { return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0; }

static int64_t ulp_diff(double a, double b) {
  int64_t ia, ib;
  memcpy(&ia, &a, 8), memcpy(&ib, &b, 8);
  if (ia < 0) ia = INT64_MIN - ia;
  if (ib < 0) ib = INT64_MIN - ib;
  return ia > ib ? ia - ib : ib - ia;
}

START_TEST(precedence_and_associativity) {
  const double v[6] = {2, 3, 5, 0.5, 7, 0.6};
  static const struct {
    const char *text;
    double value;
  } cases[] = {
      {"1+2*3", 7},    {"(1+2)*3", 9},   {"2^3^2", 512}, {"(2^3)^2", 64},
      {"-2^2", -4},    {"(-2)^2", 4},    {"2^-1", 0.5},  {"-x^2", -4},
      {"10-4-3", 3},   {"64/4/2", 8},    {"2*-3", -6},   {"- -3", 3},
      {"+3", 3},       {"!0", 1},        {"!1+1", 1},    {"!!7", 1},
      {"1||0&&0", 1},  {"(1||0)&&0", 0}, {"1+2<4", 1},   {"1<2==1", 1},
      {"3>=3", 1},     {"2<=1", 0},      {"x*y+z", 11},  {"x+y*z", 17},
      {"1e-6*1e6", 1}, {"25e6", 25e6},   {".5+5.", 5.5}, {"1.5E+2", 150},
      {"x^2", 4},      {"t*r", 3.5},     {"mu_s", 0.6},  {"2 * ( 3 + 4 ) ", 14},
      {"y^x^2", 81},   {"-x*-y", 6},     {"x-y-z", -6},  {"2^2*3", 12},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    const double got = eval_text(cases[i].text, v);
    ck_assert_msg(got == cases[i].value, "'%s' = %.17g, expected %.17g", cases[i].text, got, cases[i].value);
  }
}
END_TEST

START_TEST(functions_match_libm) {
  static const struct {
    const char *name;
    double (*f)(double);
    double lo, hi;
  } f1[] = {{"exp", exp, -50, 50}, {"log", log, 1e-3, 1e6},   {"sqrt", sqrt, 0, 1e8},  {"abs", fabs, -9, 9},
            {"sin", sin, -20, 20}, {"cos", cos, -20, 20},     {"tan", tan, -1.5, 1.5}, {"asin", asin, -1, 1},
            {"acos", acos, -1, 1}, {"atan", atan, -1e3, 1e3}, {"tanh", tanh, -5, 5},   {"sinh", sinh, -9, 9},
            {"cosh", cosh, -9, 9}, {"floor", floor, -9, 9},   {"ceil", ceil, -9, 9}};
  uint64_t seed = 42;
  char text[64];
  for (size_t k = 0; k < sizeof(f1) / sizeof(f1[0]); ++k) {
    sq_expr *e;
    snprintf(text, sizeof text, "%s(x)", f1[k].name);
    ck_assert_int_eq(sq_expr_compile(text, NULL, 0, &e, NULL, 0), 0);
    for (int i = 0; i < 1000; ++i) {
      const double v[4] = {rng_uniform(&seed, f1[k].lo, f1[k].hi), 0, 0, 0};
      ck_assert_msg(same_bits(sq_expr_eval(e, v), f1[k].f(v[0])), "%s(%.17g)", f1[k].name, v[0]);
    }
    sq_expr_destroy(e);
    /* a constant argument is folded at compile time with the same result */
    ck_assert(same_bits(eval_text(strcat(strcpy(text, f1[k].name), "(0.75)"), NULL), f1[k].f(0.75)));
  }
  sq_expr *e[4];
  const char *f2[4] = {"atan2(x, y)", "pow(x, y)", "min(x, y)", "max(x, y)"};
  for (int k = 0; k < 4; ++k) ck_assert_int_eq(sq_expr_compile(f2[k], NULL, 0, &e[k], NULL, 0), 0);
  for (int i = 0; i < 1000; ++i) {
    const double v[4] = {rng_uniform(&seed, -10, 10), rng_uniform(&seed, -10, 10), 0, 0};
    ck_assert(same_bits(sq_expr_eval(e[0], v), atan2(v[0], v[1])));
    ck_assert(same_bits(sq_expr_eval(e[2], v), fmin(v[0], v[1])));
    ck_assert(same_bits(sq_expr_eval(e[3], v), fmax(v[0], v[1])));
    const double w[4] = {fabs(v[0]), v[1], 0, 0};
    ck_assert(same_bits(sq_expr_eval(e[1], w), pow(w[0], w[1])));
  }
  /* min/max propagate NaN; x^2 equals pow(x, 2) */
  const double vn[4] = {NAN, 1, 0, 0}, vm[4] = {1, NAN, 0, 0};
  ck_assert(isnan(sq_expr_eval(e[2], vn)) && isnan(sq_expr_eval(e[2], vm)));
  ck_assert(isnan(sq_expr_eval(e[3], vn)) && isnan(sq_expr_eval(e[3], vm)));
  for (int k = 0; k < 4; ++k) sq_expr_destroy(e[k]);
  for (int i = 0; i < 1000; ++i) {
    const double v[4] = {rng_uniform(&seed, -1e200, 1e200) * (i % 2 ? 1e-190 : 1), 0, 0, 0};
    ck_assert(same_bits(eval_text("x^2", v), pow(v[0], 2)));
  }
  /* division by zero and domain errors give inf / NaN, no trap */
  ck_assert(isinf(eval_text("1/0", NULL)) && isnan(eval_text("log(-1)", NULL)) && isnan(eval_text("0/0", NULL)));
}
END_TEST

START_TEST(if_and_comparisons) {
  double v[6] = {-1, 0, 0, 0, 0, 0};
  ck_assert(eval_text("if(x > 0, sqrt(x), 0)", v) == 0);     /* sqrt(-1) is not taken */
  ck_assert(eval_text("if(x >= 0, log(x+1), -1)", v) == -1); /* NaN of the other branch does not leak */
  ck_assert(eval_text("if(x < 0, 1, 0/0)", v) == 1);
  ck_assert(isnan(eval_text("if(0/0, 1, 2)", v))); /* NaN condition: NaN result */
  ck_assert(eval_text("if(1, 2, 3) + if(0, 2, 3)", v) == 5);
  ck_assert(eval_text("if(x<0, if(x<-5, 1, 2), 3)*10", v) == 20);
  ck_assert(eval_text("2^if(x, 3, 4)", v) == 8);
  ck_assert(eval_text("if(x, 3, 4)^2", v) == 9); /* no folding across the branch */
  ck_assert(eval_text("-if(x, 3, 4)", v) == -3);
  v[0] = 0;
  ck_assert(eval_text("if(x, 3, 4)+1", v) == 5);
  static const char *const ops[6] = {"<", "<=", ">", ">=", "==", "!="};
  const double vals[4] = {-1, 0, 2, NAN};
  char text[32];
  for (int o = 0; o < 6; ++o)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        const double a = vals[i], b = vals[j];
        const int want[6] = {a<b, a <= b, a> b, a >= b, a == b, a != b};
        const double w[4] = {a, b, 0, 0};
        snprintf(text, sizeof text, "x %s y", ops[o]);
        ck_assert_msg(eval_text(text, w) == want[o], "%g %s %g", a, ops[o], b);
      }
  const double w[4] = {2, 0, 0, 0};
  ck_assert(eval_text("x && y", w) == 0 && eval_text("x || y", w) == 1 && eval_text("!y", w) == 1);
}
END_TEST

START_TEST(variables_and_uses) {
  static const char *const names[] = {"r", "sigma_n", "depth"};
  sq_expr *e;
  char err[256];
  ck_assert_int_eq(sq_expr_compile("depth * 2 + t + r", names, 3, &e, err, sizeof err), 0);
  const double v[7] = {1, 2, 3, 4, 5, 6, 7};
  ck_assert(sq_expr_eval(e, v) == 7 * 2 + 4 + 5);
  ck_assert(sq_expr_uses(e, SQ_EXPR_T) && !sq_expr_uses(e, SQ_EXPR_X) && sq_expr_uses(e, SQ_EXPR_NBUILTIN));
  ck_assert(!sq_expr_uses(e, SQ_EXPR_NBUILTIN + 1) && sq_expr_uses(e, SQ_EXPR_NBUILTIN + 2));
  ck_assert(!sq_expr_uses(e, -1) && !sq_expr_uses(e, 99) && !sq_expr_is_constant(e));
  ck_assert(isnan(sq_expr_eval(e, NULL)));
  sq_expr_destroy(e);
  ck_assert_int_eq(sq_expr_compile("2*(3+1) - exp(0) + if(1, 1, x)", names, 3, &e, err, sizeof err), 0);
  ck_assert(!sq_expr_is_constant(e)); /* mentions x, even though the branch is never taken */
  sq_expr_destroy(e);
  ck_assert_int_eq(sq_expr_compile("-2*(3+1) - exp(0)", names, 3, &e, err, sizeof err), 0);
  ck_assert(sq_expr_is_constant(e) && sq_expr_eval(e, NULL) == -9);
  sq_expr_destroy(e);
  /* bad variable lists are caller bugs */
  static const char *const dup[] = {"a", "a"}, *const clash[] = {"t"}, *const fn[] = {"exp"}, *const bad[] = {"1a"},
                           *const nul[] = {NULL};
  ck_assert_int_eq(sq_expr_compile("1", dup, 2, &e, err, sizeof err), SQ_ERR_INTERNAL);
  ck_assert_int_eq(sq_expr_compile("1", clash, 1, &e, err, sizeof err), SQ_ERR_INTERNAL);
  ck_assert_int_eq(sq_expr_compile("1", fn, 1, &e, err, sizeof err), SQ_ERR_INTERNAL);
  ck_assert_int_eq(sq_expr_compile("1", bad, 1, &e, err, sizeof err), SQ_ERR_INTERNAL);
  ck_assert_int_eq(sq_expr_compile("1", nul, 1, &e, err, sizeof err), SQ_ERR_INTERNAL);
  ck_assert_int_eq(sq_expr_compile("1", names, SQ_EXPR_MAX_VARS + 1, &e, err, sizeof err), SQ_ERR_INTERNAL);
  ck_assert_int_eq(sq_expr_compile(NULL, names, 0, &e, err, sizeof err), SQ_ERR_INTERNAL);
}
END_TEST

/* SCEC TPV101 nucleation patch (r: distance from the hypocentre) and smooth boxcar, written in C. */
static double tpv101_nucleation(double r) { return r < 3000 ? 25e6 * exp(r * r / (r * r - 9e6)) : 0; }
static double tpv101_boxcar(double x) {
  if (fabs(x) <= 15000) return 1;
  if (fabs(x) < 18000) return 0.5 * (1 + tanh(3000 / (fabs(x) - 15000 - 3000) + 3000 / (fabs(x) - 15000)));
  return 0;
}
static const char *const boxcar_text = "if(abs(x) <= 15000, 1, if(abs(x) < 18000, 0.5*(1+tanh(3000/(abs(x)-15000-3000)"
                                       " + 3000/(abs(x)-15000))), 0))";

START_TEST(tpv101_functions) {
  static const char *const names[] = {"r"};
  sq_expr *nuc, *box;
  char err[256];
  ck_assert_int_eq(sq_expr_compile("if(r < 3000, 25e6*exp(r^2/(r^2-9e6)), 0)", names, 1, &nuc, err, sizeof err), 0);
  ck_assert_int_eq(sq_expr_compile(boxcar_text, NULL, 0, &box, err, sizeof err), 0);
  uint64_t seed = 7;
  int exact = 0, n = 200000;
  for (int i = 0; i < n; ++i) {
    const double r = i < 1000 ? 3.0 * i : rng_uniform(&seed, 0, 4000);
    const double v[5] = {0, 0, 0, 0, r};
    ck_assert_msg(same_bits(sq_expr_eval(nuc, v), tpv101_nucleation(r)), "nucleation at r = %.17g", r);
    const double x = i < 1000 ? -20000 + 40.0 * i : rng_uniform(&seed, -20000, 20000);
    const double w[4] = {x, 0, 0, 0}, got = sq_expr_eval(box, w), want = tpv101_boxcar(x);
    ck_assert_msg(ulp_diff(got, want) <= 1, "boxcar at x = %.17g: %.17g vs %.17g", x, got, want);
    exact += same_bits(got, want);
  }
  printf("tpv101 boxcar: %d of %d points bitwise equal to C, the rest within 1 ulp\n", exact, n);
  const double far[4] = {18000, 0, 0, 0}, edge[4] = {15000, 0, 0, 0};
  ck_assert(sq_expr_eval(box, far) == 0 && sq_expr_eval(box, edge) == 1);
  sq_expr_destroy(nuc);
  sq_expr_destroy(box);
}
END_TEST

START_TEST(error_messages) {
  expect_error("1 + 2 * exq(x)", "column 9: unknown function 'exq' (did you mean 'exp'?)", NULL);
  expect_error("sqr(x)", "column 1: unknown function 'sqr' (did you mean 'sqrt'?)", NULL);
  expect_error("foobar(x)", "unknown function 'foobar'", NULL);
  expect_error("2*rr", "column 3: unknown variable 'rr' (did you mean 'r'? known variables: x, y, z, t, r)", NULL);
  expect_error("x + q", "column 5: unknown variable 'q'", "known variables: x, y, z, t, r");
  expect_error("(1+2", "column 5: expected ')' to close '(' at column 1 but found end of input", NULL);
  expect_error("exp(1 2)", "column 7: expected ')' to close exp( at column 1 but found '2'", NULL);
  expect_error("1+2)", "column 4: unexpected ')' after a complete expression", NULL);
  expect_error("2 x", "column 3: unexpected 'x'", NULL);
  expect_error("", "column 1: empty expression", NULL);
  expect_error("   ", "empty expression", NULL);
  expect_error("1 +", "column 4: expected a number, variable, function or '(' but found end of input", NULL);
  expect_error("1 * * 2", "column 5: expected a number", "found '*'");
  expect_error("x = 1", "column 3: '=' is not an operator (use '==' to compare)", NULL);
  expect_error("x & y", "use '&&'", NULL);
  expect_error("x | y", "use '||'", NULL);
  expect_error("exp(1, 2)", "column 6: exp() takes 1 argument but was given more", NULL);
  expect_error("atan2(1)", "column 8: atan2() takes 2 arguments but was given 1", NULL);
  expect_error("if(1, 2)", "if() takes 3 arguments but was given 2", NULL);
  expect_error("min()", "column 5: expected a number", NULL);
  expect_error("2x", "column 1: malformed number '2x'", NULL);
  expect_error("1e+", "malformed number '1e+'", NULL);
  expect_error("1.2.3", "malformed number '1.2.3'", NULL);
  expect_error("0x1F", "malformed number '0x1F'", NULL);
  expect_error("1e999", "number '1e999' is out of range", NULL);
  expect_error("x(2)", "'x' is a variable, not a function", NULL);
  expect_error("exp + 1", "function 'exp' needs its arguments in parentheses", NULL);
  expect_error("a + b", "column 1: unknown variable 'a'", NULL);
  expect_error("x # b", "column 3: unexpected character '#'", NULL);
  expect_error("x + \x01", "column 5: unexpected byte 0x01", NULL);
  expect_error("inf", "unknown variable 'inf'", NULL);
  /* tiny or missing buffers are safe */
  sq_expr *e;
  char small[8];
  ck_assert_int_eq(sq_expr_compile("exq(1)", NULL, 0, &e, small, sizeof small), SQ_ERR_INPUT);
  ck_assert_str_eq(small, "column ");
  ck_assert_int_eq(sq_expr_compile("exq(1)", NULL, 0, &e, small, 1), SQ_ERR_INPUT);
  ck_assert_int_eq(sq_expr_compile("exq(1)", NULL, 0, &e, NULL, 0), SQ_ERR_INPUT);
}
END_TEST

static char *repeat(const char *head, int n, const char *mid, const char *tail) {
  const size_t lh = strlen(head), lt = strlen(tail);
  char *s = malloc(lh * n + strlen(mid) + lt * n + 1), *q = s;
  for (int i = 0; i < n; ++i) q = memcpy(q, head, lh), q += lh;
  q = strcpy(q, mid) + strlen(mid);
  for (int i = 0; i < n; ++i) q = memcpy(q, tail, lt), q += lt;
  *q = 0;
  return s;
}

START_TEST(nesting_limit) {
  char err[256];
  sq_expr *e;
  char *s = repeat("(", SQ_EXPR_MAX_NESTING, "x", ")");
  ck_assert_int_eq(sq_expr_compile(s, NULL, 0, &e, err, sizeof err), 0);
  sq_expr_destroy(e);
  free(s);
  s = repeat("(", SQ_EXPR_MAX_NESTING + 1, "x", ")");
  ck_assert_int_eq(sq_expr_compile(s, NULL, 0, &e, err, sizeof err), SQ_ERR_INPUT);
  ck_assert_msg(strstr(err, "column 65: expression nested too deeply") != NULL, "%s", err);
  free(s);
  const char *const deep[][3] = {{"(", "1", ")"},       {"-", "1", ""},    {"2^", "2", ""}, {"exp(", "0", ")"},
                                 {"if(x,", "1", ",0)"}, {"1+(", "1", ")"}, {"!", "x", ""}};
  for (int k = 0; k < 7; ++k) { /* a million levels: a clean error, no stack overflow */
    s = repeat(deep[k][0], 1000000 / (int)strlen(deep[k][0]) / 2, deep[k][1], deep[k][2]);
    ck_assert_int_eq(sq_expr_compile(s, NULL, 0, &e, err, sizeof err), SQ_ERR_INPUT);
    ck_assert_msg(strstr(err, "nested too deeply") != NULL, "%s", err);
    free(s);
  }
  /* long flat chains need no nesting: 100000 terms */
  s = repeat("x+", 100000, "1", "");
  ck_assert_int_eq(sq_expr_compile(s, NULL, 0, &e, err, sizeof err), 0);
  const double v[4] = {1, 0, 0, 0};
  ck_assert(sq_expr_eval(e, v) == 100001);
  sq_expr_destroy(e);
  free(s);
  s = repeat("1+", 100000, "1", "");
  ck_assert(eval_text(s, NULL) == 100001);
  free(s);
  /* deepest stack: every precedence level and a first argument pending at every nesting level */
  s = repeat("x||x&&x==x<x+x*atan2(x,", SQ_EXPR_MAX_NESTING, "x", ")");
  ck_assert_int_eq(sq_expr_compile(s, NULL, 0, &e, err, sizeof err), 0);
  ck_assert(sq_expr_eval(e, v) == 1);
  sq_expr_destroy(e);
  free(s);
  s = repeat(" ", SQ_EXPR_MAX_LENGTH + 1, "", "");
  ck_assert_int_eq(sq_expr_compile(s, NULL, 0, &e, err, sizeof err), SQ_ERR_INPUT);
  ck_assert_msg(strstr(err, "expression longer than") != NULL, "%s", err);
  free(s);
}
END_TEST

/* Random well-formed expression with its value computed in C alongside (fully parenthesised, so this
 * checks the code generator, constant folding and if() jumps rather than precedence).  *folded is set
 * when the sub-expression has no variable and no if(), i.e. when the compiler folds it to a constant. */
typedef struct {
  char text[1 << 16];
  size_t len;
  uint64_t seed;
  const double *vars;
  int nvar_uses;
} gen_state;

static void put(gen_state *g, const char *s) {
  const size_t l = strlen(s);
  if (g->len + l < sizeof(g->text)) memcpy(g->text + g->len, s, l + 1), g->len += l;
}

static double gen(gen_state *g, int depth, int *folded) {
  static const char *const lits[] = {"2", "0.5", "3e3", "1e-6", ".25", "7", "0", "1"};
  static const char *const vars[] = {"x", "y", "z", "t", "r"};
  static const char *const f1[] = {"exp",  "log",  "sqrt", "abs",  "sin",  "cos",   "tan", "asin",
                                   "acos", "atan", "tanh", "sinh", "cosh", "floor", "ceil"};
  static double (*const f1p[])(double) = {exp,  log,  sqrt, fabs, sin,  cos,   tan, asin,
                                          acos, atan, tanh, sinh, cosh, floor, ceil};
  static const char *const bin[] = {"+", "-", "*", "/", "^", "<", "<=", ">", ">=", "==", "!=", "&&", "||"};
  static const char *const f2[] = {"atan2", "min", "max", "pow"};
  const int choice = (int)(rng_next(&g->seed) % (depth <= 0 ? 2 : 7));
  int fa = 1, fb = 1, fc = 1;
  double a, b, c;
  if (choice == 0) {
    const char *lit = lits[rng_next(&g->seed) % 8];
    put(g, lit);
    *folded = 1;
    return strtod(lit, NULL);
  }
  if (choice == 1) {
    const int v = (int)(rng_next(&g->seed) % 5);
    put(g, vars[v]);
    g->nvar_uses++;
    *folded = 0;
    return g->vars[v];
  }
  if (choice == 2) { /* unary */
    const int neg = rng_next(&g->seed) % 2;
    put(g, neg ? "-(" : "!(");
    a = gen(g, depth - 1, &fa);
    put(g, ")");
    *folded = fa;
    return neg ? -a : !(a != 0);
  }
  if (choice == 3) { /* binary operator */
    const int op = (int)(rng_next(&g->seed) % 13);
    put(g, "(");
    a = gen(g, depth - 1, &fa);
    put(g, ")"), put(g, bin[op]), put(g, "(");
    b = gen(g, depth - 1, &fb);
    put(g, ")");
    *folded = fa && fb;
    const double r[13] = {a + b,
                          a - b,
                          a * b,
                          a / b,
                          fb && b == 2 ? a * a : pow(a, b),
                          a<b, a <= b, a>
                              b,
                          a >= b,
                          a == b,
                          a != b,
                          (a != 0) && (b != 0),
                          (a != 0) || (b != 0)};
    return r[op];
  }
  if (choice == 4) { /* one-argument function */
    const int f = (int)(rng_next(&g->seed) % 15);
    put(g, f1[f]), put(g, "(");
    a = gen(g, depth - 1, &fa);
    put(g, ")");
    *folded = fa;
    return f1p[f](a);
  }
  if (choice == 5) { /* two-argument function */
    const int f = (int)(rng_next(&g->seed) % 4);
    put(g, f2[f]), put(g, "(");
    a = gen(g, depth - 1, &fa);
    put(g, ", ");
    b = gen(g, depth - 1, &fb);
    put(g, ")");
    *folded = fa && fb;
    const double r[4] = {atan2(a, b), isnan(a) || isnan(b) ? NAN : fmin(a, b), isnan(a) || isnan(b) ? NAN : fmax(a, b),
                         fb && b == 2 ? a * a : pow(a, b)};
    return r[f];
  }
  put(g, "if(");
  a = gen(g, depth - 1, &fa);
  put(g, ", ");
  b = gen(g, depth - 1, &fb);
  put(g, ", ");
  c = gen(g, depth - 1, &fc);
  put(g, ")");
  *folded = 0;
  return isnan(a) ? NAN : a != 0 ? b : c;
}

START_TEST(fuzz_random_strings) {
  static const char alphabet[] = "0123456789.eE+-*/^()<>=!&|, xyztrq_abcfgilmnopsw\t#";
  static const char *const tokens[] = {"x",      "y",    "r",     "1",    "2.5",  "1e-6",  "0",    "+",
                                       "-",      "*",    "/",     "^",    "(",    ")",     ",",    "<",
                                       "<=",     "==",   "!=",    "&&",   "||",   "!",     "exp(", "if(",
                                       "atan2(", "min(", "sqrt(", "log(", "abs(", "tanh(", "pow(", " "};
  const int ntok = (int)(sizeof(tokens) / sizeof(tokens[0]));
  static const char *const names[] = {"r"};
  const int n = getenv("SQ_FUZZ_N") ? atoi(getenv("SQ_FUZZ_N")) : 100000;
  uint64_t seed = 12345;
  char text[512], err[128];
  int ok = 0;
  for (int i = 0; i < n; ++i) {
    size_t len = 0;
    const size_t want = rng_next(&seed) % 60;
    while (len < want) {
      if (i % 2) {
        text[len++] = alphabet[rng_next(&seed) % (sizeof(alphabet) - 1)];
      } else {
        const char *t = tokens[rng_next(&seed) % (uint64_t)ntok];
        const size_t lt = strlen(t);
        memcpy(text + len, t, lt), len += lt;
      }
    }
    text[len] = 0;
    sq_expr *e = NULL;
    err[0] = 'Z';
    const int ierr = sq_expr_compile(text, names, 1, &e, err, sizeof(err) - 64 * (i % 2));
    if (ierr == 0) {
      const double v[5] = {rng_uniform(&seed, -2, 2), 0.5, -1, 0, i % 3 ? 1.5 : NAN};
      volatile double r = sq_expr_eval(e, v);
      (void)r;
      sq_expr_destroy(e);
      ok++;
    } else {
      ck_assert_int_eq(ierr, SQ_ERR_INPUT);
      ck_assert_ptr_null(e);
      ck_assert_msg(!strncmp(err, "column ", 7), "'%s': %s", text, err);
    }
  }
  printf("fuzz: %d random strings, %d compiled\n", n, ok);
  /* random well-formed expressions against their value computed in C, and mutations of them */
  static gen_state g;
  int mutated_ok = 0;
  for (int i = 0; i < n / 10; ++i) {
    const double v[5] = {rng_uniform(&seed, -3, 3), rng_uniform(&seed, -1, 1), i % 7 ? 0.5 : NAN, i % 5 ? 2 : INFINITY,
                         i % 3 ? 0 : -0.0};
    int folded;
    g.len = 0, g.text[0] = 0, g.nvar_uses = 0, g.seed = seed + (uint64_t)i, g.vars = v;
    const double want = gen(&g, 1 + i % 6, &folded);
    sq_expr *e;
    ck_assert_msg(sq_expr_compile(g.text, names, 1, &e, err, sizeof err) == 0, "'%s': %s", g.text, err);
    const double got = sq_expr_eval(e, v);
    ck_assert_msg(same_bits(got, want), "'%s' = %.17g, expected %.17g", g.text, got, want);
    ck_assert_int_eq(sq_expr_is_constant(e), g.nvar_uses == 0);
    sq_expr_destroy(e);
    for (int m = 0; m < 4 && g.len > 0; ++m) /* overwrite a few bytes */
      g.text[rng_next(&seed) % g.len] = alphabet[rng_next(&seed) % (sizeof(alphabet) - 1)];
    if (sq_expr_compile(g.text, names, 1, &e, err, sizeof err) == 0) {
      volatile double r = sq_expr_eval(e, v);
      (void)r;
      sq_expr_destroy(e), mutated_ok++;
    }
  }
  printf("fuzz: %d generated expressions matched C bitwise; %d of their mutations compiled\n", n / 10, mutated_ok);
}
END_TEST

START_TEST(speed_boxcar) {
  sq_expr *box;
  ck_assert_int_eq(sq_expr_compile(boxcar_text, NULL, 0, &box, NULL, 0), 0);
  const int n = 4000000;
  double sum = 0, v[4] = {0, 0, 0, 0};
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < n; ++i) {
    v[0] = -20000 + 40000.0 * i / n; /* 25 % of points in the tanh ramps */
    sum += sq_expr_eval(box, v);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  const double sec = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
  double csum = 0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < n; ++i) csum += tpv101_boxcar(-20000 + 40000.0 * i / n);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  const double csec = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
  printf("boxcar: %.1f M evaluations/s (compiled C: %.1f M/s), sums %.6f %.6f\n", n / sec * 1e-6, n / csec * 1e-6, sum,
         csum);
  ck_assert_double_eq_tol(sum, csum, 1e-6 * n);
  sq_expr_destroy(box);
}
END_TEST

int main(void) {
  const TTest *tests[] = {precedence_and_associativity,
                          functions_match_libm,
                          if_and_comparisons,
                          variables_and_uses,
                          tpv101_functions,
                          error_messages,
                          NULL};
  Suite *s = sq_test_suite("expr", 0, tests);
  TCase *tr = tcase_create("robustness");
  tcase_set_timeout(tr, 300);
  tcase_add_test(tr, nesting_limit);
  tcase_add_test(tr, fuzz_random_strings);
  tcase_add_test(tr, speed_boxcar);
  suite_add_tcase(s, tr);
  return sq_test_run(s, 1);
}
