#pragma once
// The command-line flags of an example: each flag is declared with the variable it sets (whose
// value is the default) and a line of help. `--flag value` and `--flag=value` both work.

#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace examples {

/// A flag that is unknown, lacks its value or has a malformed one.
struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

class CommandLine {
 public:
  /// --help prints the usage to `help_out`.
  CommandLine(std::string program, std::string summary, std::ostream& help_out = std::cout);

  void add(const std::string& flag, unsigned* value, const std::string& help);
  void add(const std::string& flag, float* value, const std::string& help);
  void add(const std::string& flag, std::string* value, const std::string& help);
  /// A switch: present means true.
  void add(const std::string& flag, bool* value, const std::string& help);

  /// Sets the declared variables from argv (the --dynet-* flags already removed). Returns false
  /// after printing the usage for --help / -h. Throws UsageError naming a bad flag.
  bool parse(int argc, char** argv);
  /// The usage text: the summary, every flag with its default, and the DyNet flags.
  std::string usage() const;

 private:
  enum class Kind { Unsigned, Float, String, Switch };
  struct Flag {
    std::string name;
    Kind kind;
    void* target;
    std::string help;
    std::string default_text;
  };
  void declare(const std::string& flag, Kind kind, void* target, const std::string& help, std::string default_text);
  const Flag& find(const std::string& name) const;
  void set(const Flag& flag, const std::string& text) const;

  std::string program_, summary_;
  std::ostream& help_out_;
  std::vector<Flag> flags_;
};

}  // namespace examples
