/**
 * @file rollback.c  A stop that does not wait for the sync interval in flight.  Before a sync interval
 * (or a chunk of them) the state that a checkpoint holds is copied aside: the dofs, the friction state
 * (and the thermal-pressurization state of a run with it) with the station logs' lengths, the plastic strain, the
 * memory variables of attenuation, and the time.  A stop request then cancels the tasks that have not started (each
 * running task ends normally), and the state is put back, so that the checkpoint is written at the sync point where the
 * chunk began, where every LTS cluster is at the same time. The work of the cancelled chunk is done again by the
 * restart.
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sq_sim.h"

struct sq_sim_backup {
  int64_t steps; /* the chunk's first sync interval; -1: nothing saved */
  double time;
  void *dofs;
  size_t dofs_bytes;
  sq_fault_point *points;
  size_t points_bytes;
  sq_tp_state *tp; /* thermal pressurization only */
  size_t tp_bytes;
  int64_t *log_rows;
  double *strain;
  uint8_t *yielded;
  void *ane; /* memory variables of viscoelastic runs */
  size_t ane_bytes;
};

/* 1 while an advance whose start is saved is in flight; a stop request seen or arrived */
static atomic_int armed;
static volatile sig_atomic_t requested;

void sq_sim_interrupt(void) {
  requested = 1;
  if (atomic_load(&armed)) sq_runtime_cancel();
}

int sq_sim_cancelled(const sq_sim *s) { return s->cancelled; }

static int save_alloc(sq_sim *s, struct sq_sim_backup **out) {
  struct sq_sim_backup *b;
  SQ_CALL(SQ_CALLOC(b, 1));
  *out = b;
  b->steps = -1;
  b->dofs_bytes = (size_t)s->disc->nelem * sq_disc_elem_bytes(s->disc);
  b->dofs = malloc(b->dofs_bytes + 1);
  int ok = b->dofs != NULL;
  if (s->fault) {
    const sq_fault *f = s->fault;
    b->points_bytes = sizeof(sq_fault_point) * (size_t)(f->nface * f->npoint);
    b->points = malloc(b->points_bytes + 1);
    b->log_rows = malloc(sizeof(int64_t) * (size_t)(f->nstation + 1));
    ok = ok && b->points && b->log_rows;
    if (f->tp) {
      b->tp_bytes = sizeof(sq_tp_state) * (size_t)(f->nface * f->npoint);
      b->tp = malloc(b->tp_bytes + 1);
      ok = ok && b->tp;
    }
  }
  if (s->disc->ane) {
    b->ane_bytes = (size_t)s->disc->nelem * sq_disc_ane_bytes(s->disc);
    b->ane = malloc(b->ane_bytes + 1);
    ok = ok && b->ane;
  }
  if (s->plastic) {
    const int64_t n = s->plastic->nelem;
    b->strain = malloc(sizeof(double) * SQ_PLASTIC_STRAIN_COLS * (size_t)n + 1);
    b->yielded = malloc((size_t)n + 1);
    ok = ok && b->strain && b->yielded;
  }
  SQ_CHECK(ok, SQ_ERR_MEMORY,
           "out of memory for the copy of the state that lets a stop skip the rest of a sync interval (%.3g GiB); "
           "set checkpoint.stop_within to a large value to go without it",
           (double)(b->dofs_bytes + b->points_bytes + b->tp_bytes) / (1 << 30));
  return SQ_SUCCESS;
}

int sq_sim_save(sq_sim *s) {
  if (!s->backup) SQ_CALL(save_alloc(s, &s->backup));
  if (s->rt) SQ_CALL(sq_runtime_sync(s->rt)); /* the host copies are valid */
  struct sq_sim_backup *b = s->backup;
  b->steps = s->steps;
  b->time = s->time;
  memcpy(b->dofs, s->disc->dofs, b->dofs_bytes);
  if (b->ane) memcpy(b->ane, s->disc->ane, b->ane_bytes);
  if (s->fault) {
    const sq_fault *f = s->fault;
    memcpy(b->points, f->point, b->points_bytes);
    if (b->tp) memcpy(b->tp, f->tp, b->tp_bytes);
    for (int k = 0; k < f->nstation; ++k) b->log_rows[k] = f->log[k].n;
  }
  if (s->plastic) {
    const int64_t n = s->plastic->nelem;
    memcpy(b->strain, s->plastic->strain, sizeof(double) * SQ_PLASTIC_STRAIN_COLS * (size_t)n);
    memcpy(b->yielded, s->plastic->yielded, (size_t)n);
  }
  return SQ_SUCCESS;
}

void sq_sim_arm(const sq_sim *s) {
  if (!s->backup || s->backup->steps != s->steps) return;
  atomic_store(&armed, 1);
  if (requested) sq_runtime_cancel(); /* a request that came before the arming */
}

void sq_sim_disarm(void) { atomic_store(&armed, 0); }

int sq_sim_rollback(sq_sim *s) {
  struct sq_sim_backup *b = s->backup;
  SQ_CHECK(b && b->steps >= 0, SQ_ERR_INTERNAL, "no saved state to go back to");
  if (s->rt) SQ_CALL(sq_runtime_host_overwrite(s->rt));
  memcpy(s->disc->dofs, b->dofs, b->dofs_bytes);
  if (b->ane) memcpy(s->disc->ane, b->ane, b->ane_bytes);
  if (s->fault) {
    sq_fault *f = s->fault;
    memcpy(f->point, b->points, b->points_bytes);
    if (b->tp) memcpy(f->tp, b->tp, b->tp_bytes);
    for (int k = 0; k < f->nstation; ++k) f->log[k].n = b->log_rows[k];
  }
  if (s->plastic) {
    const int64_t n = s->plastic->nelem;
    memcpy(s->plastic->strain, b->strain, sizeof(double) * SQ_PLASTIC_STRAIN_COLS * (size_t)n);
    memcpy(s->plastic->yielded, b->yielded, (size_t)n);
  }
  s->steps = b->steps;
  s->time = b->time;
  s->cancelled = 0;
  sq_runtime_cancel_clear();
  return SQ_SUCCESS;
}

void sq_sim_save_free(sq_sim *s) {
  struct sq_sim_backup *b = s->backup;
  if (!b) return;
  free(b->dofs), free(b->points), free(b->tp), free(b->log_rows), free(b->strain), free(b->yielded), free(b->ane);
  SQ_FREE(s->backup);
}
