/**
 * @file expr.c  Compiler (recursive descent straight to postfix code) and evaluator of sq_expr.
 *
 * The parser emits postfix instructions as it recognises them, so long flat chains such as 1+1+...+1
 * need no recursion; only nesting recurses, and nesting is limited to SQ_EXPR_MAX_NESTING.  Constant
 * sub-expressions are folded while emitting by running the evaluator itself on them, so folded and
 * run-time values agree bitwise.  if() compiles to a conditional jump, so only one branch runs.
 */
#include "sq_expr.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* clang-format off */
enum {
  OP_CONST, OP_VAR, OP_NEG, OP_NOT, OP_SQR, /* push or unary */
  OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_POW, OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE, OP_AND, OP_OR,
  OP_EXP, OP_LOG, OP_SQRT, OP_ABS, OP_SIN, OP_COS, OP_TAN, OP_ASIN, OP_ACOS, OP_ATAN, OP_TANH, OP_SINH,
  OP_COSH, OP_FLOOR, OP_CEIL, OP_ATAN2, OP_MIN, OP_MAX,
  OP_IF, /* pop the condition; 0: jump to arg (the else part); NaN: result NaN, go to the end */
  OP_JMP /* jump to arg (the end of the if) */
};
/* clang-format on */

/** One postfix instruction: 16 bytes. */
typedef struct {
  int32_t op;
  int32_t arg; /* variable index, jump target, or 1: binary operator whose right operand is val */
  double val;  /* OP_CONST value or constant right operand */
} sq_expr_instr;

struct sq_expr {
  int ncode;
  unsigned uses; /* bit v set: variable v appears */
  sq_expr_instr code[];
};

/* Run-time stack size: each nesting level holds at most 7 pending operands (one per binary precedence
 * level and a function's first argument), 7 * (SQ_EXPR_MAX_NESTING + 1) < 512; compile() checks it. */
#define SQ_EXPR_STACK 512

static const struct {
  const char *name;
  int nargs, op;
} functions[] = {{"exp", 1, OP_EXP},   {"log", 1, OP_LOG},     {"sqrt", 1, OP_SQRT}, {"abs", 1, OP_ABS},
                 {"sin", 1, OP_SIN},   {"cos", 1, OP_COS},     {"tan", 1, OP_TAN},   {"asin", 1, OP_ASIN},
                 {"acos", 1, OP_ACOS}, {"atan", 1, OP_ATAN},   {"tanh", 1, OP_TANH}, {"sinh", 1, OP_SINH},
                 {"cosh", 1, OP_COSH}, {"floor", 1, OP_FLOOR}, {"ceil", 1, OP_CEIL}, {"atan2", 2, OP_ATAN2},
                 {"min", 2, OP_MIN},   {"max", 2, OP_MAX},     {"pow", 2, OP_POW},   {"if", 3, OP_IF}};
#define NFUNCTIONS ((int)(sizeof(functions) / sizeof(functions[0])))
static const char *const builtin_vars[SQ_EXPR_NBUILTIN] = {"x", "y", "z", "t"};

/* Token kinds: single-character operators are their own character. */
enum { TK_END = 0, TK_NUM = 256, TK_NAME, TK_LE, TK_GE, TK_EQ, TK_NE, TK_AND, TK_OR };

typedef struct {
  const char *text;
  size_t pos;              /* lexer position */
  int tok;                 /* current token */
  size_t tok_pos, tok_len; /* its extent in text */
  double num;              /* its value for TK_NUM */
  const char *names[SQ_EXPR_NBUILTIN + SQ_EXPR_MAX_VARS];
  int nnames;
  sq_expr_instr *code;
  int ncode, cap, barrier; /* no constant folding across a jump target below barrier */
  int sp, max_sp;          /* run-time stack depth after the code so far, and its maximum */
  int nest;
  unsigned uses;
  char *err;
  size_t errlen;
} sq_expr_parser;

/* ------------------------------------------------------------------------------------------------ */
/* evaluation                                                                                        */

