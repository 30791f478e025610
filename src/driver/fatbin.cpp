// Fat binary parsing: wrapper -> container -> entries, zstd and LZ4-block payloads, PTX choice.
#include "fatbin.h"

#include "cucpu/driver/link.h"
#include "cucpu/support/log.h"

#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

namespace cucpu::driver::fatbin {
namespace {

constexpr uint16_t kKindPtx = 1;
constexpr uint16_t kKindElf = 2;
constexpr uint64_t kFlagLz4 = 0x2000;
constexpr uint64_t kFlagZstd = 0x8000;
constexpr uint32_t kEntryHeaderMin = 0x40;

template <typename T> T read(const unsigned char *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

struct Entry {
  uint16_t kind;
  uint32_t arch;
  uint64_t flags;
  const unsigned char *payload;
  uint64_t payloadBytes;      // as stored (compressed or padded)
  uint64_t uncompressedBytes; // 0 when stored uncompressed
};

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

bool entries(const unsigned char *container, std::vector<Entry> *out, std::string *log) {
  uint16_t headerBytes = read<uint16_t>(container + 6);
  uint64_t size = read<uint64_t>(container + 8);
  if (headerBytes < 16 || size > std::numeric_limits<uint32_t>::max()) {
    *log = "cucpu: malformed fat binary container header\n";
    return false;
  }
  const unsigned char *e = container + headerBytes, *end = e + size;
  while (e < end) {
    if (end - e < kEntryHeaderMin) {
      *log = "cucpu: truncated fat binary entry\n";
      return false;
    }
    uint32_t hdr = read<uint32_t>(e + 4);
    uint64_t padded = read<uint64_t>(e + 8);
    uint32_t compressed = read<uint32_t>(e + 0x10);
    if (hdr < kEntryHeaderMin || padded > uint64_t(end - e) - hdr || compressed > padded) {
      *log = "cucpu: malformed fat binary entry header\n";
      return false;
    }
    out->push_back({read<uint16_t>(e), read<uint32_t>(e + 0x1c), read<uint64_t>(e + 0x28), e + hdr,
                    compressed ? compressed : padded, read<uint64_t>(e + 0x38)});
    e += hdr + padded;
  }
  return true;
}

bool decompress(const Entry &e, std::string *text, std::string *log) {
  if (!(e.flags & (kFlagLz4 | kFlagZstd))) {
    text->assign(reinterpret_cast<const char *>(e.payload), e.payloadBytes);
  } else if (e.uncompressedBytes == 0 || e.uncompressedBytes > (uint64_t(1) << 32)) {
    *log = "cucpu: compressed fat binary entry without a valid uncompressed size\n";
    return false;
  } else if (e.flags & kFlagZstd) {
    text->resize(e.uncompressedBytes);
    size_t n = ZSTD_decompress(text->data(), text->size(), e.payload, e.payloadBytes);
    if (ZSTD_isError(n) || n != e.uncompressedBytes) {
      *log = fmt::format("cucpu: zstd decompression of a fat binary entry failed: {}\n",
                         ZSTD_isError(n) ? ZSTD_getErrorName(n) : "size mismatch");
      return false;
    }
  } else {
    text->resize(e.uncompressedBytes);
    int n = LZ4_decompress_safe(reinterpret_cast<const char *>(e.payload), text->data(),
                                static_cast<int>(e.payloadBytes), static_cast<int>(text->size()));
    if (n < 0 || uint64_t(n) != e.uncompressedBytes) {
      *log = "cucpu: LZ4 decompression of a fat binary entry failed\n";
      return false;
    }
  }
  text->resize(std::strlen(text->c_str())); // the payload ends with a NUL, then padding
  return true;
}

// The PTX entry for compute capability `cc`, or null.
const Entry *choose(const std::vector<Entry> &all, int cc) {
  const Entry *best = nullptr, *lowest = nullptr;
  for (const Entry &e : all) {
    if (e.kind != kKindPtx)
      continue;
    if (e.arch <= uint32_t(cc) && (!best || e.arch > best->arch))
      best = &e;
    if (!lowest || e.arch < lowest->arch)
      lowest = &e;
  }
  return best ? best : lowest;
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
      return CUDA_ERROR_INVALID_IMAGE;
    const Entry *e = choose(all, cc);
    if (!e)
      continue;
    std::string text;
    if (!decompress(*e, &text, log))
      return CUDA_ERROR_INVALID_IMAGE;
    if (isDeviceRuntime(text))
      runtime = true;
    else
      inputs.push_back(std::move(text));
  }
  if (!inputs.empty())
    *ptx = joinPtx(inputs);
  log::debug(log::Component::Driver, "fat binary: relocatable device code, {} unit(s) with PTX{}",
             inputs.size(), runtime ? ", the device runtime left out" : "");
  return CUDA_SUCCESS;
}

} // namespace

bool isFatBinary(const void *image) {
  uint32_t magic = read<uint32_t>(static_cast<const unsigned char *>(image));
  return magic == kWrapperMagic || magic == kContainerMagic;
}

CUresult extractPtx(const void *image, int cc, std::string *ptx, std::string *log) {
  const unsigned char *container = containerOf(image, log);
  std::vector<Entry> all;
  if (!container || !entries(container, &all, log))
    return CUDA_ERROR_INVALID_IMAGE;
  const Entry *e = choose(all, cc);
  if (const void *const *units = prelinkedOf(image); !e && units) {
    if (CUresult r = prelinkedPtx(units, cc, ptx, log); r != CUDA_SUCCESS || !ptx->empty())
      return r;
  }
  if (!e) {
    uint32_t arch = 0;
    for (const Entry &x : all)
      arch = x.kind == kKindElf ? std::max(arch, x.arch) : arch;
    std::string xx = arch ? std::to_string(arch) : std::string("XX");
    std::string msg = fmt::format(
        "the fat binary holds GPU machine code (SASS) only and no PTX, which is what cucpu runs "
        "on the CPU: rebuild with -gencode arch=compute_{0},code=compute_{0} added",
        xx);
    log::error(log::Component::Driver, "{}", msg);
    *log = "cucpu: " + msg + "\n";
    return CUDA_ERROR_NO_BINARY_FOR_GPU;
  }
  if (!decompress(*e, ptx, log))
    return CUDA_ERROR_INVALID_IMAGE;
  log::debug(log::Component::Driver, "fat binary: running the compute_{} PTX ({} bytes)", e->arch,
             ptx->size());
  return CUDA_SUCCESS;
}

} // namespace cucpu::driver::fatbin
