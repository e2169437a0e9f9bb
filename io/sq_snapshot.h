/**
 * @file sq_snapshot.h  Wavefield and free-surface snapshots of a run (io/snapshot.c): XDMF + HDF5 series
 * in which every rank writes the rows of its own cells, vertices and surface triangles.
 */
#ifndef SQ_SNAPSHOT_H
#define SQ_SNAPSHOT_H
#include "sq_config.h"
#include "sq_solver.h"

/** The snapshot series of one run (opaque). */
typedef struct sq_snapshot_writer sq_snapshot_writer;

/**
 * @brief Open the series that @p cfg asks for (output.fields, output.surface, in output.format xdmf) of
 * mesh @p m (this rank's part) discretised by @p d, and write the snapshot of time @p time; with
 * @p restart_steps (snapshots already in the wavefield and surface files of an interrupted run) continue
 * those files instead, cut back to that many.  Collective over MPI ranks.
 */
int sq_snapshot_open(const sq_config *cfg, const sq_mesh *m, const sq_disc *d, int rank, int nranks, double time,
                     const double *plastic_strain, const int64_t restart_steps[2], sq_snapshot_writer **out);
/**
 * @brief Write the snapshot of time @p time from the host dofs of the discretisation and, for the plastic
 * fields, @p plastic_strain (SQ_PLASTIC_STRAIN_COLS per element; NULL without plasticity).  Collective.
 */
int sq_snapshot_write(sq_snapshot_writer *w, double time, const double *plastic_strain);
/** @brief Snapshots in the wavefield series so far (0 without it). */
int64_t sq_snapshot_wavefield_steps(const sq_snapshot_writer *w);
/** @brief Snapshots in the surface series so far (0 without it). */
int64_t sq_snapshot_surface_steps(const sq_snapshot_writer *w);
/** @brief Bytes of host memory the writer holds for values. */
size_t sq_snapshot_memory(const sq_snapshot_writer *w);
/**
 * @brief output.surface_displacement: add the velocity at @p time (the solution on the host) to the
 * free-surface displacement, by the trapezoidal rule from the previous call (or the opening).  Called
 * after every sync interval; nothing without the key.
 */
int sq_snapshot_integrate(sq_snapshot_writer *w, double time);
/** Close the files and free (NULL is fine). */
void sq_snapshot_close(sq_snapshot_writer *w);

#endif
