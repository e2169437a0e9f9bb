/** @file source_io.c  Readers for tabulated time functions, finite-source files and point lists. */
#include "sq_source_io.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/** A text file read line by line with line numbers. */
typedef struct line_reader {
  const char *path;
  FILE *file;
  char *buf;
  size_t cap;
  int line; /**< number of the line in buf */
} line_reader;

static int reader_open(line_reader *r, const char *path, const char *what) {
  memset(r, 0, sizeof(*r));
  r->path = path;
  r->file = fopen(path, "r");
  if (!r->file) return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot open %s '%s': %s", what, path, strerror(errno));
  return SQ_SUCCESS;
}

static void reader_close(line_reader *r) {
  if (r->file) fclose(r->file);
  free(r->buf);
  r->file = NULL;
  r->buf = NULL;
}

/** Next line (newline stripped) into r->buf; returns 0 at the end of the file. */
static int reader_next(line_reader *r) {
  size_t len = 0;
  int c;
  if (!r->file) return 0;
  c = fgetc(r->file);
  if (c == EOF) return 0;
  ++r->line;
  for (; c != EOF && c != '\n'; c = fgetc(r->file)) {
    if (len + 2 > r->cap) {
      const size_t cap = r->cap ? 2 * r->cap : 256;
      char *b = realloc(r->buf, cap);
      if (!b) return 0;
      r->buf = b;
      r->cap = cap;
    }
    r->buf[len++] = (char)c;
  }
  if (len + 1 > r->cap) {
    char *b = realloc(r->buf, len + 1 > 256 ? len + 1 : 256);
    if (!b) return 0;
    r->buf = b;
    r->cap = len + 1 > 256 ? len + 1 : 256;
  }
  if (len > 0 && r->buf[len - 1] == '\r') --len;
  r->buf[len] = '\0';
  return 1;
}

/** Strip a '#' comment; is the rest blank? */
static int blank_or_comment(char *s) {
  char *hash = strchr(s, '#');
  if (hash) *hash = '\0';
  for (; *s; ++s)
    if (!isspace((unsigned char)*s)) return 0;
  return 1;
}

/** Next non-blank line (comments stripped when @p comments). */
static int reader_content(line_reader *r, int comments) {
  while (reader_next(r)) {
    if (comments) {
      if (!blank_or_comment(r->buf)) return 1;
    } else {
      const char *s = r->buf;
      while (*s && isspace((unsigned char)*s)) ++s;
      if (*s) return 1;
    }
  }
  return 0;
}

/** Parse one number token at *s (advancing); 'd'/'D' exponents accepted. 0: no token, -1: bad token. */
static int next_number(char **s, double *out, char *bad, size_t badsize) {
  char *p = *s;
  while (*p && isspace((unsigned char)*p)) ++p;
  if (!*p) {
    *s = p;
    return 0;
  }
  char tok[128];
  size_t n = 0;
  while (p[n] && !isspace((unsigned char)p[n]) && p[n] != ',') ++n;
  const size_t len = n < sizeof(tok) - 1 ? n : sizeof(tok) - 1;
  memcpy(tok, p, len);
  tok[len] = '\0';
  for (char *c = tok; *c; ++c)
    if (*c == 'd' || *c == 'D') *c = 'e';
  char *end;
  errno = 0;
  const double v = strtod(tok, &end);
  *s = p + n + (p[n] == ',');
  if (end == tok || *end || !isfinite(v) || n >= sizeof(tok) - 1) {
    snprintf(bad, badsize, "%.40s", p);
    bad[n < badsize - 1 ? n : badsize - 1] = '\0';
    return -1;
  }
  *out = v;
  return 1;
}

