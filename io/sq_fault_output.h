/**
 * @file sq_fault_output.h  The fault outputs of a run (io/fault_output.c): XDMF snapshots of the fault,
 * on-fault stations, rupture-time contours, and the fault checkpoint.
 */
#ifndef SQ_FAULT_OUTPUT_H
#define SQ_FAULT_OUTPUT_H
#include "sq_config.h"
#include "sq_fault.h"
#include "sq_solver.h"

/** Fault outputs of one run (opaque). */
typedef struct sq_fault_output sq_fault_output;
/**
 * @brief Open the fault outputs (none without a fault: *out = NULL) and write the rows of time @p time,
 * or, with @p restart (a fault checkpoint), continue the files of the interrupted run.  Collective.
 * @param f      the fault (NULL: none); its station logs are consumed by sq_fault_output_after
 * @param d      its discretisation
 * @param cfg    output directory, prefix and format, and the fault section
 * @param rank   this process's MPI rank, of @p nranks
 * @param nsteps sync intervals of the run, each of @p dt
 */
int sq_fault_output_open(sq_fault *f, const sq_disc *d, const sq_config *cfg, int rank, int nranks, double time,
                         int64_t nsteps, double dt, const char *restart, sq_fault_output **out);
/** @brief Path of the fault checkpoint that goes with checkpoint @p ckpt: "CKPT.fault". */
void sq_fault_checkpoint_path(const char *ckpt, char *out, size_t len);
/** @brief Write the friction state and the output counters of step @p step to @p path.  Collective: each
 * rank writes the faces whose "-" side it owns (parallel HDF5). */
int sq_fault_checkpoint_write(const sq_fault_output *o, const char *path, int64_t step);
/** @brief Read the friction state of step @p step back from @p path into @p f (NULL: nothing) (the same mesh
 * and config; any number @p nranks of ranks: each reads the rows of its own faces).  Collective. */
int sq_fault_checkpoint_read(sq_fault *f, int nranks, const char *path, int64_t step);
/** @brief After a sync interval, at time @p time: the station rows, and with @p snapshot (the caller's plan
 *  says fault.output_interval is due, or the run ends) a fault snapshot.  Collective. */
int sq_fault_output_after(sq_fault_output *o, double time, int snapshot);
/** @brief Write the rupture-time file, close and free (NULL is fine).  Collective. */
int sq_fault_output_close(sq_fault_output *o);

#endif
