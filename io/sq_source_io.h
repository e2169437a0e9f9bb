/**
 * @file sq_source_io.h  Text inputs of sources and receivers: tabulated source time functions,
 * finite-source files of point sub-faults (the layout of SeisSol's FSRM files), and point lists.
 * Every error names the file and the line.  Formats: docs/SOURCES.md.
 */
#ifndef SQ_SOURCE_IO_H
#define SQ_SOURCE_IO_H

#include "sq_source.h"

/**
 * @brief Read a tabulated time function: lines "time value" (strictly increasing times, at least two
 * rows); blank lines and '#' comments are skipped.  Fills stf->kind = SQ_STF_TABLE, nsample, time,
 * value (malloc'd; the caller or the source list frees them).
 */
int sq_read_stf_table(const char *path, sq_stf *stf);

/**
 * @brief Read a finite-source file of point sub-faults and append one point source per sub-fault.
 *
 * Layout (one header line before each block, as in SeisSol's FSRM files):
 *   header; 3 lines M11 M12 M13 / M21 M22 M23 / M31 M32 M33 (moment density per unit slip, local frame);
 *   optional: a header containing "velocity" and a line d1 d2 d3 (force density per unit slip);
 *   header; nsubfaults;
 *   header; nsubfaults lines "x y z strike dip rake area onset";
 *   header; "dt nsamples";
 *   header; nsubfaults x nsamples slip-rate samples (any number per line).
 * The local frame of a sub-fault is (slip direction, normal x slip, normal) from its strike, dip and
 * rake (sq_moment_from_sdr); the source of a sub-fault is area R M R^T and area R d, times the
 * slip-rate series starting at onset.
 */
int sq_read_fsrm(const char *path, sq_source_list *list);

/** @brief Read points "x y z" per line ('#' comments, blank lines skipped); @p line gets each point's line.
 */
int sq_read_points(const char *path, int *n, double **x, int **line);

#endif
