/** @file sq_common.h  Error handling, precision tags and small utilities shared by every module. */
#ifndef SQ_COMMON_H
#define SQ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** Error codes returned by every host function (0 = success). */
enum sq_error_code {
  SQ_SUCCESS = 0,
  SQ_ERR_INPUT = 1,    /**< bad user input: config, mesh, files */
  SQ_ERR_IO = 2,       /**< a file could not be read or written */
  SQ_ERR_MEMORY = 3,   /**< allocation failed */
  SQ_ERR_NUMERIC = 4,  /**< blow-up, singular matrix, failed convergence */
  SQ_ERR_RUNTIME = 5,  /**< StarPU / MPI / CUDA failure */
  SQ_ERR_INTERNAL = 6, /**< a bug: an invariant did not hold */
  SQ_STOPPED = 7       /**< stopped by a signal, every rank at the same step, its checkpoint written */
};

/** Working precision of the solution arrays and kernels. */
typedef enum { SQ_F64 = 0, SQ_F32 = 1 } sq_precision;

/** Size in bytes of one real in precision @p p. */
static inline size_t sq_real_size(sq_precision p) { return p == SQ_F64 ? sizeof(double) : sizeof(float); }

/**
 * @brief Record an error message (printf-style) with the source location; printed to stderr.
 * @return @p code, so that it can be returned directly.
 */
int sq_error(int code, const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/** @brief A further line of the last error's message (printf-style, newline added), held like it. */
void sq_error_more(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/**
 * @brief Hold (1) or print (0) error messages.  MPI ranks other than 0 hold them while they do what
 * every rank does alike (read the configuration, locate points), so that a run prints one message;
 * sq_error_release() prints what was held (a rank that failed alone), sq_error_discard() drops it.
 */
void sq_error_hold(int hold);
void sq_error_release(void);
void sq_error_discard(void);

/** Check a condition; on failure report the message and return @p code from the calling function. */
#define SQ_CHECK(cond, code, ...)                                                                                      \
  do {                                                                                                                 \
    if (!(cond)) return sq_error((code), __FILE__, __LINE__, __VA_ARGS__);                                             \
  } while (0)

/** Call a function returning an int error code and propagate a failure. */
#define SQ_CALL(expr)                                                                                                  \
  do {                                                                                                                 \
    int sq_call_ierr_ = (expr);                                                                                        \
    if (sq_call_ierr_) return sq_call_ierr_;                                                                           \
  } while (0)

/** Allocate zeroed memory for @p n objects of @p *ptr's type, 64-byte aligned; returns SQ_ERR_MEMORY on failure. */
#define SQ_CALLOC(ptr, n) sq_calloc_aligned((void **)&(ptr), (size_t)(n), sizeof(*(ptr)))
int sq_calloc_aligned(void **ptr, size_t n, size_t size);
/** Free memory from SQ_CALLOC (NULL is fine) and set the pointer to NULL. */
#define SQ_FREE(ptr)                                                                                                   \
  do {                                                                                                                 \
    sq_free_aligned(ptr);                                                                                              \
    (ptr) = NULL;                                                                                                      \
  } while (0)
void sq_free_aligned(void *ptr);

/** Threads the loop that follows over independent elements with OpenMP (set-up and diagnostics, never
 * inside a task); a no-op in a build without OpenMP.  The loop body must not return or jump out. */
#ifdef _OPENMP
#define SQ_PRAGMA(x) _Pragma(#x)
#define SQ_PARALLEL_FOR SQ_PRAGMA(omp parallel for schedule(static))
/** The same, keeping the smallest value any iteration stores in @p var (e.g. the first bad index). */
#define SQ_PARALLEL_FOR_MIN(var) SQ_PRAGMA(omp parallel for schedule(static) reduction(min : var))
#else
#define SQ_PARALLEL_FOR
#define SQ_PARALLEL_FOR_MIN(var)
#endif

/**
 * @brief Sums over n items that give the same bits whatever the thread count: @p block(lo, hi, acc,
 * ctx) adds the @p nsum (at most SQ_SUM_MAX) sums of items lo .. hi - 1 into acc[0 .. nsum - 1] (zeroed
 * first), for blocks of SQ_SUM_BLOCK items in parallel; the blocks' sums are then added in block order
 * into @p out.
 */
#define SQ_SUM_BLOCK 4096
#define SQ_SUM_MAX   16
void sq_sum_blocks(int64_t n, int nsum, void (*block)(int64_t lo, int64_t hi, double *acc, const void *ctx),
                   const void *ctx, double *out);

/**
 * @brief Threads of the SQ_PARALLEL_FOR loops (after a rank bound itself to fewer cores than the
 * machine has; OpenMP counted the cores at start-up).  OMP_NUM_THREADS, where set, wins.
 */
void sq_set_threads(int n);
/** Threads a SQ_PARALLEL_FOR loop would use now (1 in a build without OpenMP). */
int sq_get_threads(void);
/** Wall-clock seconds (CLOCK_MONOTONIC), for the set-up's timings. */
double sq_wall_seconds(void);
/** CPU seconds of the process, all its threads (CLOCK_PROCESS_CPUTIME_ID). */
double sq_cpu_seconds(void);

/** Verbosity of progress and diagnostic messages (0 quiet, 1 normal, 2 verbose). Set once at start-up. */
extern int sq_verbosity;

#endif
