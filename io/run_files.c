/** @file run_files.c  The energy CSV, the summary and the manifest of a run. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sq_config.h"
#include "sq_output.h"
#include "sq_run_files.h"

struct sq_energy_file {
  FILE *file;
  char dir[SQ_PATH_MAX];
};

int sq_energy_file_open(const char *dir, const char *prefix, int with_fault, int64_t restart_rows,
                        sq_energy_file **out) {
  return sq_energy_file_open_style(dir, prefix, with_fault, 0, restart_rows, out);
}

int sq_energy_file_open_style(const char *dir, const char *prefix, int with_fault, int seissol, int64_t restart_rows,
                              sq_energy_file **out) {
  sq_energy_file *f;
  SQ_CALL(SQ_CALLOC(f, 1));
  *out = f;
  snprintf(f->dir, sizeof(f->dir), "%s", dir);
  char path[SQ_PATH_MAX + 300];
  snprintf(path, sizeof(path), "%s/%s-energy.csv", dir, prefix);
  const int restart = restart_rows >= 0;
  if (restart) SQ_CALL(sq_text_truncate(path, 1, restart_rows * (seissol ? SQ_ENERGY_SEISSOL_LINES : 1)));
  f->file = fopen(path, restart ? "a" : "w");
  if (!f->file) return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write '%s': %s", path, strerror(errno));
  if (!restart && seissol) fprintf(f->file, "time,variable,measurement\n");
  else if (!restart)
    fprintf(f->file, "time,energy,kinetic,elastic%s\n",
            with_fault ? ",frictional_work,seismic_moment,moment_magnitude" : "");
  return SQ_SUCCESS;
}

int sq_energy_file_row(sq_energy_file *f, double time, const double e[3], const double *fault) {
  fprintf(f->file, "%.10e,%.10e,%.10e,%.10e", time, e[0], e[1], e[2]);
  if (fault) fprintf(f->file, ",%.10e,%.10e,%.6f", fault[0], fault[1], sq_moment_magnitude(fault[1]));
  fputc('\n', f->file);
  fflush(f->file);
  SQ_CHECK(!ferror(f->file), SQ_ERR_IO, "cannot write the energy file in '%s'", f->dir);
  return SQ_SUCCESS;
}

int sq_energy_file_row_seissol(sq_energy_file *f, double time, const double e[3], const double src[4]) {
  static const char *const names[SQ_ENERGY_SEISSOL_LINES] = {
      "gravitational_energy",   "acoustic_energy",        "acoustic_kinetic_energy",
      "elastic_energy",         "elastic_kinetic_energy", "total_frictional_work",
      "static_frictional_work", "seismic_moment",         "plastic_moment"};
  const double v[SQ_ENERGY_SEISSOL_LINES] = {0.0, 0.0, 0.0, e[2], e[1], src[0], src[1], src[2], src[3]};
  for (int k = 0; k < SQ_ENERGY_SEISSOL_LINES; ++k) fprintf(f->file, "%.16e,%s,%.16e\n", time, names[k], v[k]);
  fflush(f->file);
  SQ_CHECK(!ferror(f->file), SQ_ERR_IO, "cannot write the energy file in '%s'", f->dir);
  return SQ_SUCCESS;
}

void sq_energy_file_flush(sq_energy_file *f) { fflush(f->file); }

void sq_energy_file_close(sq_energy_file *f) {
  if (!f) return;
  if (f->file) fclose(f->file);
  SQ_FREE(f);
}

double sq_moment_magnitude(double m0) { return m0 > 0 ? 2.0 / 3.0 * (log10(m0) - 9.1) : NAN; }

int sq_run_summary_write(const char *path, const sq_run_summary *s) {
  FILE *fs = fopen(path, "w");
  if (!fs) return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write '%s': %s", path, strerror(errno));
  fprintf(fs,
          "config: %s\ncells: %lld\norder: %d\nprecision: %s\nsync_intervals: %lld\ndt_sync: %.10e\nend_time: %.10e\n",
          s->config, (long long)s->cells, s->order, s->precision == SQ_F64 ? "double" : "single",
          (long long)s->sync_intervals, s->dt_sync, s->end_time);
  fprintf(fs, "wall_time_steps: %.3f\nwall_time_stepping: %.3f\nelement_updates_per_second: %.4e\n", s->wall_time_steps,
          s->wall_time_stepping, s->updates_per_second);
  fprintf(fs, "element_updates_per_second_steady: %.4e\nsteady_sync_intervals: %lld\n", s->updates_per_second_steady,
          (long long)s->steady_sync_intervals);
  fprintf(fs, "element_updates_per_second_after_first_chunk: %.4e\n", s->updates_per_second_after_first_chunk);
  /* of the whole loop: copies of the solution to the host, and those with the checks and outputs */
  fprintf(fs, "wall_time_fetch: %.3f\nwall_time_outputs: %.3f\n", s->wall_time_fetch, s->wall_time_outputs);
  fprintf(fs, "task_submission_seconds: %.3f\n", s->task_submission_seconds);
  /* runtime.steps_per_task: 0 where no cluster qualified (docs/CONFIG.md) */
  fprintf(fs, "grouped_step_tasks: %lld\n", (long long)s->grouped_step_tasks);
  fprintf(fs, "folded_corrections: %lld\n", (long long)s->folded_corrections);
  fprintf(fs, "folded_predictions: %lld\n", (long long)s->folded_predictions);
  fprintf(fs, "gts_equivalent_updates_per_second: %.4e\nclusters: %d\nlts_work_ratio: %.6f\n",
          s->gts_equivalent_updates_per_second, s->clusters, s->lts_work_ratio);
  fprintf(fs, "ranks: %d\nenergy: %.10e\n", s->ranks, s->energy);
  if (s->has_l2) fprintf(fs, "l2_error_relative: %.6e\n", s->l2_error_relative);
  fprintf(fs, "dofs_hash: %016llx\n", (unsigned long long)s->dofs_hash);
  if (s->has_fault) /* the rupture at the end of the run (SI units: N m, m^2, m, m/s) */
    fprintf(fs,
            "seismic_moment: %.6e\nmoment_magnitude: %.4f\nfault_area: %.6e\nruptured_area: %.6e\n"
            "peak_slip: %.6e\npeak_slip_rate: %.6e\npeak_slip_position: %.6e %.6e %.6e\npeak_face_slip: %.6e\n",
            s->seismic_moment, sq_moment_magnitude(s->seismic_moment), s->fault_area, s->ruptured_area, s->peak_slip,
            s->peak_slip_rate, s->peak_slip_at[0], s->peak_slip_at[1], s->peak_slip_at[2], s->peak_face_slip);
  if (s->has_plastic)
    fprintf(fs,
            "plastic_strain_hash: %016llx\nplastic_yielded_cells: %lld\nplastic_yield_updates: %lld\n"
            "plastic_yield_fraction: %.6e\nplastic_max_eta: %.10e\n",
            (unsigned long long)s->plastic_strain_hash, (long long)s->plastic_yielded_cells,
            (long long)s->plastic_yield_updates, s->plastic_yield_fraction, s->plastic_max_eta);
  fclose(fs);
  return SQ_SUCCESS;
}