/** Exactly @p count numbers on the current line. */
static int line_numbers(line_reader *r, int count, double *out, const char *what) {
  char *s = r->buf, bad[64];
  for (int i = 0; i < count; ++i) {
    const int got = next_number(&s, &out[i], bad, sizeof(bad));
    if (got < 0)
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: %s: '%s' is not a number", r->path, r->line, what, bad);
    if (got == 0)
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: %s: expected %d numbers, found %d", r->path, r->line,
                      what, count, i);
  }
  double extra;
  if (next_number(&s, &extra, bad, sizeof(bad)) != 0)
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: %s: expected %d numbers, found more", r->path, r->line,
                    what, count);
  return SQ_SUCCESS;
}

int sq_read_stf_table(const char *path, sq_stf *stf) {
  line_reader r;
  SQ_CALL(reader_open(&r, path, "source time function file"));
  int64_t n = 0, cap = 0;
  double *t = NULL, *v = NULL;
  int ierr = SQ_SUCCESS;
  while (!ierr && reader_content(&r, 1)) {
    double row[2];
    ierr = line_numbers(&r, 2, row, "time function sample (time value)");
    if (ierr) break;
    if (n > 0 && !(row[0] > t[n - 1])) {
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "%s:%d: sample times must increase strictly (%.9g follows %.9g)", path, r.line, row[0], t[n - 1]);
      break;
    }
    if (n == cap) {
      cap = cap ? 2 * cap : 256;
      double *nt = realloc(t, (size_t)cap * sizeof(double)), *nv = nt ? realloc(v, (size_t)cap * sizeof(double)) : NULL;
      if (nt) t = nt;
      if (nv) v = nv;
      if (!nt || !nv) {
        ierr = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading '%s'", path);
        break;
      }
    }
    t[n] = row[0];
    v[n] = row[1];
    ++n;
  }
  const int lines = r.line;
  reader_close(&r);
  if (!ierr && n < 2)
    ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "%s:%d: a tabulated time function needs at least two samples 'time value', found %lld", path, lines,
                    (long long)n);
  if (ierr) {
    free(t);
    free(v);
    return ierr;
  }
  stf->kind = SQ_STF_TABLE;
  stf->nsample = n;
  stf->time = t;
  stf->value = v;
  return SQ_SUCCESS;
}

int sq_read_points(const char *path, int *n_out, double **x_out, int **line_out) {
  line_reader r;
  SQ_CALL(reader_open(&r, path, "point file"));
  int n = 0, cap = 0, ierr = SQ_SUCCESS;
  double *x = NULL;
  int *line = NULL;
  while (!ierr && reader_content(&r, 1)) {
    if (n == cap) {
      cap = cap ? 2 * cap : 64;
      double *nx = realloc(x, 3 * sizeof(double) * (size_t)cap);
      int *nl = nx ? realloc(line, sizeof(int) * (size_t)cap) : NULL;
      if (nx) x = nx;
      if (nl) line = nl;
      if (!nx || !nl) {
        ierr = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading '%s'", path);
        break;
      }
    }
    ierr = line_numbers(&r, 3, &x[3 * n], "point (x y z)");
    line[n] = r.line;
    ++n;
  }
  reader_close(&r);
  if (!ierr && n == 0) ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: no points (lines 'x y z') found", path);
  if (ierr) {
    free(x);
    free(line);
    return ierr;
  }
  *n_out = n;
  *x_out = x;
  *line_out = line;
  return SQ_SUCCESS;
}

static int contains_word(const char *s, const char *word) {
  const size_t lw = strlen(word);
  for (; *s; ++s) {
    size_t i = 0;
    while (i < lw && s[i] && tolower((unsigned char)s[i]) == word[i]) ++i;
    if (i == lw) return 1;
  }
  return 0;
}

/* R = [slip, normal x slip, normal] (columns) of a sub-fault. */
static void local_frame(double strike, double dip, double rake, double R[3][3]) {
  double m[6], n[3], d[3];
  sq_moment_from_sdr(strike, dip, rake, 1.0, m, n, d);
  const double e2[3] = {n[1] * d[2] - n[2] * d[1], n[2] * d[0] - n[0] * d[2], n[0] * d[1] - n[1] * d[0]};
  for (int i = 0; i < 3; ++i) {
    R[i][0] = d[i];
    R[i][1] = e2[i];
    R[i][2] = n[i];
  }
}

