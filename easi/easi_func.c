/**
 * @file easi_func.c  The function language of !FunctionMap (easi's ImpalaJIT code): statements
 * "name = expr;", "if (cond) { ... } else { ... }" (also "else if"), "return expr;" and
 * "return {a: expr, b: expr};"; expressions with + - * /, comparisons, && || !, parentheses, numbers
 * (exponents allowed) and the math functions of the table below.  Compiled once to a tree whose variables
 * are slots (the inputs first), run per point with the slots on the stack: thread-safe.
 */
#include "easi_impl.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** Most variables (inputs and locals) of one function. */
#define SQ_EF_MAXVARS 256
/** Deepest nesting of expressions and statements. */
#define SQ_EF_MAXNEST 200

enum {
  EF_NUM,
  EF_VAR,
  EF_NEG,
  EF_NOT,
  EF_ADD,
  EF_SUB,
  EF_MUL,
  EF_DIV,
  EF_LT,
  EF_LE,
  EF_GT,
  EF_GE,
  EF_EQ,
  EF_NE,
  EF_AND,
  EF_OR,
  EF_CALL,
  /* statements */ EF_ASSIGN,
  EF_IF,
  EF_RETURN
};

typedef struct ef_node {
  int op;
  double num;
  int slot, fn, nargs;
  struct ef_node *a, *b, *c; /**< operands; EF_IF: cond, then, else; EF_CALL: a = args chained by next */
  struct ef_node *next;      /**< next statement of a list, or next call argument */
} ef_node;

struct sq_efunc {
  ef_node *body;
  int nin, nvars;
};

typedef struct {
  const char *name;
  int nargs;
} ef_fn;

static const ef_fn ef_fns[] = {{"sqrt", 1},  {"exp", 1},  {"log", 1},   {"log10", 1}, {"sin", 1},
                               {"cos", 1},   {"tan", 1},  {"asin", 1},  {"acos", 1},  {"atan", 1},
                               {"sinh", 1},  {"cosh", 1}, {"tanh", 1},  {"abs", 1},   {"fabs", 1},
                               {"floor", 1}, {"ceil", 1}, {"round", 1}, {"pow", 2},   {"atan2", 2},
                               {"min", 2},   {"max", 2},  {"fmin", 2},  {"fmax", 2},  {"fmod", 2}};
enum { EF_NFNS = sizeof(ef_fns) / sizeof(ef_fns[0]) };

typedef struct {
  const char *s, *file;
  int line, nest;
  const char *out;
  int nvars;
  char *vars[SQ_EF_MAXVARS];
  int owned[SQ_EF_MAXVARS];
  char *msg;
  size_t size;
  int failed;
} ef_parse;

static void ef_free(ef_node *n) {
  while (n) {
    ef_node *next = n->next;
    ef_free(n->a);
    ef_free(n->b);
    ef_free(n->c);
    free(n);
    n = next;
  }
}

__attribute__((format(printf, 2, 3))) static ef_node *ef_fail(ef_parse *p, const char *fmt, ...) {
  if (p->failed) return NULL;
  p->failed = 1;
  int k = snprintf(p->msg, p->size, "%s:%d: !FunctionMap: ", p->file, p->line);
  va_list ap;
  va_start(ap, fmt);
  if (k >= 0 && (size_t)k < p->size) vsnprintf(p->msg + k, p->size - (size_t)k, fmt, ap);
  va_end(ap);
  return NULL;
}

static void ef_skip(ef_parse *p) {
  for (;;) {
    while (isspace((unsigned char)*p->s)) {
      if (*p->s == '\n') ++p->line;
      ++p->s;
    }
    if (p->s[0] == '/' && p->s[1] == '/') {
      while (*p->s && *p->s != '\n') ++p->s;
    } else if (p->s[0] == '/' && p->s[1] == '*') {
      p->s += 2;
      while (*p->s && !(p->s[0] == '*' && p->s[1] == '/')) {
        if (*p->s == '\n') ++p->line;
        ++p->s;
      }
      if (*p->s) p->s += 2;
    } else {
      return;
    }
  }
}

