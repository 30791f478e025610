// libFuzzer target for what the nvJitLink front end takes apart: ELF host objects (.nv_fatbin and
// __nv_relfatbin sections), cubins, fat binaries and static libraries (ar archives, nested), as
// one input of any type. Any bytes must be taken apart or refused, never crash, hang or leak.
#include "cucpu/rtc/link_inputs.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cucpu::rtc::LinkUnits units;
  std::string log;
  (void)cucpu::rtc::collectUnits(cucpu::rtc::kInputAny, data, size, "fuzz", 80, &units, &log);
  (void)cucpu::rtc::externFunctions(units.ptx);
  return 0;
}
