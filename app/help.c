/**
 * @file help.c  The command line's help: one table of commands and options, printed as `--help`, as
 * each command's `--help` and as the man page (`starquake --help-man`, committed as docs/starquake.1).
 */
#include <stdio.h>
#include <string.h>

#include "sq_app.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

/** One option of a command: its flag, its argument ("" for none) and what it does. */
typedef struct help_option {
  const char *flag, *arg, *text;
} help_option;

/** One command: its name (what `starquake NAME ... --help` selects), synopsis, summary and options. */
typedef struct help_command {
  const char *name, *synopsis, *summary;
  const help_option *options;
} help_command;

static const help_option run_options[] = {
    {"--output", "DIR", "write the outputs into DIR (output.directory; default: output)"},
    {"--set", "KEY=VALUE",
     "override one configuration key, e.g. --set equations.end_time=3 or --set materials.layers[0].rho=2700; "
     "VALUE is YAML, typed and checked like the file's value; may be given several times"},
    {"--restart", "CHECKPOINT", "continue the run from a checkpoint that it wrote (PREFIX-checkpoint.h5)"},
    {"--dry-run", "",
     "set the run up, print its memory estimate, time its first sync intervals and print the estimated run time "
     "(ETA); write nothing"},
    {"--tile-size", "N", "elements per task (runtime.tile_size; default 256, with GPUs one or two per GPU)"},
    {"--scheduler", "NAME", "StarPU scheduler (runtime.scheduler; default: STARPU_SCHED, else lws)"},
    {"--partition", "bw|bwm|encoded",
     "METIS weights with several MPI ranks (runtime.partition): work (bw), work and memory (bwm), or both "
     "encoded in one weight"},
    {"--serial", "", "the serial reference implementation (no StarPU): slow, for checks"},
    {"--profile", "",
     "task time by kind and each worker's idle fraction, after the first chunk of steps, at the end of the run"},
    {"--trace", "FILE.csv",
     "with --profile, also every task of that part, one CSV line each (with several ranks, rank r writes "
     "FILE.csv.r); tools/trace-gaps.py summarises where the workers wait"},
    {"--trace-all", "FILE.csv",
     "--trace, but from the first step: the first chunk's tasks too (the upload to the GPUs, the first launches)"},
    {"--quiet", "", "print errors only"},
    {"--verbose", "", "also print each rank's peak memory and the details of errors"},
    {"--strict", "", "the material warnings are errors: a rule that matches no cell, implausible values"},
    {"--clean", "",
     "(the default) a new run first removes the files that the previous run of its prefix listed in "
     "PREFIX-manifest.txt"},
    {"--keep-stale", "", "keep those files: they are named in a warning and left out of the new manifest"},
    {"--help", "", "print this help"},
    {NULL, NULL, NULL}};

static const help_option planewave_options[] = {
    {"--order", "O", "convergence order (required)"},
    {"--precision", "single|double", "working precision (default double)"},
    {"--meshes", "N1,N2,...", "cells per axis of the meshes of the convergence study"},
    {"--end-time", "T", "simulated time"},
    {"--cells", "N", "cells per axis of a single mesh"},
    {"--lts-rate", "R", "local time stepping rate (1: global time stepping)"},
    {"--graded", "", "a graded quasi-2D mesh with a 16x refined slab (several LTS clusters)"},
    {"--merge", "", "merged neighbour-cluster tasks"},
    {"--cfl", "C", "CFL number (default 0.5)"},
    {"--tile-size", "N", "elements per task"},
    {"--serial", "", "the serial reference implementation"},
    {"--attenuation", "",
     "a viscoelastic medium (Qp 20, Qs 10, 3 mechanisms, band 0.25..25 Hz) against its closed form"},
    {"--json", "", "print the result as JSON"},
    {"--help", "", "print this help"},
    {NULL, NULL, NULL}};

static const help_option packet_options[] = {{"--wave", "p|s", "the incident wave (default p)"},
                                             {"--order", "O", "convergence order"},
                                             {"--precision", "single|double", "working precision (default double)"},
                                             {"--cells", "N", "cells per axis"},
                                             {"--end-time", "T", "simulated time"},
                                             {"--cfl", "C", "CFL number (default 0.5)"},
                                             {"--tile-size", "N", "elements per task"},
                                             {"--serial", "", "the serial reference implementation"},
                                             {"--json", "", "print the result as JSON"},
                                             {"--help", "", "print this help"},
                                             {NULL, NULL, NULL}};

