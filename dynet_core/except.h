#pragma once
// DyNet's exception types and error macros, for programs (and custom code ported from DyNet) that
// throw or catch them. dybatch itself throws the standard types: std::invalid_argument for bad
// input, std::runtime_error for bad state; its pools grow instead of running out.

#include <sstream>
#include <stdexcept>
#include <string>

namespace dynet {

class out_of_memory : public std::runtime_error {
 public:
  explicit out_of_memory(const std::string& what_arg) : std::runtime_error(what_arg) {}
};

class cuda_not_implemented : public std::logic_error {
 public:
  explicit cuda_not_implemented(const std::string& what_arg) : std::logic_error(what_arg) {}
};

class cuda_exception : public std::runtime_error {
 public:
  explicit cuda_exception(const std::string& what_arg) : std::runtime_error(what_arg) {}
};

namespace detail {
/// The text of a message written with stream insertions (`"size " << n`).
template <class Write>
std::string message(Write&& write) {
  std::ostringstream os;
  write(os);
  return os.str();
}
}  // namespace detail

}  // namespace dynet

// `msg` is a stream insertion chain, as in DyNet: DYNET_RUNTIME_ERR("bad size " << n).
#define DYNET_INVALID_ARG(msg) \
  throw std::invalid_argument(::dynet::detail::message([&](std::ostream& dynet_os_) { dynet_os_ << msg; }))
#define DYNET_INVALID_ARG_CHECK(cond, msg) \
  do {                                     \
    if (cond) DYNET_INVALID_ARG(msg);      \
  } while (0)
#define DYNET_RUNTIME_ERR(msg) \
  throw std::runtime_error(::dynet::detail::message([&](std::ostream& dynet_os_) { dynet_os_ << msg; }))
#define DYNET_ASSERT(expr, msg)          \
  do {                                   \
    if (!(expr)) DYNET_RUNTIME_ERR(msg); \
  } while (0)
