/** @file namelist.c  The Fortran namelist reader (sq_namelist.h): SeisSol's parameters.par. */
#include "sq_namelist.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sq_common.h"

/** Values one item may hold (repeats included): a bound for damaged input. */
#define NML_MAX_VALUES 100000
#define NML_MAX_GROUPS 256
#define NML_MAX_ITEMS  4096
#define NML_MAX_NAME   63

typedef struct parser {
  const char *s;
  size_t len, pos;
  int line;
  const char *name;
  sq_namelist *nl;
} parser;

#define FAIL(p, line, ...) nml_fail((p), (line), __VA_ARGS__)

static int nml_fail(const parser *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int nml_fail(const parser *p, int line, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: %s", p->name, line, msg);
}

static int at_end(const parser *p) { return p->pos >= p->len; }
static int peek(const parser *p) { return at_end(p) ? -1 : (unsigned char)p->s[p->pos]; }
static int is_name_start(int c) { return c >= 0 && (isalpha(c) || c == '_'); }
static int is_name_char(int c) { return c >= 0 && (isalnum(c) || c == '_'); }

/** Skip blanks, newlines and `!` comments; with @p commas also commas. */
static void skip_space(parser *p, int commas) {
  while (!at_end(p)) {
    const int c = peek(p);
    if (c == '\n') ++p->line, ++p->pos;
    else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || (commas && c == ',')) ++p->pos;
    else if (c == '!') {
      while (!at_end(p) && peek(p) != '\n') ++p->pos;
    } else break;
  }
}

/** A name (letters, digits, '_') at the position into @p out; its length, 0 if none, -1 if too long. */
static int read_name(parser *p, char *out) {
  size_t n = 0;
  if (!is_name_start(peek(p))) return 0;
  while (is_name_char(peek(p))) {
    if (n >= NML_MAX_NAME) return -1;
    out[n++] = p->s[p->pos++];
  }
  out[n] = '\0';
  return (int)n;
}

/** What is at the position, for messages: the rest of the word or the character, printable. */
static const char *shown(const parser *p, char *buf, size_t size) {
  if (at_end(p)) return "the end of the file";
  size_t n = 0;
  for (size_t i = p->pos; i < p->len && n + 1 < size && n < 24; ++i) {
    const unsigned char c = (unsigned char)p->s[i];
    if (c == '\n' || ((c == ' ' || c == '\t') && n)) break;
    buf[n++] = (c >= 32 && c < 127) ? (char)c : '?';
  }
  buf[n] = '\0';
  return n ? buf : "the end of the line";
}

static char *dup_text(const char *s, size_t n) {
  char *d = malloc(n + 1);
  if (d) memcpy(d, s, n), d[n] = '\0';
  return d;
}

static int push_value(parser *p, sq_nml_item *it, sq_nml_value v, int line) {
  if (it->nvalue >= NML_MAX_VALUES) {
    free(v.str);
    return FAIL(p, line, "key '%s' has more than %d values", it->key, NML_MAX_VALUES);
  }
  if (!(it->nvalue & (it->nvalue - 1)) || !it->nvalue) { /* 0, 1, 2, 4, ...: grow */
    const int cap = it->nvalue ? 2 * it->nvalue : 1;
    sq_nml_value *nv = realloc(it->value, (size_t)cap * sizeof(*nv));
    if (!nv) {
      free(v.str);
      return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading %s", p->name);
    }
    it->value = nv;
  }
  it->value[it->nvalue++] = v;
  return SQ_SUCCESS;
}

/** A quoted string ('...' or "...", a doubled quote stands for one); it may not span lines. */
static int read_string(parser *p, sq_nml_item *it) {
  const int q = peek(p), line = p->line;
  ++p->pos;
  size_t cap = 64, n = 0;
  char *buf = malloc(cap);
  if (!buf) return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading %s", p->name);
  for (;;) {
    if (at_end(p) || peek(p) == '\n') {
      free(buf);
      return FAIL(p, line, "value of '%s': the string is not closed on its line (a %c is missing)", it->key, q);
    }
    int c = peek(p);
    ++p->pos;
    if (c == q) {
      if (peek(p) != q) break;
      ++p->pos; /* doubled quote */
    } else if (c == '\0') {
      free(buf);
      return FAIL(p, line, "value of '%s': the string holds a NUL byte", it->key);
    }
    if (n + 2 > cap) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) {
        free(buf);
        return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading %s", p->name);
      }
      buf = nb;
    }
    buf[n++] = (char)c;
  }
  buf[n] = '\0';
  return push_value(p, it, (sq_nml_value){.type = SQ_NML_STRING, .str = buf}, line);
}

