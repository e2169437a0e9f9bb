/**
 * @file sq_easi.h  easi models (SeisSol's YAML description of materials, fault parameters and initial
 * stress): load a model file, evaluate parameters at points.  StarPU-free; docs/EASI.md lists the
 * components and how they differ from easi's.
 */
#ifndef SQ_EASI_H
#define SQ_EASI_H

#include <stdint.h>

typedef struct sq_easi sq_easi;
/* Load an easi YAML model.  Errors (SQ_ERR_INPUT) name the file, the line and the component
 * (e.g. "model.yaml:12: !LayeredModel: 'nodes' must be increasing"). */
int sq_easi_load(const char *path, sq_easi **model);
void sq_easi_free(sq_easi *model);
/* Evaluate parameters names[0..nnames-1] at npt points xyz[3*p..] with groups group[p] (NULL: all 0):
 * out[p*nnames + k].  A point no component accepts, or a parameter the model does not give, is an
 * error naming the point (coordinates, group) and the file/line of the component.  Thread-safe:
 * may be called from several threads; it may itself use OpenMP over points. */
int sq_easi_eval(const sq_easi *model, int64_t npt, const double *xyz, const int *group, int nnames,
                 const char *const *names, double *out);
/* The same, and on an error *bad (NULL: not wanted) is the index of the point its message names: the lowest
 * index of a failing point, whatever the number of threads (npt when no point failed). */
int sq_easi_eval_first_bad(const sq_easi *model, int64_t npt, const double *xyz, const int *group, int nnames,
                           const char *const *names, double *out, int64_t *bad);
/* Whether the model (for group 0 / any point) can give parameter `name` (for optional parameters). */
int sq_easi_provides(const sq_easi *model, const char *name);

#endif
