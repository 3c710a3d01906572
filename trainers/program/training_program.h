#pragma once
// The frame of a training program's main(): sets dybatch up from the --dynet-* flags, reads the
// program's own flags with Boost.Program_options, runs the program, and turns an exception into
// a message and an exit status.
//
//   int main(int argc, char** argv) {
//     Settings s;
//     boost::program_options::options_description flags("flags");
//     flags.add_options()("hidden", po::value(&s.hidden)->default_value(s.hidden), "state size");
//     s.training.declare(flags, "sentences", false);
//     return dynet::run_training_program("tagger", "Trains a tagger.", flags, argc, argv,
//                                        [&] { return train(s); });
//   }

#include <functional>
#include <string>

#include "trainers/program/training_flags.h"

namespace dynet {

/// Calls initialize(argc, argv), sets the variables `flags` declares from the remaining arguments
/// (`--flag value` and `--flag=value`; --help / -h prints the usage: `summary`, every flag with its
/// default, and the DyNet flags), then returns body's status. A bad --dynet- flag, a flag `flags`
/// does not declare or a malformed value, and a UsageError from body give 2; any other exception
/// gives 1. Each is reported on stderr as "<program>: <message>".
int run_training_program(const std::string& program, const std::string& summary,
                         const boost::program_options::options_description& flags, int argc, char** argv,
                         const std::function<int()>& body);

}  // namespace dynet
