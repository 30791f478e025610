// Entry points: module management (PTX loading with JIT options) and function lookup.
#include "cucpu/support/log.h"
#include "entry.h"
#include "entry_points.h"
#include "jit_options.h"

#include "cucpu/driver/module.h"
#include "cucpu/support/env.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace cucpu::api::impl {

namespace {

CUresult load(CUmodule *module, const void *image, const driver::LoadOptions &opts) {
  driver::Context *c;
  if (CUresult r = api::currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!module || !image)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "module or image is NULL");
  driver::Module *m;
  CUresult r = driver::loadModule(c, image, opts, &m);
  if (r == CUDA_SUCCESS)
    *module = reinterpret_cast<CUmodule>(m);
  return r;
}

} // namespace

CUresult cuModuleLoadData(CUmodule *module, const void *image) { return load(module, image, {}); }

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                            CUjit_option *options, void **optionValues) {
  driver::LoadOptions opts;
  if (CUresult r = parseJitOptions(numOptions, options, optionValues, &opts); r != CUDA_SUCCESS)
    return r;
  return load(module, image, opts);
}

CUresult cuModuleLoad(CUmodule *module, const char *fname) {
  driver::Context *c;
  if (CUresult r = api::currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!module || !fname)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "module or fname is NULL");
  std::ifstream in(fname, std::ios::binary);
  if (!in)
    return driver::fail(CUDA_ERROR_FILE_NOT_FOUND, "in is NULL");
  if (std::filesystem::is_directory(fname)) // opens, but cannot be read (an H200 answers 2)
    return driver::fail(CUDA_ERROR_OUT_OF_MEMORY,
                        "rejected: std::filesystem::is_directory(fname)) // opens, but cannot be "
                        "read (an H200 answers 2");
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str(); // NUL-terminated by std::string
  return load(module, text.c_str(), {});
}

CUresult cuModuleUnload(CUmodule hmod) {
  if (CUresult r = api::requireInit(); r != CUDA_SUCCESS)
    return r;
  auto *m = reinterpret_cast<driver::Module *>(hmod);
  if (!driver::isLiveModule(m))
    return driver::fail(CUDA_ERROR_INVALID_HANDLE, "rejected: !driver::isLiveModule(m)");
  return driver::unloadModule(m);
}

CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name) {
  if (CUresult r = api::requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!hfunc || !name)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "hfunc or name is NULL");
  auto *m = reinterpret_cast<driver::Module *>(hmod);
  if (!driver::isLiveModule(m))
    return driver::fail(CUDA_ERROR_INVALID_HANDLE, "rejected: !driver::isLiveModule(m)");
  driver::Function *f = m->function(name);
  if (!f)
    return driver::fail(CUDA_ERROR_NOT_FOUND, "f is NULL");
  *hfunc = reinterpret_cast<CUfunction>(f);
  return CUDA_SUCCESS;
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name) {
  driver::Module *m;
  if (CUresult r = moduleOf(hmod, &m); r != CUDA_SUCCESS)
    return r;
  if (!name || (!dptr && !bytes))
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "rejected: !name || (!dptr && !bytes)");
  CUresult r = m->global(name, dptr, bytes);
  if (r == CUDA_ERROR_NOT_FOUND && m->function(name)) {
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "cuModuleGetGlobal: '{}' is a kernel, not a variable",
                        name); // as an H200 answers
  }
  return r;
}

CUresult cuModuleGetFunctionCount(unsigned int *count, CUmodule mod) {
  driver::Module *m;
  if (CUresult r = moduleOf(mod, &m); r != CUDA_SUCCESS)
    return r;
  if (!count)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "count is NULL");
  *count = static_cast<unsigned>(m->functions().size());
  return CUDA_SUCCESS;
}

CUresult cuModuleEnumerateFunctions(CUfunction *functions, unsigned int numFunctions,
                                    CUmodule mod) {
  driver::Module *m;
  if (CUresult r = moduleOf(mod, &m); r != CUDA_SUCCESS)
    return r;
  if (!functions)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "functions is NULL");
  const auto &all = m->functions();
  for (size_t i = 0; i < all.size() && i < numFunctions; ++i)
    functions[i] = reinterpret_cast<CUfunction>(all[i].get());
  return CUDA_SUCCESS;
}

CUresult cuModuleGetLoadingMode(CUmoduleLoadingMode *mode) {
  if (!mode)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "mode is NULL");
  // CUDA_MODULE_LOADING=EAGER asks for eager loading; lazy is CUDA's default.
  auto v = env::get("CUDA_MODULE_LOADING");
  *mode = v && *v == "EAGER" ? CU_MODULE_EAGER_LOADING : CU_MODULE_LAZY_LOADING;
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
