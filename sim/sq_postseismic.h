/**
 * @file sq_postseismic.h  `starquake postseismic CONFIG.yaml`: the crust's quasi-static response to a fault slip
 * and its Maxwell viscoelastic relaxation (docs/POSTSEISMIC.md).  From the configuration's mesh and materials
 * (mesh:, materials:) and its postseismic: section, the run builds the second-order mesh (src/sq_qs.h), imposes the
 * slip of a patch file or of a rupture's fault output on the mesh's fault faces, solves the elastic problem at
 * t = 0 and then steps the relaxation (src/sq_qs_visco.h), writing GPS-like station series and surface snapshots
 * (io/sq_postseismic_io.h) as it goes.
 */
#ifndef SQ_POSTSEISMIC_H
#define SQ_POSTSEISMIC_H

#include <signal.h>

#include "sq_config.h"

/** What a run did. */
typedef struct sq_ps_summary {
  int64_t ncell, ndof, nfault_face;
  int nstep;     /**< viscoelastic steps taken */
  double time;   /**< simulated seconds reached */
  int nsnapshot; /**< surface snapshots written */
  int nstation;  /**< stations written */
  int64_t outer_iters, inner_iters, coarse_iters;
  int stopped;    /**< a stop request ended the run early (outputs complete up to the last step) */
  double seconds; /**< wall time of the solves */
} sq_ps_summary;

/**
 * @brief Run the configuration's postseismic section (single process).  Progress goes to stderr (one line per
 * step: step, simulated time in years, iterations, elapsed time and ETA).  When *@p stop becomes nonzero (a
 * signal handler sets it), the run ends after the step in flight with every output written up to that step
 * and closed, and returns SQ_STOPPED.
 */
int sq_postseismic_run(const sq_config *cfg, volatile sig_atomic_t *stop, sq_ps_summary *sum);

#endif
