// LOH.1 (layer over half-space, SISMOWINE / SPICE) for starquake: Gmsh geometry.
// Frame: x, y horizontal, z up, free surface at z = 0 (the benchmark's z points down; depth d here is z = -d).
// Domain x, y in [-26, 32] km, depth 0..34 km; the layer 0..1 km is its own volume so that the mesh
// conforms to the material interface at z = -1000 m.  Physical groups: volumes 1 (half-space) and
// 2 (layer); surface 101 = free surface (top), 105 = absorbing (the five other sides).
// The mesh is refined around the source (0, 0, -2000) and under the receivers (x, y in 0..11 km).
//
//   gmsh -3 -format msh41 -o loh1.msh loh1.geo
//
// Mesh sizes (m): lc_fine in the receiver/source box, lc_layer in the rest of the layer, growing to
// lc_far outside.  The defaults give
// a modest mesh (docs/VERIFICATION.md, LOH.1); halve them for a finer run.
SetFactory("OpenCASCADE");
DefineConstant[lc_fine = {1000, Name "fine size"}, lc_layer = {2000, Name "layer size"},
               lc_far = {6000, Name "far size"}];

Box(1) = {-26000, -26000, -34000, 58000, 58000, 33000};  // half-space
Box(2) = {-26000, -26000, -1000, 58000, 58000, 1000};    // layer
BooleanFragments{ Volume{1}; Delete; }{ Volume{2}; Delete; }

Physical Volume(1) = {1};
Physical Volume(2) = {2};
top() = Surface In BoundingBox{-26001, -26001, -1, 32001, 32001, 1};
all() = Boundary{ Volume{1, 2}; };
sides() = {};
For i In {0 : #all() - 1}
  s = Abs(all(i));
  bb() = BoundingBox Surface{s};
  // keep outer faces that are not the top and not the internal interface z = -1000
  interior = (bb(2) > -1000.5 && bb(5) < -999.5);
  If (!interior && bb(5) < -0.5)
    sides() += {s};
  EndIf
  If (!interior && bb(2) < -0.5 && bb(5) > -0.5)
    sides() += {s};
  EndIf
EndFor
Physical Surface(101) = {top()};
Physical Surface(105) = {sides()};

// refinement: fine inside the box around the source and receivers, coarsening over 8 km
Field[1] = Box;
Field[1].VIn = lc_fine;
Field[1].VOut = lc_far;
Field[1].XMin = -2000; Field[1].XMax = 11000;
Field[1].YMin = -2000; Field[1].YMax = 11000;
Field[1].ZMin = -4000; Field[1].ZMax = 0;
Field[1].Thickness = 8000;
// the 1 km layer keeps elements no larger than lc_layer everywhere (no flat slivers far away)
Field[2] = Box;
Field[2].VIn = lc_layer;
Field[2].VOut = lc_far;
Field[2].XMin = -26000; Field[2].XMax = 32000;
Field[2].YMin = -26000; Field[2].YMax = 32000;
Field[2].ZMin = -1000; Field[2].ZMax = 0;
Field[2].Thickness = 6000;
Field[3] = Min;
Field[3].FieldsList = {1, 2};
Background Field = 3;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
Mesh.Algorithm3D = 1;
Mesh.Optimize = 1;
