/**
 * @file import.c  A SeisSol parameters.par translated into starquake's native YAML (sq_seissol.h,
 * docs/SEISSOL.md): the groups and keys of seissol/keys.c, group by group, into the native sections.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "sq_common.h"
#include "sq_seissol.h"

/** Fault stations the native config holds (fault.stations). */
#define MAX_FAULT_STATIONS 64

typedef struct text {
  char *s;
  size_t n, cap;
  int oom;
} text;

typedef struct imp {
  const sq_namelist *nl;
  char pardir[4096]; /**< the folder of the par file: "" or ending in '/' (set-up files are read from it) */
  char yamldir[PATH_MAX +
               2]; /**< prepended to the set-up's relative file names in the YAML: "" or an absolute folder/ */
  FILE *warn;
  text y;
} imp;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...) {
  if (t->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
      t->oom = 1;
      return;
    }
    if (t->s && t->n + (size_t)n < t->cap) {
      t->n += (size_t)n;
      return;
    }
    size_t cap = t->cap ? t->cap : 4096;
    while (cap <= t->n + (size_t)n) cap *= 2;
    char *s = realloc(t->s, cap);
    if (!s) {
      t->oom = 1;
      return;
    }
    t->s = s, t->cap = cap;
  }
}

/** @p x in the shortest of %.15g and %.17g that reads back as @p x (one of 8 rotating buffers). */
static const char *gnum(double x) {
  static _Thread_local char ring[8][32];
  static _Thread_local int next;
  char *b = ring[next++ & 7];
  snprintf(b, 32, "%.15g", x);
  if (strtod(b, NULL) != x) snprintf(b, 32, "%.17g", x);
  return b;
}

/* ---- values of the namelist ------------------------------------------------------------------ */

static const sq_nml_item *item(const imp *im, const char *group, const char *key) {
  return sq_namelist_item(sq_namelist_group(im->nl, group), key);
}

static int fail_at(const imp *im, const sq_nml_item *it, const char *group, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail_at(const imp *im, const sq_nml_item *it, const char *group, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: key '%s' of '&%s': %s", im->nl->file, it->line, it->key,
                  group, msg);
}

static void warn_at(const imp *im, const sq_nml_item *it, const char *group, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void warn_at(const imp *im, const sq_nml_item *it, const char *group, const char *fmt, ...) {
  if (!im->warn) return;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  fprintf(im->warn, "starquake: warning: %s:%d: key '%s' of '&%s': %s\n", im->nl->file, it->line, it->key, group, msg);
}

/** A required key that is missing: the error names the group's line (or the file's first). */
static int missing(const imp *im, const char *group, const char *key, const char *why) {
  const sq_nml_group *g = sq_namelist_group(im->nl, group);
  return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: key '%s' of '&%s' is missing: %s", im->nl->file,
                  g ? g->line : 1, key, group, why);
}

/** One number (integer or real); @p given (may be NULL) says whether the key is there; absent: @p x kept. */
static int num(const imp *im, const char *group, const char *key, double *x, int *given) {
  const sq_nml_item *it = item(im, group, key);
  if (given) *given = it != NULL;
  if (!it) return SQ_SUCCESS;
  if (it->nvalue != 1) return fail_at(im, it, group, "expected one number, found %d values", it->nvalue);
  const sq_nml_value *v = &it->value[0];
  if (v->type != SQ_NML_INT && v->type != SQ_NML_REAL)
    return fail_at(im, it, group, "expected a number, found %s", sq_nml_type_name(v->type));
  *x = v->num;
  return SQ_SUCCESS;
}

/** One integer (logicals count as 0 and 1). */
static int integer(const imp *im, const char *group, const char *key, long *x, int *given) {
  const sq_nml_item *it = item(im, group, key);
  if (given) *given = it != NULL;
  if (!it) return SQ_SUCCESS;
  if (it->nvalue != 1) return fail_at(im, it, group, "expected one integer, found %d values", it->nvalue);
  const sq_nml_value *v = &it->value[0];
  if (v->type == SQ_NML_LOGICAL) {
    *x = (long)v->num;
    return SQ_SUCCESS;
  }
  if (v->type != SQ_NML_INT || fabs(v->num) > 1e9)
    return fail_at(im, it, group, "expected an integer, found %s", sq_nml_type_name(v->type));
  *x = (long)v->num;
  return SQ_SUCCESS;
}

/** One string; absent: *s = NULL. */
static int string(const imp *im, const char *group, const char *key, const char **s) {
  const sq_nml_item *it = item(im, group, key);
  *s = NULL;
  if (!it) return SQ_SUCCESS;
  if (it->nvalue != 1 || it->value[0].type != SQ_NML_STRING)
    return fail_at(im, it, group, "expected one quoted string, found %s%s",
                   it->nvalue == 1 ? sq_nml_type_name(it->value[0].type) : "several values",
                   it->nvalue == 1 && it->value[0].type != SQ_NML_STRING ? " (quote it: 'NAME')" : "");
  if (!it->value[0].str[0]) return fail_at(im, it, group, "the string is empty");
  *s = it->value[0].str;
  return SQ_SUCCESS;
}

