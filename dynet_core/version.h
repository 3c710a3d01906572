#pragma once
// Which dybatch a program runs with.

namespace dynet {

/// dybatch's version, "major.minor.patch": the VERSION of project() in CMakeLists.txt, the one
/// place it is stated (pkg-config --modversion dybatch and the CMake package's version say the same).
const char* dybatch_version();

}  // namespace dynet
