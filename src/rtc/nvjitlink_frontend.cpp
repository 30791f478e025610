// cucpu's libnvJitLink.so.13: NVIDIA's nvJitLink links, and where it hands out the linked cubin
// this front end hands out a fat binary holding that cubin and the link's code as PTX (its PTX
// inputs, the PTX in its fat binaries, objects and libraries, and its LTO-IR inputs compiled to
// PTX by a second NVIDIA link), which cucpu's driver joins as cuLink joins.
#include "nvjitlink_symbols.h"

#include "cucpu/rtc/forwarding.h"
#include "cucpu/rtc/link_inputs.h"
#include "cucpu/rtc/register_limit.h"
#include "cucpu/support/fatbin_container.h"
#include "cucpu/support/log.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#define CUCPU_EXPORT extern "C" __attribute__((visibility("default")))

struct nvJitLink;
using nvJitLinkHandle = nvJitLink *;
using nvJitLinkResult = int;

void *cucpu_nvjitlink_slots[kSymbolCount];

namespace {

constexpr nvJitLinkResult kSuccess = 0, kInvalidInput = 3, kInternal = 5;

nvJitLinkResult missing() { return kInternal; }

using cucpu::log::Component;

cucpu::rtc::ForwardTable &table() {
  static auto *library =
      new cucpu::rtc::RealLibrary("libnvJitLink.so.13", {"nvidia/cu13/lib", "nvidia/nvjitlink/lib"},
                                  reinterpret_cast<const void *>(&cucpu_nvjitlink_resolve));
  static cucpu::rtc::ForwardTable t{*library, kNames, cucpu_nvjitlink_slots,
                                    reinterpret_cast<void *>(&missing)};
  return t;
}

// NVIDIA's functions, called by their versioned names as nvJitLink.h does.
namespace real {
nvJitLinkResult create(nvJitLinkHandle *h, uint32_t n, const char *const *options) {
  using Fn = nvJitLinkResult (*)(nvJitLinkHandle *, uint32_t, const char *const *);
  return table().function<Fn>(k___nvJitLinkCreate_13_0)(h, n, options);
}
nvJitLinkResult destroy(nvJitLinkHandle *h) {
  return table().function<nvJitLinkResult (*)(nvJitLinkHandle *)>(k___nvJitLinkDestroy_13_0)(h);
}
nvJitLinkResult addData(nvJitLinkHandle h, int type, const void *data, size_t size,
                        const char *name) {
  using Fn = nvJitLinkResult (*)(nvJitLinkHandle, int, const void *, size_t, const char *);
  return table().function<Fn>(k___nvJitLinkAddData_13_0)(h, type, data, size, name);
}
nvJitLinkResult addFile(nvJitLinkHandle h, int type, const char *file) {
  using Fn = nvJitLinkResult (*)(nvJitLinkHandle, int, const char *);
  return table().function<Fn>(k___nvJitLinkAddFile_13_0)(h, type, file);
}
nvJitLinkResult complete(nvJitLinkHandle h) {
  return table().function<nvJitLinkResult (*)(nvJitLinkHandle)>(k___nvJitLinkComplete_13_0)(h);
}
nvJitLinkResult bytes(nvJitLinkHandle h, Symbol size, Symbol get, std::string *out) {
  size_t n = 0;
  using SizeFn = nvJitLinkResult (*)(nvJitLinkHandle, size_t *);
  using GetFn = nvJitLinkResult (*)(nvJitLinkHandle, void *);
  if (nvJitLinkResult r = table().function<SizeFn>(size)(h, &n); r != kSuccess)
    return r;
  out->assign(n, '\0');
  return n ? table().function<GetFn>(get)(h, out->data()) : kSuccess;
}
} // namespace real

// What cucpu keeps of one link, keyed by NVIDIA's handle (which the caller holds, so the
// forwarded functions take it as it is).
struct Link {
  std::vector<std::string> options;
  unsigned arch = 0;
  cucpu::rtc::LinkUnits units;
  std::string image; // after a successful complete
};

struct Links {
  std::mutex mutex;
  std::unordered_map<nvJitLinkHandle, std::shared_ptr<Link>> byHandle;
};
Links &links() {
  static auto *l = new Links;
  return *l;
}

std::shared_ptr<Link> find(nvJitLinkHandle h) {
  std::lock_guard lock(links().mutex);
  auto it = links().byHandle.find(h);
  return it == links().byHandle.end() ? nullptr : it->second;
}

// -arch=sm_90a -> 90.
unsigned archOf(const std::vector<std::string> &options) {
  for (const std::string &o : options)
    if (o.starts_with("-arch=sm_"))
      return unsigned(std::strtoul(o.c_str() + 9, nullptr, 10));
  return 0;
}

// An LTO-IR module compiled by NVIDIA's NVRTC from `source` for compute_`arch`; empty when NVRTC
// is not found or the compile fails.
std::string ltoirOf(const std::string &source, unsigned arch) {
  static auto *nvrtc =
      new cucpu::rtc::RealLibrary("libnvrtc.so.13", {"nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib"},
                                  reinterpret_cast<const void *>(&cucpu_nvjitlink_resolve));
  using Program = void *;
  auto create =
      reinterpret_cast<int (*)(Program *, const char *, const char *, int, const char *const *,
                               const char *const *)>(nvrtc->symbol("nvrtcCreateProgram"));
  auto compile = reinterpret_cast<int (*)(Program, int, const char *const *)>(
      nvrtc->symbol("nvrtcCompileProgram"));
  auto size = reinterpret_cast<int (*)(Program, size_t *)>(nvrtc->symbol("nvrtcGetLTOIRSize"));
  auto get = reinterpret_cast<int (*)(Program, char *)>(nvrtc->symbol("nvrtcGetLTOIR"));
  auto destroy = reinterpret_cast<int (*)(Program *)>(nvrtc->symbol("nvrtcDestroyProgram"));
  if (!create || !compile || !size || !get || !destroy)
    return {};
  Program p = nullptr;
  if (create(&p, source.c_str(), "cucpu_keep_externs.cu", 0, nullptr, nullptr) != 0)
    return {};
  const std::string archOption = "-arch=compute_" + std::to_string(arch ? arch : 80);
  const char *options[] = {archOption.c_str(), "-dlto", "-rdc=true"};
  std::string out;
  size_t n = 0;
  if (compile(p, 3, options) == 0 && size(p, &n) == 0 && n) {
    out.resize(n);
    if (get(p, out.data()) != 0)
      out.clear();
  }
  destroy(&p);
  return out;
}

// The link's LTO-IR as one PTX module: NVIDIA's link-time optimiser run a second time with -ptx
// (which takes LTO-IR inputs only). `keep`, an LTO-IR module that uses what only the PTX units
// call, stops the optimiser from dropping those definitions (numba's NRT_Allocate, defined in its
// kernel's LTO-IR and called from a user's PTX).
nvJitLinkResult ltoToPtx(const Link &link, const std::string &keep, std::string *ptx,
                         bool reportFailure) {
  std::vector<const char *> options;
  bool hasPtx = false;
  for (const std::string &o : link.options) {
    options.push_back(o.c_str());
    hasPtx |= o == "-ptx";
  }
  if (!hasPtx)
    options.push_back("-ptx");
  nvJitLinkHandle h = nullptr;
  nvJitLinkResult r = real::create(&h, uint32_t(options.size()), options.data());
  for (size_t i = 0; r == kSuccess && i < link.units.ltoir.size(); ++i)
    r = real::addData(h, cucpu::rtc::kInputLtoir, link.units.ltoir[i].data(),
                      link.units.ltoir[i].size(), "lto");
  if (r == kSuccess && !keep.empty())
    r = real::addData(h, cucpu::rtc::kInputLtoir, keep.data(), keep.size(), "cucpu_keep_externs");
  if (r == kSuccess)
    r = real::complete(h);
  if (r == kSuccess)
    r = real::bytes(h, k___nvJitLinkGetLinkedPtxSize_13_0, k___nvJitLinkGetLinkedPtx_13_0, ptx);
  if (r != kSuccess && reportFailure) {
    std::string log;
    if (h)
      real::bytes(h, k___nvJitLinkGetErrorLogSize_13_0, k___nvJitLinkGetErrorLog_13_0, &log);
    cucpu::log::error(Component::Rtc,
                      "nvJitLink: compiling the LTO-IR inputs to PTX failed ({}): {}", r,
                      log.c_str());
  }
  if (h)
    real::destroy(&h);
  ptx->resize(strnlen(ptx->data(), ptx->size()));
  return r;
}

// ltoToPtx, keeping the definitions the PTX units call (when NVRTC can compile the stub that
// says so; without it, or if that link fails, the LTO-IR alone as before).
nvJitLinkResult ltoToPtx(const Link &link, std::string *ptx) {
  const std::vector<std::string> externs = cucpu::rtc::externFunctions(link.units.ptx);
  if (!externs.empty()) {
    const std::string keep = ltoirOf(cucpu::rtc::keepAliveSource(externs), link.arch);
    if (!keep.empty() && ltoToPtx(link, keep, ptx, false) == kSuccess)
      return kSuccess;
    cucpu::log::debug(Component::Rtc, "nvJitLink: linking without keeping {} extern function(s)",
                      externs.size());
  }
  return ltoToPtx(link, std::string(), ptx, true);
}

nvJitLinkResult buildImage(nvJitLinkHandle h, Link &link) {
  std::string cubin;
  if (nvJitLinkResult r = real::bytes(h, k___nvJitLinkGetLinkedCubinSize_13_0,
                                      k___nvJitLinkGetLinkedCubin_13_0, &cubin);
      r != kSuccess || cubin.empty())
    return kSuccess; // a -ptx link has no cubin: its linked PTX is what the caller asks for
  std::vector<std::string> ptx = link.units.ptx;
  if (!link.units.ltoir.empty()) {
    if (nvJitLinkResult r = ltoToPtx(link, &ptx.emplace_back()); r != kSuccess)
      return r;
  }
  if (!link.units.machineCodeOnly.empty())
    cucpu::log::warn(Component::Rtc,
                     "nvJitLink: {} input(s) hold GPU machine code only (first: {}), which cucpu "
                     "cannot run: build them with PTX (-arch=compute_XX) or as LTO-IR",
                     link.units.machineCodeOnly.size(), link.units.machineCodeOnly.front());
  if (unsigned n = cucpu::rtc::maxRegistersOption(link.options))
    for (std::string &p : ptx)
      p = cucpu::rtc::limitRegisters(p, n);
  std::vector<cucpu::fatbin::NewEntry> entries{{cucpu::fatbin::kKindElf, link.arch, cubin}};
  for (const std::string &p : ptx)
    entries.push_back({cucpu::fatbin::kKindPtx, link.arch, p});
  link.image = cucpu::fatbin::writeContainer(entries);
  cucpu::log::debug(Component::Rtc, "nvJitLink: sm_{} link of {} PTX unit(s) ({} from LTO-IR)",
                    link.arch, ptx.size(), link.units.ltoir.empty() ? 0 : 1);
  return kSuccess;
}

nvJitLinkResult record(nvJitLinkHandle h, int type, const void *data, size_t size,
                       const char *name) {
  std::shared_ptr<Link> link = find(h);
  if (!link)
    return kSuccess;
  std::string log;
  if (!cucpu::rtc::collectUnits(cucpu::rtc::InputType(type), data, size, name ? name : "input",
                                link->arch, &link->units, &log)) {
    cucpu::log::error(Component::Rtc, "nvJitLink: {}", log);
    return kInvalidInput;
  }
  return kSuccess;
}

} // namespace

