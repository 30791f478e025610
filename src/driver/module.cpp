// Module loading (PTX text or a fat binary), function lookup, attributes, live-handle registries.
#include "cucpu/driver/module.h"

#include "cucpu/driver/context.h"
#include "cucpu/driver/device.h"
#include "cucpu/driver/link.h"
#include "cucpu/driver/memory.h"
#include "cucpu/driver/reason.h"
#include "cucpu/driver/sanitizer.h"
#include "cucpu/driver/stream.h"
#include "cucpu/jit/program.h"
#include "cucpu/support/log.h"
#include "fatbin.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string_view>
#include <unordered_set>

namespace cucpu::driver {
namespace {

std::mutex registryMutex;
std::unordered_set<const void *> &live() {
  static auto *s = new std::unordered_set<const void *>();
  return *s;
}
void track(const void *p) {
  std::lock_guard lk(registryMutex);
  live().insert(p);
}
void untrack(const void *p) {
  std::lock_guard lk(registryMutex);
  live().erase(p);
}

constexpr int kDefaultSharedLimit = 48 * 1024;
constexpr int kOptinSharedLimit = 163 * 1024;

// Copies `text` into a caller's log buffer (always NUL-terminated); returns bytes written.

CUresult loadPtx(const char *ptx, std::string &log, std::unique_ptr<jit::Program> *out) {
  auto loaded = jit::Program::load(ptx, log);
  if (!loaded)
    return static_cast<CUresult>(loaded.error().code());
  *out = std::move(*loaded);
  return CUDA_SUCCESS;
}

} // namespace

bool isLiveModule(const Module *m) {
  std::lock_guard lk(registryMutex);
  return m && live().count(m);
}
bool isLiveFunction(const Function *f) {
  std::lock_guard lk(registryMutex);
  return f && live().count(f);
}

Function::Function(Module *m, const jit::KernelInfo *k)
    : module_(m), kernel_(k),
      maxDynamicShared_(kDefaultSharedLimit - static_cast<int>(k->staticSharedBytes)) {}

const std::string &Function::name() const { return kernel_->name; }

bool Function::param(size_t index, size_t *offset, size_t *size) const {
  if (index >= kernel_->params.size())
    return false;
  *offset = kernel_->params[index].offset;
  *size = kernel_->params[index].size;
  return true;
}

int Function::activeBlocksPerMultiprocessor(int blockSize, size_t dynamicShared) const {
  if (blockSize < 1 || blockSize > maxThreadsPerBlock() ||
      dynamicShared > static_cast<size_t>(maxDynamicShared_))
    return 0;
  const int warps = (blockSize + 31) / 32;
  const size_t unit = kSharedAllocationUnit;
  const size_t shared =
      (kernel_->staticSharedBytes + dynamicShared + kReservedSharedPerBlock + unit - 1) / unit *
      unit;
  return static_cast<int>(std::min<size_t>({size_t(kBlocksPerMultiprocessor),
                                            size_t(kThreadsPerMultiprocessor / (warps * 32)),
                                            kSharedPerMultiprocessor / shared}));
}

size_t Function::availableDynamicShared(int numBlocks, int blockSize) const {
  // The multiprocessor's shared memory split between the blocks, less what each needs besides
  // (the system's share, static shared memory).
  const size_t share =
      size_t(kSharedPerMultiprocessor) / numBlocks / kSharedAllocationUnit * kSharedAllocationUnit;
  const size_t fixed = kReservedSharedPerBlock + kernel_->staticSharedBytes;
  if (activeBlocksPerMultiprocessor(blockSize, 0) < numBlocks || share <= fixed)
    return 0;
  return std::min<size_t>(share - fixed, static_cast<size_t>(maxDynamicShared_));
}

int Function::maxThreadsPerBlock() const {
  const auto &k = *kernel_;
  uint64_t n = 1024;
  if (k.reqntid[0])
    n = uint64_t(k.reqntid[0]) * std::max(1u, k.reqntid[1]) * std::max(1u, k.reqntid[2]);
  else if (k.maxntid[0])
    n = uint64_t(k.maxntid[0]) * std::max(1u, k.maxntid[1]) * std::max(1u, k.maxntid[2]);
  return static_cast<int>(std::min<uint64_t>(n, 1024));
}

CUresult Function::attribute(CUfunction_attribute attr, int *value) const {
  const auto &k = *kernel_;
  switch (attr) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *value = maxThreadsPerBlock();
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
    *value = static_cast<int>(k.staticSharedBytes);
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: // an H100 reports the module's constant bank
    *value = static_cast<int>(k.constBytes);
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
    *value = static_cast<int>(k.localBytesPerThread);
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_NUM_REGS: {
    const unsigned cap = module_->maxRegisters();
    *value = static_cast<int>(std::min(k.numRegs, cap ? cap : 255u));
    return CUDA_SUCCESS;
  }
  case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    *value = static_cast<int>(k.ptxVersion);
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION: {
    Device *d = module_->context()->device();
    *value = d->ccMajor() * 10 + d->ccMinor();
    return CUDA_SUCCESS;
  }
  case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA:
    *value = 0;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    *value = maxDynamicShared_;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
    *value = -1;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
  case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
  case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
    *value = 0;
    return CUDA_SUCCESS;
  default:
    return fail(CUDA_ERROR_INVALID_VALUE, "attr = {} is not a value this call takes",
                static_cast<long long>(attr));
  }
}

