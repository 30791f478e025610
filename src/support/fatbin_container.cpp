// Fat binary containers: entry headers parsed and written, zstd and LZ4-block payloads expanded.
#include "cucpu/support/fatbin_container.h"

#include <fmt/core.h>
#include <lz4.h>
#include <zstd.h>

#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>

namespace cucpu::fatbin {
namespace {

constexpr uint64_t kFlagLz4 = 0x2000;
constexpr uint64_t kFlagZstd = 0x8000;
constexpr uint64_t kFlags64BitLinux = 0x11;
constexpr uint32_t kEntryHeaderMin = 0x40;
constexpr uint32_t kPtxHeaderBytes = 0x50; // 0x40 and the empty options descriptor

// A budget for one entry's expanded payload (the largest PTX in NVIDIA's libraries is a small
// fraction of it): a hostile header's size is never allocated up front beyond what its data can
// expand to.
constexpr uint64_t kMaxEntryBytes = uint64_t(1) << 30;
// LZ4 encodes at most 255 output bytes per input byte.
constexpr uint64_t kLz4MaxRatio = 255;

template <typename T> T read(const unsigned char *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// A zstd payload expanded in steps, so memory grows with the data actually produced; false when
// it is malformed or expands to other than `expected` bytes.
bool expandZstd(const Entry &e, uint64_t expected, std::string *text, std::string *log) {
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx *)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  ZSTD_inBuffer in{e.payload, e.payloadBytes, 0};
  text->clear();
  std::string chunk(size_t(1) << 20, '\0');
  for (;;) {
    ZSTD_outBuffer out{chunk.data(), chunk.size(), 0};
    const size_t r = ZSTD_decompressStream(dctx.get(), &out, &in);
    if (ZSTD_isError(r)) {
      *log = fmt::format("cucpu: zstd decompression of a fat binary entry failed: {}\n",
                         ZSTD_getErrorName(r));
      return false;
    }
    if (out.pos > expected - text->size()) {
      *log = "cucpu: a fat binary entry expands beyond its uncompressed size\n";
      return false;
    }
    text->append(chunk.data(), out.pos);
    if (r == 0)
      break; // the frame is complete
    if (in.pos == in.size && out.pos < out.size) {
      *log = "cucpu: truncated zstd payload in a fat binary entry\n";
      return false;
    }
  }
  if (text->size() != expected) {
    *log = "cucpu: zstd decompression of a fat binary entry failed: size mismatch\n";
    return false;
  }
  return true;
}

template <typename T> void put(std::string &out, size_t at, T v) {
  std::memcpy(out.data() + at, &v, sizeof v);
}

// The PTX ISA version of `ptx` (".version 9.0" -> {9, 0}); {0, 0} when it has none.
std::pair<uint16_t, uint16_t> ptxVersion(std::string_view ptx) {
  size_t at = ptx.find(".version");
  unsigned major = 0, minor = 0;
  if (at != std::string_view::npos) {
    std::string line(ptx.substr(at, 32));
    if (std::sscanf(line.c_str(), ".version %u.%u", &major, &minor) != 2)
      major = minor = 0;
  }
  return {uint16_t(major), uint16_t(minor)};
}

} // namespace

bool readEntries(const unsigned char *container, uint64_t available, std::vector<Entry> *out,
                 uint64_t *spanBytes, std::string *log) {
  if (available < 16 || read<uint32_t>(container) != kContainerMagic) {
    *log = "cucpu: not a fat binary container\n";
    return false;
  }
  uint16_t headerBytes = read<uint16_t>(container + 6);
  uint64_t size = read<uint64_t>(container + 8);
  if (headerBytes < 16 || size > std::numeric_limits<uint32_t>::max() ||
      headerBytes + size > available) {
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
    if (hdr < kEntryHeaderMin || hdr > uint64_t(end - e) || padded > uint64_t(end - e) - hdr ||
        compressed > padded) {
      *log = "cucpu: malformed fat binary entry header\n";
      return false;
    }
    out->push_back({read<uint16_t>(e), read<uint32_t>(e + 0x1c), read<uint64_t>(e + 0x28), e + hdr,
                    compressed ? compressed : padded, read<uint64_t>(e + 0x38)});
    e += hdr + padded;
  }
  if (spanBytes)
    *spanBytes = headerBytes + size;
  return true;
}

bool payload(const Entry &e, std::string *text, std::string *log) {
  if (!(e.flags & (kFlagLz4 | kFlagZstd))) {
    text->assign(reinterpret_cast<const char *>(e.payload), e.payloadBytes);
  } else if (e.uncompressedBytes == 0 || e.uncompressedBytes > kMaxEntryBytes) {
    *log = fmt::format("cucpu: compressed fat binary entry whose uncompressed size {} is not in "
                       "1..{}\n",
                       e.uncompressedBytes, kMaxEntryBytes);
    return false;
  } else if (e.flags & kFlagZstd) {
    if (!expandZstd(e, e.uncompressedBytes, text, log))
      return false;
  } else if (e.uncompressedBytes > e.payloadBytes * kLz4MaxRatio + 16) {
    *log = "cucpu: LZ4 fat binary entry larger than its data can expand to\n";
    return false;
  } else {
    text->resize(e.uncompressedBytes);
    int n = LZ4_decompress_safe(reinterpret_cast<const char *>(e.payload), text->data(),
                                static_cast<int>(e.payloadBytes), static_cast<int>(text->size()));
    if (n < 0 || uint64_t(n) != e.uncompressedBytes) {
      *log = "cucpu: LZ4 decompression of a fat binary entry failed\n";
      return false;
    }
  }
  if (e.kind == kKindPtx) // the payload ends with a NUL, then padding
    text->resize(std::strlen(text->c_str()));
  return true;
}

uint32_t choosePtxArch(const std::vector<Entry> &entries, int cc) {
  uint32_t best = 0, lowest = 0;
  for (const Entry &e : entries) {
    if (e.kind != kKindPtx)
      continue;
    if (e.arch <= uint32_t(cc) && e.arch > best)
      best = e.arch;
    if (!lowest || e.arch < lowest)
      lowest = e.arch;
  }
  return best ? best : lowest;
}

bool ptxOfArch(const std::vector<Entry> &entries, uint32_t arch, std::vector<std::string> *out,
               std::string *log) {
  for (const Entry &e : entries)
    if (e.kind == kKindPtx && e.arch == arch && !payload(e, &out->emplace_back(), log))
      return false;
  return true;
}

std::string writeContainer(const std::vector<NewEntry> &entries) {
  std::string out(16, '\0');
  for (const NewEntry &n : entries) {
    const bool ptx = n.kind == kKindPtx;
    const uint32_t hdr = ptx ? kPtxHeaderBytes : kEntryHeaderMin;
    const uint64_t bytes = n.bytes.size() + (ptx ? 1 : 0); // PTX keeps its NUL
    const uint64_t padded = (bytes + 7) & ~uint64_t(7);
    const size_t at = out.size();
    out.resize(at + hdr + padded, '\0');
    put<uint16_t>(out, at, n.kind);
    put<uint16_t>(out, at + 2, 0x0101);
    put<uint32_t>(out, at + 4, hdr);
    put<uint64_t>(out, at + 8, padded);
    auto [major, minor] = ptx ? ptxVersion(n.bytes) : std::pair<uint16_t, uint16_t>{1, 8};
    put<uint16_t>(out, at + 0x18, minor);
    put<uint16_t>(out, at + 0x1a, major);
    put<uint32_t>(out, at + 0x1c, n.arch);
    put<uint64_t>(out, at + 0x28, kFlags64BitLinux);
    if (ptx) { // an empty options descriptor {offset, length} right after the fixed header
      put<uint32_t>(out, at + 0x14, kEntryHeaderMin);
      put<uint32_t>(out, at + kEntryHeaderMin, kEntryHeaderMin + 8);
    }
    std::memcpy(out.data() + at + hdr, n.bytes.data(), n.bytes.size());
  }
  put<uint32_t>(out, 0, kContainerMagic);
  put<uint16_t>(out, 4, 1);
  put<uint16_t>(out, 6, 16);
  put<uint64_t>(out, 8, out.size() - 16);
  return out;
}

} // namespace cucpu::fatbin
