// LOH.3 for starquake: LOH.1's geometry and mesh sizes (../loh1/loh1.geo: frame, physical groups, lc_fine,
// lc_layer, lc_far), read as it is.
//
//   gmsh -3 -format msh41 -o loh3.msh loh3.geo
Include "../loh1/loh1.geo";
