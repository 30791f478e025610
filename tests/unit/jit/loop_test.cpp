// JIT: block-uniform loops get implicit barriers at their heads (each iteration a thread loop);
// results against exact host references, for full blocks, early exits and a lone thread.
#include "run_grid.h"

#include <algorithm>
#include <cstdlib>
#include <gtest/gtest.h>

namespace {

struct LoopBarriers : ::testing::Test {
  void SetUp() override {
    prog = load(readSource("tests/unit/jit/loop_kernels.ptx"));
    ASSERT_TRUE(prog);
  }
  std::unique_ptr<cucpu::jit::Program> prog;
};

// The loops were given barriers (more regions than the kernels' own barriers make), unless the
// warp scheduler runs them.
TEST_F(LoopBarriers, LoopHeadsBecomeRegions) {
  const auto *k = prog->findKernel("stridedSums");
  ASSERT_NE(k, nullptr);
  if (k->warpScheduled)
    GTEST_SKIP() << "the warp scheduler keeps loops inside threads";
  if (const char *e = std::getenv("CUCPU_LOOP_BARRIERS"); e && std::string(e) == "0")
    GTEST_SKIP() << "loop barriers disabled";
  EXPECT_GT(k->regions, 2u); // entry + the __syncthreads + at least one loop head
  EXPECT_GT(prog->findKernel("naiveMatMul")->regions, 1u);
  // Thread-varying trip counts too: entry, the loop head, the __syncthreads.
  EXPECT_GT(prog->findKernel("varyingTripCounts")->regions, 2u);
}

TEST_F(LoopBarriers, StridedSumsWithEarlyExitsAndABarrier) {
  const int n = 64, blocks = 3;
  for (auto [k, live] : {std::pair{13, 64}, std::pair{8, 40}, std::pair{1, 64}, std::pair{0, 5}}) {
    std::vector<int> in(size_t(blocks) * n * std::max(k, 1)), out(blocks * n, -9);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = int(i * 7 % 23) - 11;
    int *pi = in.data(), *po = out.data();
    uint32_t grid[3] = {blocks, 1, 1}, block[3] = {n, 1, 1};
    runGrid(*prog, "stridedSums", grid, block, {&pi, &po, &k, &live}, 0, 2);
    for (int b = 0; b < blocks; ++b) {
      std::vector<int> sums(n, 0);
      for (int t = 0; t < live; ++t)
        for (int j = 0; j < k; ++j)
          sums[t] += in[size_t(b) * n * k + j * n + t] * (j + 1);
      for (int t = 0; t < n; ++t) {
        int want = t < live ? sums[t] + sums[(t + 1) % live] : -9;
        ASSERT_EQ(out[b * n + t], want)
            << "k " << k << " live " << live << " b " << b << " t " << t;
      }
    }
  }
}

// nvcc unrolls the strided loop 16 and 4 times; each load then gets an implicit barrier of its
// own (a row across the threads), and threads leave after 1 to 7 iterations.
TEST_F(LoopBarriers, UnrolledStridedLoadsWithVaryingTripCounts) {
  const int n = 64, blocks = 2;
  for (int rounds : {7, 4, 1}) {
    std::vector<int> in(size_t(blocks) * 256 * rounds), out(blocks * n, -1);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = int(i * 13 % 101) - 50;
    int *pi = in.data(), *po = out.data();
    uint32_t grid[3] = {blocks, 1, 1}, block[3] = {n, 1, 1};
    runGrid(*prog, "unrolledStrided", grid, block, {&pi, &po, &rounds}, 0, 2);
    for (int b = 0; b < blocks; ++b) {
      std::vector<int> sums(n);
      for (int t = 0; t < n; ++t) {
        const int *p = in.data() + size_t(b) * 256 * rounds + t;
        int sum = 0;
        for (int k = 0; k < rounds - t % 3; ++k, p += 256) {
          sum += p[0] * (4 * k + 1);
          sum ^= p[64];
          sum += p[128] * 3;
          sum -= p[192];
        }
        sums[t] = sum;
      }
      for (int t = 0; t < n; ++t)
        ASSERT_EQ(out[b * n + t], sums[t] + sums[(t + 1) % n])
            << "rounds " << rounds << " b " << b << " t " << t;
    }
  }
}

TEST_F(LoopBarriers, OuterLoopBarrierWaitsForThreadsStillInTheInnerLoop) {
  for (int rounds : {1, 2, 5}) {
    std::vector<int> out(2 * 64, -1);
    int *po = out.data();
    uint32_t grid[3] = {2, 1, 1}, block[3] = {64, 1, 1};
    runGrid(*prog, "doubleBufferedRounds", grid, block, {&po, &rounds}, 0, 2);
    int s[2][64] = {}, acc[64] = {};
    for (int r = 0; r < rounds; ++r) {
      int *buf = s[r & 1], next[64];
      for (int t = 0; t < 64; ++t)
        buf[t] = acc[t] + r * 1000 + t;
      for (int t = 0; t < 64; ++t) {
        int sum = 0;
        for (int k = 0; k < (t % 4) * 3 + 1; ++k)
          sum += buf[(t + 7 * k) % 64];
        next[t] = sum & 0xffff;
      }
      std::copy(next, next + 64, acc);
    }
    for (int b = 0; b < 2; ++b)
      for (int t = 0; t < 64; ++t)
        ASSERT_EQ(out[b * 64 + t], acc[t]) << "rounds " << rounds << " b " << b << " t " << t;
  }
}

TEST_F(LoopBarriers, NaiveMatrixProductWithBoundsChecks) {
  const int m = 37, q = 29, p = 45; // not multiples of the 16 x 8 block: edge blocks have exits
  std::vector<int> a(m * q), bm(q * p), c(m * p, -1);
  for (int i = 0; i < m * q; ++i)
    a[i] = i % 13 - 6;
  for (int i = 0; i < q * p; ++i)
    bm[i] = i % 7 - 3;
  int *pa = a.data(), *pb = bm.data(), *pc = c.data();
  int mm = m, qq = q, pp = p;
  uint32_t grid[3] = {(p + 15) / 16, (m + 7) / 8, 1}, block[3] = {16, 8, 1};
  runGrid(*prog, "naiveMatMul", grid, block, {&pa, &pb, &pc, &mm, &qq, &pp}, 0, 4);
  for (int r = 0; r < m; ++r)
    for (int col = 0; col < p; ++col) {
      int want = 0;
      for (int k = 0; k < q; ++k)
        want += a[r * q + k] * bm[k * p + col];
      ASSERT_EQ(c[r * p + col], want) << r << "," << col;
    }
}

TEST_F(LoopBarriers, SerialLoopInOneThreadOfTheBlock) {
  const int n = 1000, blocks = 2;
  std::vector<int> in(n), out(blocks, 0);
  for (int i = 0; i < n; ++i)
    in[i] = i % 5;
  int *pi = in.data(), *po = out.data();
  int nn = n;
  uint32_t grid[3] = {blocks, 1, 1}, block[3] = {128, 1, 1};
  runGrid(*prog, "serialInOneThread", grid, block, {&pi, &po, &nn});
  uint32_t want = 0; // wraps like the kernel's 32-bit arithmetic
  for (int i = 0; i < n; ++i)
    want = want * 3 + uint32_t(in[i]);
  EXPECT_EQ(uint32_t(out[0]), want);
  EXPECT_EQ(uint32_t(out[1]), want);
}

// Threads leave the loop after different numbers of iterations and wait at the barrier after it.
TEST_F(LoopBarriers, ThreadVaryingTripCountsThenABarrier) {
  const unsigned n = 96, blocks = 3;
  std::vector<int> in(blocks * n), out(blocks * n, -1);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = int(i % 17) - 8;
  int *pi = in.data(), *po = out.data();
  uint32_t grid[3] = {blocks, 1, 1}, block[3] = {n, 1, 1};
  runGrid(*prog, "varyingTripCounts", grid, block, {&pi, &po}, 0, 2);
  for (unsigned b = 0; b < blocks; ++b) {
    auto sum = [&](unsigned t) {
      int acc = 0;
      for (int j = 0; j < int(t * 7 % 11); ++j)
        acc += in[b * n + j] * j;
      return acc;
    };
    for (unsigned t = 0; t < n; ++t)
      ASSERT_EQ(out[b * n + t], sum(t) + sum((t + 1) % n)) << "block " << b << " thread " << t;
  }
}

// A grid-stride loop with shared atomics whose last round only some threads take. The loop runs
// four iterations per region (unrolled): 320 threads with 1283, 1700, 2900 words take 4 or 5, 5
// or 6, 9 or 10 iterations, leaving from every copy of the body.
TEST_F(LoopBarriers, GridStrideLoopWithSharedAtomics) {
  for (unsigned n : {1000u, 320u, 7u, 1283u, 1700u, 2900u}) {
    std::vector<unsigned> words(n), hist(64, 0), want(64, 0);
    for (unsigned i = 0; i < n; ++i) {
      words[i] = i * 2654435761u;
      ++want[words[i] & 63u];
      ++want[(words[i] >> 8) & 63u];
    }
    unsigned *pw = words.data(), *ph = hist.data();
    unsigned nn = n;
    uint32_t grid[3] = {5, 1, 1}, block[3] = {64, 1, 1};
    runGrid(*prog, "gridStrideHistogram", grid, block, {&pw, &nn, &ph}, 0, 3);
    for (unsigned b = 0; b < 64; ++b)
      ASSERT_EQ(hist[b], want[b]) << "n " << n << " bin " << b;
  }
}

} // namespace