extern "C" void *cucpu_nvjitlink_resolve(unsigned index) { return table().resolve(index); }

CUCPU_EXPORT nvJitLinkResult __nvJitLinkCreate_13_0(nvJitLinkHandle *handle, uint32_t numOptions,
                                                    const char *const *options) {
  nvJitLinkResult r = real::create(handle, numOptions, options);
  if (r != kSuccess || !handle || !*handle)
    return r;
  auto link = std::make_shared<Link>();
  for (uint32_t i = 0; i < numOptions; ++i)
    link->options.emplace_back(options[i]);
  link->arch = archOf(link->options);
  std::lock_guard lock(links().mutex);
  links().byHandle[*handle] = std::move(link);
  return r;
}

CUCPU_EXPORT nvJitLinkResult __nvJitLinkDestroy_13_0(nvJitLinkHandle *handle) {
  if (handle && *handle) {
    std::lock_guard lock(links().mutex);
    links().byHandle.erase(*handle);
  }
  return real::destroy(handle);
}

CUCPU_EXPORT nvJitLinkResult __nvJitLinkAddData_13_0(nvJitLinkHandle handle, int inputType,
                                                     const void *data, size_t size,
                                                     const char *name) {
  // NVIDIA's linker takes cucpu's fat binaries (handed out as cubins) as what they are.
  const int type =
      data ? int(cucpu::rtc::inputTypeOf(cucpu::rtc::InputType(inputType), data, size)) : inputType;
  const int forwarded = type == cucpu::rtc::kInputFatbin ? type : inputType;
  nvJitLinkResult r = real::addData(handle, forwarded, data, size, name);
  return r == kSuccess ? record(handle, inputType, data, size, name) : r;
}