/**
 * Room for @p need items of @p size bytes in *@p buf (capacity *@p cap items, doubled as needed).  The
 * finite-source reader grows its arrays with what the file actually holds, so that a count announced
 * in a short file cannot make it allocate gigabytes.
 */
static int grow(void **buf, int64_t *cap, int64_t need, size_t size, const char *path) {
  if (need <= *cap) return SQ_SUCCESS;
  int64_t ncap = *cap ? 2 * *cap : 64;
  while (ncap < need) ncap *= 2;
  void *nbuf = realloc(*buf, (size_t)ncap * size);
  if (!nbuf) return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading '%s'", path);
  *buf = nbuf;
  *cap = ncap;
  return SQ_SUCCESS;
}

static int fsrm_expect(line_reader *r, const char *what) {
  if (reader_content(r, 0)) return SQ_SUCCESS;
  return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: the file ends before %s", r->path, r->line, what);
}

int sq_read_fsrm(const char *path, sq_source_list *list) {
  line_reader r;
  SQ_CALL(reader_open(&r, path, "finite-source file"));
  double M[3][3], vel[3] = {0, 0, 0};
  int ierr = fsrm_expect(&r, "the moment tensor header (e.g. 'Seismic Moment Tensor')");
  for (int i = 0; i < 3 && !ierr; ++i) {
    ierr = fsrm_expect(&r, "the 3 rows of the moment tensor");
    if (!ierr) ierr = line_numbers(&r, 3, M[i], "moment tensor row");
  }
  if (!ierr) ierr = fsrm_expect(&r, "the 'Number of subfaults' header");
  if (!ierr && (contains_word(r.buf, "pressure") || contains_word(r.buf, "fluid")))
    ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "%s:%d: poroelastic source terms (pressure, fluid force) are not supported", path, r.line);
  if (!ierr && contains_word(r.buf, "velocity")) {
    ierr = fsrm_expect(&r, "the velocity (force) components d1 d2 d3");
    if (!ierr) ierr = line_numbers(&r, 3, vel, "velocity components");
    if (!ierr) ierr = fsrm_expect(&r, "the 'Number of subfaults' header");
  }
  double nsub_d = 0;
  if (!ierr) ierr = fsrm_expect(&r, "the number of subfaults");
  if (!ierr) ierr = line_numbers(&r, 1, &nsub_d, "number of subfaults");
  if (!ierr && !(nsub_d >= 1 && nsub_d <= 1e8 && nsub_d == floor(nsub_d)))
    ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "%s:%d: the number of subfaults must be a positive integer, got %g", path, r.line, nsub_d);
  const int64_t nsub = ierr ? 0 : (int64_t)nsub_d;
  double *sub = NULL;
  int *subline = NULL;
  int64_t subcap = 0, linecap = 0;
  if (!ierr) ierr = fsrm_expect(&r, "the subfault header ('x y z strike dip rake area Onset time')");
  for (int64_t i = 0; i < nsub && !ierr; ++i) {
    ierr = fsrm_expect(&r, "all subfault lines 'x y z strike dip rake area onset'");
    if (!ierr) ierr = grow((void **)&sub, &subcap, 8 * (i + 1), sizeof(double), path);
    if (!ierr) ierr = grow((void **)&subline, &linecap, i + 1, sizeof(int), path);
    if (ierr) break;
    if (!ierr) ierr = line_numbers(&r, 8, &sub[8 * i], "subfault (x y z strike dip rake area onset)");
    subline[i] = r.line;
    if (!ierr && !(sub[8 * i + 6] > 0))
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: subfault area must be > 0, got %g", path, r.line,
                      sub[8 * i + 6]);
  }
  double dtn[2] = {0, 0};
  if (!ierr) ierr = fsrm_expect(&r, "the 'source time function' header");
  if (!ierr) ierr = fsrm_expect(&r, "the line 'dt nsamples'");
  if (!ierr) ierr = line_numbers(&r, 2, dtn, "time function sampling (dt nsamples)");
  if (!ierr && !(dtn[0] > 0 && dtn[1] >= 2 && dtn[1] <= 1e9 && dtn[1] == floor(dtn[1])))
    ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "%s:%d: need dt > 0 and an integer number of samples >= 2, got dt = %g, nsamples = %g", path,
                    r.line, dtn[0], dtn[1]);
  const int64_t ns = ierr ? 0 : (int64_t)dtn[1];
  if (!ierr) ierr = fsrm_expect(&r, "the 'samples' header");
  int64_t got = 0, samplecap = 0;
  const int64_t total = nsub * ns;
  double *samples = NULL;
  while (!ierr && got < total && reader_content(&r, 0)) {
    char *s = r.buf, bad[64];
    double v;
    int k;
    while ((k = next_number(&s, &v, bad, sizeof(bad))) == 1) {
      if (got == total) {
        ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: more samples than %lld subfaults x %lld samples",
                        path, r.line, (long long)nsub, (long long)ns);
        break;
      }
      if ((ierr = grow((void **)&samples, &samplecap, got + 1, sizeof(double), path))) break;
      samples[got++] = v;
    }
    if (!ierr && k < 0)
      ierr =
          sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: slip-rate sample '%s' is not a number", path, r.line, bad);
  }
  if (!ierr && got < total)
    ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "%s:%d: the file ends after %lld of %lld slip-rate samples (%lld subfaults x %lld)", path, r.line,
                    (long long)got, (long long)total, (long long)nsub, (long long)ns);
  if (!ierr && reader_content(&r, 0))
    ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: unexpected content after the last slip-rate sample", path,
                    r.line);
  reader_close(&r);
  for (int64_t i = 0; i < nsub && !ierr; ++i) {
    const double *f = &sub[8 * i];
    double R[3][3], G[3][3];
    local_frame(f[3], f[4], f[5], R);
    for (int a = 0; a < 3; ++a) /* G = area R M R^T */
      for (int b = 0; b < 3; ++b) {
        double s = 0.0;
        for (int c = 0; c < 3; ++c)
          for (int e = 0; e < 3; ++e) s += R[a][c] * M[c][e] * R[b][e];
        G[a][b] = f[6] * s;
      }
    sq_point_source src;
    memset(&src, 0, sizeof(src));
    src.kind = SQ_SOURCE_MOMENT;
    memcpy(src.x, f, sizeof(src.x));
    src.moment[0] = G[0][0], src.moment[1] = G[1][1], src.moment[2] = G[2][2];
    src.moment[3] = 0.5 * (G[0][1] + G[1][0]), src.moment[4] = 0.5 * (G[1][2] + G[2][1]);
    src.moment[5] = 0.5 * (G[0][2] + G[2][0]);
    for (int a = 0; a < 3; ++a) src.force[a] = f[6] * (R[a][0] * vel[0] + R[a][1] * vel[1] + R[a][2] * vel[2]);
    src.stf.kind = SQ_STF_TABLE;
    src.stf.onset = f[7];
    src.stf.nsample = ns;
    src.stf.time = malloc((size_t)ns * sizeof(double));
    src.stf.value = malloc((size_t)ns * sizeof(double));
    if (!src.stf.time || !src.stf.value) {
      free(src.stf.time);
      free(src.stf.value);
      ierr = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading '%s'", path);
      break;
    }
    for (int64_t k = 0; k < ns; ++k) {
      src.stf.time[k] = (double)k * dtn[0];
      src.stf.value[k] = samples[i * ns + k];
    }
    snprintf(src.origin, sizeof(src.origin), "%.120s:%d", path, subline[i]);
    ierr = sq_source_list_push(list, &src);
    if (ierr) {
      free(src.stf.time);
      free(src.stf.value);
    }
  }
  free(samples);
  free(sub);
  free(subline);
  return ierr;
}