/** A mask of 0/1 flags: the first @p n values into @p m (missing ones 0); extra set flags are warned about. */
static int mask(const imp *im, const char *group, const char *key, int *m, int n, int *given) {
  const sq_nml_item *it = item(im, group, key);
  for (int i = 0; i < n; ++i) m[i] = 0;
  if (given) *given = it != NULL;
  if (!it) return SQ_SUCCESS;
  int extra = 0;
  for (int i = 0; i < it->nvalue; ++i) {
    const sq_nml_value *v = &it->value[i];
    if ((v->type != SQ_NML_INT && v->type != SQ_NML_LOGICAL) || (v->num != 0 && v->num != 1))
      return fail_at(im, it, group, "expected flags 0 or 1, value %d is not", i + 1);
    if (i < n) m[i] = v->num != 0;
    else extra |= v->num != 0;
  }
  if (extra) warn_at(im, it, group, "only the first %d flags have a meaning in starquake; the others are ignored", n);
  return SQ_SUCCESS;
}

/* ---- file names ------------------------------------------------------------------------------ */

/** @p name as a double-quoted YAML string. */
static void put_quoted(text *t, const char *name) {
  put(t, "\"");
  for (const char *c = name; *c; ++c) {
    if (*c == '"' || *c == '\\') put(t, "\\%c", *c);
    else if ((unsigned char)*c < 32) put(t, "\\x%02x", (unsigned char)*c);
    else put(t, "%c", *c);
  }
  put(t, "\"");
}

/** A file of the set-up as the YAML names it. */
static void put_file(imp *im, const char *name) {
  char full[8192];
  if (name[0] == '/' || !im->yamldir[0]) snprintf(full, sizeof(full), "%s", name);
  else snprintf(full, sizeof(full), "%s%s", im->yamldir, name);
  put_quoted(&im->y, full);
}

/** A file of the set-up as this process opens it (relative to the par file's folder). */
static void setup_path(const imp *im, const char *name, char *out, size_t size) {
  if (name[0] == '/') snprintf(out, size, "%s", name);
  else snprintf(out, size, "%s%s", im->pardir, name);
}

/** Open a file of the set-up that the import reads (a material model, a receiver list): a regular file of at
 * most 64 MiB, else an error naming @p what and the key @p it. */
static int open_setup_file(const imp *im, const sq_nml_item *it, const char *group, const char *path, const char *what,
                           FILE **f) {
  struct stat st;
  *f = NULL;
  if (stat(path, &st)) return fail_at(im, it, group, "cannot open the %s '%s': %s", what, path, strerror(errno));
  if (!S_ISREG(st.st_mode) || st.st_size > ((off_t)64 << 20))
    return fail_at(im, it, group, "the %s '%s' is not a regular file of at most 64 MiB", what, path);
  if (!(*f = fopen(path, "r")))
    return fail_at(im, it, group, "cannot open the %s '%s': %s", what, path, strerror(errno));
  return SQ_SUCCESS;
}

/* ---- the sections ---------------------------------------------------------------------------- */

static int has_suffix(const char *s, const char *suffix) {
  const size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcasecmp(s + n - m, suffix);
}

static int do_mesh(imp *im) {
  const char *file, *gen;
  SQ_CALL(string(im, "MeshNml", "MeshFile", &file));
  SQ_CALL(string(im, "MeshNml", "meshgenerator", &gen));
  if (!file) return missing(im, "MeshNml", "MeshFile", "the mesh file");
  const char *type;
  if (!gen) {
    type = has_suffix(file, ".msh") ? "gmsh" : "puml";
    if (im->warn)
      fprintf(im->warn, "starquake: warning: %s: '&MeshNml' has no meshgenerator: reading '%s' as %s\n", im->nl->file,
              file, type);
  } else if (!strcasecmp(gen, "PUML")) type = "puml";
  else if (!strcasecmp(gen, "Gmsh")) type = "gmsh";
  else {
    const sq_nml_item *it = item(im, "MeshNml", "meshgenerator");
    if (!strcasecmp(gen, "Netcdf"))
      return fail_at(im, it, "MeshNml",
                     "SeisSol's netCDF meshes are not supported by starquake (convert the mesh to "
                     "PUML with PUMGen, or give a Gmsh mesh)");
    if (!strncasecmp(gen, "Gambit", 6))
      return fail_at(im, it, "MeshNml", "Gambit meshes are not supported by starquake (convert the mesh to PUML)");
    return fail_at(im, it, "MeshNml", "unknown mesh generator '%s' (starquake reads 'PUML' and 'Gmsh')", gen);
  }
  /* a PUML name without its extension, as older set-ups write it: SeisSol's reader adds ".puml.h5" */
  char full[4096];
  snprintf(full, sizeof(full), "%s", file);
  if (!strcmp(type, "puml") && !has_suffix(file, ".h5")) {
    char path[8192];
    setup_path(im, file, path, sizeof(path));
    struct stat st;
    if (stat(path, &st) || !S_ISREG(st.st_mode)) {
      snprintf(full, sizeof(full), "%s.puml.h5", file);
      if (im->warn)
        fprintf(im->warn,
                "starquake: warning: %s:%d: key 'MeshFile' of '&MeshNml': '%s' has no extension: reading '%s'\n",
                im->nl->file, item(im, "MeshNml", "MeshFile")->line, file, full);
    }
  }
  put(&im->y, "mesh:\n  type: %s\n  file: ", type);
  put_file(im, full);
  put(&im->y, "\n");
  return SQ_SUCCESS;
}

