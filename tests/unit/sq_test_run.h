/** @file sq_test_run.h  Running a Check suite in the test process (StarPU's threads do not survive fork()). */
#ifndef SQ_TEST_RUN_H
#define SQ_TEST_RUN_H

#include <check.h>

/** @brief Run every test of @p suite without forking; returns the exit status (0: all passed). */
static inline int sq_test_run_nofork(Suite *suite) {
  SRunner *sr = srunner_create(suite);
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}

#endif
