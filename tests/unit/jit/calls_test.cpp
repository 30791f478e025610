// Device-function calls: .func bodies are inlined at PTX level (so barriers inside them work);
// recursion is reported as not supported, naming the function.
#include "run_grid.h"

#include <gtest/gtest.h>

namespace {

TEST(Calls, ChainOfCallsWithReturnValues) {
  auto prog = load(readSource("tests/unit/jit/calls_kernels.ptx"));
  ASSERT_TRUE(prog) << "module failed to load";
  const int n = 256;
  std::vector<int> in(n), out(n, -1);
  for (int i = 0; i < n; ++i)
    in[i] = i - 40;
  int *pi = in.data(), *po = out.data();
  uint32_t grid[3] = {2, 1, 1}, block[3] = {128, 1, 1};
  runGrid(*prog, "callChain", grid, block, {&pi, &po});
  for (int i = 0; i < n; ++i) {
    int v = (in[i] * 3 + 7) * 2 - 1;
    ASSERT_EQ(out[i], std::min(500, std::max(0, v))) << i;
  }
}

// Regression: cvta.param turned a parameter's offset into a generic address without adding the
// parameter buffer's base, so the device function read from a wild address.
TEST(Calls, AddressOfAGridConstantParameter) {
  auto prog = load(readSource("tests/unit/jit/calls_kernels.ptx"));
  ASSERT_TRUE(prog);
  int s[8] = {3, 1, 4, 1, 5, 9, 2, 6};
  int n = 6;
  std::vector<int> out(32, -1);
  int *po = out.data();
  uint32_t grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
  runGrid(*prog, "paramAddress", grid, block, {s, &n, &po});
  for (int t = 0; t < 32; ++t)
    ASSERT_EQ(out[t], (3 + 1 + 4 + 1 + 5 + 9) * 100 + t) << t;
}

TEST(Calls, BarriersInsideACalledFunction) {
  auto prog = load(readSource("tests/unit/jit/calls_kernels.ptx"));
  ASSERT_TRUE(prog);
  const int threads = 256, blocks = 3;
  std::vector<float> in(threads * blocks), out(blocks, -1.f);
  for (int i = 0; i < threads * blocks; ++i)
    in[i] = float(i % 9);
  float *pi = in.data(), *po = out.data();
  uint32_t grid[3] = {blocks, 1, 1}, block[3] = {threads, 1, 1};
  runGrid(*prog, "callWithBarrier", grid, block, {&pi, &po});
  for (int bk = 0; bk < blocks; ++bk) {
    float s = 0;
    for (int i = bk * threads; i < (bk + 1) * threads; ++i)
      s += in[i];
    ASSERT_EQ(out[bk], s * 1000.f + threads) << bk;
  }
}

TEST(Calls, LoopedFactorial) {
  auto prog = load(readSource("tests/unit/jit/calls_kernels.ptx"));
  ASSERT_TRUE(prog);
  unsigned long long out = 0;
  unsigned long long *po = &out;
  unsigned n = 15;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  runGrid(*prog, "recursive", grid, block, {&po, &n});
  EXPECT_EQ(out, 1307674368000ull);
}

TEST(Calls, RecursionIsReportedNotSupported) {
  const std::string ptx = R"(.version 9.0
.target sm_75
.address_size 64
.func (.param .b32 r) down(.param .b32 n)
{
  .reg .b32 %r<3>;
  .reg .pred %p;
  ld.param.b32 %r1, [n];
  setp.eq.s32 %p, %r1, 0;
  @%p bra DONE;
  sub.s32 %r2, %r1, 1;
  {
  .param .b32 a;
  st.param.b32 [a], %r2;
  .param .b32 b;
  call (b), down, (a);
  ld.param.b32 %r1, [b];
  }
DONE:
  st.param.b32 [r], %r1;
  ret;
}
.visible .entry k(.param .u32 n)
{
  .reg .b32 %r<2>;
  ld.param.u32 %r0, [n];
  {
  .param .b32 a;
  st.param.b32 [a], %r0;
  .param .b32 b;
  call (b), down, (a);
  ld.param.b32 %r1, [b];
  }
  ret;
}
)";
  std::string log;
  auto p = cucpu::jit::Program::load(ptx, log);
  ASSERT_FALSE(p.hasValue());
  EXPECT_EQ(p.error().code(), 801); // CUDA_ERROR_NOT_SUPPORTED
  EXPECT_NE(log.find("recursive or too deeply nested call to 'down'"), std::string::npos) << log;
  EXPECT_NE(log.find("16:3:"), std::string::npos) << log; // the recursive call itself
}

} // namespace