/** Whether @p line holds the word @p w as a key or list item ("w:" or "w," or "w]"). */
static int mentions(const char *line, const char *w) {
  const size_t n = strlen(w);
  for (const char *c = line; (c = strstr(c, w)); c += n) {
    const int before = c == line || !(isalnum((unsigned char)c[-1]) || c[-1] == '_');
    const char *a = c + n;
    while (*a == ' ' || *a == '\t') ++a;
    if (before && (*a == ':' || *a == ',' || *a == ']')) return 1;
  }
  return 0;
}

/**
 * The features a material model asks for that starquake does not have, by the parameters it names:
 * poroelastic (porosity), anisotropic (c11 ...), acoustic layers (mu: 0).  The model is otherwise the
 * easi library's to read; an unreadable file is left to it.
 */
static int scan_material(imp *im, const char *name) {
  const sq_nml_item *it = item(im, "equations", "MaterialFileName");
  char path[8192];
  setup_path(im, name, path, sizeof(path));
  FILE *f;
  SQ_CALL(open_setup_file(im, it, "equations", path, "material model", &f));
  char line[4096];
  int lno = 0, rc = SQ_SUCCESS;
  while (!rc && fgets(line, sizeof(line), f)) {
    ++lno;
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    const char *feature = NULL;
    if (mentions(line, "porosity")) feature = "poroelastic materials (the model gives 'porosity')";
    else if (mentions(line, "c11")) feature = "anisotropic materials (the model gives 'c11')";
    else {
      const char *m = line;
      while (*m == ' ' || *m == '\t') ++m;
      if (!strncmp(m, "mu:", 3)) {
        char *end;
        const double mu = strtod(m + 3, &end);
        while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n') ++end;
        if (end != m + 3 && !*end && mu == 0) feature = "acoustic layers (the model gives 'mu: 0')";
      }
    }
    if (feature)
      rc = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: %s are not supported by starquake (material model of %s)",
                    path, lno, feature, im->nl->file);
  }
  fclose(f);
  return rc;
}

static int do_materials(imp *im, int *plastic) {
  const char *model;
  SQ_CALL(string(im, "equations", "MaterialFileName", &model));
  if (!model) return missing(im, "equations", "MaterialFileName", "the easi material model");
  SQ_CALL(scan_material(im, model));
  put(&im->y, "materials:\n  easi: ");
  put_file(im, model);
  put(&im->y, "\n");
  /* SeisSol attenuates when it is built with relaxation mechanisms (3, NUMBER_OF_RELAXATION_MECHANISMS); a
   * parameter file for such a build gives the band, and the material model Qp and Qs */
  double fc = 0, ratio = 100;
  int fc_given, ratio_given;
  SQ_CALL(num(im, "equations", "FreqCentral", &fc, &fc_given));
  SQ_CALL(num(im, "equations", "FreqRatio", &ratio, &ratio_given));
  if (ratio_given && !fc_given)
    return missing(im, "equations", "FreqCentral", "FreqRatio is given: the central frequency of the attenuation band");
  if (fc_given) {
    if (!(fc > 0))
      return fail_at(im, item(im, "equations", "FreqCentral"), "equations", "must be > 0 (Hz), found %g", fc);
    if (!(ratio >= 1))
      return fail_at(im, item(im, "equations", "FreqRatio"), "equations", "must be >= 1, found %g", ratio);
    put(&im->y,
        "# viscoelastic attenuation (FreqCentral, FreqRatio; SeisSol's 3 mechanisms; Qp, Qs from the model)\n"
        "attenuation: {central_frequency: %.15g, frequency_ratio: %.15g, mechanisms: 3}\n",
        fc, ratio);
  }
  for (int k = 0; k < 2; ++k) {
    const char *key = k ? "numfluxnearfault" : "numflux", *flux;
    SQ_CALL(string(im, "equations", key, &flux));
    if (flux && strcasecmp(flux, "godunov"))
      warn_at(im, item(im, "equations", key), "equations", "'%s': starquake uses the Godunov flux everywhere", flux);
  }
  long p = 0;
  int given;
  SQ_CALL(integer(im, "equations", "Plasticity", &p, &given));
  *plastic = p != 0;
  if (!p) return SQ_SUCCESS;
  double tv = 0;
  SQ_CALL(num(im, "equations", "Tv", &tv, &given));
  if (given && !(tv >= 0))
    return fail_at(im, item(im, "equations", "Tv"), "equations", "must be >= 0 (s), found %g", tv);
  long pointwise = 1; /* SeisSol's default: the initial stress at the nodal points */
  int pw_given;
  SQ_CALL(integer(im, "equations", "PlasticityPointwise", &pointwise, &pw_given));
  if (pw_given && pointwise != 0 && pointwise != 1)
    return fail_at(im, item(im, "equations", "PlasticityPointwise"), "equations", "must be 0 or 1, found %ld",
                   pointwise);
  /* on, also without Tv: the section is a mapping ({} when empty); the rest comes from the material model */
  put(&im->y,
      "# plasticity on: cohesion (plastCo), bulk friction (bulkFriction) and initial stress from the material model;\n"
      "# the initial stress at %s\n",
      pointwise ? "the nodal points of each element (PlasticityPointwise = 1, SeisSol's default)"
                : "the element centroids (PlasticityPointwise = 0)");
  put(&im->y, "plasticity: {");
  if (given) put(&im->y, "tv: %s%s", gnum(tv), pw_given ? ", " : "");
  if (pw_given) put(&im->y, "initial_stress_at: %s", pointwise ? "nodes" : "centroid");
  put(&im->y, "}%s%s%s\n", given || pw_given ? " # " : "", given ? "Tv" : "",
      pw_given ? (given ? ", PlasticityPointwise" : "PlasticityPointwise") : "");
  return SQ_SUCCESS;
}

