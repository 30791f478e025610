// Device memory lives in cucpu's arena: a kernel's store beyond an allocation's pages, below a
// large allocation, or into freed memory is a sticky CUDA_ERROR_ILLEGAL_ADDRESS, never a write
// into the host's heap. Answers of an H100 with driver 580 (tests/gpu/record_arena.cpp): it
// agrees on the store below, the freed 64 MiB and the freed 256-byte allocation, and lets the
// stores beyond the end pass (its pages are 2 MiB and neighbours are mapped); cucpu faults there
// deliberately (docs/architecture.md, "Device memory").
#include <cuda.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace {

struct Case {
  const char *name;
  size_t bytes;
  long long offset;
  bool freeFirst;
  CUresult expected;
};

class ArenaFaults : public testing::TestWithParam<Case> {};

TEST_P(ArenaFaults, StoreAnswersAsRecorded) {
  const Case &c = GetParam();
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUcontext ctx;
  ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
  std::ifstream in(std::string(CUCPU_SOURCE_DIR) + "/tests/api/arena/poke.ptx");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string ptx = ss.str();
  CUmodule mod;
  CUfunction poke;
  ASSERT_EQ(cuModuleLoadData(&mod, ptx.c_str()), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleGetFunction(&poke, mod, "poke"), CUDA_SUCCESS);
  CUdeviceptr d;
  ASSERT_EQ(cuMemAlloc(&d, c.bytes), CUDA_SUCCESS);
  if (c.freeFirst) {
    ASSERT_EQ(cuMemFree(d), CUDA_SUCCESS);
  }
  unsigned long long offset = static_cast<unsigned long long>(c.offset);
  void *args[] = {&d, &offset};
  EXPECT_EQ(cuLaunchKernel(poke, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxSynchronize(), c.expected);
  EXPECT_EQ(cuCtxDestroy(ctx), CUDA_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(
    Recorded, ArenaFaults,
    testing::Values(Case{"EndOf64MiB", size_t(64) << 20, 64ll << 20, false,
                         CUDA_ERROR_ILLEGAL_ADDRESS}, // H100: 0
                    Case{"Below64MiB", size_t(64) << 20, -4, false, CUDA_ERROR_ILLEGAL_ADDRESS},
                    Case{"Freed64MiB", size_t(64) << 20, 4096, true, CUDA_ERROR_ILLEGAL_ADDRESS},
                    Case{"EndOfOddPages", 65537, 69632, false,
                         CUDA_ERROR_ILLEGAL_ADDRESS}, // H100: 0
                    Case{"Freed256Bytes", 256, 0, true, CUDA_ERROR_ILLEGAL_ADDRESS},
                    Case{"Inside256Bytes", 256, 252, false, CUDA_SUCCESS}),
    [](const testing::TestParamInfo<Case> &i) { return std::string(i.param.name); });

// cuMemAlloc's blocks are 256 bytes at least, as a GPU's: numba-cuda's test_struct_model_type_arr
// writes ten words into a one-word array and passes on a GPU because its neighbour is further away.
TEST(ArenaBlocks, SmallAllocationsAreAlignedAndApart) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUcontext ctx;
  ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
  CUdeviceptr a, b;
  void *h1, *h2;
  ASSERT_EQ(cuMemAlloc(&a, 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc(&b, 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAllocHost(&h1, 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAllocHost(&h2, 4), CUDA_SUCCESS);
  for (uintptr_t p : {uintptr_t(a), uintptr_t(b), uintptr_t(h1), uintptr_t(h2)})
    EXPECT_EQ(p % 256, 0u);
  EXPECT_GE(a > b ? a - b : b - a, 256u);
  auto h = [](void *p) { return reinterpret_cast<uintptr_t>(p); };
  EXPECT_GE(h(h1) > h(h2) ? h(h1) - h(h2) : h(h2) - h(h1), 256u);
  EXPECT_EQ(cuCtxDestroy(ctx), CUDA_SUCCESS);
}

} // namespace
