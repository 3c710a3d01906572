#pragma once
// Word classes for a class-factored softmax by frequency binning (Mikolov et al., 2011): the
// words sorted by frequency are cut into classes of about equal shares of the running text, so
// frequent words share small classes and rare words large ones.

#include <cstddef>
#include <vector>

#include "builders/class_factored_softmax_builder.h"
#include "dynet_core/io/dict.h"

namespace dynet {

/// Classes "0".."classes-1" for every word of `words`, from counts[id] (missing ids count 0).
ClassFactoredSoftmaxBuilder::WordClasses frequency_classes(const Dict& words, const std::vector<std::size_t>& counts,
                                                           unsigned classes);

}  // namespace dynet