static int do_equations(imp *im) {
  double cfl = 0.5, end = 0;
  long rate = 1;
  int given;
  SQ_CALL(num(im, "AbortCriteria", "EndTime", &end, &given));
  if (!given) return missing(im, "AbortCriteria", "EndTime", "the simulated time");
  if (!(end > 0))
    return fail_at(im, item(im, "AbortCriteria", "EndTime"), "AbortCriteria", "must be > 0, found %g", end);
  SQ_CALL(num(im, "Discretization", "CFL", &cfl, &given));
  if (given && !(cfl > 0 && cfl <= 1))
    return fail_at(im, item(im, "Discretization", "CFL"), "Discretization", "must be in (0, 1], found %g", cfl);
  SQ_CALL(integer(im, "Discretization", "ClusteredLTS", &rate, &given));
  if (given && rate < 0)
    return fail_at(im, item(im, "Discretization", "ClusteredLTS"), "Discretization", "must be >= 0, found %ld", rate);
  if (rate < 1) rate = 1;
  put(&im->y,
      "equations:\n  order: 4 # SeisSol fixes the order when it is built; change it here or with --set "
      "equations.order=N\n  cfl: %s\n  end_time: %s\n  lts: {rate: %ld}\n",
      gnum(cfl), gnum(end), rate);
  const char *ic;
  SQ_CALL(string(im, "IniCondition", "cICType", &ic));
  if (ic && strcasecmp(ic, "Zero")) {
    const char *what = "";
    if (!strcasecmp(ic, "Scholte") || !strcasecmp(ic, "Snell") || !strncasecmp(ic, "Ocean", 5))
      what = " (elastic-acoustic coupling)";
    else if (!strcasecmp(ic, "Planarwave"))
      what = " (a plane wave in a periodic box: write `initial_condition: {type: planewave}` natively)";
    return fail_at(im, item(im, "IniCondition", "cICType"), "IniCondition",
                   "the initial condition '%s'%s is not supported by starquake", ic, what);
  }
  return SQ_SUCCESS;
}

/** The fault stations of PPFileName: "x y z" lines, written as fault.stations. */
static int put_stations(imp *im, const char *name) {
  const sq_nml_item *it = item(im, "Pickpoint", "PPFileName");
  char path[8192];
  setup_path(im, name, path, sizeof(path));
  FILE *f;
  SQ_CALL(open_setup_file(im, it, "Pickpoint", path, "fault-receiver file", &f));
  char line[4096];
  int lno = 0, n = 0, rc = SQ_SUCCESS;
  put(&im->y, "  stations: # %s\n", name);
  while (!rc && fgets(line, sizeof(line), f)) {
    ++lno;
    char *c = line;
    while (isspace((unsigned char)*c)) ++c;
    if (!*c || *c == '#' || *c == '!') continue;
    double x[3];
    char *end = c;
    int k = 0;
    for (; k < 3; ++k) {
      char *e;
      x[k] = strtod(end, &e);
      if (e == end || !isfinite(x[k])) break;
      end = e;
    }
    while (isspace((unsigned char)*end)) ++end;
    if (k < 3 || *end)
      rc = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: expected three numbers 'x y z' (a fault receiver)", path,
                    lno);
    else if (++n > MAX_FAULT_STATIONS)
      rc = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "%s:%d: more than %d fault receivers: starquake's fault.stations holds at most %d", path, lno,
                    MAX_FAULT_STATIONS, MAX_FAULT_STATIONS);
    else put(&im->y, "    - [%s, %s, %s]\n", gnum(x[0]), gnum(x[1]), gnum(x[2]));
  }
  fclose(f);
  if (!rc && !n) rc = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: no fault receiver in the file", path);
  return rc;
}

/**
 * fault.reference_point from XRef/YRef/ZRef and refPointMethod, with SeisSol's meaning: the native keys
 * fault.reference_convention: seissol and fault.reference_method (point or vector) take them as SeisSol
 * does, so that the normal, strike and dip vectors, and with them every traction, slip rate and slip, are
 * SeisSol's (docs/RUPTURE.md, "Reference point and SeisSol's convention").
 */
