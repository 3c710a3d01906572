#include "examples/common/command_line.h"

#include <iomanip>
#include <sstream>

namespace examples {

CommandLine::CommandLine(std::string program, std::string summary, std::ostream& help_out)
    : program_(std::move(program)), summary_(std::move(summary)), help_out_(help_out) {}

void CommandLine::declare(const std::string& flag, Kind kind, void* target, const std::string& help,
                          std::string default_text) {
  flags_.push_back({"--" + flag, kind, target, help, std::move(default_text)});
}

void CommandLine::add(const std::string& flag, unsigned* value, const std::string& help) {
  declare(flag, Kind::Unsigned, value, help, std::to_string(*value));
}

void CommandLine::add(const std::string& flag, float* value, const std::string& help) {
  std::ostringstream text;
  text << *value;
  declare(flag, Kind::Float, value, help, text.str());
}

void CommandLine::add(const std::string& flag, std::string* value, const std::string& help) {
  declare(flag, Kind::String, value, help, value->empty() ? "none" : *value);
}

void CommandLine::add(const std::string& flag, bool* value, const std::string& help) {
  declare(flag, Kind::Switch, value, help, *value ? "on" : "off");
}

const CommandLine::Flag& CommandLine::find(const std::string& name) const {
  for (const Flag& f : flags_)
    if (f.name == name) return f;
  throw UsageError("unknown argument '" + name + "' (see --help)");
}

void CommandLine::set(const Flag& flag, const std::string& text) const {
  auto malformed = [&](const char* expected) {
    return UsageError(flag.name + ": '" + text + "' is not " + expected);
  };
  std::size_t used = 0;
  switch (flag.kind) {
    case Kind::Unsigned: {
      if (text.empty() || text[0] == '-') throw malformed("a non-negative integer");
      unsigned long v = 0;
      try {
        v = std::stoul(text, &used);
      } catch (const std::exception&) {
        throw malformed("a non-negative integer");
      }
      if (used != text.size() || v > 0xffffffffUL) throw malformed("a non-negative integer");
      *static_cast<unsigned*>(flag.target) = static_cast<unsigned>(v);
      break;
    }
    case Kind::Float: {
      float v = 0;
      try {
        v = std::stof(text, &used);
      } catch (const std::exception&) {
        throw malformed("a number");
      }
      if (used != text.size()) throw malformed("a number");
      *static_cast<float*>(flag.target) = v;
      break;
    }
    case Kind::String:
      *static_cast<std::string*>(flag.target) = text;
      break;
    case Kind::Switch:
      *static_cast<bool*>(flag.target) = true;
      break;
  }
}

bool CommandLine::parse(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      help_out_ << usage();
      return false;
    }
    std::string value;
    const std::size_t eq = arg.find('=');
    const bool inline_value = arg.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inline_value) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    const Flag& flag = find(arg);
    if (flag.kind == Kind::Switch) {
      if (inline_value) throw UsageError(flag.name + " takes no value");
      set(flag, "");
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= argc) throw UsageError(flag.name + " needs a value (see --help)");
      value = argv[++i];
    }
    set(flag, value);
  }
  return true;
}

std::string CommandLine::usage() const {
  std::ostringstream os;
  os << "usage: " << program_ << " [flags]\n" << summary_ << "\n\nflags:\n";
  for (const Flag& f : flags_) {
    const std::string name = f.kind == Kind::Switch ? f.name : f.name + " X";
    os << "  " << std::left << std::setw(24) << name << f.help << " (default: " << f.default_text << ")\n";
  }
  os << "  " << std::left << std::setw(24) << "--help" << "this text\n"
     << "\nDyNet flags: --dynet-seed N (0: random), --dynet-autobatch 0|1|2 (off, agenda, depth),\n"
        "--dynet-mem MB, --dynet-profiling 0|1|2, --dynet-weight-decay L.\n";
  return os.str();
}

}  // namespace examples