CUresult Function::setAttribute(CUfunction_attribute attr, int value) {
  switch (attr) {
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    if (value < 0 || value + static_cast<int>(kernel_->staticSharedBytes) > kOptinSharedLimit)
      return fail(CUDA_ERROR_INVALID_VALUE,
                  "{} bytes of dynamic shared memory and {} static exceed {}", value,
                  kernel_->staticSharedBytes, kOptinSharedLimit);
    maxDynamicShared_ = value;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
    return value >= -1 && value <= 100
               ? CUDA_SUCCESS
               : fail(CUDA_ERROR_INVALID_VALUE, "a carveout of {} is not -1 to 100", value);
  default:
    return fail(CUDA_ERROR_INVALID_VALUE, "attr = {} is not a value this call takes",
                static_cast<long long>(attr));
  }
}

Module::Module(Context *ctx, std::unique_ptr<jit::Program> program, unsigned maxRegisters)
    : ctx_(ctx), program_(std::move(program)), maxRegisters_(maxRegisters) {
  for (const auto &k : program_->kernels()) {
    functions_.push_back(std::make_unique<Function>(this, &k));
    track(functions_.back().get());
  }
  track(this);
  // memcheck checks kernels' accesses against tracked memory: every variable is, from the start.
  if (sanitizer::memcheck())
    for (const auto &name : program_->globalNames())
      global(name, nullptr, nullptr);
}

Module::~Module() {
  for (void *g : trackedGlobals_)
    memory().untrackGlobal(g);
  untrack(this);
  for (auto &f : functions_)
    untrack(f.get());
}

Function *Module::function(std::string_view name) {
  for (auto &f : functions_)
    if (f->name() == name)
      return f.get();
  return nullptr;
}

CUresult Module::managedGlobal(std::string_view name, CUdeviceptr *address, size_t *bytes) {
  return program_->isManaged(name)
             ? global(name, address, bytes)
             : fail(CUDA_ERROR_NOT_FOUND, "the module has no managed variable '{}'", name);
}

CUresult Module::global(std::string_view name, CUdeviceptr *address, size_t *bytes) {
  auto g = program_->global(name);
  if (!g)
    return fail(static_cast<CUresult>(g.error().code()), "the module has no variable '{}'", name);
  {
    std::lock_guard lk(ctx_->mutex);
    if (std::find(trackedGlobals_.begin(), trackedGlobals_.end(), g->first) ==
        trackedGlobals_.end()) {
      memory().trackGlobal(ctx_, g->first, g->second); // copies and memsets may target it
      if (program_->isManaged(name)) // __managed__: CU_POINTER_ATTRIBUTE_IS_MANAGED says so
        memory().update(reinterpret_cast<uintptr_t>(g->first),
                        [](Allocation &a) { a.managed = true; });
      trackedGlobals_.push_back(g->first);
    }
  }
  if (address)
    *address = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(g->first));
  if (bytes)
    *bytes = g->second;
  return CUDA_SUCCESS;
}

size_t fillLog(char *buf, size_t size, const std::string &text) {
  if (!buf || size == 0)
    return 0;
  size_t n = std::min(size - 1, text.size());
  std::memcpy(buf, text.data(), n);
  buf[n] = '\0';
  return n + 1;
}

