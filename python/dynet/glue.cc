#include "glue.h"

// The random engine is not part of the public headers; this is its one use by the binding.
#include "dynet_core/random_engine.h"

namespace dynet_python {

void reset_random_seed(unsigned seed) { dynet::random_engine().seed(seed); }

}  // namespace dynet_python
