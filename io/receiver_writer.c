/**
 * @file receiver_writer.c  Receiver time series: one SeisSol-compatible text file per receiver (written
 * by the rank that owns it) and, optionally, one HDF5 file of all of them (/time, /data, /points).
 * A restart cuts both back to the samples the checkpoint counts.
 */
#include "output_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sq_fields.h"

struct sq_receiver_writer {
  int n;
  int hdf5;
  int64_t count;
  double interval;
  int *owned;
  char **text;          /* per receiver: path of the text file (NULL if not owned) */
  char h5[SQ_OUT_PATH]; /* HDF5 file, "" if none */
  int disp;             /* also the displacement u1..u3: the trapezoidal time integral of v1..v3 */
  int seissol;          /* SeisSol's text files: PREFIX-receiver-NNNNN-RRRRR.dat, its names and number format */
  double *u, *vlast;    /* n x 3: the displacement and velocity of the last sample written */
  double *du;           /* count x n x 3 of one append */
  int64_t du_cap;
};

enum { RECEIVER_HEADER_LINES = 5 };

static const char *const h5_sets[3] = {"time", "data", "displacement"};

/* SeisSol's receiver header (ReceiverWriter): its quantity names xx .. xz, v1 v2 v3 and "# xK" lines */
static const char *const seissol_names[9] = {"xx", "yy", "zz", "xy", "yz", "xz", "v1", "v2", "v3"};

static int receiver_text_create(const char *path, int number, const char *name, int disp, const double x[3],
                                int seissol) {
  FILE *f = fopen(path, "w");
  if (!f) return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write receiver file '%s': %s", path, strerror(errno));
  if (seissol) {
    fprintf(f, "TITLE = \"Temporal Signal for receiver number %05d\"\nVARIABLES = \"Time\"", number);
    for (int p = 0; p < 9; ++p) fprintf(f, ",\"%s\"", seissol_names[p]);
    if (disp) fprintf(f, ",\"u1\",\"u2\",\"u3\"");
    for (int d = 0; d < 3; ++d) fprintf(f, "\n# x%d       %.12e", d + 1, x[d]);
    fputc('\n', f);
    const int bad = ferror(f);
    if (fclose(f) || bad)
      return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write receiver file '%s': %s", path, strerror(errno));
    return SQ_SUCCESS;
  }
  /* the number stays last on the line, where tools (receivers_to_sac.py) read it */
  if (name) fprintf(f, "TITLE = \"Temporal Signal for station %s, receiver number %05d\"\n", name, number);
  else fprintf(f, "TITLE = \"Temporal Signal for receiver number %05d\"\n", number);
  fprintf(f, "VARIABLES = \"Time\"");
  for (int p = 0; p < 9; ++p) fprintf(f, ",\"%s\"", sq_quantity_names[p]);
  if (disp) fprintf(f, ",\"u1\",\"u2\",\"u3\"");
  fprintf(f, "\n# x1 % .16E\n# x2 % .16E\n# x3 % .16E\n", x[0], x[1], x[2]);
  const int bad = ferror(f);
  if (fclose(f) || bad)
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write receiver file '%s': %s", path, strerror(errno));
  return SQ_SUCCESS;
}

