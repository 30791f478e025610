// Entry points: the JIT linker (cuLinkCreate, cuLinkAddData/File, cuLinkComplete, cuLinkDestroy).
#include "entry.h"
#include "entry_points.h"
#include "jit_options.h"

#include "cucpu/driver/link.h"

#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>

namespace cucpu::api::impl {

namespace {

// Live link states: a destroyed or made-up handle is rejected, not dereferenced.
std::mutex linkersMutex;
std::set<driver::Linker *> &linkers() {
  static auto *s = new std::set<driver::Linker *>();
  return *s;
}

driver::Linker *linkerOf(CUlinkState h) {
  std::lock_guard lk(linkersMutex);
  auto *l = reinterpret_cast<driver::Linker *>(h);
  return linkers().count(l) ? l : nullptr;
}

CUresult create(unsigned numOptions, CUjit_option *options, void **values, CUlinkState *out) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!out)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "out is NULL");
  driver::LoadOptions opts;
  if (CUresult r = parseJitOptions(numOptions, options, values, &opts); r != CUDA_SUCCESS)
    return r;
  auto *l = new driver::Linker(c, opts);
  std::lock_guard lk(linkersMutex);
  linkers().insert(l);
  *out = reinterpret_cast<CUlinkState>(l);
  return CUDA_SUCCESS;
}

CUresult addData(CUlinkState state, CUjitInputType type, const void *data, size_t size,
                 const char *name) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  driver::Linker *l = linkerOf(state);
  if (!l)
    return driver::fail(CUDA_ERROR_INVALID_HANDLE, "state is not a live link state");
  if (!data || size == 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "data is NULL or size is 0");
  return l->add(type, data, size, name);
}

CUresult addFile(CUlinkState state, CUjitInputType type, const char *path) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!linkerOf(state))
    return driver::fail(CUDA_ERROR_INVALID_HANDLE, "state is not a live link state");
  if (!path)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "path is NULL");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return driver::fail(CUDA_ERROR_FILE_NOT_FOUND, "cannot open '{}'", path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string bytes = ss.str();
  if (type == CU_JIT_INPUT_PTX)
    bytes.push_back('\0');
  return addData(state, type, bytes.data(), bytes.size(), path);
}

} // namespace

CUresult cuLinkCreate_v2(unsigned int numOptions, CUjit_option *options, void **optionValues,
                         CUlinkState *stateOut) {
  return create(numOptions, options, optionValues, stateOut);
}
CUresult cuLinkCreate(unsigned int numOptions, CUjit_option *options, void **optionValues,
                      CUlinkState *stateOut) {
  return create(numOptions, options, optionValues, stateOut);
}

CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data, size_t size,
                          const char *name, unsigned int, CUjit_option *, void **) {
  return addData(state, type, data, size, name);
}
CUresult cuLinkAddData(CUlinkState state, CUjitInputType type, void *data, size_t size,
                       const char *name, unsigned int, CUjit_option *, void **) {
  return addData(state, type, data, size, name);
}

CUresult cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char *path, unsigned int,
                          CUjit_option *, void **) {
  return addFile(state, type, path);
}
CUresult cuLinkAddFile(CUlinkState state, CUjitInputType type, const char *path, unsigned int,
                       CUjit_option *, void **) {
  return addFile(state, type, path);
}

CUresult cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  driver::Linker *l = linkerOf(state);
  if (!l)
    return driver::fail(CUDA_ERROR_INVALID_HANDLE, "state is not a live link state");
  if (!cubinOut || !sizeOut)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "cubinOut or sizeOut is NULL");
  return l->complete(cubinOut, sizeOut);
}

CUresult cuLinkDestroy(CUlinkState state) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  std::unique_ptr<driver::Linker> owned;
  {
    std::lock_guard lk(linkersMutex);
    auto *l = reinterpret_cast<driver::Linker *>(state);
    if (!linkers().erase(l))
      return driver::fail(CUDA_ERROR_INVALID_HANDLE, "state is not a live link state");
    owned.reset(l);
  }
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