static int put_reference(imp *im) {
  double r[3] = {0, 0, 0};
  long method = 0;
  int given[3], gm;
  static const char *const names[3] = {"XRef", "YRef", "ZRef"};
  for (int k = 0; k < 3; ++k) SQ_CALL(num(im, "DynamicRupture", names[k], &r[k], &given[k]));
  SQ_CALL(integer(im, "DynamicRupture", "refPointMethod", &method, &gm));
  const double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
  if (!(given[0] || given[1] || given[2]))
    return missing(im, "DynamicRupture", "XRef", "XRef, YRef, ZRef give the fault's reference point or direction");
  if (gm && method != 0 && method != 1)
    return fail_at(im, item(im, "DynamicRupture", "refPointMethod"), "DynamicRupture",
                   "must be 0 (a point) or 1 (a direction), found %ld", method);
  if (!(len > 0))
    return missing(im, "DynamicRupture", "XRef", "XRef, YRef, ZRef are all 0: the reference must not be the origin");
  put(&im->y, "  # SeisSol's XRef, YRef, ZRef and refPointMethod = %ld, as SeisSol reads them\n", method);
  put(&im->y, "  reference_convention: seissol\n  reference_method: %s\n", method == 1 ? "vector" : "point");
  put(&im->y, "  reference_point: [%s, %s, %s]\n", gnum(r[0] + 0.0), gnum(r[1] + 0.0), gnum(r[2] + 0.0));
  return SQ_SUCCESS;
}

/** A constant of the par file written as a native fault key, when given. */
static int fault_const(imp *im, const char *key, const char *native, double *out, int *given) {
  double x = 0;
  int g;
  SQ_CALL(num(im, "DynamicRupture", key, &x, &g));
  if (g) put(&im->y, "  %s: %s # %s\n", native, gnum(x), key);
  if (out) *out = x;
  if (given) *given = g;
  return SQ_SUCCESS;
}

/** thermalPress = 1: fault.thermal_pressurization and the constants of the par file (the easi model may
 * give the rest, per point). */
static int put_tp(imp *im) {
  put(&im->y, "  thermal_pressurization: true # thermalPress = 1\n");
  SQ_CALL(fault_const(im, "tp_iniTemp", "tp_initial_temperature", NULL, NULL));
  SQ_CALL(fault_const(im, "tp_iniPressure", "tp_initial_pressure", NULL, NULL));
  SQ_CALL(fault_const(im, "tp_thermalDiffusivity", "tp_thermal_diffusivity", NULL, NULL));
  SQ_CALL(fault_const(im, "tp_heatCapacity", "tp_heat_capacity", NULL, NULL));
  SQ_CALL(fault_const(im, "tp_undrainedTPResponse", "tp_lambda", NULL, NULL));
  long nz = 0;
  int given;
  SQ_CALL(integer(im, "DynamicRupture", "TP_grid_nz", &nz, &given));
  if (given && (nz < 2 || nz > 60))
    return fail_at(im, item(im, "DynamicRupture", "TP_grid_nz"), "DynamicRupture",
                   "must be between 2 and 60 (starquake's largest grid), found %ld", nz);
  if (given) put(&im->y, "  tp_grid_points: %ld # TP_grid_nz\n", nz);
  return SQ_SUCCESS;
}

