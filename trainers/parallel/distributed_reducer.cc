#include "trainers/parallel/distributed_reducer.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "dynet_core/device/device.h"
#include "dynet_core/profiler.h"

namespace dynet {

namespace {

template <class T>
void put(std::vector<std::uint8_t>& out, const T& v) {
  const std::size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));
}

void put_text(std::vector<std::uint8_t>& out, const std::string& s) {
  put(out, static_cast<std::uint32_t>(s.size()));
  out.insert(out.end(), s.begin(), s.end());
}

template <class T>
T get(const std::uint8_t*& p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  p += sizeof(T);
  return v;
}

std::string get_text(const std::uint8_t*& p) {
  const auto n = get<std::uint32_t>(p);
  std::string s(reinterpret_cast<const char*>(p), n);
  p += n;
  return s;
}

/// Runs fn; returns what it threw ("" when it returned).
std::string failure_of(const std::function<void()>& fn) {
  try {
    fn();
    return "";
  } catch (const std::exception& e) {
    return *e.what() ? e.what() : "an exception with no message";
  } catch (...) {
    return "an exception of unknown type";
  }
}

/// One line per parameter and table: what every rank's model must agree on.
std::vector<std::string> describe(const ParameterCollection& model) {
  std::vector<std::string> lines;
  for (const auto& p : model.parameters_list()) lines.push_back("parameter '" + p->name + "' " + to_string(p->dim));
  for (const auto& t : model.lookup_parameters_list())
    lines.push_back("lookup parameter '" + t->name + "' " + std::to_string(t->n) + " x " + to_string(t->dim));
  return lines;
}

}  // namespace

Share share_of(std::size_t n, int rank, int ranks) {
  if (ranks <= 0 || rank < 0 || rank >= ranks)
    throw std::invalid_argument("share_of: rank " + std::to_string(rank) + " is not in [0, " + std::to_string(ranks) +
                                ")");
  const std::size_t r = static_cast<std::size_t>(rank), k = static_cast<std::size_t>(ranks);
  const std::size_t base = n / k, extra = n % k;
  Share s;
  s.begin = r * base + std::min(r, extra);
  s.end = s.begin + base + (r < extra ? 1 : 0);
  return s;
}

DistributedReducer::DistributedReducer(ParameterCollection& model, Communicator& comm, DistributedOptions options)
    : model_(model), comm_(comm), options_(options) {
  if (options_.bucket_floats == 0) throw std::invalid_argument("DistributedReducer: bucket_floats must be at least 1");
  check_same_model();
  broadcast_parameters();
}

void DistributedReducer::begin_status(const char* call, const std::string& error) {
  call_ = call;
  status_.clear();
  put_text(status_, call);
  put(status_, steps_);
  put(status_, static_cast<std::uint8_t>(error.empty()));
  put_text(status_, error);
}

void DistributedReducer::exchange_status() {
  comm_.allgather(status_.data(), status_.size(), gathered_, offsets_);
  extra_at_.resize(comm_.size());
  std::string failed, root_call, out_of_step;
  std::uint64_t root_steps = 0;
  int first = -1, more = 0;
  for (int r = 0; r < comm_.size(); ++r) {
    const std::uint8_t* p = gathered_.data() + offsets_[r];
    std::string call = get_text(p);
    const auto steps = get<std::uint64_t>(p);
    const bool ok = get<std::uint8_t>(p) != 0;
    std::string message = get_text(p);
    extra_at_[r] = static_cast<std::size_t>(p - gathered_.data());
    if (r == 0) {
      root_call = call;
      root_steps = steps;
    } else if (out_of_step.empty() && (call != root_call || steps != root_steps)) {
      out_of_step = "rank " + std::to_string(r) + " is in " + call + " after " + std::to_string(steps) +
                    " steps, rank 0 in " + root_call + " after " + std::to_string(root_steps) + " steps";
    }
    if (ok) continue;
    if (first < 0) {
      first = r;
      failed = std::move(message);
    } else {
      ++more;
    }
  }
  if (first < 0 && out_of_step.empty()) return;
  model_.reset_gradient();
  std::string text = std::string("DistributedReducer::") + call_ + ": ";
  if (first >= 0) {
    text += "rank " + std::to_string(first) + " of " + std::to_string(comm_.size()) + " failed: " + failed;
    if (more) text += " (" + std::to_string(more) + " other rank(s) failed too)";
  } else {
    text += "the ranks are out of step: " + out_of_step + "; every rank must make the same calls in the same order";
  }
  throw DistributedError(text);
}