static int receiver_h5_create(const char *path, int n, const double *x, char *const *names, double interval, int disp) {
  h5_quiet q;
  sq_h5_quiet_begin(&q);
  hid_t file = -1;
  int st = 0;
  IO_STEP(st, file = sq_h5_file(path, 1, 0));
  if (!st) { /* the positions are known everywhere: rank 0 writes them */
    const hsize_t pd[2] = {(hsize_t)n, 3};
    st = sq_h5_write_dataset(file, "points", H5T_NATIVE_DOUBLE, 2, pd, NULL, x);
  }
  const int64_t chunk_rows = n * 9 > 0 && 16384 / (n * 9) > 1 ? (16384 / (n * 9) < 256 ? 16384 / (n * 9) : 256) : 1;
  for (int k = 0; k < 2 + disp && !st; ++k) { /* time, data, displacement */
    const int rank = k == 0 ? 1 : 3;
    const hsize_t nq = k == 2 ? 3 : 9;
    const hsize_t dims[3] = {0, (hsize_t)n, nq}, maxd[3] = {H5S_UNLIMITED, (hsize_t)n, nq};
    const hsize_t chunk[3] = {(hsize_t)chunk_rows, (hsize_t)(n > 0 ? n : 1), nq};
    hid_t space = H5Screate_simple(rank, dims, maxd);
    hid_t plist = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(plist, rank, chunk);
    hid_t set = -1;
    IO_STEP(st, set = H5Dcreate2(file, h5_sets[k], H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, plist, H5P_DEFAULT));
    if (set >= 0) H5Dclose(set);
    H5Pclose(plist);
    H5Sclose(space);
  }
  IO_STEP(st, sq_h5_attr_write(file, "interval", H5T_NATIVE_DOUBLE, &interval));
  IO_STEP(st, sq_h5_attr_string(file, "variables", "s_xx s_yy s_zz s_xy s_yz s_xz v1 v2 v3"));
  if (names && !st) { /* receivers.stations: the receivers' names in order ("00001" where unnamed) */
    size_t len = 1;
    for (int i = 0; i < n; ++i) len += (names[i] ? strlen(names[i]) : 11) + 1;
    char *all = malloc(len), *at = all;
    IO_STEP(st, all ? 0 : -1);
    for (int i = 0; all && i < n; ++i)
      at += names[i] ? sprintf(at, "%s%s", i ? " " : "", names[i]) : sprintf(at, "%s%05d", i ? " " : "", i + 1);
    if (all) *at = '\0';
    IO_STEP(st, sq_h5_attr_string(file, "names", all));
    free(all);
  }
  IO_STEP(st, sq_h5_close(&file));
  sq_h5_quiet_end(&q);
  if (st) {
    const int ierr = io_error(SQ_ERR_IO, __LINE__, "cannot create the receiver file '%s'", path);
    sq_h5_close_quiet(&file);
    return ierr;
  }
  return SQ_SUCCESS;
}

static int receiver_h5_cut(const char *path, int n, int64_t keep, int disp) {
  h5_quiet q;
  sq_h5_quiet_begin(&q);
  hid_t file = -1;
  int st = 0, short_file = 0;
  IO_STEP(st, file = sq_h5_file(path, 0, H5F_ACC_RDWR));
  for (int k = 0; k < 2 + disp && !st; ++k) {
    hid_t set = -1, space = -1;
    hsize_t dims[3] = {0, 0, 0};
    IO_STEP(st, set = H5Dopen2(file, h5_sets[k], H5P_DEFAULT));
    IO_STEP(st, space = H5Dget_space(set));
    IO_STEP(st, H5Sget_simple_extent_dims(space, dims, NULL) < 0 || (k >= 1 && dims[1] != (hsize_t)n) ? -1 : 0);
    if (!st && dims[0] < (hsize_t)keep) short_file = 1, st = -1;
    dims[0] = (hsize_t)keep;
    IO_STEP(st, H5Dset_extent(set, dims));
    if (space >= 0) H5Sclose(space);
    if (set >= 0) H5Dclose(set);
  }
  IO_STEP(st, sq_h5_close(&file));
  sq_h5_quiet_end(&q);
  int ierr = SQ_SUCCESS;
  if (short_file)
    ierr = io_error(SQ_ERR_INPUT, __LINE__, "'%s' holds fewer than the %lld samples the checkpoint counts", path,
                    (long long)keep);
  else if (st)
    ierr = io_error(SQ_ERR_IO, __LINE__,
                    "cannot continue the receiver file '%s' (missing, unreadable, not %d receivers%s)", path, n,
                    disp ? ", or written without receivers.displacement" : "");
  sq_h5_close_quiet(&file);
  return ierr;
}

/* A restart continues a file with the columns it was created with: receivers.displacement must not change. */
static int same_columns(const char *path, int disp) {
  FILE *f = fopen(path, "r");
  SQ_CHECK(f, SQ_ERR_IO, "cannot open '%s' to continue it: %s", path, strerror(errno));
  char line[1024] = "";
  int has_u = 0;
  while (fgets(line, sizeof(line), f))
    if (!strncmp(line, "VARIABLES", 9)) {
      has_u = strstr(line, "\"u1\"") != NULL;
      break;
    }
  fclose(f);
  SQ_CHECK(has_u == disp, SQ_ERR_INPUT,
           "'%s' was written %s displacement columns, but receivers.displacement is now %s: restart with the "
           "value that wrote it",
           path, has_u ? "with" : "without", disp ? "true" : "false");
  return SQ_SUCCESS;
}