/** Parse a number token (Fortran `d` exponents allowed) into @p v; 0 when it is not one. */
static int parse_number(const char *tok, sq_nml_value *v) {
  char buf[128];
  const size_t n = strlen(tok);
  if (!n || n >= sizeof(buf)) return 0;
  int real = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = tok[i];
    if (c == 'd' || c == 'D') c = 'e';
    if (c == '.' || c == 'e' || c == 'E') real = 1;
    buf[i] = c;
  }
  buf[n] = '\0';
  if (!isdigit((unsigned char)buf[0]) && buf[0] != '.' && buf[0] != '+' && buf[0] != '-') return 0;
  char *end;
  errno = 0;
  const double x = strtod(buf, &end);
  if (end == buf || *end || !isfinite(x) || errno == ERANGE) return 0;
  /* strtod takes "inf", "nan" and hexadecimal; a Fortran number is digits, a point and an exponent */
  for (const char *c = buf; *c; ++c)
    if (!isdigit((unsigned char)*c) && !strchr(".eE+-", *c)) return 0;
  *v = (sq_nml_value){.type = real ? SQ_NML_REAL : SQ_NML_INT, .num = x};
  return 1;
}

/** A number, or a repeat `r*c` (r copies of the number c). */
static int read_number(parser *p, sq_nml_item *it) {
  char tok[128];
  size_t n = 0;
  const int line = p->line;
  while (!at_end(p) && (isalnum(peek(p)) || strchr(".+-*", peek(p)))) {
    if (n + 1 >= sizeof(tok)) return FAIL(p, line, "value of '%s': a number longer than %zu characters", it->key, n);
    tok[n++] = p->s[p->pos++];
  }
  tok[n] = '\0';
  char *star = strchr(tok, '*');
  long repeat = 1;
  const char *num = tok;
  if (star) {
    *star = '\0';
    char *end;
    repeat = strtol(tok, &end, 10);
    if (end == tok || *end || repeat < 1 || repeat > NML_MAX_VALUES)
      return FAIL(p, line, "value of '%s': '%s*' is not a repeat count (a positive integer)", it->key, tok);
    num = star + 1;
  }
  sq_nml_value v;
  if (!parse_number(num, &v))
    return FAIL(p, line, "value of '%s': '%s' is not a number (digits, a point and an exponent such as 1.5e3 or 1d-6)",
                it->key, num);
  for (long r = 0; r < repeat; ++r) SQ_CALL(push_value(p, it, v, line));
  return SQ_SUCCESS;
}

/** A logical in dots: .true. .false. .t. .f. (any case). */
static int read_dotted_logical(parser *p, sq_nml_item *it) {
  char tok[32];
  size_t n = 0;
  const int line = p->line;
  tok[n++] = p->s[p->pos++];
  while (!at_end(p) && n + 1 < sizeof(tok) && (isalpha(peek(p)) || peek(p) == '.')) {
    tok[n++] = p->s[p->pos++];
    if (tok[n - 1] == '.') break;
  }
  tok[n] = '\0';
  int val = -1;
  if (!strcasecmp(tok, ".true.") || !strcasecmp(tok, ".t.")) val = 1;
  if (!strcasecmp(tok, ".false.") || !strcasecmp(tok, ".f.")) val = 0;
  if (val < 0) return FAIL(p, line, "value of '%s': '%s' is not a logical (.true. or .false.)", it->key, tok);
  return push_value(p, it, (sq_nml_value){.type = SQ_NML_LOGICAL, .num = val}, line);
}

/** The values of item @p it, up to the next key, '/' or '&'. */
static int read_values(parser *p, sq_nml_item *it) {
  for (;;) {
    skip_space(p, 1);
    const int c = peek(p), line = p->line;
    if (c < 0 || c == '/' || c == '&' || c == '$') return SQ_SUCCESS;
    if (c == '\'' || c == '"') SQ_CALL(read_string(p, it));
    else if (c == '.' && p->pos + 1 < p->len && isalpha((unsigned char)p->s[p->pos + 1]))
      SQ_CALL(read_dotted_logical(p, it));
    else if (isdigit(c) || c == '+' || c == '-' || c == '.') SQ_CALL(read_number(p, it));
    else if (is_name_start(c)) {
      /* the next key (a name followed by '=' or '('), or a bare logical T / F */
      const size_t save = p->pos;
      const int save_line = p->line;
      char word[NML_MAX_NAME + 1];
      const int n = read_name(p, word);
      skip_space(p, 0);
      const int next = peek(p);
      if (n > 0 && (next == '=' || next == '(')) {
        p->pos = save, p->line = save_line;
        return SQ_SUCCESS;
      }
      p->pos = save, p->line = save_line;
      if (n > 0 && (!strcasecmp(word, "t") || !strcasecmp(word, "f") || !strcasecmp(word, "true") ||
                    !strcasecmp(word, "false"))) {
        read_name(p, word);
        SQ_CALL(push_value(p, it, (sq_nml_value){.type = SQ_NML_LOGICAL, .num = tolower(word[0]) == 't'}, line));
      } else {
        char buf[32];
        return FAIL(p, line,
                    "value of '%s': '%s' is not a number, a logical or a quoted string (strings need quotes: "
                    "'%s')",
                    it->key, shown(p, buf, sizeof(buf)), shown(p, buf, sizeof(buf)));
      }
    } else {
      char buf[32];
      return FAIL(p, line, "value of '%s': unexpected '%s'", it->key, shown(p, buf, sizeof(buf)));
    }
  }
}

