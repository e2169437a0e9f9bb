// starquake test mesh: box [-1,1] x [-1,1] x [-1,0] with an embedded vertical fault, the rectangle
// x = 0, -0.5 <= y <= 0.5, -0.7 <= z <= -0.2, tagged dynamic rupture (103) and entirely inside the
// volume.  Top z = 0 is a free surface (101), the other sides absorb (105).  One physical volume (1).
SetFactory("OpenCASCADE");
Box(1) = {-1, -1, -1, 2, 2, 1};
Point(101) = {0, -0.5, -0.7};
Point(102) = {0, 0.5, -0.7};
Point(103) = {0, 0.5, -0.2};
Point(104) = {0, -0.5, -0.2};
Line(101) = {101, 102};
Line(102) = {102, 103};
Line(103) = {103, 104};
Line(104) = {104, 101};
Curve Loop(101) = {101, 102, 103, 104};
Plane Surface(101) = {101};
// Fragmenting the box with the rectangle embeds the rectangle in the volume (conforming faces).
BooleanFragments{ Volume{1}; Delete; }{ Surface{101}; Delete; }
eps = 1e-6;
fault[] = Surface In BoundingBox{-eps, -0.5 - eps, -0.7 - eps, eps, 0.5 + eps, -0.2 + eps};
top[] = Surface In BoundingBox{-1 - eps, -1 - eps, -eps, 1 + eps, 1 + eps, eps};
bottom[] = Surface In BoundingBox{-1 - eps, -1 - eps, -1 - eps, 1 + eps, 1 + eps, -1 + eps};
xlo[] = Surface In BoundingBox{-1 - eps, -1 - eps, -1 - eps, -1 + eps, 1 + eps, eps};
xhi[] = Surface In BoundingBox{1 - eps, -1 - eps, -1 - eps, 1 + eps, 1 + eps, eps};
ylo[] = Surface In BoundingBox{-1 - eps, -1 - eps, -1 - eps, 1 + eps, -1 + eps, eps};
yhi[] = Surface In BoundingBox{-1 - eps, 1 - eps, -1 - eps, 1 + eps, 1 + eps, eps};
Physical Surface(101) = {top[]};
Physical Surface(103) = {fault[]};
Physical Surface(105) = {bottom[], xlo[], xhi[], ylo[], yhi[]};
Physical Volume(1) = {Volume{:}};
Mesh.CharacteristicLengthMax = 0.2;
Mesh.CharacteristicLengthFromCurvature = 0;
