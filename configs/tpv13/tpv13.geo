// SCEC TPV13 (60 degree dipping normal fault, linear slip weakening, Drucker-Prager plasticity) for
// starquake: Gmsh geometry.
// Frame: x along strike, y horizontal across strike, z up; free surface at z = 0, depth is -z; metres.
// Fault: 30 km along strike by 15 km down-dip, from the surface trace y = 0, z = 0 dipping 60 degrees
// toward +y: the points (x, d cos 60, -d sin 60) for x in [-15000, 15000] and down-dip distance
// d in [0, 15000] (its bottom edge is at y = 7500, z = -12990.38).  The hanging wall is the block
// above the fault (y larger than on the fault at the same depth), the footwall the block below.
// The fault reaches the free surface and is embedded conformingly in the volume (BooleanFragments),
// so that every fault triangle is a face shared by two tetrahedra.  The nucleation box and the
// depth-dependent stress are set in the configuration, not in the mesh.
// Domain: x in [-Lx, Lx], y in [-Ly, Ly], z in [-Lz, 0] (the benchmark's +-45 km, +-36 km, 42 km).
// Physical groups: surface 101 = free surface (z = 0), 103 = dynamic rupture fault, 105 = absorbing
// (the five other sides); volume 1 = the homogeneous material.
//
// Mesh size: h_fault on the fault, growing linearly with the distance d to the fault rectangle,
// h = min(h_far, h_fault + growth * d).  The distance is exact (a MathEval field), not sampled.
//
//   gmsh -3 -format msh22 -o tpv13.msh tpv13.geo                                (production defaults)
//   gmsh -3 -setnumber h_fault 3000 -setnumber h_far 15000 -format msh22 -o tpv13-ci.msh tpv13.geo
//   The default 3D mesher (Delaunay) is used unless the command line asks for another: "-algo hxt"
//   is much faster on fine meshes, but with gmsh 4.8.4 "-algo hxt -nt 2" once gave duplicate nodes
//   (a non-conforming mesh); check any mesh with `starquake mesh info FILE.msh`.
SetFactory("OpenCASCADE");
DefineConstant[
  h_fault = {500, Name "Parameters/mesh size on the fault (m)"},
  h_far = {10000, Name "Parameters/largest mesh size, far from the fault (m)"},
  growth = {0.3, Name "Parameters/growth of the mesh size with distance to the fault"},
  Lx = {45000, Name "Parameters/half length of the domain along strike, x (m)"},
  Ly = {36000, Name "Parameters/half width of the domain across strike, y (m)"},
  Lz = {42000, Name "Parameters/depth of the domain (m)"}
];
fx = 15000;        // fault half length along strike
fw = 15000;        // fault width down-dip
cd = Cos(60 * Pi / 180);
sd = Sin(60 * Pi / 180);

Box(1) = {-Lx, -Ly, -Lz, 2 * Lx, 2 * Ly, Lz};
Point(101) = {-fx, 0, 0};
Point(102) = {fx, 0, 0};
Point(103) = {fx, fw * cd, -fw * sd};
Point(104) = {-fx, fw * cd, -fw * sd};
Line(101) = {101, 102};
Line(102) = {102, 103};
Line(103) = {103, 104};
Line(104) = {104, 101};
Curve Loop(101) = {101, 102, 103, 104};
Plane Surface(101) = {101};
// Fragmenting the box with the rectangle embeds it in the volume (conforming faces); its surface trace
// becomes an edge embedded in the free surface.
BooleanFragments{ Volume{1}; Delete; }{ Surface{101}; Delete; }

eps = 1;
fault() = Surface In BoundingBox{-fx - eps, -eps, -fw * sd - eps, fx + eps, fw * cd + eps, eps};
top() = Surface In BoundingBox{-Lx - eps, -Ly - eps, -eps, Lx + eps, Ly + eps, eps};
bottom() = Surface In BoundingBox{-Lx - eps, -Ly - eps, -Lz - eps, Lx + eps, Ly + eps, -Lz + eps};
xlo() = Surface In BoundingBox{-Lx - eps, -Ly - eps, -Lz - eps, -Lx + eps, Ly + eps, eps};
xhi() = Surface In BoundingBox{Lx - eps, -Ly - eps, -Lz - eps, Lx + eps, Ly + eps, eps};
ylo() = Surface In BoundingBox{-Lx - eps, -Ly - eps, -Lz - eps, Lx + eps, -Ly + eps, eps};
yhi() = Surface In BoundingBox{-Lx - eps, Ly - eps, -Lz - eps, Lx + eps, Ly + eps, eps};
If (#fault() != 1 || #top() != 1)
  Error("tpv13.geo: expected one fault and one top surface, found %g and %g", #fault(), #top());
EndIf
Physical Surface(101) = {top()};
Physical Surface(103) = {fault()};
Physical Surface(105) = {bottom(), xlo(), xhi(), ylo(), yhi()};
Physical Volume(1) = {Volume{:}};

// exact distance to the fault rectangle, in the fault frame: u down-dip, w normal to the fault
u = Sprintf("(%.17g * y - %.17g * z)", cd, sd);
w = Sprintf("(%.17g * y + %.17g * z)", sd, cd);
Field[1] = MathEval;
Field[1].F = Sprintf(StrCat("min(%g, %g + %g * sqrt(max(abs(x) - %g, 0)^2 + (max(-", u, ", 0) + max(", u,
                            " - %g, 0))^2 + ", w, "^2))"), h_far, h_fault, growth, fx, fw);
Background Field = 1;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
Mesh.Optimize = 1;