static void free_item(sq_nml_item *it) {
  for (int v = 0; v < it->nvalue; ++v) free(it->value[v].str);
  free(it->value);
  free(it->key);
}

/** One group, from its '&' to its '/'. */
static int read_group(parser *p) {
  const int gline = p->line;
  ++p->pos; /* '&' */
  char name[NML_MAX_NAME + 1];
  const int n = read_name(p, name);
  char buf[32];
  if (n < 0) return FAIL(p, gline, "a group name longer than %d characters", NML_MAX_NAME);
  if (n == 0)
    return FAIL(p, gline, "'&' without a group name (expected '&name'), found '%s'", shown(p, buf, sizeof(buf)));
  if (!strcasecmp(name, "end")) return FAIL(p, gline, "'&end' outside a group");
  sq_namelist *nl = p->nl;
  const sq_nml_group *old = sq_namelist_group(nl, name);
  if (old) return FAIL(p, gline, "group '&%s' is given twice (first on line %d)", name, old->line);
  if (nl->ngroup >= NML_MAX_GROUPS) return FAIL(p, gline, "more than %d groups", NML_MAX_GROUPS);
  sq_nml_group *ng = realloc(nl->group, (size_t)(nl->ngroup + 1) * sizeof(*ng));
  if (!ng) return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading %s", p->name);
  nl->group = ng;
  sq_nml_group *g = &nl->group[nl->ngroup++];
  *g = (sq_nml_group){.name = dup_text(name, (size_t)n), .line = gline};
  if (!g->name) return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading %s", p->name);
  for (;;) {
    skip_space(p, 1);
    const int c = peek(p), line = p->line;
    if (c < 0)
      return FAIL(p, gline, "group '&%s' is not closed: a '/' must end it (the file ends on line %d)", g->name, line);
    if (c == '/') {
      ++p->pos;
      return SQ_SUCCESS;
    }
    if (c == '&' || c == '$') {
      const size_t save = p->pos;
      ++p->pos;
      char word[NML_MAX_NAME + 1];
      if (read_name(p, word) > 0 && !strcasecmp(word, "end")) return SQ_SUCCESS;
      p->pos = save;
      return FAIL(p, line, "group '&%s' (line %d) is not closed before '%s': a '/' must end it", g->name, gline,
                  shown(p, buf, sizeof(buf)));
    }
    char key[NML_MAX_NAME + 1];
    const int kn = read_name(p, key);
    if (kn < 0) return FAIL(p, line, "a key longer than %d characters", NML_MAX_NAME);
    if (kn == 0)
      return FAIL(p, line, "expected a key ('name = value') or '/' in group '&%s', found '%s'", g->name,
                  shown(p, buf, sizeof(buf)));
    skip_space(p, 0);
    if (peek(p) == '(')
      return FAIL(p, line, "key '%s(...)': assignments to array elements are not supported; give the whole array", key);
    if (peek(p) != '=')
      return FAIL(p, line, "expected '=' after key '%s', found '%s'", key, shown(p, buf, sizeof(buf)));
    ++p->pos;
    const sq_nml_item *dup = sq_namelist_item(g, key);
    if (dup) return FAIL(p, line, "key '%s' is given twice in '&%s' (first on line %d)", key, g->name, dup->line);
    if (g->nitem >= NML_MAX_ITEMS) return FAIL(p, line, "more than %d keys in '&%s'", NML_MAX_ITEMS, g->name);
    sq_nml_item *ni = realloc(g->item, (size_t)(g->nitem + 1) * sizeof(*ni));
    if (!ni) return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading %s", p->name);
    g->item = ni;
    sq_nml_item *it = &g->item[g->nitem++];
    *it = (sq_nml_item){.key = dup_text(key, (size_t)kn), .line = line};
    if (!it->key) return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading %s", p->name);
    SQ_CALL(read_values(p, it));
    if (!it->nvalue) return FAIL(p, line, "key '%s' has no value", key);
  }
}

