/** @file run_files.c  The energy CSV and the summary of a run. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sq_config.h"
#include "sq_output.h"
#include "sq_run_files.h"

struct sq_energy_file {
  FILE *file;
  char dir[SQ_PATH_MAX];
};

int sq_energy_file_open(const char *dir, const char *prefix, int with_fault, int64_t restart_rows,
                        sq_energy_file **out) {
  sq_energy_file *f;
  SQ_CALL(SQ_CALLOC(f, 1));
  *out = f;
  snprintf(f->dir, sizeof(f->dir), "%s", dir);
  char path[SQ_PATH_MAX + 300];
  snprintf(path, sizeof(path), "%s/%s-energy.csv", dir, prefix);
  const int restart = restart_rows >= 0;
  if (restart) SQ_CALL(sq_text_truncate(path, 1, restart_rows));
  f->file = fopen(path, restart ? "a" : "w");
  if (!f->file) return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write '%s': %s", path, strerror(errno));
  if (!restart)
    fprintf(f->file, "time,energy,kinetic,elastic%s\n", with_fault ? ",frictional_work,seismic_moment" : "");
  return SQ_SUCCESS;
}

int sq_energy_file_row(sq_energy_file *f, double time, const double e[3], const double *fault) {
  fprintf(f->file, "%.10e,%.10e,%.10e,%.10e", time, e[0], e[1], e[2]);
  if (fault) fprintf(f->file, ",%.10e,%.10e", fault[0], fault[1]);
  fputc('\n', f->file);
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
  fprintf(fs, "gts_equivalent_updates_per_second: %.4e\nclusters: %d\nlts_work_ratio: %.6f\n",
          s->gts_equivalent_updates_per_second, s->clusters, s->lts_work_ratio);
  fprintf(fs, "ranks: %d\nenergy: %.10e\n", s->ranks, s->energy);
  if (s->has_l2) fprintf(fs, "l2_error_relative: %.6e\n", s->l2_error_relative);
  fprintf(fs, "dofs_hash: %016llx\n", (unsigned long long)s->dofs_hash);
  if (s->has_plastic)
    fprintf(fs,
            "plastic_strain_hash: %016llx\nplastic_yielded_cells: %lld\nplastic_yield_updates: %lld\n"
            "plastic_yield_fraction: %.6e\nplastic_max_eta: %.10e\n",
            (unsigned long long)s->plastic_strain_hash, (long long)s->plastic_yielded_cells,
            (long long)s->plastic_yield_updates, s->plastic_yield_fraction, s->plastic_max_eta);
  fclose(fs);
  return SQ_SUCCESS;
}