/* ---- the manifest: PREFIX-manifest.txt, the files of the run, one path a line ---- */

/** Paths, growable. */
typedef struct path_list {
  char **path;
  int n, cap;
} path_list;

struct sq_run_files {
  char dir[SQ_PATH_MAX], ckpt_dir[SQ_PATH_MAX], prefix[256];
  char manifest[SQ_PATH_MAX + 300];
  struct timespec start; /* the manifest's mtime when the run began: files written later are the run's */
  int restart, keep_stale;
  path_list old;   /* the previous manifest's files */
  path_list stale; /* of those, the ones kept (keep_stale) and not written again */
  path_list files; /* the run's files, after sq_run_files_finish */
};

static int list_add(path_list *l, const char *path) {
  for (int i = 0; i < l->n; ++i)
    if (!strcmp(l->path[i], path)) return SQ_SUCCESS;
  if (l->n == l->cap) {
    const int cap = l->cap ? 2 * l->cap : 32;
    char **p = realloc(l->path, sizeof(char *) * (size_t)cap);
    SQ_CHECK(p, SQ_ERR_MEMORY, "out of memory for the list of output files");
    l->path = p, l->cap = cap;
  }
  l->path[l->n] = strdup(path);
  SQ_CHECK(l->path[l->n], SQ_ERR_MEMORY, "out of memory for the list of output files");
  ++l->n;
  return SQ_SUCCESS;
}

