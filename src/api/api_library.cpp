// Entry points: the library API (cuLibrary*, cuKernel*), how cudart 13 registers kernels.
#include "checks.h"
#include "cucpu/support/log.h"
#include "entry_points.h"

#include "cucpu/driver/library.h"
#include "cucpu/driver/module.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace cucpu::api::impl {
namespace {

// Handles the registry's checks found live.
driver::Library *libraryOf(CUlibrary h) { return reinterpret_cast<driver::Library *>(h); }
driver::Kernel *kernelOf(CUkernel h) { return reinterpret_cast<driver::Kernel *>(h); }

// JIT options change nothing on a CPU; library options (binary preserved, context-independent
// loading) are accepted. An option count needs its array of options, and JIT options their
// values; library options may come without values: cuBLASLt loads each kernel library with
// CU_LIBRARY_BINARY_IS_PRESERVED and no value array, which NVIDIA's driver accepts.
CUresult checkOptions(unsigned numJit, CUjit_option *jit, void **jitValues, unsigned numLib,
                      CUlibraryOption *lib, void **) {
  if ((numJit && (!jit || !jitValues)) || (numLib && !lib)) {
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "library load: {} JIT and {} library options without arrays", numJit,
                        numLib);
  }
  for (unsigned i = 0; i < numJit; ++i)
    if (static_cast<int>(jit[i]) < 0 || jit[i] >= CU_JIT_NUM_OPTIONS) {
      return driver::fail(CUDA_ERROR_INVALID_VALUE, "library load: unknown JIT option {}",
                          int(jit[i]));
    }
  for (unsigned i = 0; i < numLib; ++i)
    if (static_cast<int>(lib[i]) < 0 || lib[i] >= CU_LIBRARY_NUM_OPTIONS) {
      return driver::fail(CUDA_ERROR_INVALID_VALUE, "library load: unknown library option {}",
                          int(lib[i]));
    }
  return CUDA_SUCCESS;
}

CUresult loadLibrary(CUlibrary *library, const void *code) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  driver::Device *d = driver::device(0);
  std::unique_ptr<driver::Library> lib;
  if (CUresult r = driver::Library::load(code, d->ccMajor() * 10 + d->ccMinor(), &lib);
      r != CUDA_SUCCESS)
    return r;
  driver::registerLibrary(lib.get());
  *library = reinterpret_cast<CUlibrary>(lib.release());
  return CUDA_SUCCESS;
}

// The kernel's function in the current context.
CUresult currentFunction(CUkernel kernel, driver::Function **f) {
  if (CUresult r = check::kernel(kernel, "kernel"); r != CUDA_SUCCESS)
    return r;
  driver::Kernel *k = kernelOf(kernel);
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  return k->function(c, f);
}

// A context for per-device kernel settings: the current one, or none yet (remembered).
CUresult contextFor(CUdevice dev, driver::Context **out) {
  driver::Device *d;
  if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
    return r;
  driver::Context *c = driver::current();
  *out = c && driver::isLiveContext(c) && c->device() == d ? c : nullptr;
  return CUDA_SUCCESS;
}

// The library's module in the current context (loaded there on first use).
CUresult currentModule(driver::Library *lib, driver::Module **m) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  return lib->module(c, m);
}

CUresult global(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name,
                bool managed = false) {
  driver::Module *m;
  if (CUresult r = currentModule(libraryOf(library), &m); r != CUDA_SUCCESS)
    return r;
  return managed ? m->managedGlobal(name, dptr, bytes) : m->global(name, dptr, bytes);
}

} // namespace

CUresult cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jitOptions,
                           void **jitOptionsValues, unsigned int numJitOptions,
                           CUlibraryOption *libraryOptions, void **libraryOptionValues,
                           unsigned int numLibraryOptions) {
  if (CUresult r = checkOptions(numJitOptions, jitOptions, jitOptionsValues, numLibraryOptions,
                                libraryOptions, libraryOptionValues);
      r != CUDA_SUCCESS)
    return r;
  return loadLibrary(library, code);
}

CUresult cuLibraryLoadFromFile(CUlibrary *library, const char *fileName, CUjit_option *jitOptions,
                               void **jitOptionsValues, unsigned int numJitOptions,
                               CUlibraryOption *libraryOptions, void **libraryOptionValues,
                               unsigned int numLibraryOptions) {
  if (CUresult r = checkOptions(numJitOptions, jitOptions, jitOptionsValues, numLibraryOptions,
                                libraryOptions, libraryOptionValues);
      r != CUDA_SUCCESS)
    return r;
  std::ifstream in(fileName, std::ios::binary);
  if (!in)
    return driver::fail(CUDA_ERROR_FILE_NOT_FOUND, "cannot open '{}'", fileName);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  bytes.append(8, '\0'); // PTX text ends with a NUL; a fat binary is read 8-byte aligned below
  std::vector<uint64_t> aligned(bytes.size() / 8 + 1);
  std::memcpy(aligned.data(), bytes.data(), bytes.size());
  return loadLibrary(library, aligned.data());
}