/* A restart continues the displacement from the last row the text file keeps (full precision: %.16E). */
static int displacement_resume(sq_receiver_writer *w, int i) {
  FILE *f = fopen(w->text[i], "r");
  SQ_CHECK(f, SQ_ERR_IO, "cannot read '%s': %s", w->text[i], strerror(errno));
  char line[1024], last[1024] = "";
  while (fgets(line, sizeof(line), f))
    if (line[0] != '#' && strncmp(line, "TITLE", 5) && strncmp(line, "VARIABLES", 9)) memcpy(last, line, sizeof(last));
  fclose(f);
  double v[13];
  int got = 0;
  char *s = last, *end;
  for (; got < 13; ++got, s = end) {
    v[got] = strtod(s, &end);
    if (end == s) break;
  }
  SQ_CHECK(got == 13, SQ_ERR_INPUT,
           "%s: its last row holds %d values, not 13 (time, 9 quantities, u1 u2 u3): was it written without "
           "receivers.displacement?",
           w->text[i], got);
  memcpy(&w->vlast[3 * i], &v[7], 3 * sizeof(double));
  memcpy(&w->u[3 * i], &v[10], 3 * sizeof(double));
  return SQ_SUCCESS;
}

int sq_receiver_writer_open(const char *dir, const char *prefix, int n, const double *x, const int *owned,
                            double interval, int hdf5, int64_t keep, sq_receiver_writer **out) {
  return sq_receiver_writer_open_named(dir, prefix, n, x, owned, NULL, interval, hdf5, 0, keep, out);
}

int sq_receiver_writer_open_named(const char *dir, const char *prefix, int n, const double *x, const int *owned,
                                  char *const *names, double interval, int hdf5, int displacement, int64_t keep,
                                  sq_receiver_writer **out) {
  return sq_receiver_writer_open_style(dir, prefix, n, x, owned, names, interval, hdf5, displacement, 0, keep, out);
}

int sq_receiver_writer_open_style(const char *dir, const char *prefix, int n, const double *x, const int *owned,
                                  char *const *names, double interval, int hdf5, int displacement, int seissol,
                                  int64_t keep, sq_receiver_writer **out) {
  sq_receiver_writer *w;
  SQ_CALL(SQ_CALLOC(w, 1));
  *out = w;
  w->n = n;
  w->hdf5 = hdf5;
  w->disp = displacement;
  w->seissol = seissol;
  if (displacement) {
    SQ_CALL(SQ_CALLOC(w->u, 3 * (size_t)(n > 0 ? n : 1)));
    SQ_CALL(SQ_CALLOC(w->vlast, 3 * (size_t)(n > 0 ? n : 1)));
  }
  w->interval = interval;
  w->count = keep > 0 ? keep : 0;
  SQ_CALL(SQ_CALLOC(w->text, n > 0 ? n : 1));
  SQ_CALL(SQ_CALLOC(w->owned, n > 0 ? n : 1));
  for (int i = 0; i < n; ++i) {
    w->owned[i] = owned ? owned[i] : 1;
    if (!w->owned[i]) continue;
    SQ_CALL(SQ_CALLOC(w->text[i], SQ_OUT_PATH));
    const char *name = names ? names[i] : NULL;
    if (seissol) /* SeisSol numbers every receiver and adds the writing rank */
      snprintf(w->text[i], SQ_OUT_PATH, "%s/%s-receiver-%05d-%05d.dat", dir, prefix, i + 1, sq_io_rank());
    else if (name) snprintf(w->text[i], SQ_OUT_PATH, "%s/%s-receiver-%s.dat", dir, prefix, name);
    else snprintf(w->text[i], SQ_OUT_PATH, "%s/%s-receiver-%05d.dat", dir, prefix, i + 1);
    if (keep < 0) SQ_CALL(receiver_text_create(w->text[i], i + 1, name, displacement, &x[3 * i], seissol));
    else {
      SQ_CALL(same_columns(w->text[i], displacement));
      SQ_CALL(sq_text_truncate(w->text[i], RECEIVER_HEADER_LINES, keep));
    }
    if (displacement && keep > 0) SQ_CALL(displacement_resume(w, i));
  }
  if (hdf5) {
    snprintf(w->h5, sizeof(w->h5), "%s/%s-receivers.h5", dir, prefix);
    if (keep < 0) SQ_CALL(receiver_h5_create(w->h5, n, x, names, interval, displacement));
    else SQ_CALL(receiver_h5_cut(w->h5, n, keep, displacement));
  }
  return SQ_SUCCESS;
}

