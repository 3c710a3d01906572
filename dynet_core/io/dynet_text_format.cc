#include "dynet_core/io/dynet_text_format.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

#include "dynet_core/io/text_fields.h"

namespace dynet {

namespace {

using Kind = SavedParameter::Kind;

constexpr std::string_view kParameterTag = "#Parameter#";
constexpr std::string_view kLookupTag = "#LookupParameter#";
constexpr std::string_view kZeroGrad = "ZERO_GRAD";
constexpr std::string_view kFullGrad = "FULL_GRAD";
// A header longer than this is shown cut in messages.
constexpr std::size_t kShownHeaderBytes = 100;

std::string_view tag_of(Kind kind) { return kind == Kind::Parameter ? kParameterTag : kLookupTag; }

// The dim DyNet prints for a record: a lookup table's row dim with the row count appended.
Dim file_dim(const SavedParameter& r) {
  if (r.kind == Kind::Parameter) return r.dim;
  Dim all = r.dim;
  all.set(r.dim.ndims(), r.rows);
  return all;
}

void check_name(const std::string& name) {
  bool writable = !name.empty();
  for (char c : name) writable &= c != '#' && c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f';
  if (!writable)
    throw std::invalid_argument("save: DyNet's text format cannot hold the record name '" + printable(name) +
                                "': its fields are separated by spaces and its records start with '#'");
}

void check_finite(const std::vector<float>& values, const std::string& name, const char* line) {
  for (std::size_t k = 0; k < values.size(); ++k)
    if (!std::isfinite(values[k]))
      throw std::invalid_argument("save: value " + std::to_string(k + 1) + " of the " + line + " of '" + name +
                                  "' is " + std::to_string(values[k]) +
                                  ", which DyNet's text format cannot hold (DyNet reads no NaN or infinity back)");
}

// One value line as DyNet's stream prints it (std::scientific, std::showpos, precision 8, a space
// after each value): "+1.00000000e+00 -2.50000000e-01 \n".
void append_line(std::string& out, const std::vector<float>& values) {
  char text[32];
  for (float v : values) {
    char* end = text;
    if (!std::signbit(v)) *end++ = '+';
    end = std::to_chars(end, text + sizeof text, v, std::chars_format::scientific, 8).ptr;
    *end++ = ' ';
    out.append(text, end);
  }
  out += '\n';
}

// What went wrong in a record; the parser adds which record.
[[noreturn]] void fail(const std::string& why) { throw std::runtime_error(why); }

// "{d1,d2,...}" with sizes from 1 up, as DyNet prints a Dim; false otherwise.
bool parse_dims(std::string_view s, std::vector<unsigned>& dims) {
  if (s.size() < 2 || s.front() != '{' || s.back() != '}') return false;
  dims.clear();
  const std::string_view inner = s.substr(1, s.size() - 2);
  if (inner.empty()) return true;
  std::size_t start = 0;
  for (std::size_t k = 0; k <= inner.size(); ++k)
    if (k == inner.size() || inner[k] == ',') {
      std::uint64_t size = 0;
      if (!parse_decimal(inner.substr(start, k - start), size) || size > Dim::kMaxElements ||
          dims.size() == Dim::kMaxDims)
        return false;
      dims.push_back(static_cast<unsigned>(size));
      start = k + 1;
    }
  return true;
}

struct Header {
  SavedParameter record;  // kind, name, dim and rows
  std::uint64_t byte_count = 0;
  bool full_grad = false;
};

Header parse_header(std::string_view line) {
  const std::vector<std::string_view> fields = split_spaces(line);
  Header h;
  SavedParameter& r = h.record;
  if (fields[0] == kParameterTag)
    r.kind = Kind::Parameter;
  else if (fields[0] == kLookupTag)
    r.kind = Kind::Lookup;
  else
    fail("it starts with '" + printable(fields[0]) + "', not " + std::string(kParameterTag) + " or " +
         std::string(kLookupTag));
  if (fields.size() != 4 && fields.size() != 5)
    fail("its header has " + std::to_string(fields.size()) +
         " fields separated by single spaces; a record's header has 5 (kind, key, dim, byte count, ZERO_GRAD or "
         "FULL_GRAD), or 4 as DyNet 2.0 wrote it");
  if (fields[1].empty()) fail("its key is empty");
  r.name = std::string(fields[1]);
  std::vector<unsigned> dims;
  if (!parse_dims(fields[2], dims))
    fail("its dim '" + printable(fields[2]) + "' is not of the form {d1,d2,...} with at most " +
         std::to_string(Dim::kMaxDims) + " sizes up to " + std::to_string(Dim::kMaxElements));
  if (r.kind == Kind::Lookup) {
    if (dims.empty()) fail("its dim {} has no row count, which a lookup parameter's dim ends with");
    if (dims.back() == 0)
      fail("its dim " + std::string(fields[2]) + " has 0 rows; a lookup parameter has at least one");
    r.rows = dims.back();
    dims.pop_back();
  }
  r.dim = Dim::of_parameter(dims);
  if (!file_dim(r).fits())
    fail("its dim " + std::string(fields[2]) + " holds more than " + std::to_string(Dim::kMaxElements) + " values");
  if (!parse_decimal(fields[3], h.byte_count)) fail("its byte count '" + printable(fields[3]) + "' is not a number");
  // DyNet 2.0's records have no gradient field and carry the gradient line.
  h.full_grad = fields.size() == 4 || fields[4] == kFullGrad;
  if (fields.size() == 5 && fields[4] != kFullGrad && fields[4] != kZeroGrad)
    fail("its last field '" + printable(fields[4]) + "' is neither ZERO_GRAD nor FULL_GRAD");
  return h;
}

// One number as DyNet's loader reads it: a float, optionally signed, finite.
float parse_value(std::string_view token, std::size_t index, const char* line) {
  const std::string where = "value " + std::to_string(index + 1) + " of its " + line + ", '" + printable(token) + "',";
  std::string_view digits = token;
  // from_chars takes no '+'; it still refuses "+-1" because the '-' is checked for here.
  if (digits[0] == '+') digits.remove_prefix(1);
  float v = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (digits.empty() || (digits[0] == '-' && token[0] == '+') || error == std::errc::invalid_argument ||
      end != digits.data() + digits.size())
    fail(where + " is not a number");
  if (error == std::errc::result_out_of_range) fail(where + " is outside the range of a float");
  if (!std::isfinite(v)) fail(where + " is not finite");
  return v;
}

// The numbers of one value line, which must be `count`.
std::vector<float> parse_line(std::string_view text, std::size_t count, const Dim& dim, const char* line) {
  std::vector<float> values;
  std::size_t found = 0, start = 0;
  for (std::size_t k = 0; k <= text.size(); ++k)
    if (k == text.size() || text[k] == ' ') {
      if (k > start) {
        // Past `count` only counted: the line's length, not its dim, bounds the memory used.
        if (found < count) values.push_back(parse_value(text.substr(start, k - start), found, line));
        ++found;
      }
      start = k + 1;
    }
  if (found != count)
    fail("its " + std::string(line) + " holds " + std::to_string(found) + (found == 1 ? " number" : " numbers") +
         "; its dim " + to_string(dim) + " has " + std::to_string(count));
  return values;
}

// Reads the value lines of the record `h` from bytes[at...], moving `at` and `line_number` past them.
void read_lines(std::string_view bytes, std::size_t& at, unsigned& line_number, Header& h) {
  const char* names[] = {"values line", "gradient line"};
  const unsigned lines = h.full_grad ? 2 : 1;
  const std::size_t first = at;
  std::string_view texts[2];
  for (unsigned k = 0; k < lines; ++k) {
    const std::size_t end = bytes.find('\n', at);
    if (end == std::string_view::npos)
      fail("it is truncated: the file ends " + std::string(at == bytes.size() ? "before" : "inside") + " its " +
           names[k]);
    texts[k] = bytes.substr(at, end - at);
    at = end + 1;
  }
  if (h.byte_count != at - first)
    fail("its header announces " + std::to_string(h.byte_count) + " bytes of value lines, the " +
         std::to_string(lines) + " line" + (lines == 2 ? "s that follow hold " : " that follows holds ") +
         std::to_string(at - first));
  SavedParameter& r = h.record;
  const Dim dim = file_dim(r);
  r.values = parse_line(texts[0], dim.size(), dim, names[0]);
  if (h.full_grad) r.gradients = parse_line(texts[1], dim.size(), dim, names[1]);
  line_number += lines;
}

}  // namespace

bool is_dynet_text(std::string_view bytes) { return !bytes.empty() && bytes[0] == '#'; }

std::string dynet_text_bytes(const std::vector<SavedParameter>& records) {
  std::string out;
  for (const SavedParameter& r : records) {
    check_name(r.name);
    check_finite(r.values, r.name, "values");
    check_finite(r.gradients, r.name, "gradient");
    std::string lines;
    append_line(lines, r.values);
    if (!r.gradients.empty()) append_line(lines, r.gradients);
    out.append(tag_of(r.kind)).append(" ").append(r.name).append(" ").append(to_string(file_dim(r)));
    out.append(" ").append(std::to_string(lines.size())).append(" ");
    out.append(r.gradients.empty() ? kZeroGrad : kFullGrad).append("\n").append(lines);
  }
  return out;
}

std::vector<SavedParameter> parse_dynet_text(std::string_view bytes) {
  std::vector<SavedParameter> records;
  std::size_t at = 0;
  unsigned line_number = 1;
  while (at < bytes.size()) {
    const unsigned header_line = line_number;
    const std::size_t end = bytes.find('\n', at);
    const std::string_view header = bytes.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    const std::string shown =
        header.size() > kShownHeaderBytes ? printable(header.substr(0, kShownHeaderBytes)) + "..." : printable(header);
    try {
      if (end == std::string_view::npos) fail("it is truncated: the file ends inside its header");
      Header h = parse_header(header);
      at = end + 1;
      ++line_number;
      read_lines(bytes, at, line_number, h);
      records.push_back(std::move(h.record));
    } catch (const std::runtime_error& e) {
      throw std::runtime_error("record " + std::to_string(records.size() + 1) + " ('" + shown + "', line " +
                               std::to_string(header_line) + "): " + e.what());
    }
  }
  return records;
}

}  // namespace dynet