CUresult cuLibraryUnload(CUlibrary library) {
  driver::Library *lib = libraryOf(library);
  driver::unregisterLibrary(lib);
  delete lib;
  return CUDA_SUCCESS;
}

CUresult cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name) {
  driver::Kernel *k = libraryOf(library)->kernel(name);
  if (!k)
    return driver::fail(CUDA_ERROR_NOT_FOUND, "the library has no kernel '{}'", name);
  *pKernel = reinterpret_cast<CUkernel>(k);
  return CUDA_SUCCESS;
}

CUresult cuLibraryGetKernelCount(unsigned int *count, CUlibrary lib) {
  *count = static_cast<unsigned>(libraryOf(lib)->kernels().size());
  return CUDA_SUCCESS;
}

CUresult cuLibraryEnumerateKernels(CUkernel *kernels, unsigned int numKernels, CUlibrary lib) {
  const driver::Library *l = libraryOf(lib);
  if (numKernels < l->kernels().size())
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "numKernels = {}: the library has {} kernels",
                        numKernels, l->kernels().size());
  for (size_t i = 0; i < l->kernels().size(); ++i)
    kernels[i] = reinterpret_cast<CUkernel>(l->kernels()[i].get());
  return CUDA_SUCCESS;
}

CUresult cuLibraryGetModule(CUmodule *pMod, CUlibrary library) {
  driver::Module *m;
  if (CUresult r = currentModule(libraryOf(library), &m); r != CUDA_SUCCESS)
    return r;
  *pMod = reinterpret_cast<CUmodule>(m);
  return CUDA_SUCCESS;
}

CUresult cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name) {
  return global(dptr, bytes, library, name);
}

// Managed variables live in host memory like every other global on a CPU device.
CUresult cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes, CUlibrary library,
                             const char *name) {
  return global(dptr, bytes, library, name, /*managed=*/true);
}

// Unified functions (callable from host and device) do not exist in PTX that cucpu loads.
CUresult cuLibraryGetUnifiedFunction(void **, CUlibrary, const char *symbol) {
  return driver::fail(CUDA_ERROR_NOT_FOUND, "'{}': PTX has no unified functions", symbol);
}

CUresult cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel) {
  driver::Function *f;
  if (CUresult r = currentFunction(kernel, &f); r != CUDA_SUCCESS)
    return r;
  *pFunc = reinterpret_cast<CUfunction>(f);
  return CUDA_SUCCESS;
}

CUresult cuKernelGetAttribute(int *pi, CUfunction_attribute attrib, CUkernel kernel, CUdevice dev) {
  driver::Context *c; // after the registry's check of the kernel, as an H200 checks first
  if (CUresult r = contextFor(dev, &c); r != CUDA_SUCCESS)
    return r;
  if (!pi)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "pi is NULL");
  if (!c)
    return driver::fail(CUDA_ERROR_INVALID_CONTEXT, "no context is current on this thread");
  driver::Function *f;
  if (CUresult r = currentFunction(kernel, &f); r != CUDA_SUCCESS)
    return r;
  return f->attribute(attrib, pi);
}

CUresult cuKernelSetAttribute(CUfunction_attribute attrib, int val, CUkernel kernel, CUdevice dev) {
  driver::Context *c;
  if (CUresult r = contextFor(dev, &c); r != CUDA_SUCCESS)
    return r;
  return kernelOf(kernel)->setAttribute(c, attrib, val);
}

CUresult cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config, CUdevice dev) {
  driver::Context *c;
  if (CUresult r = contextFor(dev, &c); r != CUDA_SUCCESS)
    return r;
  return kernelOf(kernel)->setCacheConfig(c, config);
}

CUresult cuKernelGetName(const char **name, CUkernel hfunc) {
  *name = kernelOf(hfunc)->name().c_str();
  return CUDA_SUCCESS;
}

CUresult cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t *paramOffset,
                              size_t *paramSize) {
  if (!paramOffset && !paramSize)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "outputs paramOffset and paramSize are both NULL");
  driver::Function *f;
  if (CUresult r = currentFunction(kernel, &f); r != CUDA_SUCCESS)
    return r;
  return paramInfo(f, paramIndex, paramOffset, paramSize);
}

CUresult cuKernelGetLibrary(CUlibrary *pLib, CUkernel kernel) {
  *pLib = reinterpret_cast<CUlibrary>(kernelOf(kernel)->library());
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
