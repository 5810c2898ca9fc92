// Where this build's sources and its hydrosweep program are: functions of a
// unit the build generates (build_paths.cpp in the build folder, CMakeLists.txt)
// instead of -D definitions, so that no compile command carries the
// checkout's absolute path and a clone in another folder hits the compiler
// cache of the first (docs/build.md §2). Link hydrosweep_build_paths.
#pragma once

namespace hs_build {
const char* source_dir();      // the repository root (studies/, models/, bench/results/); $HYDROSWEEP_SOURCE_DIR if set
const char* hydrosweep_exe();  // the hydrosweep program of this build
}  // namespace hs_build

#define HYDROSWEEP_SOURCE_DIR (::hs_build::source_dir())
#define HYDROSWEEP_EXE (::hs_build::hydrosweep_exe())
#define HS_SOURCE_DIR HYDROSWEEP_SOURCE_DIR
