// The on-disk code cache: a compiled kernel is stored once, found again by another program in
// the same process and by a later process, and gives the same results as a fresh compile.
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
  // Another program of the same PTX links the stored object into its own JITDylib.
  auto second = load(readSource("tests/unit/jit/kernels.ptx"));
  ASSERT_TRUE(second);
  runReduce(*second);
  s = cucpu::jit::codeCacheStats();
  EXPECT_EQ(s.stores, 1u);
  EXPECT_EQ(s.hits, 1u);
}

TEST(CodeCache, LaterProcessLoadsTheStoredObject) {
  ASSERT_EQ(cucpu::jit::codeCacheStats().directory, expectedDirectory());
  auto prog = load(readSource("tests/unit/jit/kernels.ptx"));
  ASSERT_TRUE(prog);
  runReduce(*prog);
  auto s = cucpu::jit::codeCacheStats();
  EXPECT_EQ(s.hits, 1u) << "the object stored by the previous process was not found";
  EXPECT_EQ(s.stores, 0u);
}

// An entry that is not a usable object (truncated, overwritten) is compiled again and replaced.
TEST(CodeCache, UnusableEntryIsCompiledAgain) {
  ASSERT_EQ(cucpu::jit::codeCacheStats().directory, expectedDirectory());
  auto first = load(readSource("tests/unit/jit/kernels.ptx"));
  ASSERT_TRUE(first);
  runReduce(*first);
  ASSERT_EQ(cucpu::jit::codeCacheStats().stores, 1u);
  for (const auto &e : std::filesystem::directory_iterator(expectedDirectory()))
    std::filesystem::resize_file(e.path(), std::filesystem::file_size(e.path()) / 3);
  auto second = load(readSource("tests/unit/jit/kernels.ptx"));
  ASSERT_TRUE(second);
  runReduce(*second);
  auto s = cucpu::jit::codeCacheStats();
  EXPECT_EQ(s.hits, 0u);
  EXPECT_EQ(s.stores, 2u);
}

TEST(CodeCache, DisabledWritesNothing) {
  ASSERT_EQ(cucpu::jit::codeCacheStats().directory, "");
  auto prog = load(readSource("tests/unit/jit/kernels.ptx"));
  ASSERT_TRUE(prog);
  runReduce(*prog);
  auto s = cucpu::jit::codeCacheStats();
  EXPECT_EQ(s.hits, 0u);
  EXPECT_EQ(s.stores, 0u);
}

} // namespace
