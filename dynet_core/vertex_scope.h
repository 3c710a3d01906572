#pragma once
// Marking the instances of a vertex function (a repeated cell: an LSTM step, a tree node). The
// nodes a graph gains while a VertexScope lives form one instance of the function named by its
// key; engines may run instances of one function together, as planned units, and treat anything
// else op by op. A scope opened inside another marks nothing: the outermost scope is the instance.
// Marking changes no value and no gradient.

#include <cstdint>
#include <string>

namespace dynet {

class ComputationGraph;

/// The key of the vertex function named `name` (a hash; equal names give equal keys).
std::uint64_t vertex_key(const char* name);
/// vertex_key(name), remembered so that vertex_key_name finds it (for keys no scope makes).
std::uint64_t named_vertex_key(const char* name);
/// The name a key was made from, or "?" for a key no scope or named_vertex_key made in this process.
std::string vertex_key_name(std::uint64_t key);

class VertexScope {
 public:
  /// Marks the nodes `cg` gains until this scope ends as one instance of function `name`.
  VertexScope(ComputationGraph& cg, const char* name);
  VertexScope(ComputationGraph& cg, const std::string& name) : VertexScope(cg, name.c_str()) {}
  ~VertexScope();
  VertexScope(const VertexScope&) = delete;
  VertexScope& operator=(const VertexScope&) = delete;

 private:
  ComputationGraph& cg_;
};

}  // namespace dynet
