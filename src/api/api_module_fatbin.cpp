// Entry points: cuModuleLoadFatBinary (a fat binary wrapper or container into the current context).
#include "entry.h"
#include "entry_points.h"

#include "cucpu/driver/module.h"

namespace cucpu::api::impl {

CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin) {
  driver::Module *m;
  CUresult r = driver::loadModule(driver::current(), fatCubin, {}, &m);
  if (r == CUDA_SUCCESS)
    *module = reinterpret_cast<CUmodule>(m);
  return r;
}

} // namespace cucpu::api::impl