static int do_fault(imp *im, double pickdt, int have_pickdt) {
  if (!sq_namelist_group(im->nl, "DynamicRupture")) return SQ_SUCCESS;
  long fl = 0, tp = 0;
  int given;
  SQ_CALL(integer(im, "DynamicRupture", "FL", &fl, &given));
  if (!given || fl == 0) return SQ_SUCCESS;
  const sq_nml_item *fit = item(im, "DynamicRupture", "FL");
  const char *law = NULL;
  switch (fl) {
  case 2:
  case 16: law = "linear_slip_weakening"; break;
  case 3: law = "rate_state_aging"; break;
  case 4: law = "rate_state_slip"; break;
  case 103: law = "rate_state_fast_velocity_weakening"; break;
  case 6: law = "linear_slip_weakening"; break; /* with the Prakash-Clifton regularisation below */
  case 7: return fail_at(im, fit, "DynamicRupture", "7: velocity weakening is not supported by starquake");
  case 33: law = "imposed_slip_rate_yoffe"; break;
  case 34: law = "imposed_slip_rate_gaussian"; break;
  default:
    return fail_at(im, fit, "DynamicRupture",
                   "friction law %ld is not supported by starquake (it has FL = 2, 6, 16, 3, 4, 103, 33 and 34)", fl);
  }
  SQ_CALL(integer(im, "DynamicRupture", "thermalPress", &tp, &given));
  if (tp != 0 && tp != 1)
    return fail_at(im, item(im, "DynamicRupture", "thermalPress"), "DynamicRupture", "must be 0 or 1, found %ld", tp);
  if (tp && (fl == 2 || fl == 16))
    return fail_at(im, item(im, "DynamicRupture", "thermalPress"), "DynamicRupture",
                   "thermal pressurization needs a rate-and-state friction law (FL = 3, 4 or 103; FL is %ld)", fl);
  const char *model;
  SQ_CALL(string(im, "DynamicRupture", "ModelFileName", &model));
  if (!model) return missing(im, "DynamicRupture", "ModelFileName", "the easi model of the fault's parameters");
  put(&im->y, "fault:\n  easi: ");
  put_file(im, model);
  put(&im->y, "\n  friction_law: %s # FL = %ld\n", law, fl);
  SQ_CALL(put_reference(im));
  double t0 = 0;
  SQ_CALL(num(im, "DynamicRupture", "t_0", &t0, &given));
  if (given) {
    if (!(t0 >= 0))
      return fail_at(im, item(im, "DynamicRupture", "t_0"), "DynamicRupture", "must be >= 0, found %g", t0);
    put(&im->y, "  nucleation_time: %s # t_0\n", gnum(t0));
    if (fl == 16) put(&im->y, "  forced_rupture_duration: %s # t_0\n", gnum(t0));
  }
  if (fl == 6) { /* bimaterial linear slip weakening: the Prakash-Clifton regularisation of the normal stress */
    static const char *const pc_key[2] = {"pc_vStar", "pc_prakashLength"}, *const pc_native[2] = {"pc_v_star",
                                                                                                  "pc_length"};
    for (int k = 0; k < 2; ++k) {
      double x = 0;
      SQ_CALL(fault_const(im, pc_key[k], pc_native[k], &x, &given));
      if (!given) return missing(im, "DynamicRupture", pc_key[k], "FL = 6 regularises the normal stress with it");
      if (!(x > 0))
        return fail_at(im, item(im, "DynamicRupture", pc_key[k]), "DynamicRupture", "must be > 0, found %g", x);
    }
  }
  if (fl != 2 && fl != 6 && fl != 16 && fl != 33 && fl != 34) {
    SQ_CALL(fault_const(im, "RS_f0", "f0", NULL, NULL));
    SQ_CALL(fault_const(im, "RS_sr0", "V0", NULL, NULL));
    SQ_CALL(fault_const(im, "RS_a", "a", NULL, NULL));
    SQ_CALL(fault_const(im, "RS_b", "b", NULL, NULL));
    SQ_CALL(fault_const(im, "RS_sl0", "L", NULL, NULL));
    if (fl == 103) {
      SQ_CALL(fault_const(im, "RS_muW", "f_w", NULL, NULL));
      SQ_CALL(fault_const(im, "RS_srW", "V_w", NULL, NULL));
    }
    double v1 = 0, v2 = 0;
    int g1, g2;
    SQ_CALL(num(im, "DynamicRupture", "RS_iniSlipRate1", &v1, &g1));
    SQ_CALL(num(im, "DynamicRupture", "RS_iniSlipRate2", &v2, &g2));
    if (g1 || g2) put(&im->y, "  initial_slip_rate: %s # |(RS_iniSlipRate1, RS_iniSlipRate2)|\n", gnum(hypot(v1, v2)));
  }
  if (tp) SQ_CALL(put_tp(im));
  long sr = 1;
  SQ_CALL(integer(im, "DynamicRupture", "SlipRateOutputType", &sr, &given));
  if (given && sr != 1)
    warn_at(im, item(im, "DynamicRupture", "SlipRateOutputType"), "DynamicRupture",
            "%ld: starquake writes the slip rate of the friction solution (SeisSol's type 1)", sr);
  long opt = 0;
  SQ_CALL(integer(im, "DynamicRupture", "OutputPointType", &opt, &given));
  if (given && opt != 0 && opt != 3 && opt != 4 && opt != 5)
    return fail_at(im, item(im, "DynamicRupture", "OutputPointType"), "DynamicRupture",
                   "must be 0, 3, 4 or 5, found %ld", opt);
  if (opt == 4 || opt == 5) {
    double dt = 1.0;
    SQ_CALL(num(im, "Elementwise", "printtimeinterval_sec", &dt, &given));
    if (!(dt > 0))
      return fail_at(im, item(im, "Elementwise", "printtimeinterval_sec"), "Elementwise", "must be > 0, found %g", dt);
    put(&im->y, "  output_interval: %s # Elementwise.printtimeinterval_sec\n", gnum(dt));
  }
  if (opt == 3 || opt == 5) {
    const char *pp;
    SQ_CALL(string(im, "Pickpoint", "PPFileName", &pp));
    if (!pp) return missing(im, "Pickpoint", "PPFileName", "OutputPointType 3 and 5 write the fault receivers of it");
    const sq_nml_item *pit = item(im, "Pickpoint", "printtimeinterval");
    const double dt = have_pickdt ? pickdt : 0.005;
    if (pit)
      warn_at(im, pit, "Pickpoint",
              "SeisSol counts time steps here; starquake samples the fault stations every %g s (%s)", dt,
              have_pickdt ? "Output.pickdt" : "the SCEC benchmarks' 0.005 s, as Output.pickdt is not given");
    put(&im->y, "  station_interval: %s\n", gnum(dt));
    SQ_CALL(put_stations(im, pp));
  }
  return SQ_SUCCESS;
}

