// starquake test mesh: box [0,2] x [0,1] x [-1,0] in two layers (physical volumes 1: z > -0.5,
// 2: z < -0.5).  Top z = 0 is a free surface (101), the other five sides absorb (105).
SetFactory("OpenCASCADE");
Box(1) = {0, 0, -0.5, 2, 1, 0.5};
Box(2) = {0, 0, -1, 2, 1, 0.5};
BooleanFragments{ Volume{1}; Delete; }{ Volume{2}; Delete; }
eps = 1e-6;
top[] = Surface In BoundingBox{-eps, -eps, -eps, 2 + eps, 1 + eps, eps};
bottom[] = Surface In BoundingBox{-eps, -eps, -1 - eps, 2 + eps, 1 + eps, -1 + eps};
xlo[] = Surface In BoundingBox{-eps, -eps, -1 - eps, eps, 1 + eps, eps};
xhi[] = Surface In BoundingBox{2 - eps, -eps, -1 - eps, 2 + eps, 1 + eps, eps};
ylo[] = Surface In BoundingBox{-eps, -eps, -1 - eps, 2 + eps, eps, eps};
yhi[] = Surface In BoundingBox{-eps, 1 - eps, -1 - eps, 2 + eps, 1 + eps, eps};
upper[] = Volume In BoundingBox{-eps, -eps, -0.5 - eps, 2 + eps, 1 + eps, eps};
lower[] = Volume In BoundingBox{-eps, -eps, -1 - eps, 2 + eps, 1 + eps, -0.5 + eps};
Physical Surface(101) = {top[]};
Physical Surface(105) = {bottom[], xlo[], xhi[], ylo[], yhi[]};
Physical Volume(1) = {upper[]};
Physical Volume(2) = {lower[]};
Mesh.CharacteristicLengthMax = 0.2;
