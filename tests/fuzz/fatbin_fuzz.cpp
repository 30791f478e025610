// libFuzzer target for the fat binary container reader: any bytes must be read or refused with a
// reason, never crash, hang, leak or allocate without bound; every entry's payload is expanded
// (zstd, LZ4) and the PTX choice made as the driver does.
#include "cucpu/support/fatbin_container.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<cucpu::fatbin::Entry> entries;
  uint64_t span = 0;
  std::string log;
  if (size < 4 || !cucpu::fatbin::readEntries(data, size, &entries, &span, &log))
    return 0;
  for (const auto &e : entries) {
    std::string text;
    (void)cucpu::fatbin::payload(e, &text, &log);
  }
  std::vector<std::string> ptx;
  for (int cc : {50, 80, 120})
    (void)cucpu::fatbin::ptxOfArch(entries, cucpu::fatbin::choosePtxArch(entries, cc), &ptx, &log);
  return 0;
}