void DistributedReducer::check_same_model() {
  const std::vector<std::string> mine = describe(model_);
  std::string text;
  for (const std::string& line : mine) text += line + '\n';
  begin_status("DistributedReducer", "");
  put_text(status_, text);
  exchange_status();
  auto lines_of = [&](int r) {
    const std::uint8_t* p = gathered_.data() + extra_at_[r];
    std::vector<std::string> lines;
    std::istringstream in(get_text(p));
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  };
  const std::vector<std::string> root = lines_of(0);
  for (int r = 1; r < comm_.size(); ++r) {
    const std::vector<std::string> other = lines_of(r);
    if (other == root) continue;
    std::string why;
    for (std::size_t k = 0; k < std::max(root.size(), other.size()) && why.empty(); ++k) {
      if (k < root.size() && k < other.size() && root[k] == other[k]) continue;
      const std::string theirs = k < other.size() ? other[k] : "nothing";
      const std::string ours = k < root.size() ? root[k] : "nothing";
      why = "item " + std::to_string(k) + " is " + theirs + " on rank " + std::to_string(r) + " but " + ours +
            " on rank 0";
    }
    throw DistributedError("DistributedReducer: the ranks' models differ (" + std::to_string(other.size()) +
                           " parameters and tables on rank " + std::to_string(r) + ", " + std::to_string(root.size()) +
                           " on rank 0): " + why + "; every rank must build the same model in the same order");
  }
}

void DistributedReducer::broadcast_parameters() {
  // Communication goes through host memory: the values travel there and back.
  auto broadcast = [&](const Tensor& values) {
    std::vector<float> host = as_vector(values);
    for (std::size_t done = 0; done < host.size(); done += options_.bucket_floats)
      comm_.broadcast(host.data() + done, std::min(options_.bucket_floats, host.size() - done) * sizeof(float), 0);
    set_from_host(values, host.data());
  };
  for (const auto& p : model_.parameters_list()) broadcast(p->values);
  for (const auto& t : model_.lookup_parameters_list()) broadcast(t->all_values);
}

std::uint64_t DistributedReducer::checksum() const {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](const Tensor& values) {
    const std::vector<float> host = as_vector(values);
    for (float x : host) {
      std::uint32_t bits;
      std::memcpy(&bits, &x, sizeof bits);
      h = (h ^ bits) * 1099511628211ull;
    }
  };
  for (const auto& p : model_.parameters_list()) mix(p->values);
  for (const auto& t : model_.lookup_parameters_list()) mix(t->all_values);
  return h;
}

