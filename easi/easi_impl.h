/**
 * @file easi_impl.h  Private declarations of the easi reader: the YAML tree with tags (easi_yaml.c), the
 * component tree (easi_parse.c builds it, easi_eval.c walks it per point), the function language of
 * !FunctionMap (easi_func.c), the Lua states of !LuaMap (easi_lua.c) and the grids of !ASAGI and
 * !SCECFile (easi_grid.c).  Calls go downwards only: easi_eval.c -> easi_parse.c -> easi_func.c,
 * easi_lua.c, easi_grid.c -> easi_yaml.c.
 */
#ifndef SQ_EASI_IMPL_H
#define SQ_EASI_IMPL_H

#include "sq_easi.h"

#include <pthread.h>
#include <stddef.h>

/** Most dimensions one component may have (inputs or outputs). */
#define SQ_EASI_MAXDIM 64
/** Deepest nesting of components and !Include files. */
#define SQ_EASI_MAXDEPTH 64
/** Size of the message buffers. */
#define SQ_EASI_MSG 512

/* ---------------------------------------------------------------------------------------------- */
/* YAML tree with tags (easi_yaml.c)                                                              */
/* ---------------------------------------------------------------------------------------------- */

typedef enum { SQ_EY_SCALAR, SQ_EY_MAP, SQ_EY_SEQ } sq_ey_kind;

/** One YAML node of an easi file; mappings keep their pairs in file order. */
typedef struct sq_ey {
  sq_ey_kind kind;
  int line;   /**< 1-based line of the node */
  char *tag;  /**< "!ConstantMap", or NULL */
  char *text; /**< scalar value */
  int block;  /**< scalar written as a block scalar (| or >) */
  size_t n, cap;
  struct sq_ey **keys;  /**< map: keys */
  struct sq_ey **items; /**< map: values; seq: items */
} sq_ey;

/** Read file @p path into a tree (an error message into @p msg, "FILE:LINE: ..."). */
int sq_ey_read(const char *path, sq_ey **root, char *msg, size_t size);
/** Read YAML text @p buf (named @p name in messages). */
int sq_ey_parse(const char *name, const char *buf, size_t len, sq_ey **root, char *msg, size_t size);
void sq_ey_free(sq_ey *node);
/** Value of key @p key in mapping @p map, or NULL. */
const sq_ey *sq_ey_get(const sq_ey *map, const char *key);

/* ---------------------------------------------------------------------------------------------- */
/* !FunctionMap programs (easi_func.c)                                                            */
/* ---------------------------------------------------------------------------------------------- */

typedef struct sq_efunc sq_efunc;
/**
 * Compile the function body @p src (the text of one map entry; its first line is @p line of @p file)
 * with the input variables @p in[0..nin-1].  @p out names the parameter that a "return {a: e, ...}"
 * picks.  Errors: "FILE:LINE: !FunctionMap: ..." in @p msg.
 */
int sq_efunc_compile(const char *src, const char *file, int line, int nin, char *const *in, const char *out,
                     sq_efunc **fn, char *msg, size_t size);
/** Run @p fn with the input values @p x; 0, or -1 when it ended without a return. */
int sq_efunc_run(const sq_efunc *fn, const double *x, double *result);
void sq_efunc_free(sq_efunc *fn);

/* ---------------------------------------------------------------------------------------------- */
/* Components                                                                                     */
/* ---------------------------------------------------------------------------------------------- */

typedef enum {
  SQ_EC_CONSTANT,
  SQ_EC_FUNCTION,
  SQ_EC_LUA,
  SQ_EC_AFFINE,
  SQ_EC_POLY,
  SQ_EC_LAYERED,
  SQ_EC_IDENTITY,
  SQ_EC_SWITCH,
  SQ_EC_ANY,
  SQ_EC_GROUP,
  SQ_EC_CUBOID,
  SQ_EC_SPHERE,
  SQ_EC_EVAL,
  SQ_EC_SCEC,
  SQ_EC_ASAGI
} sq_ec_kind;

/** Interpolation of !LayeredModel and of the grids. */
enum { SQ_EI_LOWER, SQ_EI_UPPER, SQ_EI_LINEAR, SQ_EI_NEAREST };