static const help_option pointsource_options[] = {
    {"--size", "quick|long", "quick (default: 3072 elements) or long (order 5, 16464 elements)"},
    {"--order", "O", "convergence order (default 4)"},
    {"--cells", "N", "cells per axis, 2..200 (default 6)"},
    {"--refine", "F", "refinement factor of the inner region, 1 or 2..16 (default 2)"},
    {"--lts-rate", "R", "local time stepping rate (default 2)"},
    {"--tile-size", "N", "elements per task"},
    {"--half-width", "H", "half width of the domain (default 1.75)"},
    {"--width", "W", "width of the source's time function (default 0.15)"},
    {"--radius", "R", "distance of the receivers from the source (default 0.6)"},
    {"--cfl", "C", "CFL number (default 0.5)"},
    {"--precision", "single|double", "working precision (default double)"},
    {"--tolerance", "X", "largest relative misfit that passes (default 0.25)"},
    {"--update-only", "", "the source enters the update only, not the predictor"},
    {"--force", "", "a single force instead of the moment tensor"},
    {"--attenuation", "",
     "viscoelastic medium (Qp 20, Qs 10, 3 mechanisms, 0.1-10 Hz) against the frequency-domain closed form"},
    {"--dump", "FILE",
     "write 't receiver v1 v2 v3 v1_exact v2_exact v3_exact' rows to FILE (with --attenuation also the elastic "
     "closed form)"},
    {"--json", "", "print the result as JSON"},
    {"--help", "", "print this help"},
    {NULL, NULL, NULL}};

static const help_option kinematic_options[] = {
    {"--size", "quick|long", "quick (default: 3072 elements, tolerance 15%) or long (--refine 8: 10368 elements, 2%)"},
    {"--order", "O", "convergence order (default 4)"},
    {"--cells", "N", "cells per axis, even, 2..200 (default 6)"},
    {"--refine", "F", "refinement factor of the inner cells, 1..16 (default 4); the patch is one refined square"},
    {"--lts-rate", "R", "local time stepping rate (default 2)"},
    {"--tau-s", "T", "the Yoffe function's smoothing time tau_S (default 0.25)"},
    {"--tau-r", "T", "the Yoffe function's rise time tau_R (default 1)"},
    {"--radius", "R", "distance of the receivers from the patch (default 0.6)"},
    {"--tolerance", "X", "largest combined relative misfit against the point source that passes (default 0.15)"},
    {"--dump", "FILE", "write 't receiver v(patch) v(point source) v(closed form)' rows (3 each) to FILE"},
    {"--json", "", "print the result as JSON"},
    {"--help", "", "print this help"},
    {NULL, NULL, NULL}};

static const help_option help_only[] = {{"--help", "", "print this help"}, {NULL, NULL, NULL}};

static const help_option import_options[] = {
    {"-o", "FILE.yaml", "write the native configuration to FILE.yaml (default, or -o -: standard output)"},
    {"--output", "FILE.yaml", "the same as -o"},
    {"--keys", "",
     "print the table of SeisSol's keys and what starquake does with each, as Markdown (docs/SEISSOL.md)"},
    {"--help", "", "print this help"},
    {NULL, NULL, NULL}};

static const help_option probe_options[] = {
    {"--points", "FILE|x,y,z[;x,y,z...]",
     "the points: a file of lines 'x y z' (# comments), or points on the command line separated by ';'"},
    {"--csv", "", "print comma-separated values instead of the aligned table"},
    {"--set", "KEY=VALUE", "override one configuration key, as for a run (e.g. --set mesh.file=coarse.msh)"},
    {"--verbose", "", "print the set-up's report (mesh, materials, fault) before the table"},
    {"--help", "", "print this help"},
    {NULL, NULL, NULL}};

static const help_option tp_options[] = {
    {"--dt", "DT", "the step of the spectral update (s, default 1e-3); the update is exact at constant heating"},
    {"--json", "", "print one JSON object (max_rel_error, per case, per grid size)"},
    {"--help", "", "print this help"},
    {NULL, NULL, NULL}};