static int ef_accept(ef_parse *p, const char *tok) {
  ef_skip(p);
  size_t n = strlen(tok);
  if (strncmp(p->s, tok, n) != 0) return 0;
  /* a word must end there; "=" must not be the start of "==", "<" of "<=" */
  if (isalpha((unsigned char)tok[0]) && (isalnum((unsigned char)p->s[n]) || p->s[n] == '_')) return 0;
  if (n == 1 && strchr("=<>!", tok[0]) && p->s[1] == '=') return 0;
  p->s += n;
  return 1;
}

static ef_node *ef_new(ef_parse *p, int op) {
  ef_node *n = calloc(1, sizeof(*n));
  if (!n) return ef_fail(p, "out of memory");
  n->op = op;
  return n;
}

static int ef_word(ef_parse *p, char *out, size_t size) {
  ef_skip(p);
  size_t k = 0;
  if (!(isalpha((unsigned char)*p->s) || *p->s == '_')) return 0;
  while (isalnum((unsigned char)*p->s) || *p->s == '_') {
    if (k + 1 < size) out[k++] = *p->s;
    ++p->s;
  }
  out[k] = 0;
  return 1;
}

static int ef_slot(const ef_parse *p, const char *name) {
  for (int i = 0; i < p->nvars; ++i)
    if (strcmp(p->vars[i], name) == 0) return i;
  return -1;
}

static ef_node *ef_expr(ef_parse *p);

static ef_node *ef_primary(ef_parse *p) {
  ef_skip(p);
  char *end;
  if (isdigit((unsigned char)*p->s) || (*p->s == '.' && isdigit((unsigned char)p->s[1]))) {
    double v = strtod(p->s, &end);
    p->s = end;
    ef_node *n = ef_new(p, EF_NUM);
    if (n) n->num = v;
    return n;
  }
  if (ef_accept(p, "(")) {
    ef_node *n = ef_expr(p);
    if (n && !ef_accept(p, ")")) {
      ef_free(n);
      return ef_fail(p, "')' expected");
    }
    return n;
  }
  char name[64];
  if (!ef_word(p, name, sizeof(name))) {
    if (!*p->s) return ef_fail(p, "the code ends inside an expression");
    return ef_fail(p, "unexpected '%c' in an expression", *p->s);
  }
  if (ef_accept(p, "(")) {
    int f = -1;
    for (int i = 0; i < EF_NFNS; ++i)
      if (strcmp(ef_fns[i].name, name) == 0) f = i;
    if (f < 0) return ef_fail(p, "unknown function '%s'", name);
    ef_node *n = ef_new(p, EF_CALL), **tail;
    if (!n) return NULL;
    n->fn = f;
    tail = &n->a;
    if (!ef_accept(p, ")")) {
      do {
        ef_node *arg = ef_expr(p);
        if (!arg) {
          ef_free(n);
          return NULL;
        }
        *tail = arg;
        tail = &arg->next;
        ++n->nargs;
      } while (ef_accept(p, ","));
      if (!ef_accept(p, ")")) {
        ef_free(n);
        return ef_fail(p, "')' or ',' expected in the arguments of %s()", name);
      }
    }
    if (n->nargs != ef_fns[f].nargs) {
      const int given = n->nargs;
      ef_free(n);
      return ef_fail(p, "%s() takes %d argument(s), not %d", name, ef_fns[f].nargs, given);
    }
    return n;
  }
  int slot = ef_slot(p, name);
  if (slot < 0) return ef_fail(p, "'%s' is neither an input dimension nor a variable assigned before", name);
  ef_node *n = ef_new(p, EF_VAR);
  if (n) n->slot = slot;
  return n;
}

static ef_node *ef_bin(ef_parse *p, int op, ef_node *a, ef_node *b) {
  if (!a || !b) {
    ef_free(a);
    ef_free(b);
    return NULL;
  }
  ef_node *n = ef_new(p, op);
  if (!n) {
    ef_free(a);
    ef_free(b);
    return NULL;
  }
  n->a = a;
  n->b = b;
  return n;
}

