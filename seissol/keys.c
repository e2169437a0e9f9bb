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

static const char *const groups[] = {"equations",   "IniCondition",   "Boundaries",     "DynamicRupture",
                                     "Elementwise", "Pickpoint",      "SourceType",     "SpongeLayer",
                                     "MeshNml",     "Discretization", "Output",         "AbortCriteria",
                                     "Analysis",    "Debugging",      "Postprocessing", NULL};

/* groups whose every key is ignored with a warning */
static const char *const ignored_groups[] = {"SpongeLayer", "Analysis", "Debugging", "Postprocessing", NULL};

static const sq_seissol_key keys[] = {
    /* equations */
    {"equations", "MaterialFileName", M, "`materials: {easi: FILE}`", 0},
    {"equations", "Plasticity", M, "1: the `plasticity:` section (its parameters from the material model)", 0},
    {"equations", "Tv", M, "`plasticity.tv`", 0},
    {"equations", "PlasticityPointwise", M,
     "`plasticity.initial_stress_at`: 1 (SeisSol's default) `nodes`, 0 `centroid`; SeisSol also takes plastCo and "
     "bulkFriction per nodal point, starquake per element (at the centroid)",
     0},
    {"equations", "numflux", M, "`godunov`: the flux starquake uses; `rusanov`: warned, the Godunov flux is used", 0},
    {"equations", "numfluxnearfault", M, "as `numflux`", 0},
    {"equations", "FreqCentral", M,
     "`attenuation.central_frequency` (with `mechanisms: 3`, SeisSol's NUMBER_OF_RELAXATION_MECHANISMS; Qp and Qs "
     "from the material model)",
     0},
    {"equations", "FreqRatio", M, "`attenuation.frequency_ratio` (default 100)", 0},
    {"equations", "GravitationalAcceleration", R, "a gravitational free surface (acoustic ocean)", 0},
    {"equations", "BoundaryFileName", R, "boundary conditions from an easi model", 0},
    /* IniCondition */
    {"IniCondition", "cICType", M, "`Zero` (the default); any other initial condition is refused, naming it", 0},
    {"IniCondition", "IniConditionFile", W, "used by SeisSol's refused initial conditions only", 0},
    {"IniCondition", "origin", W, "used by SeisSol's travelling wave only", 0},
    {"IniCondition", "kVec", W, "used by SeisSol's travelling wave only", 0},
    {"IniCondition", "ampField", W, "used by SeisSol's travelling wave only", 0},
    /* Boundaries */
    {"Boundaries", "BC_fs", Q, "the mesh's boundary tags decide (free surface: 1 / 101)", 0},
    {"Boundaries", "BC_dr", Q, "the mesh's boundary tags decide (fault: 3 / 103)", 0},
    {"Boundaries", "BC_of", Q, "the mesh's boundary tags decide (absorbing: 5 / 105)", 0},
    /* DynamicRupture */
    {"DynamicRupture", "FL", M,
     "`fault.friction_law`: 2 and 16 `linear_slip_weakening`, 6 `linear_slip_weakening` with `fault.pc_v_star` and "
     "`fault.pc_length` (bimaterial), 3 `rate_state_aging`, 4 `rate_state_slip`, 103 "
     "`rate_state_fast_velocity_weakening`, 33 `imposed_slip_rate_yoffe`, 34 `imposed_slip_rate_gaussian`, 0 no "
     "fault; others refused (7 velocity weakening)",
     0},
    {"DynamicRupture", "ModelFileName", M, "`fault: {easi: FILE}`", 0},
    {"DynamicRupture", "XRef", M, "`fault.reference_point` (see *Fault sides*)", 0},
    {"DynamicRupture", "YRef", M, "`fault.reference_point`", 0},
    {"DynamicRupture", "ZRef", M, "`fault.reference_point`", 0},
    {"DynamicRupture", "refPointMethod", M, "0: a point, 1: a direction (see *Fault sides*)", 0},
    {"DynamicRupture", "t_0", M, "`fault.nucleation_time`; with FL = 16 also `fault.forced_rupture_duration`", 0},
    {"DynamicRupture", "RS_f0", M, "`fault.f0`", 0},
    {"DynamicRupture", "RS_sr0", M, "`fault.V0`", 0},
    {"DynamicRupture", "RS_b", M, "`fault.b`", 0},
    {"DynamicRupture", "RS_a", M, "`fault.a`", 0},
    {"DynamicRupture", "RS_sl0", M, "`fault.L`", 0},
    {"DynamicRupture", "RS_muW", M, "`fault.f_w`", 0},
    {"DynamicRupture", "RS_srW", M, "`fault.V_w`", 0},
    {"DynamicRupture", "RS_iniSlipRate1", M, "`fault.initial_slip_rate` = |(RS_iniSlipRate1, RS_iniSlipRate2)|", 0},
    {"DynamicRupture", "RS_iniSlipRate2", M, "`fault.initial_slip_rate` (its magnitude, along the initial shear)", 0},
    {"DynamicRupture", "thermalPress", M,
     "1: `fault.thermal_pressurization: true` (rate-and-state laws; the easi model may give "
     "tp_hydraulicDiffusivity, tp_halfWidthShearZone and the other tp_ values)",
     0},
    {"DynamicRupture", "tp_iniTemp", M, "`fault.tp_initial_temperature`", 0},
    {"DynamicRupture", "tp_iniPressure", M, "`fault.tp_initial_pressure`", 0},
    {"DynamicRupture", "tp_thermalDiffusivity", M, "`fault.tp_thermal_diffusivity`", 0},
    {"DynamicRupture", "tp_heatCapacity", M, "`fault.tp_heat_capacity`", 0},
    {"DynamicRupture", "tp_undrainedTPResponse", M, "`fault.tp_lambda`", 0},
    {"DynamicRupture", "TP_grid_nz", M, "`fault.tp_grid_points` (at most 60)", 0},
    {"DynamicRupture", "TP_log_dz", W, "starquake's grid is log-spaced by 0.3 at 60 points (SeisSol's default)", 0},
    {"DynamicRupture", "TP_max_dz", W, "starquake's grid ends at k w = 10 (SeisSol's default)", 0},
    {"DynamicRupture", "pc_vStar", M, "`fault.pc_v_star` (FL = 6: Prakash-Clifton reference slip rate)", 0},
    {"DynamicRupture", "pc_prakashLength", M, "`fault.pc_length` (FL = 6: Prakash-Clifton slip distance)", 0},
    {"DynamicRupture", "GPwise", Q, "starquake always evaluates the fault values at each quadrature point", 0},
    {"DynamicRupture", "RF_output_on", W, "no separate rupture-front file; the fault output has the rupture time", 1},
    {"DynamicRupture", "OutputPointType", M,
     "0 none, 3 fault stations (`Pickpoint`), 4 fault snapshots (`Elementwise`), 5 both", 0},
    {"DynamicRupture", "SlipRateOutputType", M,
     "1: what starquake writes (the friction solution's slip rate); 0: warned", 0},
    {"DynamicRupture", "inst_healing", W, "instantaneous healing is not supported", 1},
    {"DynamicRupture", "etaHack", W, "not supported", 0},
    {"DynamicRupture", "etaStop", W, "not supported", 0},
    {"DynamicRupture", "BackgroundType", R, "fault values without an easi model (give ModelFileName)", 0},
    /* Elementwise */
    {"Elementwise", "printtimeinterval_sec", M, "`fault.output_interval`", 0},
    {"Elementwise", "printIntervalCriterion", W, "starquake's fault snapshots are timed in simulated time", 0},
    {"Elementwise", "OutputMask", W, "starquake writes all its fault variables", 0},
    {"Elementwise", "refinement_strategy", W, "fault snapshots are written on the fault faces, not refined", 0},
    {"Elementwise", "refinement", W, "fault snapshots are written on the fault faces, not refined", 1},
    {"Elementwise", "vtkorder", W, "fault snapshots are written on the fault faces, not refined", 0},
    /* Pickpoint */
    {"Pickpoint", "PPFileName", M, "`fault.stations` (the file's points, written into the YAML)", 0},
    {"Pickpoint", "printtimeinterval", M,
     "counts time steps in SeisSol: warned; `fault.station_interval` is `Output.pickdt`", 0},
    {"Pickpoint", "OutputMask", W, "starquake writes all its fault-station variables", 0},
    {"Pickpoint", "nOutpoints", Q, "the count comes from PPFileName", 0},
    /* SourceType */
    {"SourceType", "Type", M, "50: `sources: [{type: finite, file: FILE}]`; 42: `sources: [{type: nrf, file: FILE}]`",
     0},
    {"SourceType", "FileName", M, "the source file of `Type`", 0},
    /* MeshNml */
    {"MeshNml", "MeshFile", M, "`mesh.file`", 0},
    {"MeshNml", "meshgenerator", M, "`PUML` and `Gmsh`: `mesh.type`; `Netcdf` and `Gambit3D-fast` refused", 0},
    {"MeshNml", "pumlboundaryformat", W, "starquake reads the boundary codes the PUML file holds", 0},
    {"MeshNml", "vertexWeightElement", W, "partition weights: see `runtime.partition`", 0},
    {"MeshNml", "vertexWeightDynamicRupture", W, "partition weights: see `runtime.partition`", 0},
    {"MeshNml", "vertexWeightFreeSurfaceWithGravity", W, "partition weights: see `runtime.partition`", 0},
    {"MeshNml", "displacement", R, "a displaced mesh", 0},
    {"MeshNml", "scalingMatrixX", R, "a scaled mesh", 0},
    {"MeshNml", "scalingMatrixY", R, "a scaled mesh", 0},
    {"MeshNml", "scalingMatrixZ", R, "a scaled mesh", 0},
    /* Discretization */
    {"Discretization", "CFL", M, "`equations.cfl`", 0},
    {"Discretization", "ClusteredLTS", M, "`equations.lts.rate` (1 and 0: global time stepping)", 0},
    {"Discretization", "FixTimeStep", W, "starquake's time step is the CFL step", 0},
    {"Discretization", "LtsWeightTypeId", W, "see `runtime.partition`", 0},
    {"Discretization", "NodeWeightModelTypeId", W, "see `runtime.partition`", 0},
    {"Discretization", "EdgeWeightModelTypeId", W, "see `runtime.partition`", 0},
    /* Output */
    {"Output", "OutputFile", M, "`output.directory` (its folder) and `output.prefix` (its last part)", 0},
    {"Output", "wavefieldoutput", M, "1: wavefield snapshots (`output.fields`)", 0},
    {"Output", "Format", M, "6 (HDF5): wavefield snapshots when `wavefieldoutput` is absent; 10: none", 0},
    {"Output", "iOutputMask", M, "`output.fields`: s_xx s_yy s_zz s_xy s_yz s_xz v1 v2 v3", 0},
    {"Output", "iPlasticityMask", M, "`output.fields` with plasticity: ep_xx ep_yy ep_zz ep_xy ep_yz ep_xz eta", 0},
    {"Output", "TimeInterval", M, "`output.interval` (see *Output intervals*)", 0},
    {"Output", "refinement", W, "snapshots hold cell values, not refined", 1},
    {"Output", "printIntervalCriterion", W, "snapshots are timed in simulated time", 0},
    {"Output", "OutputRegionBounds", W, "snapshots cover the whole domain", 0},
    {"Output", "OutputGroups", W, "snapshots cover every group", 0},
    {"Output", "SurfaceOutput", M, "`output.surface` and `output.surface_displacement`", 0},
    {"Output", "SurfaceOutputRefinement", W, "surface snapshots hold face values, not refined", 1},
    {"Output", "SurfaceOutputInterval", M, "`output.interval` (see *Output intervals*)", 0},
    {"Output", "pickdt", M, "`receivers.interval` and `fault.station_interval`", 0},
    {"Output", "pickDtType", W, "receivers are sampled in simulated time", 0},
    {"Output", "RFileName", M, "`receivers.file`", 0},
    {"Output", "ReceiverOutputInterval", M, "`receivers.flush_interval`", 0},
    {"Output", "ReceiverComputeRotation", W, "receivers do not write the rotation", 0},
    {"Output", "nRecordPoints", Q, "the count comes from RFileName", 0},
    {"Output", "xdmfWriterBackend", Q, "starquake writes XDMF with HDF5", 0},
    {"Output", "EnergyOutput", M, "energies (`PREFIX-energy.csv`) at `output.interval`", 0},
    {"Output", "EnergyTerminalOutput", Q, "starquake prints its progress", 0},
    {"Output", "EnergyOutputInterval", M, "`output.interval` (see *Output intervals*)", 0},
    {"Output", "ComputeVolumeEnergiesEveryOutput", W, "energies are computed at every output", 0},
    {"Output", "FaultOutputFlag", Q, "the fault output follows `OutputPointType`", 0},
    {"Output", "Checkpoint", M, "1: checkpoints every `checkPointInterval`", 0},
    {"Output", "checkPointFile", M, "`checkpoint.directory` (its folder)", 0},
    {"Output", "checkPointInterval", M, "`checkpoint.interval`", 0},
    {"Output", "checkPointBackend", W, "starquake writes HDF5 checkpoints (`none` turns them off)", 0},
    /* AbortCriteria */
    {"AbortCriteria", "EndTime", M, "`equations.end_time`", 0},
    {"AbortCriteria", "MaxIteration", W, "the run ends at EndTime", 0},
    {"AbortCriteria", "MaxTolerance", W, "the run ends at EndTime", 0},
    {"AbortCriteria", "MaxTolCriterion", W, "the run ends at EndTime", 0},
    {"AbortCriteria", "WallTime_h", W, "stop a run with SIGTERM: it writes a checkpoint", 0},
    {"AbortCriteria", "Delay_h", W, "stop a run with SIGTERM: it writes a checkpoint", 0},
    {NULL, NULL, 0, NULL, 0}};

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
        fprintf(warn, "starquake: warning: %s:%d: group '&%s' is not supported: %s '%s'%s ignored\n", nl->file, g->line,
                g->name, g->nitem == 1 ? "its key" : "its keys", g->item[0].key, g->nitem > 1 ? ", ... are" : " is");
      continue;
    }
    for (int i = 0; i < g->nitem; ++i) {
      const sq_nml_item *it = &g->item[i];
      const sq_seissol_key *k = find_key(g->name, it->key);
      if (!k) return unknown_key(nl, g, it);
      if (k->status == SQ_SEISSOL_REFUSED)
        return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: key '%s' of '&%s': %s is not supported by starquake",
                        nl->file, it->line, it->key, g->name, k->note);
      const int off = k->zero_ok && it->nvalue == 1 && it->value[0].type != SQ_NML_STRING && it->value[0].num == 0;
      if (k->status == SQ_SEISSOL_WARNED && warn && !off)
        fprintf(warn, "starquake: warning: %s:%d: key '%s' of '&%s' is not supported and is ignored: %s\n", nl->file,
                it->line, it->key, g->name, k->note);
    }
  }
  return SQ_SUCCESS;
}

void sq_seissol_write_keys(FILE *out) {
  static const char *const status[] = {"supported", "accepted, no effect", "warned, ignored", "refused"};
  static const char *const status0[] = {"", "", "warned (not when 0), ignored", ""};
  fprintf(out, "| group | key | status | in starquake |\n|---|---|---|---|\n");
  for (const sq_seissol_key *k = keys; k->group; ++k)
    fprintf(out, "| `&%s` | `%s` | %s | %s |\n", k->group, k->key, k->zero_ok ? status0[k->status] : status[k->status],
            k->note);
  for (int i = 0; ignored_groups[i]; ++i)
    fprintf(out, "| `&%s` | every key | warned, ignored | the group is not supported |\n", ignored_groups[i]);
}
