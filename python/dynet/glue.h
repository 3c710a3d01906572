#pragma once
// What the Python binding needs from the library in another form than its C++ API offers:
// initializers, builders and trainers chosen by the name of their Python class, and numpy buffers
// as inputs. Each is a call into the library; nothing here computes.

#include <dybatch.h>
#include <dynet/tensor.h>  // IndexTensor, TensorTools

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace dynet_python {

using namespace dynet;

/// A new T the caller owns (Cython 0.29 cannot move a unique_ptr out of a call).
template <class T, class... A>
T* new_of(A&&... a) {
  return new T(std::forward<A>(a)...);
}

/// An input node of shape d over d.size() floats at `data` (copied).
inline Expression input_tensor(ComputationGraph& cg, const Dim& d, const float* data) {
  return input(cg, d, std::vector<float>(data, data + d.size()));
}

/// A sparse input: the values at the flat (column-major) indices `ids`, `defval` elsewhere.
inline Expression input_sparse(ComputationGraph& cg, const Dim& d, const std::vector<unsigned>& ids,
                               const std::vector<float>& data, float defval) {
  return input(cg, d, ids, data, defval);
}

/// DyNet's Python initializers by kind: normal(mean a, var b), uniform(-a, a), const(a),
/// identity, glorot(lookup when b != 0, gain a), saxe(gain a), from_vector(values), from_file(path).
inline ParameterInit* make_initializer(const std::string& kind, float a, float b, const std::vector<float>& values,
                                       const std::string& path) {
  if (kind == "normal") return new_of<ParameterInitNormal>(a, b);
  if (kind == "uniform") return new_of<ParameterInitUniform>(a);
  if (kind == "const") return new_of<ParameterInitConst>(a);
  if (kind == "identity") return new_of<ParameterInitIdentity>();
  if (kind == "glorot") return new_of<ParameterInitGlorot>(b != 0.f, a);
  if (kind == "saxe") return new_of<ParameterInitSaxe>(a);
  if (kind == "from_vector") return new_of<ParameterInitFromVector>(values);
  if (kind == "from_file") return new_of<ParameterInitFromFile>(path);
  throw std::invalid_argument("unknown initializer '" + kind + "'");
}

/// Throws std::invalid_argument unless make_rnn_builder knows `kind`.
inline void make_rnn_builder_checked(const std::string& kind) {
  for (const char* k : {"SimpleRNNBuilder", "GRUBuilder", "CoupledLSTMBuilder", "VanillaLSTMBuilder",
                        "SparseLSTMBuilder", "CompactVanillaLSTMBuilder", "FastLSTMBuilder"})
    if (kind == k) return;
  throw std::invalid_argument("unknown builder '" + kind + "'");
}

/// A recurrent builder by its DyNet class name; `flag` is ln_lstm for the LSTMs that have it,
/// `forget_bias` theirs too (VanillaLSTMBuilder, SparseLSTMBuilder).
inline RNNBuilder* make_rnn_builder(const std::string& kind, unsigned layers, unsigned input_dim, unsigned hidden_dim,
                                    ParameterCollection& model, bool flag, float forget_bias) {
  if (kind == "SimpleRNNBuilder") return new_of<SimpleRNNBuilder>(layers, input_dim, hidden_dim, model);
  if (kind == "GRUBuilder") return new_of<GRUBuilder>(layers, input_dim, hidden_dim, model);
  if (kind == "CoupledLSTMBuilder") return new_of<CoupledLSTMBuilder>(layers, input_dim, hidden_dim, model);
  if (kind == "VanillaLSTMBuilder")
    return new_of<VanillaLSTMBuilder>(layers, input_dim, hidden_dim, model, flag, forget_bias);
  if (kind == "SparseLSTMBuilder")
    return new_of<SparseLSTMBuilder>(layers, input_dim, hidden_dim, model, flag, forget_bias);
  if (kind == "CompactVanillaLSTMBuilder")
    return new_of<CompactVanillaLSTMBuilder>(layers, input_dim, hidden_dim, model);
  if (kind == "FastLSTMBuilder") return new_of<FastLSTMBuilder>(layers, input_dim, hidden_dim, model);
  throw std::invalid_argument("unknown builder '" + kind + "'");
}

/// The library's BiRNNBuilder over builders of a DyNet class name (see make_rnn_builder), its
/// parameters under "birnn" as DyNet's Python BiRNNBuilder has them.
inline BiRNNBuilder* make_birnn(const std::string& kind, unsigned layers, unsigned input_dim, unsigned hidden_dim,
                                ParameterCollection& model) {
  make_rnn_builder_checked(kind);
  RNNBuilderFactory factory = [kind](unsigned in, unsigned hidden, ParameterCollection& m) {
    return std::unique_ptr<RNNBuilder>(make_rnn_builder(kind, 1, in, hidden, m, false, 1.f));
  };
  return new BiRNNBuilder(layers, input_dim, hidden_dim, model, factory, "birnn");
}

inline SoftmaxBuilder* make_standard_softmax(unsigned rep_dim, unsigned classes, ParameterCollection& model,
                                             bool bias) {
  return new_of<StandardSoftmaxBuilder>(rep_dim, classes, model, bias);
}

/// A ClassFactoredSoftmaxBuilder with the word dictionary it reads kept beside it (the builder
/// keeps a pointer to it): the words of a Python dict, in id order.
struct DictHolder {
  Dict dict;
};
struct ClassFactoredWithDict : private DictHolder, public ClassFactoredSoftmaxBuilder {
  ClassFactoredWithDict(unsigned rep_dim, const std::string& cluster_file, const std::vector<std::string>& words,
                        ParameterCollection& model, bool bias)
      : DictHolder{dict_of(words)}, ClassFactoredSoftmaxBuilder(rep_dim, cluster_file, DictHolder::dict, model, bias) {}
  /// Every word of the dictionary in id order, those the cluster file added last.
  std::vector<std::string> words() const {
    std::vector<std::string> out;
    for (unsigned i = 0; i < DictHolder::dict.size(); ++i) out.push_back(DictHolder::dict.convert(static_cast<int>(i)));
    return out;
  }

 private:
  static Dict dict_of(const std::vector<std::string>& words) {
    Dict d;
    for (const std::string& w : words) d.convert(w);
    if (d.size() != words.size())
      throw std::invalid_argument("ClassFactoredSoftmaxBuilder: the word dictionary lists a word twice");
    return d;
  }
};

inline ClassFactoredWithDict* make_class_factored(unsigned rep_dim, const std::string& cluster_file,
                                                  const std::vector<std::string>& words, ParameterCollection& model,
                                                  bool bias) {
  return new ClassFactoredWithDict(rep_dim, cluster_file, words, model, bias);
}

/// A trainer by its DyNet class name, with its constructor's arguments after the model in order.
inline Trainer* make_trainer(const std::string& kind, ParameterCollection& m, const std::vector<float>& a) {
  auto need = [&](std::size_t n) {
    if (a.size() != n)
      throw std::invalid_argument(kind + ": " + std::to_string(n) + " settings expected, " + std::to_string(a.size()) +
                                  " given");
  };
  if (kind == "SimpleSGDTrainer") return need(1), new_of<SimpleSGDTrainer>(m, a[0]);
  if (kind == "CyclicalSGDTrainer") return need(5), new_of<CyclicalSGDTrainer>(m, a[0], a[1], a[2], a[3], a[4]);
  if (kind == "MomentumSGDTrainer") return need(2), new_of<MomentumSGDTrainer>(m, a[0], a[1]);
  if (kind == "AdagradTrainer") return need(2), new_of<AdagradTrainer>(m, a[0], a[1]);
  if (kind == "AdadeltaTrainer") return need(2), new_of<AdadeltaTrainer>(m, a[0], a[1]);
  if (kind == "RMSPropTrainer") return need(3), new_of<RMSPropTrainer>(m, a[0], a[1], a[2]);
  if (kind == "AdamTrainer") return need(4), new_of<AdamTrainer>(m, a[0], a[1], a[2], a[3]);
  if (kind == "AmsgradTrainer") return need(4), new_of<AmsgradTrainer>(m, a[0], a[1], a[2], a[3]);
  throw std::invalid_argument("unknown trainer '" + kind + "'");
}

inline FileSaver* new_saver(const std::string& path, bool append) { return new TextFileSaver(path, append); }
inline FileLoader* new_loader(const std::string& path) { return new TextFileLoader(path); }

/// Copies n floats from host memory into t (whose size must be n).
inline void copy_from_host(const Tensor& t, const float* data, std::size_t n) {
  if (n != t.d.size())
    throw std::invalid_argument("the array holds " + std::to_string(n) + " values, the tensor " +
                                std::to_string(t.d.size()) + " (" + to_string(t.d) + ")");
  set_from_host(t, data);
}

inline std::vector<long> index_values(const IndexTensor& t) {
  std::vector<long> out;
  for (std::ptrdiff_t i : as_vector(t)) out.push_back(static_cast<long>(i));
  return out;
}

}  // namespace dynet_python

namespace dynet_python {
/// DyNet's reset_random_seed: the global random engine restarts from `seed`.
void reset_random_seed(unsigned seed);
}  // namespace dynet_python