static ef_node *ef_unary(ef_parse *p) {
  if (++p->nest > SQ_EF_MAXNEST) return ef_fail(p, "expression nested deeper than %d levels", SQ_EF_MAXNEST);
  ef_node *r;
  if (ef_accept(p, "-") || ef_accept(p, "!")) {
    int op = p->s[-1] == '-' ? EF_NEG : EF_NOT;
    ef_node *a = ef_unary(p);
    r = a ? ef_new(p, op) : NULL;
    if (r) r->a = a;
    else ef_free(a);
  } else if (ef_accept(p, "+")) {
    r = ef_unary(p);
  } else {
    r = ef_primary(p);
  }
  --p->nest;
  return r;
}

static ef_node *ef_mul(ef_parse *p) {
  ef_node *a = ef_unary(p);
  for (;;) {
    if (!a) return NULL;
    if (ef_accept(p, "*")) a = ef_bin(p, EF_MUL, a, ef_unary(p));
    else if (ef_accept(p, "/")) a = ef_bin(p, EF_DIV, a, ef_unary(p));
    else return a;
  }
}

static ef_node *ef_add(ef_parse *p) {
  ef_node *a = ef_mul(p);
  for (;;) {
    if (!a) return NULL;
    if (ef_accept(p, "+")) a = ef_bin(p, EF_ADD, a, ef_mul(p));
    else if (ef_accept(p, "-")) a = ef_bin(p, EF_SUB, a, ef_mul(p));
    else return a;
  }
}

static ef_node *ef_cmp(ef_parse *p) {
  ef_node *a = ef_add(p);
  if (!a) return NULL;
  static const struct {
    const char *tok;
    int op;
  } ops[] = {{"<=", EF_LE}, {">=", EF_GE}, {"==", EF_EQ}, {"!=", EF_NE}, {"<", EF_LT}, {">", EF_GT}};
  for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); ++i)
    if (ef_accept(p, ops[i].tok)) return ef_bin(p, ops[i].op, a, ef_add(p));
  return a;
}

static ef_node *ef_and(ef_parse *p) {
  ef_node *a = ef_cmp(p);
  while (a && ef_accept(p, "&&")) a = ef_bin(p, EF_AND, a, ef_cmp(p));
  return a;
}

static ef_node *ef_expr(ef_parse *p) {
  ef_node *a = ef_and(p);
  while (a && ef_accept(p, "||")) a = ef_bin(p, EF_OR, a, ef_and(p));
  return a;
}

static ef_node *ef_stmts(ef_parse *p, int braced);

static ef_node *ef_block_or_stmt(ef_parse *p) {
  if (ef_accept(p, "{")) return ef_stmts(p, 1);
  ef_node *n = ef_stmts(p, -1);
  return n;
}

/* return {a: expr, b: expr}: the entry named p->out */
static ef_node *ef_return_map(ef_parse *p) {
  ef_node *pick = NULL;
  int any = 0;
  if (ef_accept(p, "}")) return ef_fail(p, "'return {}' gives no parameter");
  do {
    char name[64];
    if (!ef_word(p, name, sizeof(name))) {
      ef_free(pick);
      return ef_fail(p, "a parameter name expected in 'return {...}'");
    }
    if (!ef_accept(p, ":") && !ef_accept(p, "=")) {
      ef_free(pick);
      return ef_fail(p, "':' expected after '%s' in 'return {...}'", name);
    }
    ef_node *e = ef_expr(p);
    if (!e) {
      ef_free(pick);
      return NULL;
    }
    if (strcmp(name, p->out) == 0 && !pick) {
      pick = e;
      any = 1;
    } else {
      ef_free(e);
    }
    if (!ef_accept(p, ",")) break;
    ef_skip(p);
  } while (*p->s != '}');
  if (!ef_accept(p, "}")) {
    ef_free(pick);
    return ef_fail(p, "'}' expected to end 'return {...}'");
  }
  if (!any) return ef_fail(p, "'return {...}' does not give parameter '%s'", p->out);
  return pick;
}