/** A regular grid of values (!ASAGI, !SCECFile): nd dimensions, nv values per grid point. */
typedef struct sq_egrid {
  int nd, nv;
  size_t n[3]; /**< points per dimension, dimension 0 the fastest */
  double lo[3], hi[3];
  double *v; /**< nv values per point, point (i0, i1, i2) at ((i2 * n1 + i1) * n0 + i0) */
} sq_egrid;

typedef struct sq_ecomp sq_ecomp;

/** One component.  Input and output dimensions are sorted by name (easi's lexicographic order). */
struct sq_ecomp {
  sq_ec_kind kind;
  const char *tag;  /**< "!ConstantMap", ... */
  const char *file; /**< the file it was read from (owned by the model) */
  int line;
  int nin;
  char **in; /**< input dimensions */
  int nout;
  char **out; /**< output dimensions: a map's results, a filter's inputs */
  int nchild;
  sq_ecomp **child;
  /* !Switch: the parameters each child gives */
  int *nkeys;
  char ***keys;
  /* !ConstantMap: nout values; !AffineMap: nout x nin matrix, then nout translations;
   * !PolynomialMap: per output ncoef[k] coefficients from x^n down to 1, concatenated */
  double *val;
  int *ncoef;
  /* !GroupFilter */
  int ngroups;
  int *groups;
  /* domain filters: per input dimension [lo, hi] (cuboid), or centre and radius (sphere) */
  double *lim;
  double radius;
  /* !FunctionMap: one program per output */
  sq_efunc **fn;
  /* !LuaMap */
  char *lua;    /**< the code (function form) */
  char **luas;  /**< per output the chunk (map form), or NULL */
  int lua_id;   /**< index into the per-thread Lua states */
  int lua_line; /**< line of the code's first line */
  /* !LayeredModel: map component (one output), nodes ascending, nout values per node */
  sq_ecomp *map;
  int nnodes;
  double *nodes;
  int interp;
  /* !EvalModel: the model giving its parameters (its outputs = the children's inputs) */
  sq_ecomp *model;
  /* !ASAGI, !SCECFile; perm[k] = the grid's value index of output k */
  sq_egrid grid;
  int *perm;
};

struct sq_easi {
  sq_ecomp *root;
  int nfiles;
  char **files; /**< every file read (the root, then !Include'd ones) */
  int nlua;     /**< !LuaMap components */
  sq_ecomp **luac;
  /* Lua states of finished evaluations, kept for the next (a caller evaluating point by point would
   * otherwise load the code at every point) */
  pthread_mutex_t lock;
  int npool, cappool;
  struct sq_elua **pool;
};

/** Parse the model of @p path into @p m (root and files), errors into @p msg. */
int sq_easi_parse(const char *path, struct sq_easi *m, char *msg, size_t size);
void sq_ecomp_free(sq_ecomp *c);

/* ---------------------------------------------------------------------------------------------- */
/* Lua (easi_lua.c): one set of states per evaluating thread                                      */
/* ---------------------------------------------------------------------------------------------- */

typedef struct sq_elua sq_elua;
/** Check the syntax of component @p c's code (load time); errors "FILE:LINE: !LuaMap: ...". */
int sq_elua_check(const sq_ecomp *c, char *msg, size_t size);
/** States for the @p m's !LuaMap components, made when first used. */
sq_elua *sq_elua_new(const struct sq_easi *m);
void sq_elua_free(sq_elua *L);
/** Evaluate outputs want[0..nw-1] (indices into c->out) of !LuaMap @p c at input @p x. */
int sq_elua_eval(sq_elua *L, const sq_ecomp *c, const double *x, int nw, const int *want, double *res, char *msg,
                 size_t size);

/* ---------------------------------------------------------------------------------------------- */
/* Grids (easi_grid.c)                                                                            */
/* ---------------------------------------------------------------------------------------------- */

/** Read variable @p var of netCDF file @p path with @p nparams values per point (ASAGI's layout). */
int sq_egrid_read_netcdf(const char *path, const char *var, int nd, int nparams, sq_egrid *g, char *msg, size_t size);
/** Read a SCEC stress file (8 values per point, easi's order of !SCECFile's outputs). */
int sq_egrid_read_scec(const char *path, sq_egrid *g, char *msg, size_t size);
/** Interpolate @p g at @p x (nd coordinates; outside the grid the boundary value). */
void sq_egrid_eval(const sq_egrid *g, const double *x, int interp, double *res);
void sq_egrid_free(sq_egrid *g);

#endif