static const help_option okada_options[] = {
    {"--meshes", "k1,k2,...", "mesh spacings 1/k, k even, 2..16 (default 2,4)"},
    {"--tolerance", "X", "largest relative L2 misfit at the finest mesh that passes (default 0.01)"},
    {"--exclude", "D", "leave out surface nodes closer than D to the fault's edges (default 0.25)"},
    {"--tile-size", "N", "cells per tile, the unit of an element-by-element task (default 1024)"},
    {"--verbose", "", "print the outer solver's residual per iteration"},
    {"--serial", "", "run the operator products as plain loops instead of StarPU tasks"},
    {"--dump", "FILE", "write 'case h x y ux uy uz ux_okada uy_okada uz_okada' rows of the surface nodes to FILE"},
    {"--mesh", "F1,F2,...",
     "Gmsh meshes of the same box and fault instead of the box generator's (tests/meshes/okada_dip.geo: physical "
     "surfaces 101 free, 103 fault, 105 Dirichlet), coarse to fine"},
    {"--dip", "D", "the fault's dip in degrees, (0, 90] (default 90; other dips need --mesh)"},
    {"--json", "", "print one JSON object (rel_l2: the finest mesh's largest misfit; per case and mesh)"},
    {"--help", "", "print this help"},
    {NULL, NULL, NULL}};

static const help_option postseismic_options[] = {
    {"--set", "KEY=VALUE", "override one configuration key, e.g. --set postseismic.dt='10 days'; may be repeated"},
    {"--output", "DIR", "write the outputs into DIR (output.directory; default: output)"},
    {"--serial", "", "run the operator products as plain loops instead of StarPU tasks (postseismic.serial)"},
    {"--quiet", "", "no progress lines"},
    {"--help", "", "print this help"},
    {NULL, NULL, NULL}};

static const help_option savage_prescott_options[] = {
    {"--size", "K", "mesh refinement 1..8: spacing 0.5/K near the fault, 4/K far away (default 1)"},
    {"--dt", "DT", "time step in units of tau = 2 eta / mu (default 0.1)"},
    {"--times", "T1,T2,...", "times of the velocity profiles in units of tau, increasing (default 1,2,5)"},
    {"--length", "L", "the slab's length from the fault, in layer thicknesses, a multiple of 4 (default 256)"},
    {"--depth", "Z", "the slab's depth, in layer thicknesses, a multiple of 4 (default 192)"},
    {"--profile", "X", "compare the surface nodes with 0 < x <= X (default 24)"},
    {"--tolerance", "X", "largest relative velocity error that passes (default 0.02)"},
    {"--compare-predictor", "", "run twice, with and without the predictor, and report both runs' iterations"},
    {"--multistep", "W", "solve W steps together (1..4; 4: the papers' multi-step predictor) in the predictor's run"},
    {"--verbose", "", "print progress every 10 steps"},
    {"--dump", "FILE", "write 'size x t v v_savage_prescott' rows of the surface profiles to FILE"},
    {"--json", "", "print one JSON object (max_rel_error: the largest over the times; per time; per run)"},
    {"--help", "", "print this help"},
    {NULL, NULL, NULL}};

