// A dipping rectangular fault (strike north, dip `dip` degrees to the east, length 2, width 1, top 0.5 deep,
// top edge centred on the origin's vertical) in the box [-2.5, 2.5]^2 x [-3, 0]: physical surfaces 101 (top, free),
// 103 (the fault), 105 (sides and bottom); mesh size h.
SetFactory("OpenCASCADE");
If (!Exists(dip))
  dip = 45;
EndIf
If (!Exists(h))
  h = 0.25;
EndIf
Box(1) = {-2.5, -2.5, -3, 5, 5, 3};
c = Cos(dip * Pi / 180);
s = Sin(dip * Pi / 180);
Point(101) = {0, -1, -0.5};
Point(102) = {0, 1, -0.5};
Point(103) = {c, 1, -0.5 - s};
Point(104) = {c, -1, -0.5 - s};
Line(101) = {101, 102};
Line(102) = {102, 103};
Line(103) = {103, 104};
Line(104) = {104, 101};
Curve Loop(101) = {101, 102, 103, 104};
Plane Surface(101) = {101};
BooleanFragments{ Volume{1}; Delete; }{ Surface{101}; Delete; }
e = 1e-6;
top() = Surface In BoundingBox{-2.6, -2.6, -e, 2.6, 2.6, e};
flt() = Surface In BoundingBox{-e, -1 - e, -0.5 - s - e, c + e, 1 + e, -0.5 + e};
all() = Surface{:};
Physical Surface(101) = {top()};
Physical Surface(103) = {flt()};
Physical Surface(105) = {all()};
Physical Surface(105) -= {top(), flt()};
Physical Volume(1) = {Volume{:}};
Mesh.CharacteristicLengthMax = h;
Mesh.CharacteristicLengthMin = h;