void sq_namelist_free(sq_namelist *nl) {
  if (!nl) return;
  for (int g = 0; g < nl->ngroup; ++g) {
    for (int i = 0; i < nl->group[g].nitem; ++i) free_item(&nl->group[g].item[i]);
    free(nl->group[g].item);
    free(nl->group[g].name);
  }
  free(nl->group);
  free(nl->file);
  free(nl);
}

int sq_namelist_parse(const char *text, size_t len, const char *name, sq_namelist **out) {
  SQ_CHECK(out, SQ_ERR_INTERNAL, "sq_namelist_parse: out is NULL");
  *out = NULL;
  if (!name) name = "<namelist>";
  SQ_CHECK(text || !len, SQ_ERR_INTERNAL, "sq_namelist_parse: text is NULL (%s)", name);
  sq_namelist *nl = calloc(1, sizeof(*nl));
  if (!nl || !(nl->file = dup_text(name, strlen(name)))) {
    free(nl);
    return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading %s", name);
  }
  parser p = {.s = text, .len = len, .line = 1, .name = name, .nl = nl};
  int rc = SQ_SUCCESS;
  for (;;) {
    skip_space(&p, 0);
    if (at_end(&p)) break;
    if (peek(&p) != '&') {
      char buf[32];
      rc = FAIL(&p, p.line, "expected a group '&name' (or a '!' comment), found '%s'", shown(&p, buf, sizeof(buf)));
      break;
    }
    if ((rc = read_group(&p))) break;
  }
  if (!rc && !nl->ngroup) rc = FAIL(&p, p.line, "no group '&name ... /' in the file: it is not a namelist");
  if (rc) {
    sq_namelist_free(nl);
    return rc;
  }
  *out = nl;
  return SQ_SUCCESS;
}

/** Read at most @p max bytes of @p path into a new buffer; @p len gets its length. */
static int read_file(const char *path, size_t max, char **buf, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot open '%s': %s", path, strerror(errno));
  size_t cap = 65536, n = 0;
  char *b = malloc(cap);
  int rc = b ? SQ_SUCCESS : sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading '%s'", path);
  while (!rc) {
    if (n == cap) {
      if (cap >= max) break;
      char *nb = realloc(b, cap *= 2);
      if (!nb) {
        rc = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading '%s'", path);
        break;
      }
      b = nb;
    }
    const size_t got = fread(b + n, 1, cap - n, f);
    n += got;
    if (!got) {
      if (ferror(f)) rc = sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot read '%s': %s", path, strerror(errno));
      break;
    }
  }
  fclose(f);
  if (rc) {
    free(b);
    return rc;
  }
  *buf = b, *len = n;
  return SQ_SUCCESS;
}

int sq_namelist_read(const char *path, sq_namelist **out) {
  SQ_CHECK(path && out, SQ_ERR_INTERNAL, "sq_namelist_read: NULL argument");
  char *buf = NULL;
  size_t len = 0;
  SQ_CALL(read_file(path, SQ_NML_MAX_BYTES + 1, &buf, &len));
  int rc;
  if (len > SQ_NML_MAX_BYTES)
    rc = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: larger than %zu MiB: not a parameter file", path,
                  SQ_NML_MAX_BYTES >> 20);
  else rc = sq_namelist_parse(buf, len, path, out);
  free(buf);
  return rc;
}

int sq_namelist_detect(const char *text, size_t len) {
  parser p = {.s = text, .len = text ? len : 0, .line = 1};
  skip_space(&p, 0);
  return !at_end(&p) && peek(&p) == '&';
}

int sq_namelist_file_detect(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char buf[65536];
  const size_t n = fread(buf, 1, sizeof(buf), f);
  fclose(f);
  return sq_namelist_detect(buf, n);
}

const sq_nml_group *sq_namelist_group(const sq_namelist *nl, const char *name) {
  if (!nl || !name) return NULL;
  for (int g = 0; g < nl->ngroup; ++g)
    if (nl->group[g].name && !strcasecmp(nl->group[g].name, name)) return &nl->group[g];
  return NULL;
}

const sq_nml_item *sq_namelist_item(const sq_nml_group *group, const char *key) {
  if (!group || !key) return NULL;
  for (int i = 0; i < group->nitem; ++i)
    if (group->item[i].key && !strcasecmp(group->item[i].key, key)) return &group->item[i];
  return NULL;
}

const char *sq_nml_type_name(sq_nml_type type) {
  switch (type) {
  case SQ_NML_INT: return "an integer";
  case SQ_NML_REAL: return "a number";
  case SQ_NML_STRING: return "a string";
  case SQ_NML_LOGICAL: return "a logical";
  }
  return "a value";
}
