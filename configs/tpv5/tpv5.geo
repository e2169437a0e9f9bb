// SCEC TPV5 (vertical strike-slip fault, linear slip weakening) for starquake: Gmsh geometry.
// Frame: x along strike, y across the fault, z up; free surface at z = 0, depth d is z = -d; metres.
// Fault: the rectangle y = 0, x in [-15000, 15000], z in [-15000, 0]; it reaches the free surface
// and is embedded conformingly in the volume (BooleanFragments), so that every fault triangle is a
// face shared by two tetrahedra.  The stress patches (nucleation, left, right) are set in the
// configuration, not in the mesh.
// Domain: x, y in [-Lh, Lh], z in [-Lz, 0] (the benchmark's 120 x 120 x 60 km by default).
// Physical groups: surface 101 = free surface (z = 0), 103 = dynamic rupture fault, 105 = absorbing
// (the five other sides); volume 1 = the homogeneous material.
//
// Mesh size: h_fault on the fault, growing linearly with the distance d to the fault rectangle,
// h = min(h_far, h_fault + growth * d).  The distance is exact (a MathEval field), not sampled.
//
//   gmsh -3 -format msh22 -o tpv5.msh tpv5.geo                                  (production defaults)
//   gmsh -3 -setnumber h_fault 3000 -setnumber h_far 15000 -setnumber Lh 30000 -setnumber Lz 30000 \
//        -format msh22 -o tpv5-ci.msh tpv5.geo                                   (small CI mesh)
//   gmsh -3 -setnumber h_fault 145 -setnumber growth 0.11 -algo hxt -nt 1 -format msh22 -bin -o tpv5-1m.msh tpv5.geo
//        (1 024 692 tetrahedra, 49 720 fault faces: the size of the SeisSol GPU thesis's TPV5 mesh,
//        tests/bench/device/tpv5_1m.sh)
//   The default 3D mesher (Delaunay) is used unless the command line asks for another: "-algo hxt"
//   is much faster on fine meshes, but with gmsh 4.8.4 "-algo hxt -nt 2" once gave duplicate nodes
//   (a non-conforming mesh); check any mesh with `starquake mesh info FILE.msh`.
SetFactory("OpenCASCADE");
DefineConstant[
  h_fault = {500, Name "Parameters/mesh size on the fault (m)"},
  h_far = {10000, Name "Parameters/largest mesh size, far from the fault (m)"},
  growth = {0.3, Name "Parameters/growth of the mesh size with distance to the fault"},
  Lh = {60000, Name "Parameters/half width of the domain in x and y (m)"},
  Lz = {60000, Name "Parameters/depth of the domain (m)"}
];
fx = 15000;  // fault half length along strike
fd = 15000;  // fault depth extent

Box(1) = {-Lh, -Lh, -Lz, 2 * Lh, 2 * Lh, Lz};
Point(101) = {-fx, 0, -fd};
Point(102) = {fx, 0, -fd};
Point(103) = {fx, 0, 0};
Point(104) = {-fx, 0, 0};
Line(101) = {101, 102};
Line(102) = {102, 103};
Line(103) = {103, 104};
Line(104) = {104, 101};
Curve Loop(101) = {101, 102, 103, 104};
Plane Surface(101) = {101};
// Fragmenting the box with the rectangle embeds it in the volume (conforming faces); its top edge
// becomes an edge embedded in the free surface.
BooleanFragments{ Volume{1}; Delete; }{ Surface{101}; Delete; }

eps = 1;
fault() = Surface In BoundingBox{-fx - eps, -eps, -fd - eps, fx + eps, eps, eps};
top() = Surface In BoundingBox{-Lh - eps, -Lh - eps, -eps, Lh + eps, Lh + eps, eps};
bottom() = Surface In BoundingBox{-Lh - eps, -Lh - eps, -Lz - eps, Lh + eps, Lh + eps, -Lz + eps};
xlo() = Surface In BoundingBox{-Lh - eps, -Lh - eps, -Lz - eps, -Lh + eps, Lh + eps, eps};
xhi() = Surface In BoundingBox{Lh - eps, -Lh - eps, -Lz - eps, Lh + eps, Lh + eps, eps};
ylo() = Surface In BoundingBox{-Lh - eps, -Lh - eps, -Lz - eps, Lh + eps, -Lh + eps, eps};
yhi() = Surface In BoundingBox{-Lh - eps, Lh - eps, -Lz - eps, Lh + eps, Lh + eps, eps};
If (#fault() != 1 || #top() != 1)
  Error("tpv5.geo: expected one fault and one top surface, found %g and %g", #fault(), #top());
EndIf
Physical Surface(101) = {top()};
Physical Surface(103) = {fault()};
Physical Surface(105) = {bottom(), xlo(), xhi(), ylo(), yhi()};
Physical Volume(1) = {Volume{:}};

// exact distance to the fault rectangle
Field[1] = MathEval;
Field[1].F = Sprintf("min(%g, %g + %g * sqrt(max(abs(x) - %g, 0)^2 + y^2 + max(-z - %g, 0)^2))",
                     h_far, h_fault, growth, fx, fd);
Background Field = 1;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
Mesh.Optimize = 1;
