// Warp-synchronous code: volatile accesses of a converged warp's lanes behave as lockstep
// execution (every lane's access done before the next access of any lane). Expected values are
// exact host models of lockstep execution and the outputs an NVIDIA H200 (driver 580.159.04)
// gave for the same kernels (lockstep_expected/, tests/gpu/record_lockstep.cpp).
#include "run_grid.h"

#include <algorithm>
#include <cstdlib>
#include <gtest/gtest.h>
#include <initializer_list>

namespace {

constexpr int kThreads = 128, kBlocks = 2, kN = kThreads * kBlocks;

class Lockstep : public ::testing::Test {
protected:
  void SetUp() override {
    prog = load(readSource("tests/unit/jit/lockstep_kernels.ptx"));
    ASSERT_TRUE(prog);
    in = recordedInput(kN);
  }
  std::vector<int> run(const char *kernel, size_t outCount) {
    std::vector<int> out(outCount, 0);
    int *pi = in.data();
    int *po = out.data();
    uint32_t grid[3] = {kBlocks, 1, 1}, block[3] = {kThreads, 1, 1};
    runGrid(*prog, kernel, grid, block, {&pi, &po});
    expectSameAsGpu("tests/unit/jit/lockstep_expected", kernel, out);
    return out;
  }
  // One lockstep step over a warp's lanes: every lane computes from the values before the step.
  template <typename F> static void step(std::vector<int> &s, int lanes, F &&f) {
    std::vector<int> before = s;
    for (int l = 0; l < lanes; ++l)
      f(l, before, s);
  }
  // Warp w's values as the sort kernels generate them from the input (one value per lane and
  // generator, in order), sorted: what a sort in lockstep leaves.
  std::vector<int> sortedWarpValues(int w, std::initializer_list<int (*)(int)> generators) const {
    std::vector<int> v;
    for (auto g : generators)
      for (int l = 0; l < 32; ++l)
        v.push_back(g(in[w * 32 + l]));
    std::sort(v.begin(), v.end());
    return v;
  }
  std::unique_ptr<cucpu::jit::Program> prog;
  std::vector<int> in;
};

TEST_F(Lockstep, OnlyKernelsWithVolatileAccessesUseTheWarpScheduler) {
  for (const char *k : {"lastWarpReduce", "paddedWarpScan", "guardedLoopReduce", "rotateGlobal",
                        "rotateGlobalNonCached"}) {
    ASSERT_NE(prog->findKernel(k), nullptr) << k;
    EXPECT_TRUE(prog->findKernel(k)->warpScheduled) << k;
  }
  ASSERT_NE(prog->findKernel("plainReduce"), nullptr);
  if (!std::getenv("CUCPU_SCHEDULE")) {
    EXPECT_FALSE(prog->findKernel("plainReduce")->warpScheduled);
  }
}

TEST_F(Lockstep, LastWarpUnrolledReduction) {
  auto out = run("lastWarpReduce", kBlocks);
  for (int blk = 0; blk < kBlocks; ++blk) {
    std::vector<int> s(in.begin() + blk * kThreads, in.begin() + (blk + 1) * kThreads);
    for (int t = 0; t < 64; ++t)
      s[t] += s[t + 64];
    for (int o = 32; o > 0; o >>= 1)
      step(s, 32,
           [&](int l, const std::vector<int> &b, std::vector<int> &a) { a[l] = b[l] + b[l + o]; });
    EXPECT_EQ(out[blk], s[0]) << "block " << blk;
  }
}

TEST_F(Lockstep, PaddedWarpScan) {
  auto out = run("paddedWarpScan", kN);
  for (int w = 0; w < kN / 32; ++w) {
    std::vector<int> s(64, 0);
    for (int l = 0; l < 32; ++l)
      s[32 + l] = in[w * 32 + l];
    for (int o = 1; o < 32; o <<= 1)
      step(s, 32, [&](int l, const std::vector<int> &b, std::vector<int> &a) {
        a[32 + l] = b[32 + l] + b[32 + l - o];
      });
    for (int l = 0; l < 32; ++l) {
      int prefix = 0;
      for (int k = 0; k <= l; ++k)
        prefix += in[w * 32 + k];
      ASSERT_EQ(s[32 + l], prefix); // the model is the scan
      EXPECT_EQ(out[w * 32 + l], prefix) << "thread " << w * 32 + l;
    }
  }
}

TEST_F(Lockstep, LaneGuardedHalvingLoop) {
  auto out = run("guardedLoopReduce", kN);
  for (int w = 0; w < kN / 32; ++w) {
    std::vector<int> s(in.begin() + w * 32, in.begin() + (w + 1) * 32);
    for (int o = 16; o > 0; o >>= 1)
      step(s, o,
           [&](int l, const std::vector<int> &b, std::vector<int> &a) { a[l] = b[l] + b[l + o]; });
    for (int l = 0; l < 32; ++l)
      EXPECT_EQ(out[w * 32 + l], s[l]) << "thread " << w * 32 + l;
  }
}

TEST_F(Lockstep, GlobalRotationReadsBeforeAnyLaneWrites) {
  auto out = run("rotateGlobal", kN);
  for (int t = 0; t < kN; ++t) {
    int lane = t & 31;
    EXPECT_EQ(out[t], in[t - lane + ((lane + 1) & 31)] * 2 + lane) << "thread " << t;
  }
}

// The same with st.global.wt and ld.global.cv: non-cached accesses are steps like volatile ones.
TEST_F(Lockstep, GlobalRotationThroughNonCachedAccesses) {
  auto out = run("rotateGlobalNonCached", kN);
  for (int t = 0; t < kN; ++t) {
    int lane = t & 31;
    EXPECT_EQ(out[t], in[t - lane + ((lane + 1) & 31)] * 2 + lane) << "thread " << t;
  }
}

// Plain (not volatile) global memory in a warp-mode kernel: each step's compare-exchanges see the
// previous step's results, so every warp's 64 values come out sorted. Lanes that skip an exchange
// wait for the others where the branch reconverges, as a GPU's warp does.
TEST_F(Lockstep, PlainGlobalBitonicSortByOneWarp) {
  auto out = run("warpBitonicSort", 2 * kN);
  for (int w = 0; w < kN / 32; ++w) {
    const auto v =
        sortedWarpValues(w, {[](int x) { return x; }, [](int x) { return (x * 7 + 3) % 101; }});
    for (int i = 0; i < 64; ++i)
      EXPECT_EQ(out[w * 64 + i], v[i]) << "warp " << w << " value " << i;
  }
}

// Half the lanes have no pair to exchange: they wait where the loop over pairs ends, and the whole
// warp is active again at the end (32 lanes in __activemask).
TEST_F(Lockstep, PlainGlobalBitonicSortByHalfAWarp) {
  auto out = run("halfWarpBitonicSort", kN);
  for (int w = 0; w < kN / 32; ++w) {
    const auto v = sortedWarpValues(w, {[](int x) { return (x * 13 + 5) % 97; }});
    for (int l = 0; l < 32; ++l)
      EXPECT_EQ(out[w * 32 + l], v[l] + 32 * 1000) << "thread " << w * 32 + l;
  }
}

// No warp vote, no barrier: the lanes can only be relying on lockstep, so the exchanges through
// memory that is not private to a thread are steps too.
TEST_F(Lockstep, PlainGlobalBitonicSortWithoutWarpInstructions) {
  ASSERT_NE(prog->findKernel("blockBitonicSort"), nullptr);
  EXPECT_TRUE(prog->findKernel("blockBitonicSort")->warpScheduled);
  auto out = run("blockBitonicSort", 2 * kN);
  for (int w = 0; w < kN / 32; ++w) {
    const auto v =
        sortedWarpValues(w, {[](int x) { return (x * 11 + 7) % 103; }, [](int x) { return x; }});
    for (int i = 0; i < 64; ++i)
      EXPECT_EQ(out[w * 64 + i], v[i]) << "warp " << w << " value " << i;
  }
}

// Fully unrolled, nvcc keeps some values in registers from one step to the next (nothing is
// volatile and nothing synchronises), so the H200's output, the reference here, is not quite
// sorted; lanes run one after another give yet other values. Each warp's output is still a
// permutation of its inputs.
TEST_F(Lockstep, UnrolledBitonicSortWithoutWarpInstructions) {
  auto out = run("unrolledBitonicSort", 2 * kN);
  for (int w = 0; w < kN / 32; ++w) {
    std::vector<int> got(out.begin() + w * 64, out.begin() + (w + 1) * 64);
    const auto v = sortedWarpValues(
        w, {[](int x) { return (x * 5 + 1) % 89; }, [](int x) { return (x * 3 + 2) % 79; }});
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, v) << "warp " << w;
  }
}