int sq_receiver_writer_append(sq_receiver_writer *w, int64_t first, int64_t count, const double *samples) {
  if (count <= 0 || w->n == 0) return SQ_SUCCESS;
  SQ_CHECK(first == w->count, SQ_ERR_INTERNAL, "receiver samples out of order: %lld written, next %lld",
           (long long)w->count, (long long)first);
  if (w->disp) { /* u(t_j) = u(t_j-1) + interval (v(t_j-1) + v(t_j)) / 2, u(0) = 0 */
    if (count > w->du_cap) {
      double *p = realloc(w->du, sizeof(double) * 3 * (size_t)count * (size_t)w->n);
      SQ_CHECK(p, SQ_ERR_MEMORY, "out of memory integrating receiver displacements");
      w->du = p, w->du_cap = count;
    }
    for (int64_t j = 0; j < count; ++j)
      for (int i = 0; i < w->n; ++i)
        for (int c = 0; c < 3; ++c) {
          const double v = samples[((size_t)j * w->n + i) * 9 + 6 + c];
          double *u = &w->u[3 * i + c];
          *u = first + j == 0 ? 0.0 : *u + 0.5 * w->interval * (w->vlast[3 * i + c] + v);
          w->vlast[3 * i + c] = v;
          w->du[((size_t)j * w->n + i) * 3 + c] = *u;
        }
  }
  for (int i = 0; i < w->n; ++i) {
    if (!w->owned[i]) continue;
    FILE *f = fopen(w->text[i], "a");
    if (!f) return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot append to '%s': %s", w->text[i], strerror(errno));
    for (int64_t j = 0; j < count; ++j) {
      const double *v = samples + ((size_t)j * w->n + i) * 9;
      const char *fmt = w->seissol ? "  %.15e" : " % .16E"; /* SeisSol: scientific, 15 digits */
      fprintf(f, fmt + 1, (double)(first + j) * w->interval);
      for (int p = 0; p < 9; ++p) fprintf(f, fmt, v[p]);
      for (int c = 0; w->disp && c < 3; ++c) fprintf(f, fmt, w->du[((size_t)j * w->n + i) * 3 + c]);
      fputc('\n', f);
    }
    const int bad = ferror(f);
    if (fclose(f) || bad)
      return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot append to '%s': %s", w->text[i], strerror(errno));
  }
  if (w->hdf5) { /* /time from rank 0, each receiver's column of /data from the rank that owns it */
    h5_quiet q;
    sq_h5_quiet_begin(&q);
    double *times = malloc(sizeof(double) * (size_t)count);
    hid_t file = -1;
    int st = 0;
    IO_STEP(st, times ? 0 : -1);
    IO_STEP(st, file = sq_h5_file(w->h5, 0, H5F_ACC_RDWR));
    for (int64_t j = 0; times && j < count; ++j) times[j] = (double)(first + j) * w->interval;
    for (int k = 0; k < 2 + w->disp && !st; ++k) {
      hid_t set = -1;
      IO_STEP(st, set = H5Dopen2(file, h5_sets[k], H5P_DEFAULT));
      if (!st)
        st = sq_h5_append(set, k == 0 ? 1 : 3, first, count, k == 0 ? NULL : w->owned,
                          k == 0   ? times
                          : k == 1 ? samples
                                   : w->du);
      if (set >= 0) H5Dclose(set);
    }
    IO_STEP(st, sq_h5_close(&file));
    free(times);
    sq_h5_quiet_end(&q);
    if (st) {
      const int ierr = io_error(SQ_ERR_IO, __LINE__, "cannot append receiver samples to '%s'", w->h5);
      sq_h5_close_quiet(&file);
      return ierr;
    }
  }
  w->count += count;
  return SQ_SUCCESS;
}

int64_t sq_receiver_writer_count(const sq_receiver_writer *w) { return w ? w->count : 0; }

void sq_receiver_writer_close(sq_receiver_writer *w) {
  if (!w) return;
  for (int i = 0; i < w->n; ++i) SQ_FREE(w->text[i]);
  SQ_FREE(w->text);
  SQ_FREE(w->owned);
  SQ_FREE(w->u);
  SQ_FREE(w->vlast);
  free(w->du);
  SQ_FREE(w);
}