/* ---- SPECFEM3D inputs: CMTSOLUTION and STATIONS ---------------------------------------------- */

static const char *const cmt_keys[SQ_CMT_NKEYS] = {"event name", "time shift", "half duration", "latorUTM",
                                                   "longorUTM",  "depth",      "Mrr",           "Mtt",
                                                   "Mpp",        "Mrt",        "Mrp",           "Mtp"};

/* The key of a "key: value" line (case and trailing spaces ignored; latitude / longitude are latorUTM /
 * longorUTM, as SPECFEM3D reads them). */
static int cmt_key(const char *key) {
  char k[64];
  size_t n = 0;
  for (; *key && n + 1 < sizeof(k); ++key) k[n++] = *key;
  while (n > 0 && isspace((unsigned char)k[n - 1])) --n;
  k[n] = '\0';
  if (!strcasecmp(k, "latitude")) return SQ_CMT_LAT;
  if (!strcasecmp(k, "longitude")) return SQ_CMT_LON;
  for (int i = 0; i < SQ_CMT_NKEYS; ++i)
    if (!strcasecmp(k, cmt_keys[i])) return i;
  return -1;
}

int sq_read_cmtsolution(const char *path, sq_cmtsolution *cmt) {
  line_reader r;
  SQ_CALL(reader_open(&r, path, "CMTSOLUTION file"));
  memset(cmt, 0, sizeof(*cmt));
  int ierr = SQ_SUCCESS, header = 0;
  while (!ierr && reader_content(&r, 0)) {
    if (!header) { /* the PDE line: free text (date, hypocentre of the catalogue), kept for messages only */
      header = r.line;
      continue;
    }
    char *colon = strchr(r.buf, ':');
    if (!colon) {
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "%s:%d: expected 'key: value' (e.g. 'half duration: 1.0'), found '%.60s'", path, r.line, r.buf);
      break;
    }
    *colon = '\0';
    char *s = r.buf;
    while (isspace((unsigned char)*s)) ++s;
    const int k = cmt_key(s);
    if (k < 0) {
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "%s:%d: unknown key '%.40s' (a CMTSOLUTION holds: event name, time shift, half duration, "
                      "latorUTM, longorUTM, depth, Mrr, Mtt, Mpp, Mrt, Mrp, Mtp)",
                      path, r.line, s);
      break;
    }
    if (cmt->line[k]) {
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: '%s' given twice (first on line %d)", path, r.line,
                      cmt_keys[k], cmt->line[k]);
      break;
    }
    cmt->line[k] = r.line;
    if (k == 0) {
      char *v = colon + 1;
      while (isspace((unsigned char)*v)) ++v;
      snprintf(cmt->event, sizeof(cmt->event), "%.63s", v);
      continue;
    }
    memmove(r.buf, colon + 1, strlen(colon + 1) + 1);
    ierr = line_numbers(&r, 1, &cmt->value[k], cmt_keys[k]);
  }
  const int last = r.line;
  reader_close(&r);
  SQ_CALL(ierr);
  SQ_CHECK(header, SQ_ERR_INPUT, "%s: empty CMTSOLUTION file", path);
  for (int k = 1; k < SQ_CMT_NKEYS; ++k)
    SQ_CHECK(cmt->line[k], SQ_ERR_INPUT, "%s:%d: no '%s' line (a CMTSOLUTION needs every one of its 12 keys)", path,
             last, cmt_keys[k]);
  SQ_CHECK(cmt->value[2] >= 0, SQ_ERR_INPUT, "%s:%d: half duration: %g must be >= 0", path, cmt->line[2],
           cmt->value[2]);
  SQ_CHECK(cmt->value[5] >= 0, SQ_ERR_INPUT, "%s:%d: depth: %g km must be >= 0 (km below the free surface z = 0)", path,
           cmt->line[5], cmt->value[5]);
  return SQ_SUCCESS;
}

