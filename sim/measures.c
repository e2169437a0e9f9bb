/**
 * @file measures.c  What a simulation reports about its state, over all ranks: energies, the error
 * against a plane wave, hashes of the dofs and of per-element rows, plasticity and rupture statistics.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "sq_fields.h"
#include "sq_sim.h"

double sq_sim_energy(const sq_sim *s) {
  sq_sim_workers_pause(); /* the sums are threaded: the cores go to OpenMP meanwhile */
  double local = sq_disc_energy(s->disc), total = local;
  sq_sim_workers_resume();
  if (s->nranks > 1) MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

void sq_sim_energy_split(const sq_sim *s, double *kinetic, double *elastic) {
  double split[2];
  sq_sim_workers_pause();
  sq_fields_energy(s->disc, &split[0], &split[1]);
  sq_sim_workers_resume();
  if (s->nranks > 1) MPI_Allreduce(MPI_IN_PLACE, split, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  *kinetic = split[0];
  *elastic = split[1];
}

void sq_sim_l2_error(const sq_sim *s, double *err, double *norm) {
  double loc[2], tot[2];
  sq_sim_workers_pause(); /* the solution is on the host (sq_runtime_sync); the cores go to OpenMP */
  sq_disc_l2_error(s->disc, sq_planewave_eval, &s->pw, s->time, &loc[0], &loc[1]);
  sq_sim_workers_resume();
  loc[0] *= loc[0], loc[1] *= loc[1];
  tot[0] = loc[0], tot[1] = loc[1];
  if (s->nranks > 1) MPI_Allreduce(loc, tot, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  *err = sqrt(tot[0]);
  *norm = sqrt(tot[1]);
}

uint64_t sq_sim_hash(const sq_sim *s) { return sq_sim_hash_rows(s, s->disc->dofs, sq_disc_elem_bytes(s->disc)); }

uint64_t sq_sim_hash_rows(const sq_sim *s, const void *rows, size_t eb) {
  const sq_disc *d = s->disc;
  uint64_t h = 1469598103934665603ULL;
  if (s->nranks == 1) { /* local order -> mesh-cell order, as sq_disc_hash does for the dofs */
    for (int64_t c = 0; c < s->mesh->ncell; ++c) {
      const int64_t e = d->elem_of[c];
      if (e < 0 || d->is_ghost[e]) continue;
      const unsigned char *p = (const unsigned char *)rows + e * eb;
      for (size_t i = 0; i < eb; ++i) h = (h ^ p[i]) * 1099511628211ULL;
    }
    return h;
  }
  /* rank 0 hashes every rank's owned rows in global cell order, window by window of global ids (so
   * that it never holds more than 16 MiB of rows): each rank's owned cells ascend by global id */
  const sq_mesh *m = s->mesh;
  const int64_t nglobal = sq_mesh_ncell_global(m), window = (int64_t)(((size_t)16 << 20) / eb) + 1; /* 16 MiB */
  int64_t next = 0; /* next local cell to look at */
  char *data = malloc(eb * (size_t)window + 1), *all = NULL;
  int64_t *ids = malloc(sizeof(int64_t) * (size_t)window + 1), *all_ids = NULL;
  int *counts = NULL, *displs = NULL, *bcounts = NULL, *bdispls = NULL;
  if (s->rank == 0) {
    counts = calloc(s->nranks, sizeof(int)), displs = calloc(s->nranks, sizeof(int));
    bcounts = calloc(s->nranks, sizeof(int)), bdispls = calloc(s->nranks, sizeof(int));
    all = malloc(eb * (size_t)window + 1), all_ids = malloc(sizeof(int64_t) * (size_t)window + 1);
  }
  char *row = s->rank == 0 ? malloc(eb * (size_t)window + 1) : NULL; /* window rows in global order */
  unsigned char *have = s->rank == 0 ? calloc((size_t)window, 1) : NULL;
  for (int64_t lo = 0; lo < nglobal; lo += window) {
    const int64_t hi = lo + window < nglobal ? lo + window : nglobal;
    int n = 0;
    for (; next < m->ncell && sq_mesh_global_cell(m, next) < hi; ++next) {
      const int64_t e = d->elem_of[next];
      if (e < 0 || d->is_ghost[e]) continue;
      ids[n] = sq_mesh_global_cell(m, next) - lo;
      memcpy(data + (size_t)n * eb, (const char *)rows + e * eb, eb);
      ++n;
    }
    MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (s->rank == 0) {
      int total = 0;
      for (int r = 0; r < s->nranks; ++r) {
        displs[r] = total, bcounts[r] = counts[r] * (int)eb, bdispls[r] = total * (int)eb;
        total += counts[r];
      }
    }
    MPI_Gatherv(ids, n, MPI_INT64_T, all_ids, counts, displs, MPI_INT64_T, 0, MPI_COMM_WORLD);
    MPI_Gatherv(data, n * (int)eb, MPI_BYTE, all, bcounts, bdispls, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (s->rank == 0) {
      const int total = displs[s->nranks - 1] + counts[s->nranks - 1];
      memset(have, 0, (size_t)(hi - lo));
      for (int i = 0; i < total; ++i) {
        memcpy(row + (size_t)all_ids[i] * eb, all + (size_t)i * eb, eb);
        have[all_ids[i]] = 1;
      }
      for (int64_t c = 0; c < hi - lo; ++c) {
        if (!have[c]) continue;
        const unsigned char *p = (const unsigned char *)row + c * eb;
        for (size_t i = 0; i < eb; ++i) h = (h ^ p[i]) * 1099511628211ULL;
      }
    }
  }
  MPI_Bcast(&h, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  free(ids), free(data), free(all), free(all_ids), free(row), free(have);
  free(counts), free(displs), free(bcounts), free(bdispls);
  return h;
}

void sq_sim_plasticity_stats(const sq_sim *s, sq_plasticity_stats *st) {
  memset(st, 0, sizeof(*st));
  if (!s->plastic) return;
  const sq_plastic_state *ps = s->plastic;
  st->strain_hash = sq_sim_hash_rows(s, ps->strain, SQ_PLASTIC_STRAIN_COLS * sizeof(double));
  st->yield_updates = ps->yield_updates;
  for (int64_t e = 0; e < s->disc->nelem; ++e) {
    if (s->disc->is_ghost[e]) continue;
    const double eta = ps->strain[SQ_PLASTIC_STRAIN_COLS * e + SQ_PLASTIC_STRAIN_COLS - 1];
    st->yielded_cells += eta > 0;
    st->max_eta = fmax(st->max_eta, eta);
  }
  if (s->nranks > 1) {
    int64_t counts[2] = {st->yield_updates, st->yielded_cells};
    MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &st->max_eta, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    st->yield_updates = counts[0], st->yielded_cells = counts[1];
  }
}

void sq_sim_rupture_stats(const sq_sim *s, sq_rupture_stats *st) {
  memset(st, 0, sizeof(*st));
  const sq_fault *f = s->fault;
  if (!f) return;
  double work, sums[2] = {0, 0}, peaks[2] = {0, 0}; /* areas; peak slip rate, peak face-averaged slip */
  int64_t peak_face = -1;
  int peak_point = 0;
  sq_fault_energies(f, s->disc, &work, &st->seismic_moment);
  for (int64_t i = 0; i < f->nface; ++i) {
    const sq_fault_face *fc = &f->face[i];
    if (!fc->owned[0]) continue; /* a face shared by two ranks: the rank of its "-" side counts it */
    for (int p = 0; p < f->npoint; ++p) {
      const sq_friction_state *ps = &f->point[i * f->npoint + p].state;
      const double da = 2.0 * f->chi_weight[p] * fc->area; /* the weights sum to 1/2 */
      sums[0] += da;
      if (ps->rupture_time >= 0) sums[1] += da;
      const double slip = hypot(ps->slip[0], ps->slip[1]);
      if (slip > st->peak_slip) st->peak_slip = slip, peak_face = i, peak_point = p;
      peaks[0] = fmax(peaks[0], ps->peak_slip_rate);
    }
    sq_friction_state mean; /* the face's value in the fault output */
    double mean_rate;
    sq_fault_face_average(f, i, &mean, &mean_rate);
    peaks[1] = fmax(peaks[1], hypot(mean.slip[0], mean.slip[1]));
  }
  if (peak_face >= 0) sq_fault_point_position(f, s->disc, peak_face, peak_point, st->peak_slip_at);
  if (s->nranks > 1) {
    MPI_Allreduce(MPI_IN_PLACE, &st->seismic_moment, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, peaks, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    /* the position of the largest slip: from the rank that holds it (the lowest rank on a tie) */
    struct {
      double slip;
      int rank;
    } peak = {st->peak_slip, s->rank};
    MPI_Allreduce(MPI_IN_PLACE, &peak, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    st->peak_slip = peak.slip;
    MPI_Bcast(st->peak_slip_at, 3, MPI_DOUBLE, peak.rank, MPI_COMM_WORLD);
  }
  st->fault_area = sums[0], st->ruptured_area = sums[1];
  st->peak_slip_rate = peaks[0], st->peak_face_slip = peaks[1];
}