// Addresses that are functions of the thread index, but different ones for the store and the load.
TEST_F(Lockstep, PlainSharedNeighbourWithoutWarpInstructions) {
  auto out = run("plainNeighbourShared", kN);
  for (int t = 0; t < kN; ++t) {
    int lane = t & 31;
    EXPECT_EQ(out[t], in[t - lane + ((lane + 1) & 31)] * 2 + 1) << "thread " << t;
  }
}

// The index comes back from a device function through .param memory: a value the thread stored,
// which may name any lane's slot.
TEST_F(Lockstep, NeighbourNamedByAFunctionResult) {
  auto out = run("neighbourThroughCall", kN);
  for (int t = 0; t < kN; ++t)
    EXPECT_EQ(out[t], in[t ^ 1] * 3) << "thread " << t;
}

// Threads that update their own elements in place (also through a view's index arithmetic) or
// gather from memory no thread writes need no step: such kernels keep block mode.
TEST_F(Lockstep, ThreadPrivateAccessesKeepBlockMode) {
  if (std::getenv("CUCPU_SCHEDULE"))
    GTEST_SKIP() << "every kernel runs in warp mode under CUCPU_SCHEDULE";
  for (const char *k : {"ownElementsInPlace", "ownElementsOfAView", "gatherFromInput"}) {
    ASSERT_NE(prog->findKernel(k), nullptr) << k;
    EXPECT_FALSE(prog->findKernel(k)->warpScheduled) << k;
  }
}

TEST_F(Lockstep, PlainSharedRotationInALoop) {
  auto out = run("sharedRotateLoop", kN);
  for (int w = 0; w < kN / 32; ++w) {
    std::vector<int> s(in.begin() + w * 32, in.begin() + (w + 1) * 32);
    for (int r = 0; r < 5; ++r)
      step(s, 32, [&](int l, const std::vector<int> &b, std::vector<int> &a) {
        a[l] = b[(l + 1) & 31] + l;
      });
    const int odd =
        static_cast<int>(std::count_if(s.begin(), s.end(), [](int x) { return x & 1; }));
    for (int l = 0; l < 32; ++l)
      EXPECT_EQ(out[w * 32 + l], s[l] + odd) << "thread " << w * 32 + l;
  }
}

TEST_F(Lockstep, PlainReductionStillRight) {
  auto out = run("plainReduce", kBlocks);
  for (int blk = 0; blk < kBlocks; ++blk) {
    int sum = 0;
    for (int t = 0; t < kThreads; ++t)
      sum += in[blk * kThreads + t];
    EXPECT_EQ(out[blk], sum);
  }
}

} // namespace
