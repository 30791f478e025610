// cucpu's libnvrtc.so.13: NVIDIA's NVRTC compiles, and a program compiled for a real GPU
// architecture (-arch=sm_XX) hands out, where NVIDIA's hands out a cubin, a fat binary holding
// that cubin and the program's PTX: NVIDIA's driver runs the cubin, cucpu the PTX.
#include "nvrtc_symbols.h"

#include "cucpu/rtc/forwarding.h"
#include "cucpu/rtc/register_limit.h"
#include "cucpu/support/fatbin_container.h"
#include "cucpu/support/log.h"

#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#define CUCPU_EXPORT extern "C" __attribute__((visibility("default")))

struct _nvrtcProgram;
using nvrtcProgram = _nvrtcProgram *;
using nvrtcResult = int;

void *cucpu_nvrtc_slots[kSymbolCount];

namespace {

constexpr nvrtcResult kSuccess = 0, kInternalError = 11;

nvrtcResult missing() { return kInternalError; }

cucpu::rtc::ForwardTable &table() {
  static auto *library =
      new cucpu::rtc::RealLibrary("libnvrtc.so.13", {"nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib"},
                                  reinterpret_cast<const void *>(&cucpu_nvrtc_resolve));
  static cucpu::rtc::ForwardTable t{*library, kNames, cucpu_nvrtc_slots,
                                    reinterpret_cast<void *>(&missing)};
  return t;
}

using SizeFn = nvrtcResult (*)(nvrtcProgram, size_t *);
using BytesFn = nvrtcResult (*)(nvrtcProgram, char *);

// The fat binary each compiled program hands out, built at the first request after a compile,
// and the register limit of its last compile (-maxrregcount).
struct Images {
  std::mutex mutex;
  std::unordered_map<nvrtcProgram, std::string> byProgram;
  std::unordered_map<nvrtcProgram, unsigned> maxRegisters;
};
Images &images() {
  static auto *i = new Images;
  return *i;
}

// The architecture number of a PTX `.target` (sm_90a -> 90, sm_100f -> 100), 0 when absent.
unsigned targetArch(const std::string &ptx) {
  size_t at = ptx.find(".target");
  at = at == std::string::npos ? at : ptx.find("sm_", at);
  return at == std::string::npos ? 0 : unsigned(std::strtoul(ptx.c_str() + at + 3, nullptr, 10));
}

nvrtcResult fetch(nvrtcProgram prog, Symbol size, Symbol bytes, std::string *out) {
  size_t n = 0;
  if (nvrtcResult r = table().function<SizeFn>(size)(prog, &n); r != kSuccess)
    return r;
  out->assign(n, '\0');
  return n ? table().function<BytesFn>(bytes)(prog, out->data()) : kSuccess;
}

// The image for `prog`: empty when NVIDIA's NVRTC made no cubin (a compute_XX target).
nvrtcResult image(nvrtcProgram prog, std::string *out) {
  {
    std::lock_guard lock(images().mutex);
    if (auto it = images().byProgram.find(prog); it != images().byProgram.end()) {
      *out = it->second;
      return kSuccess;
    }
  }
  std::string cubin, ptx;
  if (nvrtcResult r = fetch(prog, k_nvrtcGetCUBINSize, k_nvrtcGetCUBIN, &cubin); r != kSuccess)
    return r;
  if (!cubin.empty()) {
    if (nvrtcResult r = fetch(prog, k_nvrtcGetPTXSize, k_nvrtcGetPTX, &ptx); r != kSuccess)
      return r;
    ptx.resize(strnlen(ptx.data(), ptx.size()));
    {
      std::lock_guard lock(images().mutex);
      if (auto it = images().maxRegisters.find(prog); it != images().maxRegisters.end())
        ptx = cucpu::rtc::limitRegisters(ptx, it->second);
    }
    const unsigned arch = targetArch(ptx);
    *out = cucpu::fatbin::writeContainer(
        {{cucpu::fatbin::kKindElf, arch, cubin}, {cucpu::fatbin::kKindPtx, arch, ptx}});
    cucpu::log::debug(cucpu::log::Component::Rtc,
                      "nvrtc: program {}: sm_{} cubin ({} bytes) handed out as a fat binary with "
                      "its PTX ({} bytes)",
                      static_cast<void *>(prog), arch, cubin.size(), ptx.size());
  }
  std::lock_guard lock(images().mutex);
  images().byProgram[prog] = *out;
  return kSuccess;
}

void forget(nvrtcProgram prog) {
  std::lock_guard lock(images().mutex);
  images().byProgram.erase(prog);
  images().maxRegisters.erase(prog);
}

} // namespace

extern "C" void *cucpu_nvrtc_resolve(unsigned index) { return table().resolve(index); }

CUCPU_EXPORT const char *nvrtcGetErrorString(nvrtcResult result) {
  using Fn = const char *(*)(nvrtcResult);
  if (void *f = table().get(k_nvrtcGetErrorString); f != table().missing)
    return reinterpret_cast<Fn>(f)(result);
  return "NVRTC_ERROR_INTERNAL_ERROR (cucpu: NVIDIA's libnvrtc.so.13 was not found)";
}

CUCPU_EXPORT nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int numOptions,
                                             const char *const *options) {
  if (prog) {
    forget(prog);
    std::vector<std::string> opts;
    for (int i = 0; options && i < numOptions; ++i)
      if (options[i])
        opts.emplace_back(options[i]);
    if (unsigned n = cucpu::rtc::maxRegistersOption(opts)) {
      std::lock_guard lock(images().mutex);
      images().maxRegisters[prog] = n;
    }
  }
  using Fn = nvrtcResult (*)(nvrtcProgram, int, const char *const *);
  return table().function<Fn>(k_nvrtcCompileProgram)(prog, numOptions, options);
}

CUCPU_EXPORT nvrtcResult nvrtcDestroyProgram(nvrtcProgram *prog) {
  if (prog && *prog)
    forget(*prog);
  using Fn = nvrtcResult (*)(nvrtcProgram *);
  return table().function<Fn>(k_nvrtcDestroyProgram)(prog);
}

CUCPU_EXPORT nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, size_t *cubinSizeRet) {
  if (!prog || !cubinSizeRet) // NVIDIA's answers the invalid calls
    return table().function<SizeFn>(k_nvrtcGetCUBINSize)(prog, cubinSizeRet);
  std::string fat;
  if (nvrtcResult r = image(prog, &fat); r != kSuccess)
    return r;
  if (fat.empty())
    return table().function<SizeFn>(k_nvrtcGetCUBINSize)(prog, cubinSizeRet);
  *cubinSizeRet = fat.size();
  return kSuccess;
}

CUCPU_EXPORT nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *cubin) {
  if (!prog || !cubin)
    return table().function<BytesFn>(k_nvrtcGetCUBIN)(prog, cubin);
  std::string fat;
  if (nvrtcResult r = image(prog, &fat); r != kSuccess)
    return r;
  if (fat.empty())
    return table().function<BytesFn>(k_nvrtcGetCUBIN)(prog, cubin);
  std::memcpy(cubin, fat.data(), fat.size());
  return kSuccess;
}
