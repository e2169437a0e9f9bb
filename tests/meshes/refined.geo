// starquake test mesh: unit cube [0,1]^3 with a refinement zone (mesh size 0.07 inside
// [0.3,0.7]^3, 0.25 elsewhere).  Top z = 1 is a free surface (101), the y = 0 and y = 1 sides are
// periodic (106, with matching surface meshes), the other sides absorb (105).  One physical volume (7).
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
eps = 1e-6;
top[] = Surface In BoundingBox{-eps, -eps, 1 - eps, 1 + eps, 1 + eps, 1 + eps};
bottom[] = Surface In BoundingBox{-eps, -eps, -eps, 1 + eps, 1 + eps, eps};
xlo[] = Surface In BoundingBox{-eps, -eps, -eps, eps, 1 + eps, 1 + eps};
xhi[] = Surface In BoundingBox{1 - eps, -eps, -eps, 1 + eps, 1 + eps, 1 + eps};
ylo[] = Surface In BoundingBox{-eps, -eps, -eps, 1 + eps, eps, 1 + eps};
yhi[] = Surface In BoundingBox{-eps, 1 - eps, -eps, 1 + eps, 1 + eps, 1 + eps};
Periodic Surface{yhi[]} = {ylo[]} Translate{0, 1, 0};
Physical Surface(101) = {top[]};
Physical Surface(105) = {bottom[], xlo[], xhi[]};
Physical Surface(106) = {ylo[], yhi[]};
Physical Volume(7) = {1};
Field[1] = Box;
Field[1].VIn = 0.07;
Field[1].VOut = 0.25;
Field[1].XMin = 0.3;
Field[1].XMax = 0.7;
Field[1].YMin = 0.3;
Field[1].YMax = 0.7;
Field[1].ZMin = 0.3;
Field[1].ZMax = 0.7;
Background Field = 1;
Mesh.CharacteristicLengthExtendFromBoundary = 0;
Mesh.CharacteristicLengthFromPoints = 0;
