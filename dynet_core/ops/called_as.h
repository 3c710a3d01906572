#pragma once
// Messages name the function the user called. A function whose node's op has another name (a + b
// makes an "add" node), or that is built from other public functions (mean_elems is sum_elems
// times a constant), runs its body through called_as, so that what the inner call reports is
// reported under the outer name; nested, the outermost name wins.

#include <stdexcept>
#include <string>
#include <typeinfo>

namespace dynet {

/// `what` ("inner: detail") with `function` in place of its leading name.
std::string renamed(const char* function, const char* what);

template <class Build>
auto called_as(const char* function, Build&& build) -> decltype(build()) {
  try {
    return build();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(renamed(function, e.what()));
  } catch (const std::runtime_error& e) {
    // A stale Expression is a runtime_error, as in DyNet; subclasses (out of memory) keep their type.
    if (typeid(e) != typeid(std::runtime_error)) throw;
    throw std::runtime_error(renamed(function, e.what()));
  }
}

}  // namespace dynet