/* one statement */
static ef_node *ef_stmt(ef_parse *p) {
  if (++p->nest > SQ_EF_MAXNEST) return ef_fail(p, "statements nested deeper than %d levels", SQ_EF_MAXNEST);
  ef_node *r = NULL;
  if (ef_accept(p, "if")) {
    if (!ef_accept(p, "(")) return ef_fail(p, "'(' expected after 'if'");
    ef_node *c = ef_expr(p);
    if (!c) return NULL;
    if (!ef_accept(p, ")")) {
      ef_free(c);
      return ef_fail(p, "')' expected after the condition of 'if'");
    }
    ef_node *t = ef_block_or_stmt(p), *e = NULL;
    if (!t && p->failed) {
      ef_free(c);
      return NULL;
    }
    if (ef_accept(p, "else")) {
      e = ef_block_or_stmt(p);
      if (!e && p->failed) {
        ef_free(c);
        ef_free(t);
        return NULL;
      }
    }
    r = ef_new(p, EF_IF);
    if (!r) {
      ef_free(c);
      ef_free(t);
      ef_free(e);
      return NULL;
    }
    r->a = c;
    r->b = t;
    r->c = e;
  } else if (ef_accept(p, "return")) {
    ef_node *e = ef_accept(p, "{") ? ef_return_map(p) : ef_expr(p);
    if (!e) return NULL;
    ef_accept(p, ";");
    r = ef_new(p, EF_RETURN);
    if (r) r->a = e;
    else ef_free(e);
  } else {
    char name[64];
    const char *at = p->s;
    if (!ef_word(p, name, sizeof(name))) {
      ef_skip(p);
      if (!*p->s) return ef_fail(p, "the code ends where a statement was expected");
      return ef_fail(p, "unexpected '%c' where a statement was expected", *p->s);
    }
    if (!ef_accept(p, "=")) {
      p->s = at;
      return ef_fail(p, "'=' expected after '%s' (statements are 'name = expr;', 'if', 'return')", name);
    }
    ef_node *e = ef_expr(p);
    if (!e) return NULL;
    if (!ef_accept(p, ";")) {
      ef_free(e);
      return ef_fail(p, "';' expected after the assignment to '%s'", name);
    }
    int slot = ef_slot(p, name);
    if (slot < 0) {
      if (p->nvars == SQ_EF_MAXVARS) {
        ef_free(e);
        return ef_fail(p, "more than %d variables", SQ_EF_MAXVARS);
      }
      slot = p->nvars;
      p->vars[slot] = strdup(name);
      p->owned[slot] = 1;
      if (!p->vars[slot]) {
        ef_free(e);
        return ef_fail(p, "out of memory");
      }
      ++p->nvars;
    }
    r = ef_new(p, EF_ASSIGN);
    if (r) {
      r->slot = slot;
      r->a = e;
    } else {
      ef_free(e);
    }
  }
  --p->nest;
  return r;
}

/* statements up to '}' (braced 1), the end of the text (0), or one statement (-1) */
static ef_node *ef_stmts(ef_parse *p, int braced) {
  ef_node *head = NULL, **tail = &head;
  for (;;) {
    ef_skip(p);
    if (braced == 1 && ef_accept(p, "}")) break;
    if (braced == 0 && !*p->s) break;
    if (braced == 1 && !*p->s) {
      ef_free(head);
      return ef_fail(p, "'}' expected before the end of the code");
    }
    if (ef_accept(p, ";")) continue;
    ef_node *s = ef_stmt(p);
    if (!s) {
      ef_free(head);
      return NULL;
    }
    *tail = s;
    tail = &s->next;
    if (braced == -1) break;
  }
  return head;
}

