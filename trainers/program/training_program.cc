#include "trainers/program/training_program.h"

#include <boost/program_options/errors.hpp>
#include <boost/program_options/options_description.hpp>
#include <boost/program_options/parsers.hpp>
#include <boost/program_options/positional_options.hpp>
#include <boost/program_options/value_semantic.hpp>
#include <boost/program_options/variables_map.hpp>
#include <cstdio>
#include <exception>
#include <iostream>

#include "dynet_core/init.h"

namespace dynet {

namespace po = boost::program_options;

namespace {

// Through stderr itself: ranks other than 0 of an MPI job discard std::cerr (their progress).
int report(const std::string& program, const std::string& message, int status) {
  std::cerr.flush();
  std::fprintf(stderr, "%s: %s\n", program.c_str(), message.c_str());
  return status;
}

void print_usage(const std::string& program, const std::string& summary, const po::options_description& all) {
  std::cout << "usage: " << program << " [flags]\n"
            << summary << "\n\n"
            << all
            << "\nDyNet flags: --dynet-seed N (0: random), --dynet-autobatch 0|1|2 (off, agenda, depth),\n"
               "--dynet-mem MB, --dynet-threads N, --dynet-profiling 0|1|2, --dynet-weight-decay L.\n";
}

// Boost reads "-1" as 4294967295 into an unsigned (as lexical_cast does); a count never is negative.
void refuse_negative_counts(const po::parsed_options& parsed, const po::options_description& all) {
  for (const po::basic_option<char>& option : parsed.options) {
    const po::option_description* flag = all.find_nothrow(option.string_key, false);
    if (!flag || !dynamic_cast<const po::typed_value<unsigned>*>(flag->semantic().get())) continue;
    for (const std::string& token : option.value)
      if (!token.empty() && token[0] == '-')
        throw po::error("--" + option.string_key + ": '" + token + "' is not a non-negative integer");
  }
}

}  // namespace

int run_training_program(const std::string& program, const std::string& summary, const po::options_description& flags,
                         int argc, char** argv, const std::function<int()>& body) {
  try {
    initialize(argc, argv);
  } catch (const std::exception& e) {
    return report(program, std::string(e.what()) + " (see --help)", 2);
  }
  try {
    po::options_description help;
    help.add_options()("help,h", "this text");
    po::options_description all;
    all.add(flags).add(help);
    // No guessing: a misspelt or shortened flag is an error, not some flag it begins.
    const int style = po::command_line_style::unix_style ^ po::command_line_style::allow_guessing;
    const po::parsed_options parsed = po::command_line_parser(argc, argv)
                                          .options(all)
                                          .positional(po::positional_options_description())
                                          .style(style)
                                          .run();
    refuse_negative_counts(parsed, all);
    po::variables_map values;
    po::store(parsed, values);
    if (values.count("help")) {
      print_usage(program, summary, all);
      return 0;
    }
    po::notify(values);
    return body();
  } catch (const po::unknown_option& e) {
    return report(program, "unknown argument '" + e.get_option_name() + "' (see --help)", 2);
  } catch (const po::error& e) {
    return report(program, std::string(e.what()) + " (see --help)", 2);
  } catch (const UsageError& e) {
    return report(program, e.what(), 2);
  } catch (const std::exception& e) {
    return report(program, e.what(), 1);
  }
}

}  // namespace dynet
