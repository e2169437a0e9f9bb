/**
 * @file sq_nrf.h  NRF finite sources: the netCDF files of point sub-faults that SeisSol's rconv tool
 * writes from an SRF file (SeisSol's `Type = 42`).  Layout and conventions: docs/SOURCES.md ("NRF").
 */
#ifndef SQ_NRF_H
#define SQ_NRF_H

#include "sq_source.h"

/**
 * @brief Read an NRF file and append its sub-faults to @p list as SQ_SOURCE_SLIP point sources.
 *
 * The file holds the variables centres(source) of compound type {x, y, z}, subfaults(source) of
 * compound type {tinit, timestep, mu (optional), area, tan1, tan2, normal} (the last three {x, y, z}),
 * sroffsets(sroffset = source + 1, direction = 3) and sliprates1, sliprates2, sliprates3 (one series
 * after the other; sub-fault i's series along direction k are samples sroffsets[i][k] ..
 * sroffsets[i+1][k] - 1 of sliprates<k+1>).  Compound fields are found by name, whatever their
 * offsets in the file's types.  Each series of at least two samples, not all zero, becomes one point
 * source at the sub-fault's centre with normal `normal`, slip direction tan1, tan2 or normal, the
 * sub-fault's area and mu, and the piecewise-linear time function of the samples at tinit + j timestep.
 * Errors name the file, the variable and the sub-fault index.
 */
int sq_read_nrf(const char *path, sq_source_list *list);

#endif