static int do_sources(imp *im) {
  long type = 0;
  int given;
  SQ_CALL(integer(im, "SourceType", "Type", &type, &given));
  if (!given || type == 0) return SQ_SUCCESS;
  const sq_nml_item *it = item(im, "SourceType", "Type");
  if (type != 50 && type != 42)
    return fail_at(im, it, "SourceType", "source type %ld is not supported by starquake (it reads types 42 and 50)",
                   type);
  const char *file;
  SQ_CALL(string(im, "SourceType", "FileName", &file));
  if (!file)
    return missing(im, "SourceType", "FileName",
                   type == 42 ? "the NRF file (netCDF) of Type = 42" : "the point-source file of Type = 50");
  put(&im->y, "sources:\n  - type: %s # SourceType %ld\n    file: ", type == 42 ? "nrf" : "finite", type);
  put_file(im, file);
  put(&im->y, "\n");
  return SQ_SUCCESS;
}

static int do_receivers(imp *im, double pickdt, int have_pickdt) {
  const char *file;
  SQ_CALL(string(im, "Output", "RFileName", &file));
  if (!file) return SQ_SUCCESS;
  put(&im->y, "receivers:\n  file: ");
  put_file(im, file);
  put(&im->y, "\n  interval: %s%s\n", gnum(pickdt), have_pickdt ? " # pickdt" : " # SeisSol's default pickdt");
  double flush = 0;
  int given;
  SQ_CALL(num(im, "Output", "ReceiverOutputInterval", &flush, &given));
  if (given) {
    if (!(flush >= 0))
      return fail_at(im, item(im, "Output", "ReceiverOutputInterval"), "Output", "must be >= 0, found %g", flush);
    put(&im->y, "  flush_interval: %s\n", gnum(flush));
  }
  return SQ_SUCCESS;
}

/** output.directory and output.prefix from OutputFile ("dir/prefix"). */
static int put_output_file(imp *im) {
  const char *of;
  SQ_CALL(string(im, "Output", "OutputFile", &of));
  if (!of) return SQ_SUCCESS;
  const char *slash = strrchr(of, '/');
  const char *prefix = slash ? slash + 1 : of;
  if (!*prefix)
    return fail_at(im, item(im, "Output", "OutputFile"), "Output", "'%s' ends in '/': it needs a file prefix", of);
  for (const char *c = prefix; *c; ++c)
    if (!isalnum((unsigned char)*c) && *c != '_' && *c != '.' && *c != '-')
      return fail_at(im, item(im, "Output", "OutputFile"), "Output",
                     "the prefix '%s' may hold only letters, digits, '_', '.' and '-'", prefix);
  if (slash) {
    put(&im->y, "  directory: ");
    char dir[4096];
    snprintf(dir, sizeof(dir), "%.*s", (int)(slash - of), of);
    put_quoted(&im->y, dir[0] ? dir : "/");
    put(&im->y, "\n");
  }
  put(&im->y, "  prefix: ");
  put_quoted(&im->y, prefix);
  put(&im->y, "\n");
  return SQ_SUCCESS;
}

