// libFuzzer target for the PTX front end: any input must parse or fail with diagnostics,
// never crash, hang or leak.
#include "cucpu/ptx/ast.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto result = cucpu::ptx::parse(std::string_view(reinterpret_cast<const char *>(data), size));
  for (const auto &d : result.errors)
    (void)d.format();
  return 0;
}
