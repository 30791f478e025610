// The on-disk code cache: a compiled kernel and a lowered module are stored once, found again by
// another program in the same process and by a later process, and give the same kernels and
// results as a fresh compile.
// Run by ctest in phases over one directory (tests/unit/CMakeLists.txt).
#include "run_grid.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

namespace {

// Runs kernels.ptx's tree reduction over 64-thread blocks and checks every block's exact sum.
void runReduce(cucpu::jit::Program &prog) {
  const unsigned n = 1000, threads = 64, blocks = (n + 2 * threads - 1) / (2 * threads);
  std::vector<float> in(n), out(blocks, -1.f);
  for (unsigned i = 0; i < n; ++i)
    in[i] = float(i % 13);
  const float *pin = in.data();
  float *pout = out.data();
  unsigned nn = n;
  uint32_t grid[3] = {blocks, 1, 1}, block[3] = {threads, 1, 1};
  runGrid(prog, "reduce", grid, block, {&pin, &pout, &nn}, threads * sizeof(float));
  for (unsigned b = 0; b < blocks; ++b) {
    float want = 0;
    for (unsigned i = b * 2 * threads; i < std::min(n, (b + 1) * 2 * threads); ++i)
      want += in[i];
    ASSERT_EQ(out[b], want) << "block " << b;
  }
}

std::string expectedDirectory() {
  const char *p = std::getenv("CUDA_CACHE_PATH");
  return p ? std::string(p) + "/cucpu" : "";
}

TEST(CodeCache, PopulateThenHitInTheSameProcess) {
  ASSERT_EQ(cucpu::jit::codeCacheStats().directory, expectedDirectory());
  auto first = load(readSource("tests/unit/jit/kernels.ptx"));
  ASSERT_TRUE(first);
  runReduce(*first);
  auto s = cucpu::jit::codeCacheStats();
  EXPECT_EQ(s.stores, 1u);
  EXPECT_EQ(s.hits, 0u);
  EXPECT_EQ(s.moduleStores, 1u);
  EXPECT_EQ(s.moduleHits, 0u);
  // Another program of the same PTX reads the lowered module and links the stored object into
  // its own JITDylib.
  auto second = load(readSource("tests/unit/jit/kernels.ptx"));
  ASSERT_TRUE(second);
  EXPECT_TRUE(second->kernels() == first->kernels());
  runReduce(*second);
  s = cucpu::jit::codeCacheStats();
  EXPECT_EQ(s.stores, 1u);
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.moduleStores, 1u);
  EXPECT_EQ(s.moduleHits, 1u);
}

// A kernel with .const, .shared and .local data and launch bounds: its layout read back from the
// cache is the one the lowering made, and its variables are there.
TEST(CodeCache, CachedModuleKeepsLayoutsAndVariables) {
  const std::string ptx = readSource("tests/api/attributes/attrs.ptx") +
                          ".visible .entry bounded() .maxntid 64, 2, 1 .reqntid 32, 2, 1 "
                          "{ ret; }\n";
  auto fresh = load(ptx);
  ASSERT_TRUE(fresh);
  auto cached = load(ptx);
  ASSERT_TRUE(cached);
  EXPECT_EQ(cucpu::jit::codeCacheStats().moduleHits, 1u);
  ASSERT_EQ(cached->kernels().size(), 2u);
  EXPECT_TRUE(cached->kernels() == fresh->kernels());
  const auto *attrs = cached->findKernel("attrs");
  ASSERT_NE(attrs, nullptr);
  EXPECT_EQ(attrs->constBytes, 80u);
  EXPECT_EQ(attrs->localBytesPerThread, 64u);
  auto coeffs = cached->global("coeffs");
  ASSERT_TRUE(coeffs.hasValue());
  EXPECT_EQ(coeffs->second, 80u);
}

TEST(CodeCache, LaterProcessLoadsTheStoredObject) {
  ASSERT_EQ(cucpu::jit::codeCacheStats().directory, expectedDirectory());
  auto prog = load(readSource("tests/unit/jit/kernels.ptx"));
  ASSERT_TRUE(prog);
  runReduce(*prog);
  auto s = cucpu::jit::codeCacheStats();
  EXPECT_EQ(s.hits, 1u) << "the object stored by the previous process was not found";
  EXPECT_EQ(s.stores, 0u);
  EXPECT_EQ(s.moduleHits, 1u) << "the module lowered by the previous process was not found";
  EXPECT_EQ(s.moduleStores, 0u);
}

// Entries that are not usable (truncated, overwritten) are lowered and compiled again, and
// replaced.
TEST(CodeCache, UnusableEntryIsCompiledAgain) {
  ASSERT_EQ(cucpu::jit::codeCacheStats().directory, expectedDirectory());
  auto first = load(readSource("tests/unit/jit/kernels.ptx"));
  ASSERT_TRUE(first);
  runReduce(*first);
  ASSERT_EQ(cucpu::jit::codeCacheStats().stores, 1u);
  ASSERT_EQ(cucpu::jit::codeCacheStats().moduleStores, 1u);
  for (const auto &e : std::filesystem::directory_iterator(expectedDirectory()))
    std::filesystem::resize_file(e.path(), std::filesystem::file_size(e.path()) / 3);
  auto second = load(readSource("tests/unit/jit/kernels.ptx"));
  ASSERT_TRUE(second);
  runReduce(*second);
  auto s = cucpu::jit::codeCacheStats();
  EXPECT_EQ(s.hits, 0u);
  EXPECT_EQ(s.stores, 2u);
  EXPECT_EQ(s.moduleHits, 0u);
  EXPECT_EQ(s.moduleStores, 2u);
}

TEST(CodeCache, DisabledWritesNothing) {
  ASSERT_EQ(cucpu::jit::codeCacheStats().directory, "");
  auto prog = load(readSource("tests/unit/jit/kernels.ptx"));
  ASSERT_TRUE(prog);
  runReduce(*prog);
  auto s = cucpu::jit::codeCacheStats();
  EXPECT_EQ(s.hits, 0u);
  EXPECT_EQ(s.stores, 0u);
  EXPECT_EQ(s.moduleHits, 0u);
  EXPECT_EQ(s.moduleStores, 0u);
}

} // namespace
