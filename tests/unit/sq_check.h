/** @file sq_check.h  What the unit suites share: assertions for hot loops, running a suite, starting a GPU suite. */
#ifndef SQ_CHECK_H
#define SQ_CHECK_H

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * Assertions for hot loops.  Check's ck_assert_* record a mark point (a write to the parent process)
 * on every call, which made checking a mesh face by face take seconds; these only report on failure.
 */
#define EXPECT(cond)                                                                                                   \
  do {                                                                                                                 \
    if (!(cond)) ck_abort_msg("assertion '%s' failed", #cond);                                                         \
  } while (0)
#define EXPECT_MSG(cond, ...)                                                                                          \
  do {                                                                                                                 \
    if (!(cond)) ck_abort_msg(__VA_ARGS__);                                                                            \
  } while (0)
#define EXPECT_INT(op, a, b)                                                                                           \
  do {                                                                                                                 \
    long long ea_ = (long long)(a), eb_ = (long long)(b);                                                              \
    if (!(ea_ op eb_)) ck_abort_msg("'%s %s %s' failed: %lld vs %lld", #a, #op, #b, ea_, eb_);                         \
  } while (0)
#define EXPECT_NEAR(a, b, tol)                                                                                         \
  do {                                                                                                                 \
    double ea_ = (a), eb_ = (b);                                                                                       \
    if (!(fabs(ea_ - eb_) <= (tol)))                                                                                   \
      ck_abort_msg("'%s' = %.17g, '%s' = %.17g, tolerance %g", #a, ea_, #b, eb_, (double)(tol));                       \
  } while (0)
/** EXPECT_INT with ==. */
#define EXPECT_EQ(a, b) EXPECT_INT(==, a, b)

/**
 * @brief A suite named @p name of one case that holds @p tests (NULL-terminated), each allowed @p timeout
 * seconds (0: 60 s).  The limit catches hangs: Check's own default, 4 s, is within reach of a test that takes
 * 1.5 s alone once the sanitizers and a loaded machine slow it down.
 */
static inline Suite *sq_test_suite(const char *name, double timeout, const TTest *const *tests) {
  Suite *s = suite_create(name);
  TCase *tc = tcase_create(name);
  tcase_set_timeout(tc, timeout > 0 ? timeout : 60);
  for (int i = 0; tests[i]; ++i) tcase_add_test(tc, tests[i]);
  suite_add_tcase(s, tc);
  return s;
}

/**
 * @brief Run @p suite (each test in a child process, or all in this one with @p fork 0: tests that share
 * an initialised runtime) and free it; EXIT_SUCCESS when no test failed.
 */
static inline int sq_test_run(Suite *suite, int fork) {
  SRunner *sr = srunner_create(suite);
  if (!fork) srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#ifdef SQ_USE_CUDA
int sq_cuda_device_count(void); /* src/cuda/sq_cuda.h */
/**
 * @brief The start of a GPU-against-CPU suite @p name: StarPU quiet, and the workers left to the test (none
 * from the environment).  Returns 77 (skip) when there is no CUDA device, else 0.
 */
static inline int sq_test_cuda_start(const char *name) {
  setenv("STARPU_SILENT", "1", 0);
  unsetenv("STARPU_NCPU"), unsetenv("STARPU_NCPUS"), unsetenv("STARPU_NCUDA"), unsetenv("STARPU_SCHED");
  if (sq_cuda_device_count() > 0) return 0;
  printf("%s: no CUDA device: skipped\n", name);
  return 77;
}
#endif

#endif