int sq_efunc_compile(const char *src, const char *file, int line, int nin, char *const *in, const char *out,
                     sq_efunc **fn, char *msg, size_t size) {
  *fn = NULL;
  ef_parse p = {.s = src, .file = file, .line = line, .out = out, .msg = msg, .size = size};
  if (nin > SQ_EF_MAXVARS) {
    snprintf(msg, size, "%s:%d: !FunctionMap: more than %d input dimensions", file, line, SQ_EF_MAXVARS);
    return -1;
  }
  for (int i = 0; i < nin; ++i) p.vars[i] = in[i];
  p.nvars = nin;
  ef_node *body = ef_stmts(&p, 0);
  for (int i = 0; i < p.nvars; ++i)
    if (p.owned[i]) free(p.vars[i]);
  if (p.failed) {
    ef_free(body);
    return -1;
  }
  if (!body) {
    snprintf(msg, size, "%s:%d: !FunctionMap: the function of '%s' is empty (it needs a 'return')", file, line, out);
    return -1;
  }
  sq_efunc *f = calloc(1, sizeof(*f));
  if (!f) {
    ef_free(body);
    snprintf(msg, size, "%s:%d: out of memory", file, line);
    return -1;
  }
  f->body = body;
  f->nin = nin;
  f->nvars = p.nvars;
  *fn = f;
  return 0;
}

static double ef_eval(const ef_node *n, const double *v) {
  switch (n->op) {
  case EF_NUM: return n->num;
  case EF_VAR: return v[n->slot];
  case EF_NEG: return -ef_eval(n->a, v);
  case EF_NOT: return ef_eval(n->a, v) == 0.0;
  case EF_ADD: return ef_eval(n->a, v) + ef_eval(n->b, v);
  case EF_SUB: return ef_eval(n->a, v) - ef_eval(n->b, v);
  case EF_MUL: return ef_eval(n->a, v) * ef_eval(n->b, v);
  case EF_DIV: return ef_eval(n->a, v) / ef_eval(n->b, v);
  case EF_LT: return ef_eval(n->a, v) < ef_eval(n->b, v);
  case EF_LE: return ef_eval(n->a, v) <= ef_eval(n->b, v);
  case EF_GT: return ef_eval(n->a, v) > ef_eval(n->b, v);
  case EF_GE: return ef_eval(n->a, v) >= ef_eval(n->b, v);
  case EF_EQ: return ef_eval(n->a, v) == ef_eval(n->b, v);
  case EF_NE: return ef_eval(n->a, v) != ef_eval(n->b, v);
  case EF_AND: return ef_eval(n->a, v) != 0.0 && ef_eval(n->b, v) != 0.0;
  case EF_OR: return ef_eval(n->a, v) != 0.0 || ef_eval(n->b, v) != 0.0;
  case EF_CALL: {
    double a = ef_eval(n->a, v), b = n->nargs > 1 ? ef_eval(n->a->next, v) : 0.0;
    switch (n->fn) {
    case 0: return sqrt(a);
    case 1: return exp(a);
    case 2: return log(a);
    case 3: return log10(a);
    case 4: return sin(a);
    case 5: return cos(a);
    case 6: return tan(a);
    case 7: return asin(a);
    case 8: return acos(a);
    case 9: return atan(a);
    case 10: return sinh(a);
    case 11: return cosh(a);
    case 12: return tanh(a);
    case 13:
    case 14: return fabs(a);
    case 15: return floor(a);
    case 16: return ceil(a);
    case 17: return round(a);
    case 18: return pow(a, b);
    case 19: return atan2(a, b);
    case 20:
    case 22: return fmin(a, b);
    case 21:
    case 23: return fmax(a, b);
    default: return fmod(a, b);
    }
  }
  default: return NAN;
  }
}

/* run a statement list: 1 when a return was reached */
static int ef_run(const ef_node *s, double *v, double *res) {
  for (; s; s = s->next) {
    if (s->op == EF_ASSIGN) {
      v[s->slot] = ef_eval(s->a, v);
    } else if (s->op == EF_IF) {
      if (ef_run(ef_eval(s->a, v) != 0.0 ? s->b : s->c, v, res)) return 1;
    } else if (s->op == EF_RETURN) {
      *res = ef_eval(s->a, v);
      return 1;
    }
  }
  return 0;
}

int sq_efunc_run(const sq_efunc *fn, const double *x, double *result) {
  double v[SQ_EF_MAXVARS];
  for (int i = 0; i < fn->nvars; ++i) v[i] = i < fn->nin ? x[i] : 0.0;
  return ef_run(fn->body, v, result) ? 0 : -1;
}

void sq_efunc_free(sq_efunc *fn) {
  if (!fn) return;
  ef_free(fn->body);
  free(fn);
}
