// Fat binaries as the driver loads them: wrappers, relocatable units, the PTX a CPU device runs.
#include "fatbin.h"

#include "cucpu/driver/link.h"
#include "cucpu/driver/reason.h"
#include "cucpu/support/log.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <elf.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>
#include <vector>

namespace cucpu::driver::fatbin {
namespace {

using cucpu::fatbin::Entry;
using cucpu::fatbin::kKindElf;

constexpr uint16_t kEmCuda = 190; // e_machine of NVIDIA's cubins

template <typename T> T read(const unsigned char *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The container an image points at: the image itself, or the one a wrapper references.
const unsigned char *containerOf(const void *image, std::string *log) {
  const auto *p = static_cast<const unsigned char *>(image);
  uint32_t magic = read<uint32_t>(p);
  if (magic == kWrapperMagic) {
    uint32_t version = read<uint32_t>(p + 4);
    if (version != 1 && version != 2) {
      *log = fmt::format("cucpu: fat binary wrapper version {} is unknown\n", version);
      return nullptr;
    }
    p = reinterpret_cast<const unsigned char *>(read<uintptr_t>(p + 8));
    if (!p || read<uint32_t>(p) != kContainerMagic) {
      *log = "cucpu: the fat binary wrapper does not point at a fat binary container\n";
      return nullptr;
    }
  }
  return p;
}

// Whether [p, p + bytes) is mapped memory: msync fails with ENOMEM on any unmapped page.
bool mapped(const unsigned char *p, uint64_t bytes) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t start = reinterpret_cast<uintptr_t>(p) & ~(page - 1);
  const uintptr_t end = reinterpret_cast<uintptr_t>(p) + bytes;
  return end >= start && msync(reinterpret_cast<void *>(start), end - start, MS_ASYNC) == 0;
}

bool entries(const unsigned char *container, std::vector<Entry> *out, std::string *log) {
  // An image handed to the driver has no size: the container's own header bounds it, and that
  // span must be mapped (a hostile header claiming gigabytes crashed the reader).
  const uint64_t span = uint64_t(read<uint16_t>(container + 6)) + read<uint64_t>(container + 8);
  if (span > (uint64_t(1) << 32) || !mapped(container, span)) {
    *log = "cucpu: the fat binary container's size runs past the image\n";
    return false;
  }
  return cucpu::fatbin::readEntries(container, span, out, nullptr, log);
}

// A version-2 (relocatable device code, -rdc=true) wrapper's NULL-terminated array of the
// translation units' containers, or null for any other image.
const void *const *prelinkedOf(const void *image) {
  const auto *p = static_cast<const unsigned char *>(image);
  if (read<uint32_t>(p) != kWrapperMagic || read<uint32_t>(p + 4) != 2)
    return nullptr;
  return reinterpret_cast<const void *const *>(read<uintptr_t>(p + 16));
}

// The CUDA device runtime (libcudadevrt, which nvcc links into every -rdc=true program): its
// symbols carry the name of its source file.
bool isDeviceRuntime(const std::string &ptx) {
  return ptx.find("_cuda_device_runtime_cu_") != std::string::npos;
}

// With -rdc=true, nvlink's output (the wrapper's own container) holds machine code for the GPU
// targets only, and each translation unit's relocatable PTX lives in a container of the prelinked
// array: their PTX entries joined as cuLink joins its inputs. The device runtime stays out: its
// functions launch kernels from the device, which cucpu does not do, so a kernel calling them
// fails at its launch naming the function, and every other kernel runs. Empty when no unit has
// PTX.
CUresult prelinkedPtx(const void *const *units, int cc, std::string *ptx, std::string *log) {
  std::vector<std::string> inputs;
  bool runtime = false;
  for (size_t i = 0; units[i]; ++i) {
    const auto *c = static_cast<const unsigned char *>(units[i]);
    std::vector<Entry> all;
    if (read<uint32_t>(c) != kContainerMagic || !entries(c, &all, log))
      return fail(CUDA_ERROR_INVALID_IMAGE, "a prelinked unit is not a readable fat binary: {}",
                  *log);
    std::vector<std::string> texts;
    if (!cucpu::fatbin::ptxOfArch(all, cucpu::fatbin::choosePtxArch(all, cc), &texts, log))
      return fail(CUDA_ERROR_INVALID_IMAGE, "a prelinked unit's PTX cannot be read: {}", *log);
    for (std::string &text : texts) {
      if (isDeviceRuntime(text))
        runtime = true;
      else
        inputs.push_back(std::move(text));
    }
  }
  if (!inputs.empty())
    *ptx = joinPtx(inputs);
  log::debug(log::Component::Driver, "fat binary: relocatable device code, {} unit(s) with PTX{}",
             inputs.size(), runtime ? ", the device runtime left out" : "");
  return CUDA_SUCCESS;
}

} // namespace

bool isFatBinary(const void *image) {
  // Byte by byte, stopping at a NUL: the image may be PTX text shorter than the magic (neither
  // magic has a zero byte).
  const auto *p = static_cast<const unsigned char *>(image);
  uint32_t magic = 0;
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0)
      return false;
    magic |= uint32_t(p[i]) << (8 * i);
  }
  return magic == kWrapperMagic || magic == kContainerMagic;
}