/* clang-format off */
static double run(const sq_expr_instr *code, int ncode, const double *vars) {
  double st[SQ_EXPR_STACK];
  int sp = -1, pc = 0;
  while (pc < ncode) {
    const sq_expr_instr *in = &code[pc++];
    double a, b;
    switch (in->op) {
    case OP_CONST: st[++sp] = in->val; continue;
    case OP_VAR: st[++sp] = vars[in->arg]; continue;
    case OP_NEG: st[sp] = -st[sp]; continue;
    case OP_NOT: st[sp] = !(st[sp] != 0); continue;
    case OP_SQR: st[sp] *= st[sp]; continue;
    case OP_EXP: st[sp] = exp(st[sp]); continue;
    case OP_LOG: st[sp] = log(st[sp]); continue;
    case OP_SQRT: st[sp] = sqrt(st[sp]); continue;
    case OP_ABS: st[sp] = fabs(st[sp]); continue;
    case OP_SIN: st[sp] = sin(st[sp]); continue;
    case OP_COS: st[sp] = cos(st[sp]); continue;
    case OP_TAN: st[sp] = tan(st[sp]); continue;
    case OP_ASIN: st[sp] = asin(st[sp]); continue;
    case OP_ACOS: st[sp] = acos(st[sp]); continue;
    case OP_ATAN: st[sp] = atan(st[sp]); continue;
    case OP_TANH: st[sp] = tanh(st[sp]); continue;
    case OP_SINH: st[sp] = sinh(st[sp]); continue;
    case OP_COSH: st[sp] = cosh(st[sp]); continue;
    case OP_FLOOR: st[sp] = floor(st[sp]); continue;
    case OP_CEIL: st[sp] = ceil(st[sp]); continue;
    case OP_IF:
      a = st[sp--];
      if (a == 0) {
        pc = in->arg;
      } else if (isnan(a)) {
        st[++sp] = NAN;
        pc = code[in->arg - 1].arg; /* the then-branch ends with the OP_JMP to the end */
      }
      continue;
    case OP_JMP: pc = in->arg; continue;
    default: break;
    }
    if (in->arg) {
      b = in->val; /* constant right operand folded into the instruction */
    } else {
      b = st[sp--];
    }
    a = st[sp];
    switch (in->op) {
    case OP_ADD: a += b; break;
    case OP_SUB: a -= b; break;
    case OP_MUL: a *= b; break;
    case OP_DIV: a /= b; break;
    case OP_POW: a = pow(a, b); break;
    case OP_LT: a = a < b; break;
    case OP_LE: a = a <= b; break;
    case OP_GT: a = a > b; break;
    case OP_GE: a = a >= b; break;
    case OP_EQ: a = a == b; break;
    case OP_NE: a = a != b; break;
    case OP_AND: a = (a != 0) && (b != 0); break;
    case OP_OR: a = (a != 0) || (b != 0); break;
    case OP_ATAN2: a = atan2(a, b); break;
    case OP_MIN: a = (a < b || isnan(a)) ? a : b; break;
    case OP_MAX: a = (a > b || isnan(a)) ? a : b; break;
    }
    st[sp] = a;
  }
  return st[0];
}
/* clang-format on */

double sq_expr_eval(const sq_expr *e, const double *vars) {
  if (e->ncode == 1 && e->code[0].op == OP_CONST) return e->code[0].val;
  if (!vars && e->uses) return NAN;
  return run(e->code, e->ncode, vars);
}

void sq_expr_destroy(sq_expr *e) { sq_free_aligned(e); }

int sq_expr_is_constant(const sq_expr *e) { return e->uses == 0; }

int sq_expr_uses(const sq_expr *e, int var) {
  return var >= 0 && var < SQ_EXPR_NBUILTIN + SQ_EXPR_MAX_VARS && ((e->uses >> var) & 1u);
}

/* ------------------------------------------------------------------------------------------------ */
/* errors                                                                                            */

/* Record "column N: message" (1-based byte column) and return SQ_ERR_INPUT. */
static int fail(sq_expr_parser *p, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(sq_expr_parser *p, size_t pos, const char *fmt, ...) {
  if (p->err && p->errlen > 0) {
    int k = snprintf(p->err, p->errlen, "column %zu: ", pos + 1);
    if (k >= 0 && (size_t)k < p->errlen) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(p->err + k, p->errlen - (size_t)k, fmt, ap);
      va_end(ap);
    }
  }
  return SQ_ERR_INPUT;
}

/* Quote the current token for a message: 'text' (at most 24 characters) or "end of input". */
static const char *found(const sq_expr_parser *p, char buf[40]) {
  if (p->tok == TK_END) return "end of input";
  const int len = p->tok_len > 24 ? 24 : (int)p->tok_len;
  snprintf(buf, 40, "'%.*s%s'", len, p->text + p->tok_pos, p->tok_len > 24 ? "..." : "");
  return buf;
}

