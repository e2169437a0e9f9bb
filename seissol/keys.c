/**
 * @file keys.c  The SeisSol parameter-file keys that starquake knows, with what it does with each
 * (mapped, ignored silently, warned, refused), and the check of a namelist against them.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sq_common.h"
#include "sq_config.h"
#include "sq_seissol.h"

#define M SQ_SEISSOL_MAPPED
#define Q SQ_SEISSOL_QUIET
#define W SQ_SEISSOL_WARNED
#define R SQ_SEISSOL_REFUSED

static const char *const groups[] = {"equations",  "IniCondition", "Boundaries",     "DynamicRupture", "Elementwise",
                                     "Pickpoint",  "SourceType",   "SpongeLayer",    "MeshNml",        "Discretization",
                                     "Output",     "AbortCriteria", "Analysis",      "Debugging",      "Postprocessing",
                                     NULL};

/* groups whose every key is ignored with a warning */
static const char *const ignored_groups[] = {"SpongeLayer", "Analysis", "Debugging", "Postprocessing", NULL};

static const sq_seissol_key keys[] = {
    /* equations */
    {"equations", "MaterialFileName", M, "`materials: {easi: FILE}`"},
    {"equations", "Plasticity", M, "1: the `plasticity:` section (its parameters from the material model)"},
    {"equations", "Tv", M, "`plasticity.tv`"},
    {"equations", "numflux", M, "`godunov`: the flux starquake uses; `rusanov`: warned, the Godunov flux is used"},
    {"equations", "numfluxnearfault", M, "as `numflux`"},
    {"equations", "FreqCentral", R, "viscoelastic attenuation"},
    {"equations", "FreqRatio", R, "viscoelastic attenuation"},
    {"equations", "GravitationalAcceleration", R, "a gravitational free surface (acoustic ocean)"},
    {"equations", "BoundaryFileName", R, "boundary conditions from an easi model"},
    /* IniCondition */
    {"IniCondition", "cICType", M, "`Zero` (the default); any other initial condition is refused, naming it"},
    {"IniCondition", "IniConditionFile", W, "used by SeisSol's refused initial conditions only"},
    {"IniCondition", "origin", W, "used by SeisSol's travelling wave only"},
    {"IniCondition", "kVec", W, "used by SeisSol's travelling wave only"},
    {"IniCondition", "ampField", W, "used by SeisSol's travelling wave only"},
    /* Boundaries */
    {"Boundaries", "BC_fs", Q, "the mesh's boundary tags decide (free surface: 1 / 101)"},
    {"Boundaries", "BC_dr", Q, "the mesh's boundary tags decide (fault: 3 / 103)"},
    {"Boundaries", "BC_of", Q, "the mesh's boundary tags decide (absorbing: 5 / 105)"},
    /* DynamicRupture */
    {"DynamicRupture", "FL", M,
     "`fault.friction_law`: 2 and 16 `linear_slip_weakening`, 3 `rate_state_aging`, 4 `rate_state_slip`, 103 "
     "`rate_state_fast_velocity_weakening`, 0 no fault; others refused (6 bimaterial, 7 velocity weakening, 33/34 "
     "kinematic)"},
    {"DynamicRupture", "ModelFileName", M, "`fault: {easi: FILE}`"},
    {"DynamicRupture", "XRef", M, "`fault.reference_point` (see *Fault sides*)"},
    {"DynamicRupture", "YRef", M, "`fault.reference_point`"},
    {"DynamicRupture", "ZRef", M, "`fault.reference_point`"},
    {"DynamicRupture", "refPointMethod", M, "0: a point, 1: a direction (see *Fault sides*)"},
    {"DynamicRupture", "t_0", M, "`fault.nucleation_time`; with FL = 16 also `fault.forced_rupture_duration`"},
    {"DynamicRupture", "RS_f0", M, "`fault.f0`"},
    {"DynamicRupture", "RS_sr0", M, "`fault.V0`"},
    {"DynamicRupture", "RS_b", M, "`fault.b`"},
    {"DynamicRupture", "RS_a", M, "`fault.a`"},
    {"DynamicRupture", "RS_sl0", M, "`fault.L`"},
    {"DynamicRupture", "RS_muW", M, "`fault.f_w`"},
    {"DynamicRupture", "RS_srW", M, "`fault.V_w`"},
    {"DynamicRupture", "RS_iniSlipRate1", M, "`fault.initial_slip_rate` = |(RS_iniSlipRate1, RS_iniSlipRate2)|"},
    {"DynamicRupture", "RS_iniSlipRate2", M, "`fault.initial_slip_rate` (its magnitude, along the initial shear)"},
    {"DynamicRupture", "thermalPress", M, "0; 1 (thermal pressurization) is refused"},
    {"DynamicRupture", "tp_iniTemp", W, "thermal pressurization only"},
    {"DynamicRupture", "tp_iniPressure", W, "thermal pressurization only"},
    {"DynamicRupture", "tp_thermalDiffusivity", W, "thermal pressurization only"},
    {"DynamicRupture", "tp_heatCapacity", W, "thermal pressurization only"},
    {"DynamicRupture", "tp_undrainedTPResponse", W, "thermal pressurization only"},
    {"DynamicRupture", "TP_grid_nz", W, "thermal pressurization only"},
    {"DynamicRupture", "TP_log_dz", W, "thermal pressurization only"},
    {"DynamicRupture", "TP_max_dz", W, "thermal pressurization only"},
    {"DynamicRupture", "pc_vStar", W, "the bimaterial law FL = 6 only (refused)"},
    {"DynamicRupture", "pc_prakashLength", W, "the bimaterial law FL = 6 only (refused)"},
    {"DynamicRupture", "GPwise", Q, "starquake always evaluates the fault values at each quadrature point"},
    {"DynamicRupture", "RF_output_on", W, "no separate rupture-front file; the fault output has the rupture time"},
    {"DynamicRupture", "OutputPointType", M,
     "0 none, 3 fault stations (`Pickpoint`), 4 fault snapshots (`Elementwise`), 5 both"},
    {"DynamicRupture", "SlipRateOutputType", M,
     "1: what starquake writes (the friction solution's slip rate); 0: warned"},
    {"DynamicRupture", "inst_healing", W, "instantaneous healing is not supported"},
    {"DynamicRupture", "etaHack", W, "not supported"},
    {"DynamicRupture", "etaStop", W, "not supported"},
    {"DynamicRupture", "BackgroundType", R, "fault values without an easi model (give ModelFileName)"},
    /* Elementwise */
    {"Elementwise", "printtimeinterval_sec", M, "`fault.output_interval`"},
    {"Elementwise", "printIntervalCriterion", W, "starquake's fault snapshots are timed in simulated time"},
    {"Elementwise", "OutputMask", W, "starquake writes all its fault variables"},
    {"Elementwise", "refinement_strategy", W, "fault snapshots are written on the fault faces, not refined"},
    {"Elementwise", "refinement", W, "fault snapshots are written on the fault faces, not refined"},
    {"Elementwise", "vtkorder", W, "fault snapshots are written on the fault faces, not refined"},
    /* Pickpoint */
    {"Pickpoint", "PPFileName", M, "`fault.stations` (the file's points, written into the YAML)"},
    {"Pickpoint", "printtimeinterval", M,
     "counts time steps in SeisSol: warned; `fault.station_interval` is `Output.pickdt`"},
    {"Pickpoint", "OutputMask", W, "starquake writes all its fault-station variables"},
    {"Pickpoint", "nOutpoints", Q, "the count comes from PPFileName"},
    /* SourceType */
    {"SourceType", "Type", M, "50: `sources: [{type: finite, file: FILE}]`; 42 (NRF, netCDF) refused"},
    {"SourceType", "FileName", M, "the source file of `Type`"},
    /* MeshNml */
    {"MeshNml", "MeshFile", M, "`mesh.file`"},
    {"MeshNml", "meshgenerator", M, "`PUML` and `Gmsh`: `mesh.type`; `Netcdf` and `Gambit3D-fast` refused"},
    {"MeshNml", "pumlboundaryformat", W, "starquake reads the boundary codes the PUML file holds"},
    {"MeshNml", "vertexWeightElement", W, "partition weights: see `runtime.partition`"},
    {"MeshNml", "vertexWeightDynamicRupture", W, "partition weights: see `runtime.partition`"},
    {"MeshNml", "vertexWeightFreeSurfaceWithGravity", W, "partition weights: see `runtime.partition`"},
    {"MeshNml", "displacement", R, "a displaced mesh"},
    {"MeshNml", "scalingMatrixX", R, "a scaled mesh"},
    {"MeshNml", "scalingMatrixY", R, "a scaled mesh"},
    {"MeshNml", "scalingMatrixZ", R, "a scaled mesh"},
    /* Discretization */
    {"Discretization", "CFL", M, "`equations.cfl`"},
    {"Discretization", "ClusteredLTS", M, "`equations.lts.rate` (1 and 0: global time stepping)"},
    {"Discretization", "FixTimeStep", W, "starquake's time step is the CFL step"},
    {"Discretization", "LtsWeightTypeId", W, "see `runtime.partition`"},
    {"Discretization", "NodeWeightModelTypeId", W, "see `runtime.partition`"},
    {"Discretization", "EdgeWeightModelTypeId", W, "see `runtime.partition`"},
    /* Output */
    {"Output", "OutputFile", M, "`output.directory` (its folder) and `output.prefix` (its last part)"},
    {"Output", "wavefieldoutput", M, "1: wavefield snapshots (`output.fields`)"},
    {"Output", "Format", M, "6 (HDF5): wavefield snapshots when `wavefieldoutput` is absent; 10: none"},
    {"Output", "iOutputMask", M, "`output.fields`: s_xx s_yy s_zz s_xy s_yz s_xz v1 v2 v3"},
    {"Output", "iPlasticityMask", M, "`output.fields` with plasticity: ep_xx ep_yy ep_zz ep_xy ep_yz ep_xz eta"},
    {"Output", "TimeInterval", M, "`output.interval` (see *Output intervals*)"},
    {"Output", "refinement", W, "snapshots hold cell values, not refined"},
    {"Output", "printIntervalCriterion", W, "snapshots are timed in simulated time"},
    {"Output", "OutputRegionBounds", W, "snapshots cover the whole domain"},
    {"Output", "OutputGroups", W, "snapshots cover every group"},
    {"Output", "SurfaceOutput", M, "`output.surface` and `output.surface_displacement`"},
    {"Output", "SurfaceOutputRefinement", W, "surface snapshots hold face values, not refined"},
    {"Output", "SurfaceOutputInterval", M, "`output.interval` (see *Output intervals*)"},
    {"Output", "pickdt", M, "`receivers.interval` and `fault.station_interval`"},
    {"Output", "pickDtType", W, "receivers are sampled in simulated time"},
    {"Output", "RFileName", M, "`receivers.file`"},
    {"Output", "ReceiverOutputInterval", M, "`receivers.flush_interval`"},
    {"Output", "ReceiverComputeRotation", W, "receivers do not write the rotation"},
    {"Output", "nRecordPoints", Q, "the count comes from RFileName"},
    {"Output", "xdmfWriterBackend", Q, "starquake writes XDMF with HDF5"},
    {"Output", "EnergyOutput", M, "energies (`PREFIX-energy.csv`) at `output.interval`"},
    {"Output", "EnergyTerminalOutput", Q, "starquake prints its progress"},
    {"Output", "EnergyOutputInterval", M, "`output.interval` (see *Output intervals*)"},
    {"Output", "ComputeVolumeEnergiesEveryOutput", W, "energies are computed at every output"},
    {"Output", "FaultOutputFlag", Q, "the fault output follows `OutputPointType`"},
    {"Output", "Checkpoint", M, "1: checkpoints every `checkPointInterval`"},
    {"Output", "checkPointFile", M, "`checkpoint.directory` (its folder)"},
    {"Output", "checkPointInterval", M, "`checkpoint.interval`"},
    {"Output", "checkPointBackend", W, "starquake writes HDF5 checkpoints (`none` turns them off)"},
    /* AbortCriteria */
    {"AbortCriteria", "EndTime", M, "`equations.end_time`"},
    {"AbortCriteria", "MaxIteration", W, "the run ends at EndTime"},
    {"AbortCriteria", "MaxTolerance", W, "the run ends at EndTime"},
    {"AbortCriteria", "MaxTolCriterion", W, "the run ends at EndTime"},
    {"AbortCriteria", "WallTime_h", W, "stop a run with SIGTERM: it writes a checkpoint"},
    {"AbortCriteria", "Delay_h", W, "stop a run with SIGTERM: it writes a checkpoint"},
    {NULL, NULL, 0, NULL}};