static const help_command commands[] = {
    {"run", "[run] CONFIG.yaml|parameters.par [OPTIONS]",
     "Run the simulation that CONFIG.yaml describes (docs/CONFIG.md lists every key).  `starquake run CONFIG.yaml` "
     "and `starquake CONFIG.yaml` are the same.  CONFIG may also be a SeisSol parameters.par (a Fortran namelist, "
     "told by its content): the set-up is imported as `starquake seissol-import` does and run (docs/SEISSOL.md).  "
     "docs/USER_GUIDE.md says what each signal does.",
     run_options},
    {"verify planewave", "verify planewave --order O [OPTIONS]",
     "Convergence of a plane wave in a periodic box against the analytic solution.", planewave_options},
    {"verify interface", "verify interface|freesurface|absorbing [OPTIONS]",
     "A wave packet at a material interface, a free surface or an absorbing boundary, against the analytic "
     "reflection and transmission.",
     packet_options},
    {"verify pointsource", "verify pointsource [OPTIONS]",
     "A moment-tensor point source in a homogeneous medium against the analytic Green's function.",
     pointsource_options},
    {"verify thermal-pressurization", "verify thermal-pressurization [OPTIONS]",
     "Thermal pressurization at a point heated at a constant rate tau V: the temperature and pore pressure of the "
     "rupture kernel's spectral update against the closed forms of the diffusion problem (Rice 2006), for 8 to 60 "
     "wavenumbers normal to the fault (docs/VERIFICATION.md).",
     tp_options},
    {"verify kinematic", "verify kinematic [OPTIONS]",
     "A small patch of imposed slip (regularised Yoffe slip rate) in a homogeneous medium against the point source "
     "of the same moment, simulated and in closed form; and the slip of every fault point against the final slip.",
     kinematic_options},
    {"verify okada", "verify okada [OPTIONS]",
     "The quasi-static elastic solver (second-order tetrahedra, mixed-precision multigrid-preconditioned CG) "
     "against Okada's (1992) closed form: the surface displacement of a buried vertical rectangular fault, strike "
     "slip and dip slip, with Okada's displacement on the sides and bottom (docs/POSTSEISMIC.md).",
     okada_options},
    {"postseismic", "postseismic CONFIG.yaml [OPTIONS]",
     "The crust's response to a fault slip and its Maxwell viscoelastic relaxation over years (docs/POSTSEISMIC.md): "
     "the mesh and elastic materials of CONFIG.yaml, the slip of a patch file or of a starquake rupture's fault "
     "output, the viscosity per layer or mesh group, all in its postseismic: section (docs/CONFIG.md).  Writes "
     "GPS-like station series (PREFIX-gps-NAME.csv) after every step and surface displacement snapshots "
     "(PREFIX-surface.xdmf); Ctrl-C ends the run after the step in flight with these outputs complete.  Under "
     "mpirun each rank solves on its METIS part of the mesh.",
     postseismic_options},
    {"verify savage-prescott", "verify savage-prescott [OPTIONS]",
     "The Maxwell viscoelastic time stepping against Savage & Prescott's (1978) series: the surface velocity after "
     "an earthquake on an infinitely long strike-slip fault through an elastic layer over a Maxwell half-space, at "
     "several times (docs/POSTSEISMIC.md).",
     savage_prescott_options},
    {"mesh info", "mesh info FILE",
     "Sizes, bounding box, material groups and boundary codes of a mesh (.msh Gmsh 2.2 or 4.1, .puml.h5 PUML).",
     help_only},
    {"mesh convert", "mesh convert IN OUT",
     "Convert a mesh between Gmsh (.msh, written as 4.1 ASCII) and PUML HDF5 (.puml.h5 or .h5), formats by "
     "extension.  Gmsh physical surfaces 101/103/105/106 are free surface, dynamic rupture, absorbing and periodic "
     "faces; physical volumes are material groups.",
     help_only},
    {"seissol-import", "seissol-import parameters.par [-o run.yaml]",
     "Translate a SeisSol set-up (its parameters.par namelist) into the equivalent native configuration, which "
     "references the set-up's easi models, mesh, receiver and source files.  Keys that starquake knows but does not "
     "support are named in warnings; a feature it does not have is an error naming it (docs/SEISSOL.md).  The mesh "
     "need not exist.",
     import_options},
    {"probe", "probe CONFIG.yaml|parameters.par --points FILE|x,y,z[;...] [OPTIONS]",
     "Print, at each point, the values a run of CONFIG sets up there, one row per point: the material of the mesh "
     "cell holding the point (rho, mu, lambda, vp, vs: the cell's values, evaluated at its centroid as the run "
     "does), the plasticity parameters and initial stress of that cell (with plasticity), and for a point on the "
     "fault the fault values evaluated at the point itself in the frame of the fault face holding it: the normal n, "
     "the initial tractions T_n, T_s, T_d and the nucleation tractions in that frame (n, strike, dip), and the "
     "friction parameters.  The set-up is the run's own code (materials, easi models, fault reference convention); "
     "the mesh must exist (docs/SEISSOL.md, *Checking a set-up*).",
     probe_options},
    {"config-reference", "config-reference",
     "Print the configuration schema, every key with its type, range and default, as Markdown "
     "(docs/CONFIG_REFERENCE.md).",
     help_only},
    {NULL, NULL, NULL, NULL}};

static const help_command *find_command(const char *name) {
  for (const help_command *c = commands; c->name; ++c)
    if (!strcmp(c->name, name)) return c;
  if (!strcmp(name, "verify freesurface") || !strcmp(name, "verify absorbing")) return find_command("verify interface");
  return NULL;
}

/** Print @p text wrapped at 100 columns, every line indented by @p indent (the first from @p col). */
static void print_wrapped(FILE *out, const char *text, int indent, int col) {
  const char *w = text;
  while (*w) {
    const char *end = w;
    while (*end && *end != ' ') ++end;
    const int len = (int)(end - w);
    if (col > indent && col + 1 + len > 100) fprintf(out, "\n%*s", col = indent, "");
    else if (col > indent) fputc(' ', out), ++col;
    else if (col < indent) fprintf(out, "%*s", indent - col, ""), col = indent;
    fprintf(out, "%.*s", len, w);
    col += len;
    w = *end ? end + 1 : end;
  }
  fputc('\n', out);
}

