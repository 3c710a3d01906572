#pragma once
// Flushing denormal floats to zero on the calling thread for a scope. On x86 an operation whose
// input or result is denormal (below FLT_MIN in magnitude) takes a microcode assist of about a
// hundred cycles; values that only ever decay, such as an optimizer's moments in rows no gradient
// reaches, spend hundreds of steps there. The control word is per thread, so a kernel split over
// threads sets it in each part.

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace dynet {

/// While alive and `enabled`, denormal inputs read as zero and denormal results are stored as zero
/// (x86's DAZ and FTZ, as TensorFlow's CPU kernels run); the thread's previous mode comes back at
/// the end of the scope. Elsewhere than x86 it changes nothing and arithmetic stays IEEE's.
class FlushDenormals {
 public:
  explicit FlushDenormals(bool enabled) {
#if defined(__SSE2__)
    if (!enabled) return;
    saved_ = _mm_getcsr();
    _mm_setcsr(saved_ | kFlushToZero | kDenormalsAreZero);
    active_ = true;
#else
    (void)enabled;
#endif
  }
  ~FlushDenormals() {
#if defined(__SSE2__)
    if (active_) _mm_setcsr(saved_);
#endif
  }
  FlushDenormals(const FlushDenormals&) = delete;
  FlushDenormals& operator=(const FlushDenormals&) = delete;

 private:
#if defined(__SSE2__)
  static constexpr unsigned kFlushToZero = 0x8000, kDenormalsAreZero = 0x0040;
  unsigned saved_ = 0;
  bool active_ = false;
#endif
};

}  // namespace dynet