static int do_output(imp *im, int plastic) {
  long wf = 0, format = 10, surface = 0, energy = 0;
  int gwf, gformat, given;
  SQ_CALL(integer(im, "Output", "wavefieldoutput", &wf, &gwf));
  SQ_CALL(integer(im, "Output", "Format", &format, &gformat));
  if (!gwf) wf = gformat && format == 6;
  SQ_CALL(integer(im, "Output", "SurfaceOutput", &surface, &given));
  SQ_CALL(integer(im, "Output", "EnergyOutput", &energy, &given));
  /* one native interval for wavefield, surface and energies: the smallest asked for */
  static const char *const ikeys[3] = {"TimeInterval", "SurfaceOutputInterval", "EnergyOutputInterval"};
  const int on[3] = {wf != 0, surface != 0, energy != 0};
  double iv[3] = {0, 0, 0}, interval = 0;
  int which = -1, differ = 0;
  for (int k = 0; k < 3; ++k) {
    int g;
    SQ_CALL(num(im, "Output", ikeys[k], &iv[k], &g));
    if (!on[k] || !g) continue;
    if (!(iv[k] > 0)) return fail_at(im, item(im, "Output", ikeys[k]), "Output", "must be > 0, found %g", iv[k]);
    if (which >= 0 && iv[k] != interval) differ = 1;
    if (which < 0 || iv[k] < interval) interval = iv[k], which = k;
  }
  put(&im->y, "output:\n  style: seissol # SeisSol's file names, columns and signs (docs/SEISSOL_OUTPUTS.md)\n");
  SQ_CALL(put_output_file(im));
  if (which >= 0) {
    put(&im->y, "  interval: %s # %s\n", gnum(interval), ikeys[which]);
    if (differ && im->warn) {
      fprintf(im->warn,
              "starquake: warning: %s: starquake writes wavefield, surface and energies at one interval: "
              "output.interval = %g (%s); SeisSol's were",
              im->nl->file, interval, ikeys[which]);
      for (int k = 0; k < 3; ++k)
        if (on[k]) fprintf(im->warn, " %s = %g", ikeys[k], iv[k]);
      fprintf(im->warn, "\n");
    }
  }
  if (wf) {
    static const char *const fields[9] = {"s_xx", "s_yy", "s_zz", "s_xy", "s_yz", "s_xz", "v1", "v2", "v3"};
    static const char *const pfields[7] = {"ep_xx", "ep_yy", "ep_zz", "ep_xy", "ep_yz", "ep_xz", "eta"};
    int m[9], pm[7], gm, gp;
    SQ_CALL(mask(im, "Output", "iOutputMask", m, 9, &gm));
    SQ_CALL(mask(im, "Output", "iPlasticityMask", pm, 7, &gp));
    if (!gm)
      for (int k = 0; k < 9; ++k) m[k] = k >= 6; /* the velocities */
    int n = 0;
    put(&im->y, "  fields: [");
    for (int k = 0; k < 9; ++k)
      if (m[k]) put(&im->y, "%s%s", n++ ? ", " : "", fields[k]);
    for (int k = 0; plastic && k < 7; ++k)
      if (pm[k]) put(&im->y, "%s%s", n++ ? ", " : "", pfields[k]);
    put(&im->y, "]\n");
  }
  if (surface) put(&im->y, "  surface: true\n  surface_displacement: true\n");
  /* checkpoints */
  long ck = 0;
  double civ = 0;
  int gck, gciv;
  const char *cfile, *backend;
  SQ_CALL(integer(im, "Output", "Checkpoint", &ck, &gck));
  SQ_CALL(num(im, "Output", "checkPointInterval", &civ, &gciv));
  SQ_CALL(string(im, "Output", "checkPointFile", &cfile));
  SQ_CALL(string(im, "Output", "checkPointBackend", &backend));
  const int want = (gck ? ck != 0 : gciv) && civ > 0 && !(backend && !strcasecmp(backend, "none"));
  if (want) {
    put(&im->y, "checkpoint:\n  interval: %s # checkPointInterval\n", gnum(civ));
    const char *slash = cfile ? strrchr(cfile, '/') : NULL;
    if (slash && slash > cfile) {
      char dir[4096];
      snprintf(dir, sizeof(dir), "%.*s", (int)(slash - cfile), cfile);
      put(&im->y, "  directory: ");
      put_quoted(&im->y, dir);
      put(&im->y, "\n");
    }
  }
  return SQ_SUCCESS;
}

int sq_seissol_import(const char *par_path, const char *yaml_dir, char **yaml, FILE *warn) {
  SQ_CHECK(par_path && yaml, SQ_ERR_INTERNAL, "sq_seissol_import: NULL argument");
  *yaml = NULL;
  sq_namelist *nl;
  SQ_CALL(sq_namelist_read(par_path, &nl));
  imp im = {.nl = nl, .warn = warn};
  const char *slash = strrchr(par_path, '/');
  if (slash) snprintf(im.pardir, sizeof(im.pardir), "%.*s/", (int)(slash - par_path), par_path);
  int rc = SQ_SUCCESS;
  if (yaml_dir) {
    /* the YAML is read from another folder: the set-up's relative names become absolute */
    char real[PATH_MAX];
    if (!realpath(im.pardir[0] ? im.pardir : ".", real))
      rc = sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot resolve the folder of '%s': %s", par_path, strerror(errno));
    else {
      char ry[PATH_MAX];
      const int same = realpath(yaml_dir[0] ? yaml_dir : ".", ry) && !strcmp(ry, real);
      if (!same) snprintf(im.yamldir, sizeof(im.yamldir), "%s/", strcmp(real, "/") ? real : "");
    }
  }
  if (!rc) rc = sq_seissol_check_keys(nl, warn);
  int plastic = 0, have_pickdt = 0;
  double pickdt = 0.1; /* SeisSol's default */
  put(&im.y,
      "# starquake configuration imported from the SeisSol set-up %s (starquake seissol-import; docs/SEISSOL.md)\n",
      par_path);
  if (!rc) rc = num(&im, "Output", "pickdt", &pickdt, &have_pickdt);
  if (!rc && have_pickdt && !(pickdt > 0))
    rc = fail_at(&im, item(&im, "Output", "pickdt"), "Output", "must be > 0 (s), found %g", pickdt);
  if (!rc) rc = do_mesh(&im);
  if (!rc) rc = do_materials(&im, &plastic);
  if (!rc) rc = do_equations(&im);
  if (!rc) rc = do_fault(&im, pickdt, have_pickdt);
  if (!rc) rc = do_sources(&im);
  if (!rc) rc = do_receivers(&im, pickdt, have_pickdt);
  if (!rc) rc = do_output(&im, plastic);
  if (!rc && im.y.oom) rc = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory importing %s", par_path);
  sq_namelist_free(nl);
  if (rc) {
    free(im.y.s);
    return rc;
  }
  *yaml = im.y.s;
  return SQ_SUCCESS;
}
