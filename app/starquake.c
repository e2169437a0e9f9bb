/** @file starquake.c  Command-line entry point. */
#include <mpi.h>
#include <string.h>

#include "sq_app.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

static void usage(void) {
  printf("starquake %s: ADER-DG earthquake simulation on StarPU\n\n"
         "usage: starquake CONFIG.yaml [--serial] [--tile-size N] [--scheduler NAME] [--output DIR] [--quiet] "
         "[--verbose]\n"
         "                               [--restart CHECKPOINT] [--strict]\n"
         "       starquake verify planewave --order O [--precision single|double] [--json]\n"
         "       starquake verify interface|freesurface|absorbing [--wave p|s]\n"
         "       starquake verify pointsource [--size quick|long] [--force] [--json]\n"
         "       starquake mesh info FILE | starquake mesh convert IN OUT   (.msh Gmsh, .puml.h5 PUML)\n"
         "       starquake --help | --version\n\n"
         "--strict: the material warnings (a rule that matches no cell, implausible values) are errors.\n"
         "The configuration keys are documented in docs/CONFIG.md.  StarPU reads its usual environment\n"
         "variables (STARPU_NCPU, STARPU_NCUDA, STARPU_SCHED, ...).\n",
         PACKAGE_VERSION);
}

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    usage();
    return argc < 2 ? 1 : 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("starquake %s\n", PACKAGE_VERSION);
    return 0;
  }
  if (!strcmp(argv[1], "config-reference"))
    return sq_config_write_reference(stdout) ? 1 : 0; /* docs/CONFIG_REFERENCE.md */
  int provided;
  /* StarPU-MPI's progression thread and our reductions (energies, hashes) call MPI concurrently */
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int ierr;
  if (!strcmp(argv[1], "verify")) ierr = sq_cmd_verify(argc - 2, argv + 2);
  else if (!strcmp(argv[1], "mesh")) ierr = sq_cmd_mesh(argc - 2, argv + 2);
  else ierr = sq_cmd_run(argc - 1, argv + 1);
  if (ierr && sq_sim_mpi_nranks() > 1) MPI_Abort(MPI_COMM_WORLD, 1); /* never leave other ranks waiting */
  MPI_Finalize();
  return ierr ? 1 : 0;
}
