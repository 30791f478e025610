// Records cuGetErrorName and cuGetErrorString for every CUresult value NVIDIA's driver knows
// (0..1023), as "code name: string". Output: tests/gpu/answers/error_strings.txt (test
// api_error_strings_answers); programs and test suites match these texts (CuPy's tests look for
// "named symbol not found").
#include <cuda.h>

#include <cstdio>

int main() {
  for (int code = 0; code < 1024; ++code) {
    const char *name = nullptr, *text = nullptr;
    if (cuGetErrorName(static_cast<CUresult>(code), &name) != CUDA_SUCCESS || !name)
      continue;
    cuGetErrorString(static_cast<CUresult>(code), &text);
    std::printf("%d %s: %s\n", code, name, text ? text : "(null)");
  }
  return 0;
}
