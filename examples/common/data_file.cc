#include "examples/common/data_file.h"

#include <stdexcept>

namespace examples {

std::string default_data_path(const std::string& relative) { return std::string(DYBATCH_DATA_DIR) + "/" + relative; }

std::ifstream open_data_file(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot read the " + what + " '" + path +
                             "' (point the flag for it at a readable file; see --help)");
  return in;
}

}  // namespace examples