static void list_free(path_list *l) {
  for (int i = 0; i < l->n; ++i) free(l->path[i]);
  free(l->path);
  memset(l, 0, sizeof(*l));
}

static int cmp_path(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Is @p path an output of this prefix: DIR/PREFIX-NAME in the output or checkpoint folder?  Only such
 * paths of an old manifest are ever removed. */
static int is_output(const sq_run_files *f, const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const size_t np = strlen(f->prefix), nb = (size_t)(base - path);
  if (strncmp(base, f->prefix, np) || base[np] != '-' || strchr(base, '/')) return 0;
  const int in_dir = nb == strlen(f->dir) + 1 && !strncmp(path, f->dir, nb - 1);
  const int in_ckpt = nb == strlen(f->ckpt_dir) + 1 && !strncmp(path, f->ckpt_dir, nb - 1);
  return in_dir || in_ckpt;
}

/* @p path as the manifest writes it: relative to the output folder when it is in it, else as it is
 * (checkpoint.directory elsewhere), so that a copied folder's manifest still holds */
static const char *manifest_name(const sq_run_files *f, const char *path) {
  const size_t nd = strlen(f->dir);
  return !strncmp(path, f->dir, nd) && path[nd] == '/' ? path + nd + 1 : path;
}

static int newer_or_same(const struct timespec *a, const struct timespec *b) {
  return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec >= b->tv_nsec);
}

/* The files PREFIX-* of @p dir into @p list: those written since the run began (@p since), or all. */
static int scan(sq_run_files *f, const char *dir, int since, path_list *list) {
  DIR *d = opendir(dir);
  if (!d) return SQ_SUCCESS;
  const size_t np = strlen(f->prefix);
  struct dirent *e;
  int ierr = SQ_SUCCESS;
  char path[SQ_PATH_MAX + 300];
  while (!ierr && (e = readdir(d))) {
    if (strncmp(e->d_name, f->prefix, np) || e->d_name[np] != '-') continue;
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    struct stat st;
    if (!strcmp(path, f->manifest) || stat(path, &st) || !S_ISREG(st.st_mode)) continue;
    const size_t nn = strlen(e->d_name);
    if (nn > 4 && !strcmp(e->d_name + nn - 4, ".tmp")) continue; /* a checkpoint being written */
    if (!since || newer_or_same(&st.st_mtim, &f->start)) ierr = list_add(list, path);
  }
  closedir(d);
  return ierr;
}

int sq_run_files_begin(const char *dir, const char *ckpt_dir, const char *prefix, int restart, int keep_stale,
                       sq_run_files **out) {
  sq_run_files *f;
  SQ_CALL(SQ_CALLOC(f, 1));
  *out = f;
  snprintf(f->dir, sizeof(f->dir), "%s", dir);
  snprintf(f->ckpt_dir, sizeof(f->ckpt_dir), "%s", ckpt_dir && ckpt_dir[0] ? ckpt_dir : dir);
  snprintf(f->prefix, sizeof(f->prefix), "%s", prefix);
  snprintf(f->manifest, sizeof(f->manifest), "%s/%s-manifest.txt", dir, prefix);
  f->restart = restart, f->keep_stale = keep_stale;
  FILE *m = fopen(f->manifest, "r");
  char line[SQ_PATH_MAX + 400];
  while (m && fgets(line, sizeof(line), m)) {
    line[strcspn(line, "\n")] = 0;
    if (!line[0] || line[0] == '#') continue;
    char path[SQ_PATH_MAX + 700];
    if (strchr(line, '/')) snprintf(path, sizeof(path), "%s", line);
    else snprintf(path, sizeof(path), "%s/%s", dir, line);
    if (is_output(f, path) && strcmp(path, f->manifest)) SQ_CALL(list_add(&f->old, path));
  }
  if (m) fclose(m);
  if (restart) { /* the files of the run it continues, also where that run could not write its manifest */
    SQ_CALL(scan(f, f->dir, 0, &f->old));
    if (strcmp(f->ckpt_dir, f->dir)) SQ_CALL(scan(f, f->ckpt_dir, 0, &f->old));
  }
  /* a new run: the old run's files go (unless kept), before this run writes its own */
  for (int i = 0; i < f->old.n && !restart; ++i) {
    struct stat st;
    if (stat(f->old.path[i], &st) || !S_ISREG(st.st_mode)) continue;
    if (keep_stale) SQ_CALL(list_add(&f->stale, f->old.path[i]));
    else if (unlink(f->old.path[i]))
      return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot remove '%s', an output of the previous run of %s: %s",
                      f->old.path[i], f->manifest, strerror(errno));
  }
  /* the manifest, rewritten at the end, marks the start: what is written after it belongs to this run */
  m = fopen(f->manifest, "w");
  if (!m) return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write '%s': %s", f->manifest, strerror(errno));
  fprintf(m, "# the files of a run with prefix %s: written at its end\n", prefix);
  fclose(m);
  struct stat st;
  SQ_CHECK(!stat(f->manifest, &st), SQ_ERR_IO, "cannot read back '%s': %s", f->manifest, strerror(errno));
  f->start = st.st_mtim;
  return SQ_SUCCESS;
}

