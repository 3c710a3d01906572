#pragma once
// The process's address space capped a little above what it uses, while in scope, so that a large
// allocation is refused whatever memory the machine has and however it overcommits. Not under a
// sanitizer, which reserves terabytes of address space up front.

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DYBATCH_TEST_UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define DYBATCH_TEST_UNDER_SANITIZER 1
#endif
#endif

namespace test_support {

class AddressSpaceCap {
 public:
  /// Caps the address space `headroom` bytes above its use now; skipped() says why it could not.
  explicit AddressSpaceCap(unsigned long long headroom) {
#ifdef DYBATCH_TEST_UNDER_SANITIZER
    (void)headroom;
    skipped_ = "a sanitizer reserves more address space than a cap leaves";
#else
    long pages = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
      std::fclose(f);
    }
    if (pages == 0) {
      skipped_ = "no /proc/self/statm to cap the address space against";
      return;
    }
    if (getrlimit(RLIMIT_AS, &old_) != 0) {
      skipped_ = "getrlimit failed";
      return;
    }
    const rlim_t cap = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) + headroom;
    if (old_.rlim_cur != RLIM_INFINITY && old_.rlim_cur < cap) {
      skipped_ = "the address space is already capped below " + std::to_string(cap) + " bytes";
      return;
    }
    rlimit tight = old_;
    tight.rlim_cur = cap;
    if (setrlimit(RLIMIT_AS, &tight) != 0) {
      skipped_ = "setrlimit failed";
      return;
    }
    capped_ = true;
#endif
  }
  ~AddressSpaceCap() {
    if (capped_) setrlimit(RLIMIT_AS, &old_);
  }
  AddressSpaceCap(const AddressSpaceCap&) = delete;
  AddressSpaceCap& operator=(const AddressSpaceCap&) = delete;

  /// Why the cap is not in place, or empty when it is.
  const std::string& skipped() const { return skipped_; }

 private:
  rlimit old_{};
  bool capped_ = false;
  std::string skipped_;
};

}  // namespace test_support