void sq_cmtsolution_source(const sq_cmtsolution *cmt, double x[3], double moment[6]) {
  const double *v = cmt->value, dyne_cm_per_newton_m = 1e7;
  x[0] = v[SQ_CMT_LON], x[1] = v[SQ_CMT_LAT], x[2] = 0.0 - 1000.0 * v[SQ_CMT_DEPTH];
  /* r = up (z), theta = south (-y), phi = east (x) */
  moment[0] = v[SQ_CMT_MPP] / dyne_cm_per_newton_m;  /* xx */
  moment[1] = v[SQ_CMT_MTT] / dyne_cm_per_newton_m;  /* yy */
  moment[2] = v[SQ_CMT_MRR] / dyne_cm_per_newton_m;  /* zz */
  moment[3] = -v[SQ_CMT_MTP] / dyne_cm_per_newton_m; /* xy */
  moment[4] = -v[SQ_CMT_MRT] / dyne_cm_per_newton_m; /* yz */
  moment[5] = v[SQ_CMT_MRP] / dyne_cm_per_newton_m;  /* xz */
}

static int station_word_ok(const char *w) {
  for (; *w; ++w)
    if (!isalnum((unsigned char)*w) && *w != '_' && *w != '-') return 0;
  return 1;
}

int sq_read_stations(const char *path, int *n_out, double **x_out, char (**name_out)[SQ_STATION_NAME], int **line_out) {
  line_reader r;
  SQ_CALL(reader_open(&r, path, "STATIONS file"));
  int n = 0, cap = 0, ierr = SQ_SUCCESS;
  double *x = NULL;
  char(*name)[SQ_STATION_NAME] = NULL;
  int *line = NULL;
  while (!ierr && reader_content(&r, 1)) {
    if (n == cap) {
      cap = cap ? 2 * cap : 64;
      double *nx = realloc(x, 3 * sizeof(double) * (size_t)cap);
      if (nx) x = nx;
      int *nl = nx ? realloc(line, sizeof(int) * (size_t)cap) : NULL;
      if (nl) line = nl;
      char(*nn)[SQ_STATION_NAME] = nl ? realloc(name, SQ_STATION_NAME * (size_t)cap) : NULL;
      if (nn) name = nn;
      if (!nn) {
        ierr = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading '%s'", path);
        break;
      }
    }
    char sta[64] = "", net[64] = "";
    int used = 0;
    if (sscanf(r.buf, " %63s %63s %n", sta, net, &used) < 2) {
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "%s:%d: expected 'STATION NETWORK latorUTM longorUTM elevation burial', found '%.60s'", path,
                      r.line, r.buf);
      break;
    }
    if (!station_word_ok(sta) || !station_word_ok(net) || strlen(sta) + strlen(net) + 2 > SQ_STATION_NAME) {
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "%s:%d: station '%s', network '%s': names are letters, digits, '_' and '-', at most %d "
                      "characters together",
                      path, r.line, sta, net, SQ_STATION_NAME - 2);
      break;
    }
    double v[4];
    memmove(r.buf, r.buf + used, strlen(r.buf + used) + 1);
    ierr = line_numbers(&r, 4, v, "station (STATION NETWORK latorUTM longorUTM elevation burial)");
    if (ierr) break;
    snprintf(name[n], SQ_STATION_NAME, "%s.%s", net, sta);
    for (int k = 0; k < n; ++k)
      if (!strcmp(name[k], name[n])) {
        ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: station %s is already on line %d", path, r.line,
                        name[n], line[k]);
        break;
      }
    x[3 * n] = v[1], x[3 * n + 1] = v[0], x[3 * n + 2] = 0.0 - v[3]; /* x = longorUTM, y = latorUTM, z = -burial */
    line[n] = r.line;
    ++n;
  }
  reader_close(&r);
  if (!ierr && n == 0)
    ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "%s: no stations (lines 'STATION NETWORK latorUTM longorUTM elevation burial') found", path);
  if (ierr) {
    free(x), free(line), free(name);
    return ierr;
  }
  *n_out = n, *x_out = x, *name_out = name, *line_out = line;
  return SQ_SUCCESS;
}
