// Blocks that wait for other blocks (block_fibers.h): with fewer workers than waiting blocks each
// finishes, keeps its own shared memory across the switches, and a fault ends waiting blocks.
#include "cucpu/exec/block_fibers.h"
#include "cucpu/exec/thread_pool.h"

#include <atomic>
#include <gtest/gtest.h>
#include <vector>

namespace {

constexpr uint32_t kBlocks = 50;

struct Chain {
  std::vector<std::atomic<int>> done = std::vector<std::atomic<int>>(kBlocks + 1);
  std::vector<int> sum = std::vector<int>(kBlocks + 1);
  std::atomic<int> clobbered{0};
};
Chain *gChain;

// Waits as generated code does: polls `ready`, telling the runtime every 64 rounds in vain.
template <typename Ready> void waitUntil(Ready ready) {
  for (uint32_t rounds = 1; !ready(); ++rounds)
    if (rounds % 64 == 0)
      cucpu::exec::blockWaits(rounds);
}

// Block b waits for block b + 1 (the last starts), then sum[b] = sum[b + 1] + b. Its shared
// memory holds its index throughout.
void chainBlock(const cucpu_launch *, cucpu_block *blk) {
  for (uint32_t k = 0; k <= blk->more; ++k) {
    const uint32_t b = blk->ctaid[0] + k;
    auto *shared = reinterpret_cast<volatile uint32_t *>(blk->shared);
    shared[0] = b;
    if (b + 1 < kBlocks)
      waitUntil([&] { return gChain->done[b + 1].load(std::memory_order_acquire) != 0; });
    if (shared[0] != b)
      gChain->clobbered++;
    gChain->sum[b] = gChain->sum[b + 1] + int(b);
    gChain->done[b].store(1, std::memory_order_release);
  }
}

cucpu::exec::GridResult runGrid(cucpu::exec::ThreadPool &pool, cucpu_block_fn fn) {
  cucpu_launch launch{};
  launch.grid[0] = kBlocks;
  launch.grid[1] = launch.grid[2] = 1;
  launch.block[0] = launch.block[1] = launch.block[2] = 1;
  launch.nthreads = 1;
  cucpu::exec::GridJob job;
  job.fn = fn;
  job.launch = &launch;
  job.sharedBytes = 64;
  job.scratchBytes = 4096;
  job.blocksMayWait = true;
  return pool.run(job);
}

TEST(BlockFibers, BlocksWaitingOnLaterBlocksFinishWithFewWorkers) {
  for (unsigned threads : {1u, 2u, 3u}) {
    cucpu::exec::ThreadPool pool(threads);
    for (int rep = 0; rep < 2; ++rep) {
      Chain chain;
      gChain = &chain;
      ASSERT_EQ(runGrid(pool, chainBlock).status, cucpu::exec::GridStatus::Ok);
      for (uint32_t b = 0; b < kBlocks; ++b)
        ASSERT_EQ(chain.sum[b], int((kBlocks - 1 + b) * (kBlocks - b) / 2)) << "block " << b;
      EXPECT_EQ(chain.clobbered.load(), 0) << threads << " threads";
    }
  }
}

std::atomic<int> gNever{0};

// Block 0 waits for something that never comes; block 7, after waiting for block 9 (so on a
// fiber that was switched out and back), traps.
void faultAfterWaitBlock(const cucpu_launch *, cucpu_block *blk) {
  for (uint32_t k = 0; k <= blk->more; ++k) {
    const uint32_t b = blk->ctaid[0] + k;
    if (b == 0)
      waitUntil([] { return gNever.load() != 0; });
    if (b == 7) {
      waitUntil([] { return gChain->done[9].load() != 0; });
      cucpu::exec::raiseFault(cucpu::exec::FaultKind::Trap);
    }
    gChain->done[b].store(1);
  }
}

TEST(BlockFibers, AFaultEndsTheBlocksThatWait) {
  for (unsigned threads : {1u, 2u}) {
    cucpu::exec::ThreadPool pool(threads);
    Chain chain;
    gChain = &chain;
    auto r = runGrid(pool, faultAfterWaitBlock);
    EXPECT_EQ(r.status, cucpu::exec::GridStatus::Fault);
    EXPECT_EQ(r.fault.kind, cucpu::exec::FaultKind::Trap);
    // The pool keeps working afterwards.
    Chain again;
    gChain = &again;
    EXPECT_EQ(runGrid(pool, chainBlock).status, cucpu::exec::GridStatus::Ok);
    EXPECT_EQ(again.sum[0], int(kBlocks * (kBlocks - 1) / 2));
  }
}

} // namespace
