/**
 * @file nrf_write.c  Test helper: write an NRF file (SeisSol's netCDF finite-source layout, as its
 * rconv tool writes it) from a text description, for the NRF tests and the broken inputs of
 * tests/bad_inputs.  Usage: nrf-write SPEC OUT.nrf.  SPEC lines ('#' starts a comment):
 *
 *   subfault x y z tinit timestep mu area t1x t1y t1z t2x t2y t2z nx ny nz
 *   rates1 v v ...     slip-rate samples along tan1 of the last subfault (may repeat: appends)
 *   rates2 v v ...     along tan2;  rates3: along normal
 *   option no_mu       Subfault without its mu field (files of older rconv versions)
 *   option reorder     Subfault's fields declared in reverse order (other offsets than rconv's)
 *   option centres_double   centres as a plain double variable of the x only (a wrong type)
 *   option omit NAME   leave out the variable NAME
 *
 * Records are packed into byte buffers at the offsets declared to netCDF, so any field order works.
 */
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NW_CHECK(call)                                                                                                 \
  do {                                                                                                                 \
    int rc_ = (call);                                                                                                  \
    if (rc_) {                                                                                                         \
      fprintf(stderr, "nrf-write: %s:%d: %s\n", __FILE__, __LINE__, nc_strerror(rc_));                                 \
      exit(2);                                                                                                         \
    }                                                                                                                  \
  } while (0)

typedef struct series {
  size_t n, cap;
  double *v;
} series;

typedef struct subfault {
  double f[16]; /* x y z tinit timestep mu area tan1 tan2 normal */
  series rate[3];
} subfault;

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) {
    fprintf(stderr, "nrf-write: out of memory\n");
    exit(2);
  }
  return q;
}