CUCPU_EXPORT nvJitLinkResult __nvJitLinkAddFile_13_0(nvJitLinkHandle handle, int inputType,
                                                     const char *fileName) {
  std::string bytes;
  if (fileName) {
    std::ifstream in(fileName, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (bytes.empty()) // NVIDIA's answers a missing or empty file
    return real::addFile(handle, inputType, fileName);
  return __nvJitLinkAddData_13_0(handle, inputType, bytes.data(), bytes.size(), fileName);
}

CUCPU_EXPORT nvJitLinkResult __nvJitLinkComplete_13_0(nvJitLinkHandle handle) {
  nvJitLinkResult r = real::complete(handle);
  std::shared_ptr<Link> link = r == kSuccess ? find(handle) : nullptr;
  return link ? buildImage(handle, *link) : r;
}

CUCPU_EXPORT nvJitLinkResult __nvJitLinkGetLinkedCubinSize_13_0(nvJitLinkHandle handle,
                                                                size_t *size) {
  std::shared_ptr<Link> link = find(handle);
  if (!link || link->image.empty() || !size)
    return table().function<nvJitLinkResult (*)(nvJitLinkHandle, size_t *)>(
        k___nvJitLinkGetLinkedCubinSize_13_0)(handle, size);
  *size = link->image.size();
  return kSuccess;
}

CUCPU_EXPORT nvJitLinkResult __nvJitLinkGetLinkedCubin_13_0(nvJitLinkHandle handle, void *cubin) {
  std::shared_ptr<Link> link = find(handle);
  if (!link || link->image.empty() || !cubin)
    return table().function<nvJitLinkResult (*)(nvJitLinkHandle, void *)>(
        k___nvJitLinkGetLinkedCubin_13_0)(handle, cubin);
  std::memcpy(cubin, link->image.data(), link->image.size());
  return kSuccess;
}

// The unversioned names nvJitLink also exports.
CUCPU_EXPORT nvJitLinkResult nvJitLinkCreate(nvJitLinkHandle *h, uint32_t n,
                                             const char *const *options) {
  return __nvJitLinkCreate_13_0(h, n, options);
}
CUCPU_EXPORT nvJitLinkResult nvJitLinkDestroy(nvJitLinkHandle *h) {
  return __nvJitLinkDestroy_13_0(h);
}
CUCPU_EXPORT nvJitLinkResult nvJitLinkAddData(nvJitLinkHandle h, int type, const void *data,
                                              size_t size, const char *name) {
  return __nvJitLinkAddData_13_0(h, type, data, size, name);
}
CUCPU_EXPORT nvJitLinkResult nvJitLinkAddFile(nvJitLinkHandle h, int type, const char *file) {
  return __nvJitLinkAddFile_13_0(h, type, file);
}
CUCPU_EXPORT nvJitLinkResult nvJitLinkComplete(nvJitLinkHandle h) {
  return __nvJitLinkComplete_13_0(h);
}
CUCPU_EXPORT nvJitLinkResult nvJitLinkGetLinkedCubinSize(nvJitLinkHandle h, size_t *size) {
  return __nvJitLinkGetLinkedCubinSize_13_0(h, size);
}
CUCPU_EXPORT nvJitLinkResult nvJitLinkGetLinkedCubin(nvJitLinkHandle h, void *cubin) {
  return __nvJitLinkGetLinkedCubin_13_0(h, cubin);
}
