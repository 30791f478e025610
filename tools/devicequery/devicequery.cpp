// cucpu-devicequery: every attribute of every device, and the driver API coverage summary.
#include <cuda.h>

#include <cstdio>

namespace {

struct AttributeName {
  int value;
  const char *name;
};
const AttributeName kAttributes[] = {
#include "device_attribute_names.inc"
};

struct SectionCoverage {
  const char *section;
  int implemented;
  int total;
};
const SectionCoverage kCoverage[] = {
#include "coverage_summary.inc"
};

bool check(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS)
    return true;
  const char *name = "?";
  cuGetErrorName(r, &name);
  std::fprintf(stderr, "cucpu-devicequery: %s failed: %s (%d)\n", what, name, static_cast<int>(r));
  return false;
}

void printDevice(CUdevice dev) {
  char name[256] = {}, bus[32] = {};
  size_t bytes = 0;
  cuDeviceGetName(name, sizeof name, dev);
  cuDeviceGetPCIBusId(bus, sizeof bus, dev);
  cuDeviceTotalMem(&bytes, dev);
  std::printf("Device %d: \"%s\"\n  PCI bus id: %s\n  total memory: %zu bytes\n", dev, name, bus,
              bytes);
  for (const AttributeName &a : kAttributes) {
    int v = 0;
    if (cuDeviceGetAttribute(&v, static_cast<CUdevice_attribute>(a.value), dev) == CUDA_SUCCESS)
      std::printf("  %-58s %d\n", a.name, v);
    else
      std::printf("  %-58s (not available)\n", a.name);
  }
}

void printCoverage() {
  int implemented = 0, total = 0;
  std::printf("\nDriver API coverage (exported entry points):\n");
  for (const SectionCoverage &s : kCoverage) {
    std::printf("  %-50s %4d / %4d\n", s.section, s.implemented, s.total);
    implemented += s.implemented;
    total += s.total;
  }
  std::printf("  %-50s %4d / %4d\n", "total", implemented, total);
}

} // namespace

int main() {
  int version = 0, count = 0;
  if (!check(cuInit(0), "cuInit") || !check(cuDriverGetVersion(&version), "cuDriverGetVersion") ||
      !check(cuDeviceGetCount(&count), "cuDeviceGetCount"))
    return 1;
  std::printf("CUDA driver version %d.%d, %d device(s)\n\n", version / 1000, version % 1000 / 10,
              count);
  for (CUdevice d = 0; d < count; ++d)
    printDevice(d);
  printCoverage();
  return 0;
}
