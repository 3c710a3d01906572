#include "dynet_core/ops/called_as.h"

namespace dynet {

std::string renamed(const char* function, const char* what) {
  const std::string text(what);
  const std::size_t colon = text.find(": ");
  return std::string(function) + (colon == std::string::npos ? ": " + text : text.substr(colon));
}

}  // namespace dynet