int sq_run_files_finish(sq_run_files *f) {
  if (!f) return SQ_SUCCESS;
  for (int i = 0; i < f->files.n; ++i) free(f->files.path[i]);
  f->files.n = 0;
  SQ_CALL(scan(f, f->dir, 1, &f->files));
  if (strcmp(f->ckpt_dir, f->dir)) SQ_CALL(scan(f, f->ckpt_dir, 1, &f->files));
  for (int i = 0; i < f->old.n && f->restart; ++i) { /* a restart continues the files of the run it continues */
    struct stat st;
    if (!stat(f->old.path[i], &st) && S_ISREG(st.st_mode)) SQ_CALL(list_add(&f->files, f->old.path[i]));
  }
  qsort(f->files.path, (size_t)f->files.n, sizeof(char *), cmp_path);
  int kept = 0; /* stale files written again are not stale */
  for (int i = 0; i < f->stale.n; ++i) {
    int again = 0;
    for (int j = 0; j < f->files.n && !again; ++j) again = !strcmp(f->files.path[j], f->stale.path[i]);
    if (!again) f->stale.path[kept++] = f->stale.path[i];
    else free(f->stale.path[i]);
  }
  f->stale.n = kept;
  char tmp[SQ_PATH_MAX + 310];
  snprintf(tmp, sizeof(tmp), "%s.tmp", f->manifest);
  FILE *m = fopen(tmp, "w");
  if (!m) return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write '%s': %s", tmp, strerror(errno));
  for (int i = 0; i < f->files.n; ++i) fprintf(m, "%s\n", manifest_name(f, f->files.path[i]));
  const int bad = ferror(m);
  if (fclose(m) || bad || rename(tmp, f->manifest))
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write '%s': %s", f->manifest, strerror(errno));
  return SQ_SUCCESS;
}

const char *sq_run_files_manifest(const sq_run_files *f) { return f->manifest; }

int sq_run_files_count(const sq_run_files *f) { return f->files.n; }

const char *sq_run_files_path(const sq_run_files *f, int i) { return manifest_name(f, f->files.path[i]); }

int sq_run_files_stale_count(const sq_run_files *f) { return f->stale.n; }

const char *sq_run_files_stale_path(const sq_run_files *f, int i) { return f->stale.path[i]; }

void sq_run_files_destroy(sq_run_files *f) {
  if (!f) return;
  list_free(&f->old);
  list_free(&f->stale);
  list_free(&f->files);
  SQ_FREE(f);
}

int sq_mkdir_p(const char *path, const char *what) {
  char buf[SQ_PATH_MAX];
  snprintf(buf, sizeof(buf), "%s", path);
  for (char *p = buf + 1; *p; ++p) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(buf, 0777) && errno != EEXIST)
      return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot create %sdirectory '%s': %s", what, buf, strerror(errno));
    *p = '/';
  }
  if (mkdir(buf, 0777) && errno != EEXIST)
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot create %sdirectory '%s': %s", what, buf, strerror(errno));
  return SQ_SUCCESS;
}
