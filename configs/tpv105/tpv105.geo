// SCEC TPV105 (rate-and-state friction with fast velocity weakening and thermal pressurization) for
// starquake: the geometry is that of TPV101 (vertical strike-slip fault y = 0, x in [-18000, 18000],
// z in [-18000, 0], free surface z = 0); the same parameters (h_fault, h_far, growth, Lh, Lz) apply, e.g.
//   gmsh -3 -setnumber h_fault 3000 -setnumber h_far 15000 -format msh22 -o tpv105.msh tpv105.geo
Include "../tpv101/tpv101.geo";