const sq_seissol_key *sq_seissol_keys(void) { return keys; }
const char *const *sq_seissol_groups(void) { return groups; }

int sq_seissol_group_ignored(const char *name) {
  for (int i = 0; ignored_groups[i]; ++i)
    if (!strcasecmp(ignored_groups[i], name)) return 1;
  return 0;
}

static const sq_seissol_key *find_key(const char *group, const char *key) {
  for (const sq_seissol_key *k = keys; k->group; ++k)
    if (!strcasecmp(k->group, group) && !strcasecmp(k->key, key)) return k;
  return NULL;
}

/** The nearest of @p cand (case-insensitive, the rule of the YAML's "did you mean"), or NULL. */
static const char *nearest(const char *given, const char *const *cand, int n) {
  char low[64], *lc[256];
  if (n > 256) n = 256;
  snprintf(low, sizeof(low), "%s", given);
  for (char *c = low; *c; ++c) *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
  int m = 0;
  for (; m < n; ++m) {
    lc[m] = strdup(cand[m]);
    if (!lc[m]) break;
    for (char *c = lc[m]; *c; ++c) *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
  }
  const int i = sq_config_nearest(low, (const char *const *)lc, m);
  for (int j = 0; j < m; ++j) free(lc[j]);
  return i >= 0 ? cand[i] : NULL;
}

