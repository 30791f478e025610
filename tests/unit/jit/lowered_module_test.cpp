// The lowered-module format of the on-disk cache: every field survives a round trip, and damaged
// bytes (truncated, altered, another format) are refused rather than half-read.
#include "lowered_module.h"

#include <gtest/gtest.h>

namespace {
using cucpu::jit::KernelInfo;
using cucpu::jit::LoweredModule;

// A module in which every field of every kernel differs from its default.
LoweredModule sample() {
  KernelInfo k;
  k.name = "_Z6kernelPfi";
  k.params = {{0, 8, 8}, {8, 4, 4}};
  k.paramBytes = 12;
  k.staticSharedBytes = 100;
  k.dynamicSharedOffset = 112;
  k.localBytesPerThread = 64;
  k.scratchBytesPerThread = 96;
  k.blockMemoryAlign = 256;
  k.constBytes = 80;
  k.maxntid[0] = 256, k.maxntid[1] = 2, k.maxntid[2] = 1;
  k.reqntid[0] = 128, k.reqntid[1] = 1, k.reqntid[2] = 3;
  k.numRegs = 40;
  k.regions = 3;
  k.warpScheduled = true;
  k.ptxVersion = 75;
  KernelInfo k2 = k;
  k2.name = "second";
  k2.warpScheduled = false;
  LoweredModule m;
  m.kernels = {k, k2};
  m.llvmNames = {"cucpu._Z6kernelPfi", "cucpu.second"};
  m.kernelBitcode = {std::string("BC\xc0\xde\0\1", 6), "more"};
  m.variablesBitcode = std::string("vars\0bits", 9);
  m.globals = {{"coeffs", "cucpu.coeffs", 80}, {"table", "cucpu.table", 1u << 20}};
  m.managed = {"table"};
  m.unresolvedExterns = {"ext"};
  return m;
}

TEST(LoweredModule, EveryFieldSurvivesARoundTrip) {
  const LoweredModule m = sample();
  auto back = cucpu::jit::deserialize(cucpu::jit::serialize(m));
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(*back == m);
}

TEST(LoweredModule, DamagedBytesAreRefused) {
  const std::string bytes = cucpu::jit::serialize(sample());
  for (size_t n = 0; n < bytes.size(); ++n)
    ASSERT_FALSE(cucpu::jit::deserialize(std::string_view(bytes).substr(0, n)).has_value())
        << "truncated to " << n << " bytes";
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string altered = bytes;
    altered[i] ^= 0x20;
    ASSERT_FALSE(cucpu::jit::deserialize(altered).has_value()) << "byte " << i << " altered";
  }
  EXPECT_FALSE(cucpu::jit::deserialize(bytes + "x").has_value());
}

} // namespace