/* Levenshtein distance of short names (longer ones are never suggested). */
static int distance(const char *a, size_t la, const char *b) {
  const size_t lb = strlen(b);
  int row[33];
  if (la > 32 || lb > 32) return 99;
  for (size_t j = 0; j <= lb; ++j) row[j] = (int)j;
  for (size_t i = 1; i <= la; ++i) {
    int diag = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= lb; ++j) {
      const int up = row[j];
      int best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

/* The candidate closest to a misspelt name, if within 2 edits and not a complete rewrite. */
static const char *nearest(const char *name, size_t len, const char *const *cands, int ncands) {
  const char *best = NULL;
  int best_d = 3;
  for (int k = 0; k < ncands; ++k) {
    const int d = distance(name, len, cands[k]);
    if (d < best_d && (size_t)d < len) best = cands[k], best_d = d;
  }
  return best;
}

/* ------------------------------------------------------------------------------------------------ */
/* lexer                                                                                             */

static int is_name_char(int c) { return isalnum(c) || c == '_'; }

static int next(sq_expr_parser *p) {
  const char *s = p->text;
  while (s[p->pos] == ' ' || s[p->pos] == '\t' || s[p->pos] == '\n' || s[p->pos] == '\r') p->pos++;
  const size_t start = p->pos;
  const unsigned char c = (unsigned char)s[start];
  p->tok_pos = start;
  if (c == 0) {
    p->tok = TK_END, p->tok_len = 0;
    return SQ_SUCCESS;
  }
  if (isdigit(c) || (c == '.' && isdigit((unsigned char)s[start + 1]))) {
    size_t i = start;
    while (isdigit((unsigned char)s[i])) i++;
    if (s[i] == '.') i++;
    while (isdigit((unsigned char)s[i])) i++;
    int bad = 0;
    if (s[i] == 'e' || s[i] == 'E') {
      i++;
      if (s[i] == '+' || s[i] == '-') i++;
      bad = !isdigit((unsigned char)s[i]);
      while (isdigit((unsigned char)s[i])) i++;
    }
    size_t end = i;
    while (is_name_char((unsigned char)s[end]) || s[end] == '.') end++; /* 2x, 1.2.3, 0x10 */
    if (bad || end > i) {
      const int len = end - start > 24 ? 24 : (int)(end - start);
      return fail(p, start, "malformed number '%.*s'", len, s + start);
    }
    char *stop;
    p->num = strtod(s + start, &stop);
    if (stop != s + i) return fail(p, start, "malformed number '%.*s'", (int)(i - start), s + start);
    if (isinf(p->num))
      return fail(p, start, "number '%.*s' is out of range", (int)(i - start > 24 ? 24 : i - start), s + start);
    p->tok = TK_NUM, p->tok_len = i - start, p->pos = i;
    return SQ_SUCCESS;
  }
  if (isalpha(c) || c == '_') {
    size_t i = start;
    while (is_name_char((unsigned char)s[i])) i++;
    p->tok = TK_NAME, p->tok_len = i - start, p->pos = i;
    return SQ_SUCCESS;
  }
  static const struct {
    char text[3];
    int tok;
  } two[] = {{"<=", TK_LE}, {">=", TK_GE}, {"==", TK_EQ}, {"!=", TK_NE}, {"&&", TK_AND}, {"||", TK_OR}};
  for (int k = 0; k < 6; ++k)
    if (c == (unsigned char)two[k].text[0] && s[start + 1] == two[k].text[1]) {
      p->tok = two[k].tok, p->tok_len = 2, p->pos = start + 2;
      return SQ_SUCCESS;
    }
  if (c == '=') return fail(p, start, "'=' is not an operator (use '==' to compare)");
  if (c == '&') return fail(p, start, "'&' is not an operator (use '&&')");
  if (c == '|') return fail(p, start, "'|' is not an operator (use '||', or abs() for |x|)");
  if (!strchr("+-*/^()<>!,", c)) {
    if (isprint(c)) return fail(p, start, "unexpected character '%c'", c);
    return fail(p, start, "unexpected byte 0x%02x", c);
  }
  p->tok = c, p->tok_len = 1, p->pos = start + 1;
  return SQ_SUCCESS;
}

static int expect(sq_expr_parser *p, int tok, const char *what) {
  char buf[40];
  if (p->tok != tok) return fail(p, p->tok_pos, "expected %s but found %s", what, found(p, buf));
  return next(p);
}

/* ------------------------------------------------------------------------------------------------ */
/* code generation                                                                                   */

static int stack_effect(int op) {
  if (op == OP_CONST || op == OP_VAR) return 1;
  if (op >= OP_ADD && op <= OP_OR) return -1;
  if (op >= OP_ATAN2 && op <= OP_MAX) return -1;
  return 0; /* unary; OP_IF and OP_JMP are accounted for by the parser */
}

/* Append an instruction; fold it when its operands are constants emitted after the last jump target. */
static int emit(sq_expr_parser *p, int op, int arg, double val) {
  const int nin = op == OP_CONST || op == OP_VAR || op >= OP_IF ? 0 : 1 - stack_effect(op);
  if (p->ncode >= p->cap) return sq_error(SQ_ERR_INTERNAL, __FILE__, __LINE__, "expression code overflow");
  p->sp += stack_effect(op);
  if (p->sp > p->max_sp) p->max_sp = p->sp;
  int foldable = nin > 0 && p->ncode - nin >= p->barrier;
  for (int k = 1; foldable && k <= nin; ++k) foldable = p->code[p->ncode - k].op == OP_CONST;
  if (foldable) {
    sq_expr_instr tmp[3] = {p->code[p->ncode - nin], p->code[p->ncode - 1], {op, arg, 0}};
    p->ncode -= nin;
    val = run(nin == 1 ? tmp + 1 : tmp, nin + 1, NULL);
    op = OP_CONST, arg = 0;
  } else if (op == OP_POW && p->ncode - 1 >= p->barrier && p->code[p->ncode - 1].op == OP_CONST &&
             p->code[p->ncode - 1].val == 2.0) {
    p->ncode--, op = OP_SQR; /* x^2: one multiplication, same value as a correctly rounded pow */
  } else if (nin == 2 && p->ncode - 1 >= p->barrier && p->code[p->ncode - 1].op == OP_CONST) {
    val = p->code[--p->ncode].val, arg = 1;
  }
  p->code[p->ncode++] = (sq_expr_instr){op, arg, val};
  return SQ_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* parser                                                                                            */

static int parse_level(sq_expr_parser *p, int level);
static int parse_unary(sq_expr_parser *p);

static int nest_in(sq_expr_parser *p) {
  if (++p->nest > SQ_EXPR_MAX_NESTING)
    return fail(p, p->tok_pos,
                "expression nested too deeply (more than %d levels of parentheses, calls or "
                "unary operators)",
                SQ_EXPR_MAX_NESTING);
  return SQ_SUCCESS;
}

static int parse_call(sq_expr_parser *p, int f, size_t name_pos) {
  const int nargs = functions[f].nargs;
  SQ_CALL(nest_in(p));
  SQ_CALL(next(p)); /* '(' */
  int if_at = -1, jmp_at = -1;
  for (int i = 0; i < nargs; ++i) {
    if (p->tok == ')' && i > 0)
      return fail(p, p->tok_pos, "%s() takes %d arguments but was given %d", functions[f].name, nargs, i);
    SQ_CALL(parse_level(p, 0));
    if (functions[f].op == OP_IF && i == 0) { /* condition done: branch to the else part when false */
      if_at = p->ncode, p->sp--;
      SQ_CALL(emit(p, OP_IF, 0, 0));
    } else if (functions[f].op == OP_IF && i == 1) { /* then part done: skip the else part */
      jmp_at = p->ncode;
      SQ_CALL(emit(p, OP_JMP, 0, 0));
      p->code[if_at].arg = p->barrier = p->ncode;
      p->sp--; /* the else part starts from the stack the then part started from */
    }
    if (i + 1 < nargs) {
      if (p->tok == ')')
        return fail(p, p->tok_pos, "%s() takes %d arguments but was given %d", functions[f].name, nargs, i + 1);
      SQ_CALL(expect(p, ',', "','"));
    }
  }
  if (p->tok == ',')
    return fail(p, p->tok_pos, "%s() takes %d argument%s but was given more", functions[f].name, nargs,
                nargs > 1 ? "s" : "");
  if (p->tok != ')') {
    char buf[40];
    return fail(p, p->tok_pos, "expected ')' to close %s( at column %zu but found %s", functions[f].name, name_pos + 1,
                found(p, buf));
  }
  SQ_CALL(next(p));
  p->nest--;
  if (functions[f].op != OP_IF) return emit(p, functions[f].op, 0, 0);
  p->code[jmp_at].arg = p->barrier = p->ncode;
  return SQ_SUCCESS;
}

static int parse_name(sq_expr_parser *p) {
  const size_t pos = p->tok_pos, len = p->tok_len;
  const char *name = p->text + pos;
  const int qlen = len > 24 ? 24 : (int)len;
  SQ_CALL(next(p));
  int var = -1, f = -1;
  for (int v = 0; v < p->nnames; ++v)
    if (strlen(p->names[v]) == len && !strncmp(p->names[v], name, len)) var = v;
  for (int k = 0; k < NFUNCTIONS; ++k)
    if (strlen(functions[k].name) == len && !strncmp(functions[k].name, name, len)) f = k;
  if (p->tok == '(') {
    if (f >= 0) return parse_call(p, f, pos);
    if (var >= 0) return fail(p, pos, "'%.*s' is a variable, not a function (use '*' to multiply)", qlen, name);
    const char *fnames[NFUNCTIONS];
    for (int k = 0; k < NFUNCTIONS; ++k) fnames[k] = functions[k].name;
    const char *near = nearest(name, len, fnames, NFUNCTIONS);
    if (near) return fail(p, pos, "unknown function '%.*s' (did you mean '%s'?)", qlen, name, near);
    return fail(p, pos, "unknown function '%.*s'", qlen, name);
  }
  if (var >= 0) {
    p->uses |= 1u << var;
    return emit(p, OP_VAR, var, 0);
  }
  if (f >= 0)
    return fail(p, pos, "function '%s' needs its arguments in parentheses, e.g. %s(x)", functions[f].name,
                functions[f].name);
  char known[512] = "";
  for (int v = 0; v < p->nnames; ++v) {
    strncat(known, v ? ", " : "", sizeof(known) - strlen(known) - 1);
    strncat(known, p->names[v], sizeof(known) - strlen(known) - 1);
  }
  const char *near = nearest(name, len, p->names, p->nnames);
  return fail(p, pos, "unknown variable '%.*s' (%s%s%sknown variables: %s)", qlen, name, near ? "did you mean '" : "",
              near ? near : "", near ? "'? " : "", known);
}

static int parse_primary(sq_expr_parser *p) {
  char buf[40];
  if (p->tok == TK_NUM) {
    SQ_CALL(emit(p, OP_CONST, 0, p->num));
    return next(p);
  }
  if (p->tok == TK_NAME) return parse_name(p);
  if (p->tok == '(') {
    const size_t open = p->tok_pos;
    SQ_CALL(nest_in(p));
    SQ_CALL(next(p));
    SQ_CALL(parse_level(p, 0));
    if (p->tok != ')')
      return fail(p, p->tok_pos, "expected ')' to close '(' at column %zu but found %s", open + 1, found(p, buf));
    p->nest--;
    return next(p);
  }
  return fail(p, p->tok_pos, "expected a number, variable, function or '(' but found %s", found(p, buf));
}

static int parse_power(sq_expr_parser *p) {
  SQ_CALL(parse_primary(p));
  if (p->tok != '^') return SQ_SUCCESS;
  SQ_CALL(next(p));
  SQ_CALL(nest_in(p));
  SQ_CALL(parse_unary(p)); /* right-associative, and allows 2^-1 */
  p->nest--;
  return emit(p, OP_POW, 0, 0);
}

static int parse_unary(sq_expr_parser *p) {
  const int tok = p->tok;
  if (tok != '-' && tok != '+' && tok != '!') return parse_power(p);
  SQ_CALL(nest_in(p));
  SQ_CALL(next(p));
  SQ_CALL(parse_unary(p));
  p->nest--;
  return tok == '+' ? SQ_SUCCESS : emit(p, tok == '-' ? OP_NEG : OP_NOT, 0, 0);
}

/* Binary operators by precedence level, lowest first. */
static const struct {
  int tok, op, level;
} binops[] = {{TK_OR, OP_OR, 0}, {TK_AND, OP_AND, 1}, {TK_EQ, OP_EQ, 2}, {TK_NE, OP_NE, 2},
              {'<', OP_LT, 3},   {TK_LE, OP_LE, 3},   {'>', OP_GT, 3},   {TK_GE, OP_GE, 3},
              {'+', OP_ADD, 4},  {'-', OP_SUB, 4},    {'*', OP_MUL, 5},  {'/', OP_DIV, 5}};
#define NLEVELS 6

static int parse_level(sq_expr_parser *p, int level) {
  if (level == NLEVELS) return parse_unary(p);
  SQ_CALL(parse_level(p, level + 1));
  for (;;) {
    int op = -1;
    for (size_t k = 0; k < sizeof(binops) / sizeof(binops[0]); ++k)
      if (binops[k].level == level && binops[k].tok == p->tok) op = binops[k].op;
    if (op < 0) return SQ_SUCCESS;
    SQ_CALL(next(p));
    SQ_CALL(parse_level(p, level + 1));
    SQ_CALL(emit(p, op, 0, 0));
  }
}

/* ------------------------------------------------------------------------------------------------ */
/* compile                                                                                           */

static int check_varnames(sq_expr_parser *p, const char *const *varnames, int nvars) {
  SQ_CHECK(nvars >= 0 && nvars <= SQ_EXPR_MAX_VARS && (varnames || nvars == 0), SQ_ERR_INTERNAL,
           "sq_expr_compile: %d extra variables (at most %d)", nvars, SQ_EXPR_MAX_VARS);
  for (int v = 0; v < SQ_EXPR_NBUILTIN; ++v) p->names[p->nnames++] = builtin_vars[v];
  for (int v = 0; v < nvars; ++v) {
    const char *name = varnames[v];
    int ok = name && (isalpha((unsigned char)name[0]) || name[0] == '_') && strlen(name) <= 32;
    for (size_t i = 0; ok && name[i]; ++i) ok = is_name_char((unsigned char)name[i]);
    for (int k = 0; ok && k < p->nnames; ++k) ok = strcmp(name, p->names[k]) != 0;
    for (int k = 0; ok && k < NFUNCTIONS; ++k) ok = strcmp(name, functions[k].name) != 0;
    SQ_CHECK(ok, SQ_ERR_INTERNAL, "sq_expr_compile: variable name '%s' is not a new identifier",
             name ? name : "(null)");
    p->names[p->nnames++] = name;
  }
  return SQ_SUCCESS;
}

static int compile(sq_expr_parser *p, const char *text) {
  const size_t len = strlen(text);
  if (len > SQ_EXPR_MAX_LENGTH) return fail(p, 0, "expression longer than %d bytes", SQ_EXPR_MAX_LENGTH);
  p->cap = (int)len + 2; /* every token is at least one byte and emits at most one instruction */
  SQ_CALL(SQ_CALLOC(p->code, p->cap));
  SQ_CALL(next(p));
  if (p->tok == TK_END) return fail(p, 0, "empty expression");
  SQ_CALL(parse_level(p, 0));
  char buf[40];
  if (p->tok != TK_END)
    return fail(p, p->tok_pos, "unexpected %s after a complete expression (missing operator?)", found(p, buf));
  if (p->max_sp > SQ_EXPR_STACK) return fail(p, 0, "expression too complex (needs %d stack slots)", p->max_sp);
  if (p->sp != 1) return sq_error(SQ_ERR_INTERNAL, __FILE__, __LINE__, "expression stack depth %d", p->sp);
  return SQ_SUCCESS;
}

int sq_expr_compile(const char *text, const char *const *varnames, int nvars, sq_expr **out, char *err, size_t errlen) {
  sq_expr_parser p = {.text = text, .err = err, .errlen = errlen};
  if (err && errlen) err[0] = 0;
  SQ_CHECK(text && out, SQ_ERR_INTERNAL, "sq_expr_compile: NULL text or output");
  *out = NULL;
  int ierr = check_varnames(&p, varnames, nvars);
  if (ierr && err && errlen) snprintf(err, errlen, "invalid variable list given to sq_expr_compile");
  if (!ierr) ierr = compile(&p, text);
  sq_expr *e = NULL;
  if (!ierr) ierr = sq_calloc_aligned((void **)&e, 1, sizeof(*e) + (size_t)p.ncode * sizeof(sq_expr_instr));
  if (!ierr) {
    e->ncode = p.ncode, e->uses = p.uses;
    memcpy(e->code, p.code, (size_t)p.ncode * sizeof(sq_expr_instr));
    *out = e;
  }
  SQ_FREE(p.code);
  return ierr;
}
