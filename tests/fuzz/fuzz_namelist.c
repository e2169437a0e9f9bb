/** @file fuzz_namelist.c  libFuzzer harness of the namelist reader and the SeisSol import (io/namelist.c, seissol/). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "sq_namelist.h"
#include "sq_seissol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sq_namelist *nl = NULL;
  (void)sq_namelist_detect((const char *)data, size);
  if (sq_namelist_parse((const char *)data, size, "fuzz.par", &nl)) return 0;
  (void)sq_seissol_check_keys(nl, NULL);
  sq_namelist_free(nl);
  /* a namelist that parses: the whole import, from a file as the command line reads it */
  char path[256];
  sq_fuzz_write_temp(data, size, ".par", path, sizeof(path));
  char *yaml = NULL;
  if (!sq_seissol_import(path, NULL, &yaml, NULL)) free(yaml);
  unlink(path);
  return 0;
}
