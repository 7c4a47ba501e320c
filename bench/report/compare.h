// compare.h — `amxqa-bench compare A.json B.json`: the summary keys of two
// result files side by side with the ratio B/A.
#pragma once

namespace amxqa::bench {

// argv = {A.json, B.json}. Prints the table to stdout; returns 0, or 2 with a
// message on stderr when a file is missing, malformed or has no summary.
int compare_main(int argc, char** argv);

}  // namespace amxqa::bench