CUresult loadModule(Context *ctx, const void *image, const LoadOptions &opts, Module **out) {
  auto start = std::chrono::steady_clock::now();
  // The first four bytes decide the format; PTX text may be shorter (stop at its NUL).
  uint32_t magic = 0;
  const auto *bytes = static_cast<const unsigned char *>(image);
  for (int i = 0; i < 4 && bytes[i]; ++i)
    magic |= uint32_t(bytes[i]) << (8 * i);
  std::string log;
  CUresult result = CUDA_SUCCESS;
  std::unique_ptr<jit::Program> program;
  // (strncmp stops at a PTX text's NUL: a short image is never read past its end.)
  if (std::strncmp(static_cast<const char *>(image), kLinkedImageMagic,
                   sizeof kLinkedImageMagic) == 0) { // cuLinkComplete
    result = loadPtx(static_cast<const char *>(image) + sizeof kLinkedImageMagic, log, &program);
  } else if (magic == 0x464c457f) { // "\x7fELF": a cubin holds GPU machine code only
    result = fatbin::classifyElfImage(image, &log);
    log = "cucpu: " + log;
    if (result == CUDA_ERROR_NO_BINARY_FOR_GPU)
      log += ". Rebuild with PTX included, e.g. -gencode arch=compute_XX,code=compute_XX; NVRTC "
             "and nvJitLink output runs when cucpu's libnvrtc.so.13 and libnvJitLink.so.13 (next "
             "to its libcuda.so.1) are the ones loaded: start the program with cucpu-run, or ask "
             "them for PTX (-arch=compute_XX)";
    log += "\n";
  } else if (magic == fatbin::kWrapperMagic || magic == fatbin::kContainerMagic) {
    std::string ptx;
    Device *d = ctx->device();
    result = fatbin::extractPtx(image, d->ccMajor() * 10 + d->ccMinor(), &ptx, &log);
    if (result == CUDA_SUCCESS)
      result = loadPtx(ptx.c_str(), log, &program);
  } else if (!std::strstr(static_cast<const char *>(image), ".version")) {
    // Text without a .version directive is not PTX at all (an H200 answers INVALID_IMAGE; PTX
    // with errors is INVALID_PTX).
    log = "cucpu: the image is neither PTX (no .version directive), a fat binary nor a cubin\n";
    result = CUDA_ERROR_INVALID_IMAGE;
  } else {
    result = loadPtx(static_cast<const char *>(image), log, &program);
  }
  float ms =
      std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (opts.wallTimeMs)
    *opts.wallTimeMs = ms;
  if (result != CUDA_SUCCESS) {
    // A feature cucpu lacks is worth a warning: a runtime-API program sees only the error code.
    std::string_view why(log);
    while (why.ends_with('\n'))
      why.remove_suffix(1);
    if (result == CUDA_ERROR_NOT_SUPPORTED)
      log::warn(log::Component::Driver, "module load failed: {}", why);
    else
      log::info(log::Component::Driver, "module load failed: {}", why);
    size_t n = fillLog(opts.errorLog, opts.errorLogSize, log);
    if (opts.errorLogSizeOut)
      *opts.errorLogSizeOut = n;
    if (opts.infoLogSizeOut)
      *opts.infoLogSizeOut = fillLog(opts.infoLog, opts.infoLogSize, "");
    return fail(result, "module load failed: {}", why);
  }
  std::string info = opts.verbose ? log : std::string();
  size_t n = fillLog(opts.infoLog, opts.infoLogSize, info);
  if (opts.infoLogSizeOut)
    *opts.infoLogSizeOut = n;
  if (opts.errorLogSizeOut)
    *opts.errorLogSizeOut = fillLog(opts.errorLog, opts.errorLogSize, "");
  *out = ctx->addModule(std::make_unique<Module>(ctx, std::move(program), opts.maxRegisters));
  return CUDA_SUCCESS;
}

CUresult unloadModule(Module *m) {
  // As NVIDIA's driver does, unloading waits for the context's queued work: a kernel of the
  // module may be running (tests/gpu/record_free_sync.cpp).
  synchronizeStreams(m->context());
  return m->context()->removeModule(m)
             ? CUDA_SUCCESS
             : fail(CUDA_ERROR_INVALID_HANDLE, "the module is not loaded");
}

} // namespace cucpu::driver
