// The profiler's files (profiler.h): a snapshot as JSON, and its timeline as a Chrome trace.
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include "dynet_core/profiler.h"

namespace dynet {
namespace profile {

namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + '"';
}

void field(std::string& out, const char* name, std::uint64_t v, bool last = false) {
  out += quoted(name) + ":" + std::to_string(v) + (last ? "" : ",");
}

std::string phases_json(const Phases& p) {
  std::string out = "{";
  field(out, "step_ns", p.step_ns);
  field(out, "construction_ns", p.construction_ns);
  field(out, "forward_ns", p.forward_ns);
  field(out, "scheduling_ns", p.scheduling_ns);
  field(out, "memory_ns", p.memory_ns);
  field(out, "forward_kernel_ns", p.forward_kernel_ns);
  field(out, "backward_ns", p.backward_ns);
  field(out, "backward_kernel_ns", p.backward_kernel_ns);
  field(out, "update_ns", p.update_ns);
  field(out, "communication_ns", p.communication_ns);
  field(out, "nodes", p.nodes);
  field(out, "kernel_calls", p.kernel_calls);
  field(out, "bytes_gathered", p.bytes_gathered);
  field(out, "bytes_in_place", p.bytes_in_place);
  field(out, "bytes_scattered", p.bytes_scattered);
  field(out, "bytes_communicated", p.bytes_communicated, true);
  return out + "}";
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f || !(f << text) || !f.flush()) throw std::runtime_error("profile: cannot write '" + path + "'");
}

double microseconds(std::uint64_t ns) { return ns / 1000.0; }

}  // namespace

std::string to_json(const Snapshot& s) {
  std::string out = "{";
  field(out, "level", static_cast<std::uint64_t>(s.level));
  field(out, "steps", s.steps);
  field(out, "evaluation_graphs", s.evaluation_graphs);
  out += "\"total\":" + phases_json(s.total) + ",\"evaluation_total\":" + phases_json(s.evaluation) +
         ",\"last_step\":" + phases_json(s.last_step) + ",";
  out += "\"pool_high_water_bytes\":{";
  field(out, "forward", s.high_water.forward);
  field(out, "backward", s.high_water.backward);
  field(out, "scratch", s.high_water.scratch);
  field(out, "parameters", s.high_water.parameters, true);
  out += "},\"kernels\":[";
  for (std::size_t k = 0; k < s.kernels.size(); ++k) {
    const KernelStats& ks = s.kernels[k];
    out += (k ? ",{" : "{") + quoted("name") + ":" + quoted(ks.name) + ",";
    field(out, "calls", ks.calls);
    field(out, "nodes", ks.nodes);
    field(out, "min_batch", ks.min_batch);
    field(out, "max_batch", ks.max_batch);
    field(out, "forward_ns", ks.forward_ns);
    field(out, "backward_ns", ks.backward_ns, true);
    out += "}";
  }
  return out + "]}";
}

std::string to_chrome_trace(const Snapshot& s) {
  std::string out = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[";
  char buf[128];
  for (std::size_t k = 0; k < s.last_step_events.size(); ++k) {
    const TraceEvent& e = s.last_step_events[k];
    std::snprintf(buf, sizeof buf, "\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,", e.backward ? 2 : 1,
                  microseconds(e.start_ns), microseconds(e.ns));
    out += (k ? ",{" : "{") + quoted("name") + ":" + quoted(e.name) + "," + quoted("cat") + ":" +
           quoted(e.backward ? "backward" : "forward") + "," + buf + "\"args\":{\"nodes\":" + std::to_string(e.nodes) +
           "}}";
  }
  out += s.last_step_events.empty() ? "" : ",";
  out += "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"forward kernels\"}},"
         "{\"ph\":\"M\",\"pid\":1,\"tid\":2,\"name\":\"thread_name\",\"args\":{\"name\":\"backward kernels\"}}]}";
  return out;
}

void write_json(const std::string& path) { write_file(path, to_json(snapshot())); }
void write_chrome_trace(const std::string& path) { write_file(path, to_chrome_trace(snapshot())); }

}  // namespace profile
}  // namespace dynet