CUresult classifyElfImage(const void *image, std::string *why) {
  Elf64_Ehdr h{};
  iovec local{&h, sizeof h}, remote{const_cast<void *>(image), sizeof h};
  const ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  if (got < 0 && errno != EFAULT) // the call is not allowed here (seccomp): trust the image
    std::memcpy(&h, image, sizeof h);
  else if (got != static_cast<ssize_t>(sizeof h)) {
    *why = "the image starts like an ELF file but its 64-byte header cannot be read";
    return fail(CUDA_ERROR_INVALID_IMAGE, "{}", *why);
  }
  if (h.e_ident[EI_CLASS] != ELFCLASS64 || h.e_ident[EI_DATA] != ELFDATA2LSB ||
      h.e_machine != kEmCuda) {
    *why = fmt::format("the image is an ELF file but not a CUDA cubin (class {}, data {}, machine "
                       "{}; a cubin has 2, 1, {})",
                       h.e_ident[EI_CLASS], h.e_ident[EI_DATA], h.e_machine, kEmCuda);
    return fail(CUDA_ERROR_INVALID_IMAGE, "{}", *why);
  }
  *why = "the image is a cubin (GPU machine code); a CPU can only run PTX";
  return fail(CUDA_ERROR_NO_BINARY_FOR_GPU, "{}", *why);
}

void reportMachineCodeOnly(const std::string &message) {
  static std::atomic<bool> reported{false};
  if (!reported.exchange(true))
    log::error(log::Component::Driver, "{}", message);
  else
    log::debug(log::Component::Driver, "{}", message);
}

CUresult extractPtx(const void *image, int cc, std::string *ptx, std::string *log) {
  const unsigned char *container = containerOf(image, log);
  std::vector<Entry> all;
  if (!container || !entries(container, &all, log))
    return fail(CUDA_ERROR_INVALID_IMAGE, "not a readable fat binary: {}", *log);
  const uint32_t arch = cucpu::fatbin::choosePtxArch(all, cc);
  if (const void *const *units = prelinkedOf(image); !arch && units) {
    if (CUresult r = prelinkedPtx(units, cc, ptx, log); r != CUDA_SUCCESS || !ptx->empty())
      return r;
  }
  if (!arch) {
    uint32_t elf = 0;
    for (const Entry &x : all)
      elf = x.kind == kKindElf ? std::max(elf, x.arch) : elf;
    std::string xx = elf ? std::to_string(elf) : std::string("XX");
    std::string msg = fmt::format(
        "the fat binary holds GPU machine code (SASS) only and no PTX, which is what cucpu runs "
        "on the CPU: rebuild with -gencode arch=compute_{0},code=compute_{0} added",
        xx);
    reportMachineCodeOnly(msg);
    *log = "cucpu: " + msg + "\n";
    return fail(CUDA_ERROR_NO_BINARY_FOR_GPU, "{}", msg);
  }
  std::vector<std::string> units;
  if (!cucpu::fatbin::ptxOfArch(all, arch, &units, log))
    return fail(CUDA_ERROR_INVALID_IMAGE, "the fat binary's PTX cannot be read: {}", *log);
  *ptx = units.size() == 1 ? std::move(units.front()) : joinPtx(units);
  log::debug(log::Component::Driver,
             "fat binary: running the compute_{} PTX ({} unit(s), {} bytes)", arch, units.size(),
             ptx->size());
  return CUDA_SUCCESS;
}

} // namespace cucpu::driver::fatbin
