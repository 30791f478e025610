// The fat binary container nvcc writes (`.nv_fatbin`): its entries read (with their zstd or LZ4
// payloads) and written. One definition of the format for the driver, which runs the PTX
// entries, and the run-time compiler front ends, which write and re-read containers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cucpu::fatbin {

constexpr uint32_t kWrapperMagic = 0x466243B1;
constexpr uint32_t kContainerMagic = 0xBA55ED50;
constexpr uint16_t kKindPtx = 1;
constexpr uint16_t kKindElf = 2;

struct Entry {
  uint16_t kind;
  uint32_t arch;
  uint64_t flags;
  const unsigned char *payload;
  uint64_t payloadBytes;      // as stored (compressed or padded)
  uint64_t uncompressedBytes; // 0 when stored uncompressed
};

// The entries of the container at `container` (which starts with kContainerMagic), of which
// `available` bytes may be read, and the bytes the container spans. False, with `log` saying why,
// for a malformed container.
bool readEntries(const unsigned char *container, uint64_t available, std::vector<Entry> *out,
                 uint64_t *spanBytes, std::string *log);

// An entry's payload, decompressed. PTX text ends at its NUL; ELF images keep every byte.
bool payload(const Entry &e, std::string *out, std::string *log);

// The PTX architecture to run on a device of compute capability `cc` (major * 10 + minor): the
// highest one <= cc or, when every PTX entry is newer, the lowest one (a CPU runs any PTX version
// the front end parses); 0 when no entry is PTX.
uint32_t choosePtxArch(const std::vector<Entry> &entries, int cc);

// The PTX texts of every entry of architecture `arch`, in order (several are relocatable units).
bool ptxOfArch(const std::vector<Entry> &entries, uint32_t arch, std::vector<std::string> *out,
               std::string *log);

// An entry to write: PTX text (without its NUL) or an ELF image, for architecture `arch`.
struct NewEntry {
  uint16_t kind;
  uint32_t arch;
  std::string_view bytes;
};

// An uncompressed container holding `entries` in order, with the headers nvcc's fatbinary
// writes, so NVIDIA's driver loads it as well.
std::string writeContainer(const std::vector<NewEntry> &entries);

} // namespace cucpu::fatbin
