// The doctest runner's main(), shared by every tests/runtime/test_*.cpp and tests/trainer/test_*.cpp executable.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
