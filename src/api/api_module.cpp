// Entry points: module management (PTX loading with JIT options) and function lookup.
#include "checks.h"
#include "cucpu/support/log.h"
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

// After the checks of a current context, the output and the image.
CUresult load(CUmodule *module, const void *image, const driver::LoadOptions &opts) {
  driver::Module *m;
  CUresult r = driver::loadModule(driver::current(), image, opts, &m);
  if (r == CUDA_SUCCESS)
    *module = reinterpret_cast<CUmodule>(m);
  return r;
}

} // namespace

CUresult cuModuleLoadData(CUmodule *module, const void *image) { return load(module, image, {}); }

// The JIT options are read first, as NVIDIA's driver does (tests/gpu/answers/misuse.txt).
CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                            CUjit_option *options, void **optionValues) {
  driver::LoadOptions opts;
  if (CUresult r = parseJitOptions(numOptions, options, optionValues, &opts); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = check::context(); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = check::out(module, "module"); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = check::in(image, "image"); r != CUDA_SUCCESS)
    return r;
  return load(module, image, opts);
}

CUresult cuModuleLoad(CUmodule *module, const char *fname) {
  std::ifstream in(fname, std::ios::binary);
  if (!in)
    return driver::fail(CUDA_ERROR_FILE_NOT_FOUND, "cannot open '{}'", fname);
  if (std::filesystem::is_directory(fname)) // opens, but cannot be read (an H200 answers 2)
    return driver::fail(CUDA_ERROR_OUT_OF_MEMORY, "'{}' is a directory", fname);
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str(); // NUL-terminated by std::string
  return load(module, text.c_str(), {});
}

CUresult cuModuleUnload(CUmodule hmod) {
  return driver::unloadModule(reinterpret_cast<driver::Module *>(hmod));
}

CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name) {
  driver::Function *f = reinterpret_cast<driver::Module *>(hmod)->function(name);
  if (!f)
    return driver::fail(CUDA_ERROR_NOT_FOUND, "the module has no kernel '{}'", name);
  *hfunc = reinterpret_cast<CUfunction>(f);
  return CUDA_SUCCESS;
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name) {
  auto *m = reinterpret_cast<driver::Module *>(hmod);
  if (!dptr && !bytes)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "outputs dptr and bytes are both NULL");
  CUresult r = m->global(name, dptr, bytes);
  if (r == CUDA_ERROR_NOT_FOUND && m->function(name)) {
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "cuModuleGetGlobal: '{}' is a kernel, not a variable",
                        name); // as an H200 answers
  }
  return r;
}

CUresult cuModuleGetFunctionCount(unsigned int *count, CUmodule mod) {
  *count = static_cast<unsigned>(reinterpret_cast<driver::Module *>(mod)->functions().size());
  return CUDA_SUCCESS;
}

CUresult cuModuleEnumerateFunctions(CUfunction *functions, unsigned int numFunctions,
                                    CUmodule mod) {
  const auto &all = reinterpret_cast<driver::Module *>(mod)->functions();
  for (size_t i = 0; i < all.size() && i < numFunctions; ++i)
    functions[i] = reinterpret_cast<CUfunction>(all[i].get());
  return CUDA_SUCCESS;
}

CUresult cuModuleGetLoadingMode(CUmoduleLoadingMode *mode) {
  // CUDA_MODULE_LOADING=EAGER asks for eager loading; lazy is CUDA's default.
  auto v = env::get("CUDA_MODULE_LOADING");
  *mode = v && *v == "EAGER" ? CU_MODULE_EAGER_LOADING : CU_MODULE_LAZY_LOADING;
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
