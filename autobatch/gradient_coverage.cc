#include "autobatch/gradient_coverage.h"

#include <algorithm>
#include <cstring>

namespace dynet {

void GradientCoverage::clear() {
  blocks_.clear();
  written_.clear();
  spans_.clear();
}

void GradientCoverage::add_block(std::uint32_t nodes, const Dim& node) {
  // Written in place: a Block just written and copied would be read back before its writes drain
  // from the store buffer.
  Block& b = blocks_.emplace_back();
  b.node = node;
  b.nodes = nodes;
  b.first_flag = static_cast<std::uint32_t>(written_.size());
  b.nodes_written = 0;
  b.first_span = kNoSpan;
  b.state = kNothing;
  written_.resize(written_.size() + nodes, 0);
}

bool GradientCoverage::claim_nodes(std::uint32_t g, std::uint32_t position, std::uint32_t n) {
  Block& b = blocks_[g];
  if (b.state == kAll || b.state == kSpans) return false;
  std::uint8_t* written = written_.data() + b.first_flag + position;
  for (std::uint32_t j = 0; j < n; ++j)
    if (written[j]) return false;
  b.nodes_written += n;
  if (b.nodes_written == b.nodes) {
    b.state = kAll;
  } else {
    std::memset(written, 1, n);
    b.state = kNodes;
  }
  return true;
}

bool GradientCoverage::claim_span(std::uint32_t g, std::uint32_t begin, std::uint32_t end) {
  Block& b = blocks_[g];
  if (b.state == kAll || b.state == kNodes) return false;
  std::uint32_t covered = end - begin;
  for (std::uint32_t s = b.first_span; s != kNoSpan; s = spans_[s].next) {
    if (spans_[s].begin < end && begin < spans_[s].end) return false;
    covered += spans_[s].end - spans_[s].begin;
  }
  if (covered == b.node.batch_size()) {
    b.state = kAll;
    b.first_span = kNoSpan;
  } else {
    spans_.push_back({begin, end, b.first_span});
    b.first_span = static_cast<std::uint32_t>(spans_.size() - 1);
    b.state = kSpans;
  }
  return true;
}

void GradientCoverage::complete(std::uint32_t g, float* block, Device& device) {
  Block& b = blocks_[g];
  if (b.state == kAll) return;
  zeros_.clear();
  if (b.state == kNothing)
    zeros_.push_back({block, nullptr, b.node.size() * b.nodes});
  else if (b.state == kNodes)
    zero_unwritten_nodes(b, block);
  else
    zero_gaps_between_spans(b, block);
  device.apply_runs(RunOp::Zero, zeros_.data(), zeros_.size());
  b.state = kAll;
  b.first_span = kNoSpan;
}

void GradientCoverage::zero_unwritten_nodes(const Block& b, float* block) {
  const std::uint8_t* written = written_.data() + b.first_flag;
  const std::size_t size = b.node.size();
  for (std::uint32_t j = 0; j < b.nodes;) {
    if (written[j]) {
      ++j;
      continue;
    }
    std::uint32_t n = 1;
    while (j + n < b.nodes && !written[j + n]) ++n;
    zeros_.push_back({block + j * size, nullptr, n * size});
    j += n;
  }
}

void GradientCoverage::zero_gaps_between_spans(const Block& b, float* block) {
  sorted_.clear();
  for (std::uint32_t s = b.first_span; s != kNoSpan; s = spans_[s].next) sorted_.push_back(spans_[s]);
  std::sort(sorted_.begin(), sorted_.end(), [](const Span& x, const Span& y) { return x.begin < y.begin; });
  const std::size_t size = b.node.batch_size(), elements = std::size_t(b.node.bd) * b.nodes;
  for (std::size_t e = 0; e < elements; ++e) {
    float* v = block + e * size;
    std::size_t from = 0;
    for (const Span& s : sorted_) {
      if (s.begin > from) zeros_.push_back({v + from, nullptr, s.begin - from});
      from = s.end;
    }
    if (size > from) zeros_.push_back({v + from, nullptr, size - from});
  }
}

}  // namespace dynet