static int unknown_key(const sq_namelist *nl, const sq_nml_group *g, const sq_nml_item *it) {
  const char *cand[256];
  int n = 0;
  const char *gname = NULL;
  for (const sq_seissol_key *k = keys; k->group && n < 256; ++k)
    if (!strcasecmp(k->group, g->name)) cand[n++] = k->key, gname = k->group;
  const char *near = nearest(it->key, cand, n);
  if (near)
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: unknown key '%s' in '&%s'; did you mean '%s'?", nl->file,
                    it->line, it->key, g->name, near);
  /* a key of another group */
  for (const sq_seissol_key *k = keys; k->group; ++k)
    if (!strcasecmp(k->key, it->key))
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: unknown key '%s' in '&%s'; it belongs to '&%s'",
                      nl->file, it->line, it->key, g->name, k->group);
  char list[2048];
  size_t o = 0;
  for (int i = 0; i < n && o < sizeof(list); ++i)
    o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", i ? ", " : "", cand[i]);
  return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: unknown key '%s' in '&%s'; the keys of '&%s' are: %s",
                  nl->file, it->line, it->key, g->name, gname ? gname : g->name, list);
}

int sq_seissol_check_keys(const sq_namelist *nl, FILE *warn) {
  int ngroups = 0;
  while (groups[ngroups]) ++ngroups;
  for (int gi = 0; gi < nl->ngroup; ++gi) {
    const sq_nml_group *g = &nl->group[gi];
    int known = 0;
    for (int i = 0; groups[i]; ++i) known |= !strcasecmp(groups[i], g->name);
    if (!known) {
      const char *near = nearest(g->name, groups, ngroups);
      if (near)
        return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: unknown group '&%s'; did you mean '&%s'?", nl->file,
                        g->line, g->name, near);
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "%s:%d: unknown group '&%s'; SeisSol's groups are &equations, &IniCondition, &Boundaries, "
                      "&DynamicRupture, &Elementwise, &Pickpoint, &SourceType, &SpongeLayer, &MeshNml, "
                      "&Discretization, &Output, &AbortCriteria, &Analysis, &Debugging, &Postprocessing",
                      nl->file, g->line, g->name);
    }
    if (sq_seissol_group_ignored(g->name)) {
      if (g->nitem && warn)
        fprintf(warn, "starquake: warning: %s:%d: group '&%s' is not supported: its %d key%s (%s%s) are ignored\n",
                nl->file, g->line, g->name, g->nitem, g->nitem == 1 ? "" : "s", g->item[0].key,
                g->nitem > 1 ? ", ..." : "");
      continue;
    }
    for (int i = 0; i < g->nitem; ++i) {
      const sq_nml_item *it = &g->item[i];
      const sq_seissol_key *k = find_key(g->name, it->key);
      if (!k) return unknown_key(nl, g, it);
      if (k->status == SQ_SEISSOL_REFUSED)
        return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: key '%s' of '&%s': %s is not supported by starquake",
                        nl->file, it->line, it->key, g->name, k->note);
      if (k->status == SQ_SEISSOL_WARNED && warn)
        fprintf(warn, "starquake: warning: %s:%d: key '%s' of '&%s' is not supported and is ignored: %s\n", nl->file,
                it->line, it->key, g->name, k->note);
    }
  }
  return SQ_SUCCESS;
}

void sq_seissol_write_keys(FILE *out) {
  static const char *const status[] = {"supported", "accepted, no effect", "warned, ignored", "refused"};
  fprintf(out, "| group | key | status | in starquake |\n|---|---|---|---|\n");
  for (const sq_seissol_key *k = keys; k->group; ++k)
    fprintf(out, "| `&%s` | `%s` | %s | %s |\n", k->group, k->key, status[k->status], k->note);
  for (int i = 0; ignored_groups[i]; ++i)
    fprintf(out, "| `&%s` | every key | warned, ignored | the group is not supported |\n", ignored_groups[i]);
}