double DistributedReducer::backward(const std::function<double()>& local) {
  if (!local) throw std::invalid_argument("DistributedReducer::backward: no local step given");
  // The step runs on to the trainer's update, past the end of local()'s graphs.
  const profile::StepSpan span;
  double loss = 0;
  const std::string error = failure_of([&] { loss = local(); });
  const bool profiling = profile::enabled();
  const std::uint64_t start = profiling ? profile::now_ns() : 0;
  ++steps_;
  const bool compare = options_.checksum_every && steps_ % options_.checksum_every == 0;
  begin_status("backward", error);
  if (error.empty()) {
    put(status_, loss);
    put(status_, compare ? checksum() : std::uint64_t(0));
    for (const auto& t : model_.lookup_parameters_list()) {
      put(status_, static_cast<std::uint8_t>(t->all_updated));
      put(status_, static_cast<std::uint32_t>(t->non_zero_grads.size()));
      for (unsigned i : t->non_zero_grads) put(status_, static_cast<std::uint32_t>(i));
    }
  }
  exchange_status();
  double total = 0;
  std::uint64_t root_sum = 0;
  const auto& tables = model_.lookup_parameters_list();
  rows_.resize(tables.size());
  marks_.resize(tables.size());
  dense_tables_.assign(tables.size(), 0);
  for (std::size_t k = 0; k < tables.size(); ++k) {
    rows_[k].clear();
    marks_[k].resize(tables[k]->n);
  }
  for (int r = 0; r < comm_.size(); ++r) {
    const std::uint8_t* p = gathered_.data() + extra_at_[r];
    total += get<double>(p);
    const auto sum = get<std::uint64_t>(p);
    if (r == 0) root_sum = sum;
    if (compare && sum != root_sum) {
      model_.reset_gradient();
      throw DistributedError("DistributedReducer::backward: the parameters of rank " + std::to_string(r) +
                             " differ from rank 0's at step " + std::to_string(steps_) + " (checksum " +
                             std::to_string(sum) + ", rank 0: " + std::to_string(root_sum) +
                             "); the ranks have diverged");
    }
    for (std::size_t k = 0; k < tables.size(); ++k) {
      dense_tables_[k] |= get<std::uint8_t>(p);
      const auto count = get<std::uint32_t>(p);
      for (std::uint32_t j = 0; j < count; ++j) {
        const auto i = get<std::uint32_t>(p);
        if (!marks_[k][i]) {
          marks_[k][i] = 1;
          rows_[k].push_back(i);
        }
      }
    }
  }
  for (std::size_t k = 0; k < tables.size(); ++k) {
    for (unsigned i : rows_[k]) marks_[k][i] = 0;
    std::sort(rows_[k].begin(), rows_[k].end());
  }
  // One rank already holds the sums.
  if (comm_.size() > 1) sum_gradients();
  if (profiling) profile::add_communication(profile::now_ns() - start, status_.size() + flat_.size() * sizeof(float));
  return total;
}

void DistributedReducer::sum_gradients() {
  const auto& params = model_.parameters_list();
  const auto& tables = model_.lookup_parameters_list();
  std::size_t n = 0;
  for (const auto& p : params) n += p->size();
  for (std::size_t k = 0; k < tables.size(); ++k)
    n += dense_tables_[k] ? tables[k]->all_grads.d.size() : rows_[k].size() * tables[k]->row_size();
  flat_.resize(n);
  float* at = flat_.data();
  auto pack = [&at](Device* device, const float* from, std::size_t m) {
    device->to_host(at, from, m);
    at += m;
  };
  for (const auto& p : params) pack(p->device, p->g.v, p->size());
  for (std::size_t k = 0; k < tables.size(); ++k) {
    const LookupParameterStorage& t = *tables[k];
    if (dense_tables_[k])
      pack(t.device, t.all_grads.v, t.all_grads.d.size());
    else
      for (unsigned i : rows_[k]) pack(t.device, t.grad_row(i), t.row_size());
  }
  for (std::size_t done = 0; done < n; done += options_.bucket_floats)
    comm_.allreduce_sum(flat_.data() + done, std::min(options_.bucket_floats, n - done));
  const float* from = flat_.data();
  auto unpack = [&from](Device* device, float* to, std::size_t m) {
    device->to_device(to, from, m);
    from += m;
  };
  for (const auto& p : params) unpack(p->device, p->g.v, p->size());
  for (std::size_t k = 0; k < tables.size(); ++k) {
    LookupParameterStorage& t = *tables[k];
    if (dense_tables_[k]) {
      unpack(t.device, t.all_grads.v, t.all_grads.d.size());
      t.all_updated = true;
    } else {
      for (unsigned i : rows_[k]) {
        unpack(t.device, t.grad_row(i), t.row_size());
        t.non_zero_grads.insert(i);
      }
    }
  }
}

void DistributedReducer::on_root(const std::function<void()>& fn) {
  begin_status("on_root", is_root() ? failure_of(fn) : "");
  exchange_status();
}

}  // namespace dynet
