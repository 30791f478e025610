// Fat binary parsing against real nvcc 13 output: compression, PTX choice, SASS-only, wrappers.
#include "fatbin.h"

#include "cucpu/support/fatbin_container.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

using cucpu::driver::fatbin::extractPtx;
using cucpu::driver::fatbin::isFatBinary;

// A fat binary file, 8-byte aligned as in an executable's .nv_fatbin section.
std::vector<uint64_t> loadData(const char *name) {
  std::ifstream in(std::string(CUCPU_SOURCE_DIR) + "/tests/unit/driver/data/" + name,
                   std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_FALSE(bytes.empty()) << name;
  std::vector<uint64_t> out(bytes.size() / 8 + 1);
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

std::string ptxFor(const char *file, int cc) {
  auto data = loadData(file);
  std::string ptx, log;
  EXPECT_EQ(extractPtx(data.data(), cc, &ptx, &log), CUDA_SUCCESS) << log;
  return ptx;
}

TEST(Fatbin, ZstdChoosesHighestArchAtMostTheDevices) {
  EXPECT_NE(ptxFor("fatbin_multi_zstd.fatbin", 80).find(".target sm_80"), std::string::npos);
  EXPECT_NE(ptxFor("fatbin_multi_zstd.fatbin", 86).find(".target sm_80"), std::string::npos);
  EXPECT_NE(ptxFor("fatbin_multi_zstd.fatbin", 90).find(".target sm_90"), std::string::npos);
  EXPECT_NE(ptxFor("fatbin_multi_zstd.fatbin", 75).find(".target sm_75"), std::string::npos);
}

TEST(Fatbin, OnlyNewerPtxFallsBackToTheLowest) {
  EXPECT_NE(ptxFor("fatbin_multi_zstd.fatbin", 60).find(".target sm_75"), std::string::npos);
}

TEST(Fatbin, Lz4BlockAndUncompressedPayloads) {
  for (const char *f : {"fatbin_lz4.fatbin", "fatbin_none.fatbin"}) {
    std::string ptx = ptxFor(f, 80);
    EXPECT_NE(ptx.find(".entry _Z3addPKfS0_Pfi"), std::string::npos) << f;
    EXPECT_EQ(ptx.find('\0'), std::string::npos) << f;
  }
  EXPECT_EQ(ptxFor("fatbin_lz4.fatbin", 80), ptxFor("fatbin_none.fatbin", 80));
}

TEST(Fatbin, SassAndPtxUsesThePtx) {
  EXPECT_NE(ptxFor("fatbin_sm80.fatbin", 80).find(".target sm_80"), std::string::npos);
}

TEST(Fatbin, SassOnlyIsNoBinaryForGpuWithTheRebuildHint) {
  auto data = loadData("fatbin_sass.fatbin");
  std::string ptx, log;
  EXPECT_EQ(extractPtx(data.data(), 80, &ptx, &log), CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT_NE(log.find("-gencode arch=compute_80,code=compute_80"), std::string::npos) << log;
}

TEST(Fatbin, WrapperPointsAtTheContainer) {
  auto data = loadData("fatbin_lz4.fatbin");
  struct {
    uint32_t magic, version;
    const void *container, *unused;
  } wrapper{0x466243B1, 1, data.data(), nullptr};
  EXPECT_TRUE(isFatBinary(&wrapper));
  EXPECT_TRUE(isFatBinary(data.data()));
  std::string ptx, log;
  ASSERT_EQ(extractPtx(&wrapper, 80, &ptx, &log), CUDA_SUCCESS) << log;
  EXPECT_EQ(ptx, ptxFor("fatbin_lz4.fatbin", 80));
  wrapper.version = 7;
  EXPECT_EQ(extractPtx(&wrapper, 80, &ptx, &log), CUDA_ERROR_INVALID_IMAGE);
}

TEST(Fatbin, MalformedEntriesAreInvalidImage) {
  auto data = loadData("fatbin_none.fatbin");
  auto *bytes = reinterpret_cast<unsigned char *>(data.data());
  uint64_t tooSmall = 0x20; // the container claims less than its first entry needs
  std::memcpy(bytes + 8, &tooSmall, 8);
  std::string ptx, log;
  EXPECT_EQ(extractPtx(data.data(), 80, &ptx, &log), CUDA_ERROR_INVALID_IMAGE);
  EXPECT_FALSE(log.empty());
}

TEST(Fatbin, CorruptZstdPayloadIsInvalidImage) {
  auto data = loadData("fatbin_multi_zstd.fatbin");
  auto *bytes = reinterpret_cast<unsigned char *>(data.data());
  uint32_t hdr;
  std::memcpy(&hdr, bytes + 16 + 4, 4);
  std::memset(bytes + 16 + hdr, 0xff, 8); // first entry's payload: not a zstd frame any more
  std::string ptx, log;
  EXPECT_EQ(extractPtx(data.data(), 75, &ptx, &log), CUDA_ERROR_INVALID_IMAGE);
  EXPECT_NE(log.find("zstd"), std::string::npos) << log;
}

// The entries of a real container, for tests that change one entry's header fields.
std::vector<cucpu::fatbin::Entry> entriesOf(const std::vector<uint64_t> &data) {
  std::vector<cucpu::fatbin::Entry> entries;
  std::string log;
  EXPECT_TRUE(cucpu::fatbin::readEntries(reinterpret_cast<const unsigned char *>(data.data()),
                                         data.size() * 8, &entries, nullptr, &log))
      << log;
  return entries;
}

// Found by fuzzing (tests/fuzz/fatbin_fuzz.cpp): an entry claiming about 4 GiB of uncompressed
// data in a few bytes made the reader allocate all of it before decompressing.
TEST(Fatbin, UncompressedSizesBeyondWhatTheDataCanHoldAreRefusedWithoutAllocating) {
  auto data = loadData("fatbin_multi_zstd.fatbin");
  auto entries = entriesOf(data);
  ASSERT_FALSE(entries.empty());
  cucpu::fatbin::Entry zstd = entries[0];
  ASSERT_NE(zstd.uncompressedBytes, 0u);
  std::string text, log;
  ASSERT_TRUE(cucpu::fatbin::payload(zstd, &text, &log)) << log;
  zstd.uncompressedBytes = 4143973121u; // beyond the 1 GiB budget
  EXPECT_FALSE(cucpu::fatbin::payload(zstd, &text, &log));
  EXPECT_NE(log.find("uncompressed size"), std::string::npos) << log;
  zstd.uncompressedBytes = 512u << 20; // within the budget, but the frame holds far less
  log.clear();
  EXPECT_FALSE(cucpu::fatbin::payload(zstd, &text, &log));
  EXPECT_LT(text.capacity(), size_t(64) << 20); // never sized to the claim
  EXPECT_FALSE(log.empty());

  auto lz4data = loadData("fatbin_lz4.fatbin");
  auto lz4entries = entriesOf(lz4data);
  ASSERT_FALSE(lz4entries.empty());
  cucpu::fatbin::Entry lz4 = lz4entries[0];
  lz4.uncompressedBytes = lz4.payloadBytes * 255 + 1024; // more than LZ4 can expand it to
  log.clear();
  EXPECT_FALSE(cucpu::fatbin::payload(lz4, &text, &log));
  EXPECT_NE(log.find("LZ4"), std::string::npos) << log;
}

} // namespace
