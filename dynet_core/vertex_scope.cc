#include "dynet_core/vertex_scope.h"

#include <mutex>
#include <unordered_map>

#include "dynet_core/graph.h"

namespace dynet {

namespace {

struct KeyNames {
  std::mutex mutex;
  std::unordered_map<std::uint64_t, std::string> names;
};

KeyNames& key_names() {
  static KeyNames k;
  return k;
}

}  // namespace

std::uint64_t vertex_key(const char* name) {
  std::uint64_t h = 0xCBF29CE484222325ull;  // FNV-1a
  for (const char* c = name; *c; ++c) h = (h ^ static_cast<unsigned char>(*c)) * 0x100000001B3ull;
  return h ? h : 1;
}

std::string vertex_key_name(std::uint64_t key) {
  KeyNames& k = key_names();
  std::lock_guard<std::mutex> lock(k.mutex);
  const auto it = k.names.find(key);
  return it == k.names.end() ? "?" : it->second;
}

std::uint64_t named_vertex_key(const char* name) {
  const std::uint64_t key = vertex_key(name);
  KeyNames& k = key_names();
  std::lock_guard<std::mutex> lock(k.mutex);
  k.names.emplace(key, name);
  return key;
}

VertexScope::VertexScope(ComputationGraph& cg, const char* name) : cg_(cg) {
  // Only profiles print names; remembering each once keeps scopes cheap after the first.
  thread_local std::uint64_t last_named = 0;
  const std::uint64_t key = vertex_key(name);
  if (key != last_named) last_named = named_vertex_key(name);
  cg_.open_vertex(key);
}

VertexScope::~VertexScope() { cg_.close_vertex(); }

}  // namespace dynet
