#pragma once
// Records of DyNet's text model format written by hand in tests, with the byte count DyNet's
// loader expects computed from the value lines rather than counted by hand.

#include <string>
#include <vector>

/// "<kind_key_dim> <bytes> <grad>\n" then each line and its newline; `grad` empty writes DyNet
/// 2.0's header, which has no gradient field.
inline std::string dynet_text_record(const std::string& kind_key_dim, const std::string& grad,
                                     const std::vector<std::string>& lines) {
  std::string body;
  for (const std::string& line : lines) body += line + "\n";
  return kind_key_dim + " " + std::to_string(body.size()) + (grad.empty() ? "" : " " + grad) + "\n" + body;
}
