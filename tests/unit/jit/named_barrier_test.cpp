// JIT: named barriers with thread counts (bar.sync a, b / bar.arrive a, b) carrying a
// producer/consumer protocol between two warps, against an exact host reference.
#include "run_grid.h"

#include <gtest/gtest.h>

namespace {

TEST(NamedBarriers, ProducerConsumerPipelineBetweenWarps) {
  std::string log;
  auto loaded =
      cucpu::jit::Program::load(readSource("tests/unit/jit/named_barrier_kernels.ptx"), log);
  if (!loaded.hasValue()) { // the warp scheduler (CUCPU_SCHEDULE=warp) has no named barriers
    EXPECT_NE(log.find("named barriers"), std::string::npos) << log;
    GTEST_SKIP() << log;
  }
  auto &prog = **loaded;
  for (auto [threads, rounds] : {std::pair{96, 7}, std::pair{64, 5}, std::pair{96, 1}}) {
    const int blocks = 2, extra = threads - 64;
    std::vector<int> in(blocks * rounds * 32), out(blocks * 32 + blocks * extra, -1);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = int(i % 17) - 8 + int(i / 32);
    int *pi = in.data(), *po = out.data();
    int rr = rounds;
    uint32_t grid[3] = {blocks, 1, 1}, block[3] = {uint32_t(threads), 1, 1};
    runGrid(prog, "pipeline", grid, block, {&pi, &po, &rr}, 0, 2);
    for (int b = 0; b < blocks; ++b) {
      for (int lane = 0; lane < 32; ++lane) {
        int want = 0;
        for (int r = 0; r < rounds; ++r)
          want += in[(b * rounds + r) * 32 + ((lane + r) & 31)] * 2 * (r + 1);
        ASSERT_EQ(out[b * 32 + lane], want)
            << threads << " threads, block " << b << " lane " << lane;
      }
      for (int t = 0; t < extra; ++t) {
        int want = in[(b * rounds + rounds - 1) * 32 + (t & 31)] * 2;
        ASSERT_EQ(out[blocks * 32 + b * extra + t], want) << "extra thread " << t;
      }
    }
  }
}

} // namespace
