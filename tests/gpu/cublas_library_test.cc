// cuBLAS stays out of a process until a GPU device needs it: linked, its start-up ran in every
// dybatch program, GPU or not.
#include <catch2/catch.hpp>

#include <link.h>

#include <string>

#include "gpu/cublas_library.h"

namespace {

bool cublas_is_loaded() {
  bool found = false;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        if (std::string(info->dlpi_name).find("libcublas") != std::string::npos) *static_cast<bool*>(data) = true;
        return 0;
      },
      &found);
  return found;
}

}  // namespace

TEST_CASE("cuBLAS is loaded by its first use, not when the program starts", "[gpu]") {
  REQUIRE_FALSE(cublas_is_loaded());
  const dynet::gpu::CublasLibrary& cublas = dynet::gpu::cublas_library();
  CHECK(cublas_is_loaded());
  CHECK(cublas.create);
  CHECK(cublas.destroy);
  CHECK(cublas.set_stream);
  CHECK(cublas.sgemm);
  CHECK(cublas.sgemm_strided_batched);
  REQUIRE(cublas.status_string);
  CHECK(std::string(cublas.status_string(CUBLAS_STATUS_NOT_INITIALIZED)) == "the library was not initialized");
  CHECK(&dynet::gpu::cublas_library() == &cublas);
}
