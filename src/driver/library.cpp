// Libraries and kernels: PTX extracted once, modules loaded per context on first use.
#include "cucpu/driver/library.h"
#include "cucpu/driver/reason.h"

#include "cucpu/driver/context.h"
#include "cucpu/driver/module.h"
#include "cucpu/support/log.h"
#include "fatbin.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <unordered_set>

namespace cucpu::driver {
namespace {

std::mutex registryMutex;
std::unordered_set<const void *> &live() {
  static auto *s = new std::unordered_set<const void *>();
  return *s;
}

bool identChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%';
}

// Kernel names: the identifier after each `.entry` directive outside comments.
std::vector<std::string> entryNames(const std::string &ptx) {
  std::vector<std::string> names;
  size_t pos = 0;
  while ((pos = ptx.find(".entry", pos)) != std::string::npos) {
    size_t lineStart = ptx.rfind('\n', pos);
    lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
    bool commented = ptx.substr(lineStart, pos - lineStart).find("//") != std::string::npos;
    pos += 6;
    if (commented || pos >= ptx.size() || !std::isspace(static_cast<unsigned char>(ptx[pos])))
      continue;
    while (pos < ptx.size() && std::isspace(static_cast<unsigned char>(ptx[pos])))
      ++pos;
    size_t end = pos;
    while (end < ptx.size() && identChar(ptx[end]))
      ++end;
    if (end > pos)
      names.push_back(ptx.substr(pos, end - pos));
  }
  return names;
}

} // namespace

void registerLibrary(Library *l) {
  std::lock_guard lk(registryMutex);
  live().insert(l);
  for (auto &k : l->kernels())
    live().insert(k.get());
}
void unregisterLibrary(Library *l) {
  std::lock_guard lk(registryMutex);
  live().erase(l);
  for (auto &k : l->kernels())
    live().erase(k.get());
}
bool isLiveLibrary(const Library *l) {
  std::lock_guard lk(registryMutex);
  return l && live().count(l);
}
bool isLiveKernel(const Kernel *k) {
  std::lock_guard lk(registryMutex);
  return k && live().count(k);
}

CUresult Library::load(const void *image, int cc, std::unique_ptr<Library> *out) {
  auto lib = std::make_unique<Library>();
  // strncmp stops at a NUL, so text shorter than the ELF magic is never read past its end.
  if (std::strncmp(static_cast<const char *>(image),
                   "\x7f"
                   "ELF",
                   4) == 0) {
    std::string why;
    if (CUresult r = fatbin::classifyElfImage(image, &why); r != CUDA_ERROR_NO_BINARY_FOR_GPU)
      return r;
    constexpr const char *kWhy = "the library is a cubin (GPU machine code) and holds no PTX: "
                                 "rebuild with -gencode arch=compute_XX,code=compute_XX";
    fatbin::reportMachineCodeOnly(kWhy);
    return fail(CUDA_ERROR_NO_BINARY_FOR_GPU, "{}", kWhy);
  }
  if (fatbin::isFatBinary(image)) {
    std::string log;
    if (CUresult r = fatbin::extractPtx(image, cc, &lib->ptx_, &log); r != CUDA_SUCCESS) {
      log::info(log::Component::Driver, "library load failed: {}", log);
      return fail(r, "library load failed: {}", log);
    }
  } else {
    lib->ptx_ = static_cast<const char *>(image);
  }
  for (auto &name : entryNames(lib->ptx_))
    lib->kernels_.push_back(std::make_unique<Kernel>(lib.get(), name));
  *out = std::move(lib);
  return CUDA_SUCCESS;
}

Library::~Library() {
  for (const Loaded &l : loaded_)
    if (isLiveContext(l.ctx) && l.ctx->id() == l.ctxId && isLiveModule(l.module))
      unloadModule(l.module);
}

Kernel *Library::kernel(const std::string &name) const {
  for (auto &k : kernels_)
    if (k->name() == name)
      return k.get();
  return nullptr;
}

CUresult Library::module(Context *ctx, Module **out) {
  std::lock_guard lk(mutex_);
  for (const Loaded &l : loaded_) {
    if (l.ctx == ctx && l.ctxId == ctx->id() && isLiveModule(l.module)) {
      *out = l.module;
      return CUDA_SUCCESS;
    }
  }
  Module *m;
  if (CUresult r = loadModule(ctx, ptx_.c_str(), {}, &m); r != CUDA_SUCCESS)
    return r;
  for (auto &k : kernels_)
    if (Function *f = m->function(k->name()))
      k->apply(f);
  std::erase_if(loaded_, [&](const Loaded &l) { return l.ctx == ctx; });
  loaded_.push_back({ctx, ctx->id(), m});
  *out = m;
  return CUDA_SUCCESS;
}

CUresult Kernel::function(Context *ctx, Function **out) {
  Module *m;
  if (CUresult r = library_->module(ctx, &m); r != CUDA_SUCCESS)
    return r;
  *out = m->function(name_);
  return *out ? CUDA_SUCCESS
              : fail(CUDA_ERROR_NOT_FOUND, "the library's module has no kernel '{}'", name_);
}

CUresult Kernel::apply(Function *f) const {
  f->cacheConfig = cacheConfig_;
  for (auto [attr, value] : attributes_)
    if (CUresult r = f->setAttribute(attr, value); r != CUDA_SUCCESS)
      return r;
  return CUDA_SUCCESS;
}

CUresult Kernel::setAttribute(Context *ctx, CUfunction_attribute attr, int value) {
  if (ctx) {
    Function *f;
    if (CUresult r = function(ctx, &f); r != CUDA_SUCCESS)
      return r;
    if (CUresult r = f->setAttribute(attr, value); r != CUDA_SUCCESS)
      return r;
  } else if (attr != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES &&
             attr != CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT) {
    return fail(CUDA_ERROR_INVALID_VALUE, "attribute {} cannot be set without a context",
                static_cast<int>(attr));
  }
  std::lock_guard lk(library_->mutex_);
  attributes_.emplace_back(attr, value);
  return CUDA_SUCCESS;
}

CUresult Kernel::setCacheConfig(Context *ctx, CUfunc_cache config) {
  if (ctx) {
    Function *f;
    if (CUresult r = function(ctx, &f); r != CUDA_SUCCESS)
      return r;
    f->cacheConfig = config;
  }
  std::lock_guard lk(library_->mutex_);
  cacheConfig_ = config;
  return CUDA_SUCCESS;
}

} // namespace cucpu::driver
