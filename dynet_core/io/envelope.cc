#include "dynet_core/io/envelope.h"

#include <boost/crc.hpp>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "dynet_core/io/text_fields.h"

namespace dynet {

namespace {

constexpr std::string_view kMagic = "dybatch-file";
// Longer than any header seal() writes; a file without a newline by then is not one of ours.
constexpr std::size_t kMaxHeaderBytes = 128;

const char* content_name(FileContent c) { return c == FileContent::Parameters ? "parameters" : "trainer-state"; }
const char* content_noun(FileContent c) { return c == FileContent::Parameters ? "model parameters" : "trainer state"; }

std::uint32_t crc32(std::string_view bytes) {
  boost::crc_32_type crc;
  crc.process_bytes(bytes.data(), bytes.size());
  return crc.checksum();
}

std::string hex8(std::uint32_t v) {
  char s[9];
  std::snprintf(s, sizeof s, "%08x", static_cast<unsigned>(v));
  return s;
}

std::string header_line(FileContent content, unsigned version, ArchiveFormat format, std::size_t payload_bytes,
                        std::uint32_t crc) {
  return std::string(kMagic) + ' ' + content_name(content) + " v" + std::to_string(version) + ' ' +
         archive_format_name(format) + ' ' + std::to_string(payload_bytes) + " crc32=" + hex8(crc) + '\n';
}

bool parse_hex8(std::string_view s, std::uint32_t& v) {
  if (s.size() != 8) return false;
  v = 0;
  for (char c : s) {
    const int digit = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
    if (digit < 0) return false;
    v = (v << 4) | static_cast<unsigned>(digit);
  }
  return true;
}

// The value among `all` whose name() is s; false when there is none.
template <class E, std::size_t N>
bool parse_name(std::string_view s, const E (&all)[N], const char* (*name)(E), E& value) {
  for (E candidate : all)
    if (s == name(candidate)) {
      value = candidate;
      return true;
    }
  return false;
}

const FileContent kContents[] = {FileContent::Parameters, FileContent::TrainerState};
const ArchiveFormat kFormats[] = {ArchiveFormat::Text, ArchiveFormat::Binary};

[[noreturn]] void throw_file_error(const std::string& file, const std::string& why) {
  throw std::runtime_error(file + " " + why);
}

}  // namespace

std::string describe_file(FileContent content, const std::string& source) {
  return std::string(content == FileContent::Parameters ? "model file" : "trainer state file") + " '" + source + "'";
}

std::string seal(FileContent content, ArchiveFormat format, std::string_view payload) {
  std::string file = header_line(content, kFileFormatVersion, format, payload.size(), crc32(payload));
  file.append(payload.data(), payload.size());
  return file;
}

std::string_view open_envelope(std::string_view bytes, const std::string& source, FileContent content,
                               ArchiveFormat format) {
  const std::string file = describe_file(content, source);
  auto fail = [&](const std::string& why) { throw_file_error(file, why); };
  const std::string ends_in_header =
      "is truncated: it ends after " + std::to_string(bytes.size()) + " bytes, inside its header";

  if (bytes.size() < kMagic.size() && kMagic.substr(0, bytes.size()) == bytes) fail(ends_in_header);
  if (bytes.substr(0, kMagic.size()) != kMagic)
    fail("is not a dybatch file: it does not start with '" + std::string(kMagic) + "'");
  const std::size_t newline = bytes.substr(0, kMaxHeaderBytes).find('\n');
  if (newline == std::string_view::npos) {
    if (bytes.size() < kMaxHeaderBytes) fail(ends_in_header);
    fail("has a malformed header: no line end in its first " + std::to_string(kMaxHeaderBytes) + " bytes");
  }
  const std::string_view header = bytes.substr(0, newline);
  auto malformed = [&](const std::string& field) {
    fail("has a malformed header (" + field + "): '" + printable(header) + "'");
  };

  const std::vector<std::string_view> fields = split_spaces(header);
  FileContent found_content = content;
  if (fields.size() < 3 || !parse_name(fields[1], kContents, content_name, found_content)) malformed("content");
  if (found_content != content)
    fail("holds " + std::string(content_noun(found_content)) + ", not " + content_noun(content));
  std::uint64_t version = 0;
  if (fields[2].size() < 2 || fields[2][0] != 'v' || !parse_decimal(fields[2].substr(1), version))
    malformed("format version");
  if (version != kFileFormatVersion)
    fail("has format version " + std::to_string(version) + "; this build of dybatch reads version " +
         std::to_string(kFileFormatVersion));
  ArchiveFormat found_format = format;
  if (fields.size() != 6 || !parse_name(fields[3], kFormats, archive_format_name, found_format))
    malformed("archive format");
  if (found_format != format)
    fail("holds a " + std::string(archive_format_name(found_format)) + " archive, not a " +
         archive_format_name(format) + " one");
  std::uint64_t payload_bytes = 0;
  if (!parse_decimal(fields[4], payload_bytes)) malformed("payload size");
  std::uint32_t recorded_crc = 0;
  if (fields[5].substr(0, 6) != "crc32=" || !parse_hex8(fields[5].substr(6), recorded_crc)) malformed("checksum");
  if (header_line(content, static_cast<unsigned>(version), format, payload_bytes, recorded_crc) !=
      bytes.substr(0, newline + 1))
    malformed("not in canonical form");

  const std::string_view payload = bytes.substr(newline + 1);
  if (payload.size() < payload_bytes)
    fail("is truncated: its header announces " + std::to_string(payload_bytes) + " payload bytes, " +
         std::to_string(payload.size()) + " follow");
  if (payload.size() > payload_bytes)
    fail("has " + std::to_string(payload.size() - payload_bytes) + " unexpected bytes after its payload");
  const std::uint32_t actual_crc = crc32(payload);
  if (actual_crc != recorded_crc)
    fail("is corrupt: its payload has CRC-32 " + hex8(actual_crc) + ", its header records " + hex8(recorded_crc));
  return payload;
}

}  // namespace dynet