static void append(series *s, double v) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 64;
    s->v = xrealloc(s->v, s->cap * sizeof(double));
  }
  s->v[s->n++] = v;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: nrf-write SPEC OUT.nrf\n");
    return 2;
  }
  FILE *in = fopen(argv[1], "r");
  if (!in) {
    perror(argv[1]);
    return 2;
  }
  subfault *sf = NULL;
  size_t n = 0;
  int no_mu = 0, reorder = 0, centres_double = 0;
  char omit[8][32];
  int nomit = 0;
  char *line = NULL;
  size_t cap = 0;
  int lineno = 0;
  while (getline(&line, &cap, in) > 0) {
    ++lineno;
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    char *save, *tok = strtok_r(line, " \t\r\n", &save);
    if (!tok) continue;
    if (!strcmp(tok, "option")) {
      tok = strtok_r(NULL, " \t\r\n", &save);
      if (tok && !strcmp(tok, "no_mu")) no_mu = 1;
      else if (tok && !strcmp(tok, "reorder")) reorder = 1;
      else if (tok && !strcmp(tok, "centres_double")) centres_double = 1;
      else if (tok && !strcmp(tok, "omit") && (tok = strtok_r(NULL, " \t\r\n", &save)) && nomit < 8)
        snprintf(omit[nomit++], sizeof(omit[0]), "%s", tok);
      else {
        fprintf(stderr, "%s:%d: unknown option\n", argv[1], lineno);
        return 2;
      }
    } else if (!strcmp(tok, "subfault")) {
      sf = xrealloc(sf, (n + 1) * sizeof(*sf));
      memset(&sf[n], 0, sizeof(*sf));
      for (int k = 0; k < 16; ++k) {
        tok = strtok_r(NULL, " \t\r\n", &save);
        if (!tok) {
          fprintf(stderr, "%s:%d: a subfault line has 16 numbers\n", argv[1], lineno);
          return 2;
        }
        sf[n].f[k] = strtod(tok, NULL);
      }
      ++n;
    } else if (!strncmp(tok, "rates", 5) && tok[5] >= '1' && tok[5] <= '3' && !tok[6] && n > 0) {
      series *s = &sf[n - 1].rate[tok[5] - '1'];
      while ((tok = strtok_r(NULL, " \t\r\n", &save))) append(s, strtod(tok, NULL));
    } else {
      fprintf(stderr, "%s:%d: expected subfault, rates1..3 or option\n", argv[1], lineno);
      return 2;
    }
  }
  free(line);
  fclose(in);

  int nc;
  NW_CHECK(nc_create(argv[2], NC_CLOBBER | NC_NETCDF4, &nc));
  nc_type vec3, sub;
  NW_CHECK(nc_def_compound(nc, 24, "Vector3", &vec3));
  NW_CHECK(nc_insert_compound(nc, vec3, "x", 0, NC_DOUBLE));
  NW_CHECK(nc_insert_compound(nc, vec3, "y", 8, NC_DOUBLE));
  NW_CHECK(nc_insert_compound(nc, vec3, "z", 16, NC_DOUBLE));
  /* Subfault's fields: name, index into f[] (from 3), size; offsets assigned in declaration order */
  static const char *const fname[7] = {"tinit", "timestep", "mu", "area", "tan1", "tan2", "normal"};
  static const int fsize[7] = {8, 8, 8, 8, 24, 24, 24};
  static const int ffirst[7] = {3, 4, 5, 6, 7, 10, 13};
  size_t off[7], size = 0;
  for (int j = 0; j < 7; ++j) {
    const int k = reorder ? 6 - j : j;
    if (k == 2 && no_mu) continue;
    off[k] = size;
    size += (size_t)fsize[k];
  }
  NW_CHECK(nc_def_compound(nc, size, "Subfault", &sub));
  for (int j = 0; j < 7; ++j) {
    const int k = reorder ? 6 - j : j;
    if (k == 2 && no_mu) continue;
    NW_CHECK(nc_insert_compound(nc, sub, fname[k], off[k], fsize[k] == 8 ? NC_DOUBLE : vec3));
  }
  size_t total[3] = {0, 0, 0};
  for (size_t i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) total[d] += sf[i].rate[d].n;
  int dsrc, doff, ddir, dsample[3];
  NW_CHECK(nc_def_dim(nc, "source", NC_UNLIMITED, &dsrc));
  NW_CHECK(nc_def_dim(nc, "sroffset", NC_UNLIMITED, &doff));
  NW_CHECK(nc_def_dim(nc, "direction", 3, &ddir));
  for (int d = 0; d < 3; ++d) {
    char name[16];
    snprintf(name, sizeof(name), "sample%d", d + 1);
    NW_CHECK(nc_def_dim(nc, name, NC_UNLIMITED, &dsample[d]));
  }
  int vc = -1, vs = -1, vo = -1, vr[3] = {-1, -1, -1};
  int omitted[5 + 1] = {0};
  const char *vname[6] = {"centres", "subfaults", "sroffsets", "sliprates1", "sliprates2", "sliprates3"};
  for (int v = 0; v < 6; ++v)
    for (int o = 0; o < nomit; ++o)
      if (!strcmp(omit[o], vname[v])) omitted[v] = 1;
  if (!omitted[0]) {
    if (centres_double) NW_CHECK(nc_def_var(nc, "centres", NC_DOUBLE, 1, &dsrc, &vc));
    else NW_CHECK(nc_def_var(nc, "centres", vec3, 1, &dsrc, &vc));
  }
  if (!omitted[1]) NW_CHECK(nc_def_var(nc, "subfaults", sub, 1, &dsrc, &vs));
  if (!omitted[2]) {
    int dims[2] = {doff, ddir};
    NW_CHECK(nc_def_var(nc, "sroffsets", NC_UINT, 2, dims, &vo));
  }
  for (int d = 0; d < 3; ++d)
    if (!omitted[3 + d]) NW_CHECK(nc_def_var(nc, vname[3 + d], NC_DOUBLE, 1, &dsample[d], &vr[d]));
  NW_CHECK(nc_enddef(nc));

  unsigned char *cbuf = xrealloc(NULL, 24 * n), *sbuf = xrealloc(NULL, size * n);
  unsigned *obuf = xrealloc(NULL, sizeof(unsigned) * 3 * (n + 1));
  memset(obuf, 0, sizeof(unsigned) * 3);
  for (size_t i = 0; i < n; ++i) {
    memcpy(cbuf + 24 * i, sf[i].f, 24);
    for (int k = 0; k < 7; ++k) {
      if (k == 2 && no_mu) continue;
      memcpy(sbuf + size * i + off[k], &sf[i].f[ffirst[k]], (size_t)fsize[k]);
    }
    for (int d = 0; d < 3; ++d) obuf[3 * (i + 1) + d] = obuf[3 * i + d] + (unsigned)sf[i].rate[d].n;
  }
  size_t start[2] = {0, 0}, count[2] = {n, 3};
  if (vc >= 0) {
    if (centres_double) {
      double *x = xrealloc(NULL, sizeof(double) * n);
      for (size_t i = 0; i < n; ++i) x[i] = sf[i].f[0];
      NW_CHECK(nc_put_vara_double(nc, vc, start, count, x));
      free(x);
    } else NW_CHECK(nc_put_vara(nc, vc, start, count, cbuf));
  }
  if (vs >= 0) NW_CHECK(nc_put_vara(nc, vs, start, count, sbuf));
  count[0] = n + 1;
  if (vo >= 0) NW_CHECK(nc_put_vara_uint(nc, vo, start, count, obuf));
  for (int d = 0; d < 3; ++d) {
    if (vr[d] < 0 || total[d] == 0) continue;
    double *all = xrealloc(NULL, sizeof(double) * total[d]);
    size_t o = 0;
    for (size_t i = 0; i < n; ++i) {
      memcpy(all + o, sf[i].rate[d].v, sizeof(double) * sf[i].rate[d].n);
      o += sf[i].rate[d].n;
    }
    count[0] = total[d];
    NW_CHECK(nc_put_vara_double(nc, vr[d], start, count, all));
    free(all);
  }
  NW_CHECK(nc_close(nc));
  for (size_t i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) free(sf[i].rate[d].v);
  free(sf), free(cbuf), free(sbuf), free(obuf);
  return 0;
}
