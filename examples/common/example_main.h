#pragma once
// The frame of every example's main(): sets up dybatch from the --dynet-* flags, runs the
// program with the remaining arguments, and turns an exception into a message and an exit status.

#include <functional>

namespace examples {

/// Returns body's status; 2 after a bad flag (a UsageError or a bad --dynet- flag), 1 after any
/// other error, each reported on stderr as "<program>: <message>".
int run_example(const char* program, int argc, char** argv, const std::function<int(int, char**)>& body);

}  // namespace examples
