/**
 * @file fuzz_common.h  Shared helpers of the libFuzzer harnesses: the input bytes written to a
 * temporary file (the readers take a path), in /dev/shm when it exists so that no disk is touched.
 */
#ifndef SQ_FUZZ_COMMON_H
#define SQ_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/** Write @p size bytes to a fresh temporary file whose name ends in @p suffix; fills @p path. */
static int sq_fuzz_write_temp(const uint8_t *data, size_t size, const char *suffix, char *path, size_t len) {
  const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(path, len, "%s/sq_fuzz_XXXXXX%s", dir, suffix);
  int fd = mkstemps(path, (int)strlen(suffix));
  if (fd < 0) {
    perror("mkstemps");
    abort();
  }
  size_t done = 0;
  while (done < size) {
    ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) {
      perror("write");
      abort();
    }
    done += (size_t)n;
  }
  close(fd);
  return 0;
}

#endif
