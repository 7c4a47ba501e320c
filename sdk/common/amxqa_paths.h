// amxqa_paths.h — where the SDK tools (amxqa, amxqa-bench) find their files.
// Everything is located relative to the running executable (/proc/self/exe),
// never through a path compiled in at build time, so an installed prefix can
// be moved and a build folder can be used without the checkout it came from.
//
// The default model, first that exists:
//   1. $AMXQA_MODEL (used as is when set, so a typo is reported, not skipped)
//   2. <exe_dir>/../share/amxqa/default.amxqa   (an installed prefix)
//   3. <checkout>/sdk/models/default.amxqa      (an uninstalled build, wherever
//      its folder is: see checkout_root())
#pragma once
#include <string>

namespace amxqa::paths {

// Folder of the running executable, "" when /proc/self/exe is unreadable.
std::string exe_dir();

// The source checkout the executable was built from, else "": <exe_dir>/../..
// when that folder holds include/amxqa.h and sdk/models (build/bin/X inside
// the checkout), else the folder the build folder's own CMakeCache.txt
// (<exe_dir>/../CMakeCache.txt) names as CMAKE_HOME_DIRECTORY, for a build
// folder anywhere (`cmake -S . -B /elsewhere/build`). Nothing is compiled in:
// an installed prefix has no CMakeCache.txt and finds nothing here.
std::string checkout_root();

// True for an existing regular file.
bool is_file(const std::string& path);

// The default model (order above). Returns the first candidate that exists,
// else the installed-prefix candidate, so the error message names where the
// model was expected.
std::string default_model();

}  // namespace amxqa::paths
