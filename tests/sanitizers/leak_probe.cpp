// A program for the sanitized build's own tests (tests/sanitizers_tests.cmake): it uses gpgpu
// as an application would and, asked to, leaks a kernel and a matmul plan. The leak check is
// only worth something if it reports a leak of ours, so one test runs `leak_probe leak` and
// passes only when LeakSanitizer reports both (with frames inside the library), and another
// runs `leak_probe clean` and passes only when nothing at all is reported.
//
// The clean run ends every Context before main returns, which is what unloads the GL driver
// (the last eglTerminate) and what made the sanitized stage fail on AMD Zen machines; it
// also checks that the driver is still mapped afterwards (keep_gl_drivers_loaded.cpp).
#include <link.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <gpgpu/gpgpu.hpp>

namespace {

constexpr const char* scale_source = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer X { float x[]; };
uniform float factor;
void main() { uint i = gpgpu_index(); if (i < gpgpu_count) x[i] *= factor; })";

// Runs one kernel and checks its result; returns false when it is wrong.
bool scale_once(const gpgpu::Context& ctx) {
  std::vector<float> x(1000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.5f + static_cast<float>(i);
  gpgpu::ComputeKernel scale(ctx, scale_source);
  scale.run({{"x", x}, {"factor", 2.0f}});
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] != 2.0f * (0.5f + static_cast<float>(i))) return false;  // exact: a power of 2
  }
  return true;
}

// Never inlined, so that the leak report names them. The kernel is a direct leak; the plan
// is too, and what it allocated inside the library (its backend, kernels and scratch
// Buffers, in src/matmul/) leaks indirectly with frames in gpgpu's own code.
[[gnu::noinline]] void leak_a_kernel(const gpgpu::Context& ctx) {
  auto* leaked = new gpgpu::ComputeKernel(ctx, scale_source, {{"LEAKED", "1"}}, "leaked kernel");
  std::printf("leaked a kernel at %p\n", static_cast<void*>(leaked));
}

[[gnu::noinline]] void leak_a_plan(const gpgpu::Context& ctx) {
  gpgpu::MatmulOptions options;
  options.method = gpgpu::MatmulMethod::ComputeNaive;
  auto* leaked = new gpgpu::MatmulPlan(ctx, 8, 8, 8, options);
  std::printf("leaked a matmul plan at %p\n", static_cast<void*>(leaked));
}

int count_dri_drivers_mapped() {
  int count = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        if (info->dlpi_name != nullptr && std::strstr(info->dlpi_name, "_dri.so") != nullptr) {
          ++*static_cast<int*>(data);
        }
        return 0;
      },
      &count);
  return count;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "leak" && mode != "clean") {
    std::fprintf(stderr, "usage: leak_probe leak|clean\n");
    return 2;
  }
  try {
    bool software = false;
    {
      gpgpu::Context ctx;
      software = ctx.info().is_software;
      if (!scale_once(ctx)) {
        std::fprintf(stderr, "FAILED: wrong result\n");
        return 1;
      }
      if (mode == "leak") {
        leak_a_kernel(ctx);
        leak_a_plan(ctx);
      }
    }
    if (mode == "clean") {
      // A second Context after the first is gone: the driver is loaded, used and (but for
      // keep_gl_drivers_loaded.cpp) unloaded twice.
      gpgpu::Context again;
      if (!scale_once(again)) {
        std::fprintf(stderr, "FAILED: wrong result in the second Context\n");
        return 1;
      }
      again.release();
      if (software && count_dri_drivers_mapped() == 0) {
        std::fprintf(stderr, "FAILED: the Mesa DRI driver was unloaded with the last Context\n");
        return 1;
      }
    }
  } catch (const gpgpu::Error& e) {
    std::fprintf(stderr, "gpgpu error: %s\n", e.what());
    return 1;
  }
  std::printf("%s run finished\n", mode.c_str());
  return 0;
}
