#include "gpu/cublas_library.h"

#include <dlfcn.h>

#include <stdexcept>
#include <string>

namespace dynet {
namespace gpu {

namespace {

#define DYBATCH_SYMBOL_NAME(f) DYBATCH_SYMBOL_NAME_OF(f)
#define DYBATCH_SYMBOL_NAME_OF(f) #f

void* open_cublas() {
  const std::string soname = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
  if (void* library = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL)) return library;
  const std::string by_soname = dlerror();
  if (void* library = dlopen(DYBATCH_CUBLAS_PATH, RTLD_NOW | RTLD_LOCAL)) return library;
  throw std::runtime_error("Device_GPU: cannot load cuBLAS: " + by_soname + "; " + dlerror());
}

template <class Function>
void resolve(void* library, Function& f, const char* name) {
  f = reinterpret_cast<Function>(dlsym(library, name));
  if (!f) throw std::runtime_error(std::string("Device_GPU: cuBLAS lacks ") + name + " (" + dlerror() + ")");
}

CublasLibrary load() {
  void* library = open_cublas();
  CublasLibrary f;
  try {
    resolve(library, f.create, DYBATCH_SYMBOL_NAME(cublasCreate));
    resolve(library, f.destroy, DYBATCH_SYMBOL_NAME(cublasDestroy));
    resolve(library, f.set_stream, DYBATCH_SYMBOL_NAME(cublasSetStream));
    resolve(library, f.status_string, DYBATCH_SYMBOL_NAME(cublasGetStatusString));
    resolve(library, f.sgemm, DYBATCH_SYMBOL_NAME(cublasSgemm));
    resolve(library, f.sgemm_strided_batched, DYBATCH_SYMBOL_NAME(cublasSgemmStridedBatched));
  } catch (...) {
    dlclose(library);
    throw;
  }
  return f;
}

}  // namespace

const CublasLibrary& cublas_library() {
  // A static's initialization that throws is tried again by the next call.
  static const CublasLibrary functions = load();
  return functions;
}

}  // namespace gpu
}  // namespace dynet
