#include "dynet_core/io/archive.h"

#include <boost/archive/archive_exception.hpp>
#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <boost/archive/text_iarchive.hpp>
#include <boost/archive/text_oarchive.hpp>
#include <boost/math/special_functions/nonfinite_num_facets.hpp>
#include <boost/serialization/array_wrapper.hpp>
#include <istream>
#include <locale>
#include <sstream>
#include <stdexcept>
#include <streambuf>
#include <type_traits>

namespace dynet {

namespace {

// Text archives print through the stream's locale. The classic locale keeps '.' as the decimal
// point whatever the program's global locale is, and Boost.Math's facets let NaN and infinities
// (which a diverged model can hold) be read back.
const std::locale& archive_locale() {
  static const std::locale locale(std::locale(std::locale::classic(), new boost::math::nonfinite_num_put<char>),
                                  new boost::math::nonfinite_num_get<char>);
  return locale;
}

// no_codecvt: Boost would otherwise replace the stream's locale (and with it the facets above).
// no_header: Boost reads its own header with an unchecked string length (a corrupt one allocates
// whatever it says); the envelope around the payload already identifies the format and version.
constexpr unsigned kArchiveFlags = boost::archive::no_codecvt | boost::archive::no_header;

// Binary archives hold numbers in the writer's native layout. Without Boost's header, a probe
// written first tells a reader on a machine with another byte order or float format.
constexpr std::uint64_t kIntegerProbe = 0x0102030405060708ull;
constexpr float kRealProbe = -1.5f;
template <class Archive>
constexpr bool is_binary = std::is_same<Archive, boost::archive::binary_oarchive>::value ||
                           std::is_same<Archive, boost::archive::binary_iarchive>::value;

template <class OArchive>
class BoostWriter : public ArchiveWriter {
 public:
  explicit BoostWriter(std::ostream& os) : ar_(os, kArchiveFlags) {
    if (is_binary<OArchive>) {
      integer(kIntegerProbe);
      real(kRealProbe);
    }
  }
  void integer(std::uint64_t v) override { ar_ << v; }
  void real(float v) override { ar_ << v; }
  void reals(const float* v, std::size_t n) override { ar_ << boost::serialization::make_array(v, n); }
  void string(const std::string& s) override {
    integer(s.size());
    ar_ << boost::serialization::make_array(s.data(), s.size());
  }

 private:
  OArchive ar_;
};

template <class IArchive>
class BoostReader : public ArchiveReader {
 public:
  BoostReader(std::istream& is, std::size_t payload_size)
      : ArchiveReader(payload_size), is_(is), ar_(is, kArchiveFlags) {
    if (is_binary<IArchive> && (integer() != kIntegerProbe || real() != kRealProbe))
      throw std::runtime_error("it was written on a machine with another byte order or float format");
  }
  std::uint64_t integer() override {
    std::uint64_t v;
    ar_ >> v;
    return v;
  }
  float real() override {
    float v;
    ar_ >> v;
    return v;
  }
  void reals(float* v, std::size_t n) override {
    if (n > payload_size())
      throw std::runtime_error("it announces " + std::to_string(n) + " values in a payload of " +
                               std::to_string(payload_size()) + " bytes");
    ar_ >> boost::serialization::make_array(v, n);
  }
  std::string string(const char* what) override {
    std::string s(count(what), '\0');
    ar_ >> boost::serialization::make_array(&s[0], s.size());
    return s;
  }
  bool at_end() override {
    if (!is_binary<IArchive>) is_ >> std::ws;
    return is_.peek() == std::char_traits<char>::eof();
  }

 private:
  std::istream& is_;
  IArchive ar_;
};

// Reads the payload in place instead of copying it into a stringstream.
class MemoryBuffer : public std::streambuf {
 public:
  explicit MemoryBuffer(std::string_view bytes) {
    char* begin = const_cast<char*>(bytes.data());  // the get area is only ever read
    setg(begin, begin, begin + bytes.size());
  }
};

}  // namespace

const char* archive_format_name(ArchiveFormat format) { return format == ArchiveFormat::Text ? "text" : "binary"; }

std::uint64_t ArchiveReader::count(const char* what) {
  const std::uint64_t n = integer();
  if (n > payload_size_)
    throw std::runtime_error(std::string("the ") + what + " " + std::to_string(n) + " cannot fit in a payload of " +
                             std::to_string(payload_size_) + " bytes");
  return n;
}

std::string write_archive(ArchiveFormat format, const std::function<void(ArchiveWriter&)>& write) {
  std::ostringstream os(std::ios::binary);
  os.imbue(archive_locale());
  {
    // The archive must be gone before the bytes are taken: it may write on destruction.
    if (format == ArchiveFormat::Text) {
      BoostWriter<boost::archive::text_oarchive> w(os);
      write(w);
    } else {
      BoostWriter<boost::archive::binary_oarchive> w(os);
      write(w);
    }
  }
  if (!os) throw std::runtime_error("write_archive: the in-memory stream failed");
  return os.str();
}

void read_archive(std::string_view payload, ArchiveFormat format, const std::function<void(ArchiveReader&)>& read) {
  MemoryBuffer buffer(payload);
  std::istream is(&buffer);
  is.imbue(archive_locale());
  try {
    if (format == ArchiveFormat::Text) {
      BoostReader<boost::archive::text_iarchive> r(is, payload.size());
      read(r);
      r.finish();
    } else {
      BoostReader<boost::archive::binary_iarchive> r(is, payload.size());
      read(r);
      r.finish();
    }
  } catch (const boost::archive::archive_exception& e) {
    throw std::runtime_error(std::string("the ") + archive_format_name(format) + " archive cannot be read (" +
                             e.what() + ")");
  }
}

}  // namespace dynet
