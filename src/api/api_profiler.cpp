// Entry points cuProfilerStart/Stop: there is no profiler to drive, and the calls succeed where
// NVIDIA's driver does (an H100, tests/gpu/record_python_stack.cpp): with a current context, as
// often as they are made; numba calls them around profiled regions.
#include "entry.h"
#include "entry_points.h"

namespace cucpu::api::impl {

CUresult cuProfilerStart() {
  driver::Context *c;
  return currentContext(&c);
}

CUresult cuProfilerStop() {
  driver::Context *c;
  return currentContext(&c);
}

} // namespace cucpu::api::impl
