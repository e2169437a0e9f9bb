/**
 * @file fuzz_source.c  libFuzzer harness of the text inputs of sources and receivers
 * (io/source_io.c): the first byte picks the finite-source (FSRM) reader, the time-function table
 * reader or the point-list reader; the rest is the file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "sq_source_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  char path[256];
  sq_fuzz_write_temp(data + 1, size - 1, ".txt", path, sizeof(path));
  switch (data[0] % 3) {
  case 0: {
    sq_source_list list = {0};
    (void)sq_read_fsrm(path, &list);
    sq_source_list_clear(&list);
    break;
  }
  case 1: {
    sq_stf stf = {0};
    if (sq_read_stf_table(path, &stf) == SQ_SUCCESS) {
      free(stf.time);
      free(stf.value);
    }
    break;
  }
  default: {
    int n = 0, *line = NULL;
    double *x = NULL;
    if (sq_read_points(path, &n, &x, &line) == SQ_SUCCESS) {
      free(x);
      free(line);
    }
    break;
  }
  }
  unlink(path);
  return 0;
}