static void print_options(FILE *out, const help_option *o) {
  for (; o->flag; ++o) {
    char head[64];
    const int n = snprintf(head, sizeof(head), "  %s%s%s", o->flag, o->arg[0] ? " " : "", o->arg);
    fputs(head, out);
    if (n >= 27) fprintf(out, "\n%28s", ""); /* a long flag: its text on the next line */
    print_wrapped(out, o->text, 28, n >= 27 ? 28 : n);
  }
}

int sq_help_print(FILE *out, const char *name) {
  if (name) {
    const help_command *c = find_command(name);
    if (!c) return SQ_ERR_INPUT;
    fprintf(out, "usage: starquake %s\n\n", c->synopsis);
    print_wrapped(out, c->summary, 0, 0);
    fprintf(out, "\noptions:\n");
    print_options(out, c->options);
    return SQ_SUCCESS;
  }
  fprintf(out, "starquake %s: ADER-DG earthquake simulation on StarPU\n\nusage:\n", PACKAGE_VERSION);
  for (const help_command *c = commands; c->name; ++c) fprintf(out, "  starquake %s\n", c->synopsis);
  fprintf(out, "  starquake --help | --help-man | --version\n\noptions of a run:\n");
  print_options(out, run_options);
  fprintf(out, "\nEvery command takes --help (starquake verify planewave --help, starquake mesh info --help, ...).\n"
               "--help-man prints the manual page (docs/starquake.1), --version the build configuration.\n"
               "The configuration keys are documented in docs/CONFIG.md.  StarPU reads its usual environment\n"
               "variables (STARPU_NCPU, STARPU_NCUDA, STARPU_SCHED, ...).\n");
  return SQ_SUCCESS;
}

/** @p text for troff: backslashes and minus signs escaped, '.' or '\'' at a line start protected. */
static void man_text(FILE *out, const char *text) {
  if (text[0] == '.' || text[0] == '\'') fputs("\\&", out);
  for (const char *c = text; *c; ++c) {
    if (*c == '\\') fputs("\\e", out);
    else if (*c == '-') fputs("\\-", out);
    else fputc(*c, out);
  }
}

void sq_help_man(FILE *out) {
  fprintf(out, ".\\\" generated by `starquake --help-man` from app/help.c: do not edit\n");
  fprintf(out, ".TH STARQUAKE 1 \"\" \"starquake %s\" \"User Commands\"\n.SH NAME\n", PACKAGE_VERSION);
  fprintf(out, "starquake \\- ADER\\-DG earthquake simulation on StarPU\n.SH SYNOPSIS\n");
  for (const help_command *c = commands; c->name; ++c) {
    fprintf(out, ".B starquake\n");
    man_text(out, c->synopsis);
    fprintf(out, "\n.br\n");
  }
  fprintf(out, ".B starquake\n\\-\\-help | \\-\\-help\\-man | \\-\\-version\n.SH DESCRIPTION\n");
  man_text(out, "starquake simulates seismic waves and dynamic ruptures with the ADER discontinuous Galerkin "
                "method on tetrahedral meshes, its tasks scheduled by StarPU.  Every command takes --help.  "
                "--version prints the build configuration.  The configuration keys are documented in "
                "docs/CONFIG.md, the user's guide is docs/USER_GUIDE.md.");
  fprintf(out, "\n.SH COMMANDS\n");
  for (const help_command *c = commands; c->name; ++c) {
    fprintf(out, ".SS \"starquake ");
    man_text(out, c->synopsis);
    fprintf(out, "\"\n");
    man_text(out, c->summary);
    fputc('\n', out);
    for (const help_option *o = c->options; o->flag; ++o) {
      fprintf(out, ".TP\n.B ");
      man_text(out, o->flag);
      if (o->arg[0]) {
        fprintf(out, " \\fI");
        man_text(out, o->arg);
        fprintf(out, "\\fR");
      }
      fputc('\n', out);
      man_text(out, o->text);
      fputc('\n', out);
    }
  }
  fprintf(out, ".SH ENVIRONMENT\nStarPU reads its usual environment variables (STARPU_NCPU, STARPU_NCUDA, "
               "STARPU_SCHED, ...).\n.SH SEE ALSO\ndocs/USER_GUIDE.md, docs/CONFIG.md, docs/CONFIG_REFERENCE.md\n");
}
