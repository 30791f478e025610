// Thread pool: every block of a grid runs exactly once, with its own shared memory.
#include "cucpu/exec/thread_pool.h"

#include <atomic>
#include <gtest/gtest.h>
#include <map>
#include <mutex>
#include <pthread.h>
#include <sched.h>
#include <set>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

// Calls one(ctaid) for each of the 1 + b->more blocks a call covers, in linear order (the
// block-function contract of kernel_abi.h).
template <typename F> void eachBlock(const cucpu_launch *l, const cucpu_block *b, F one) {
  uint32_t c[3] = {b->ctaid[0], b->ctaid[1], b->ctaid[2]};
  for (uint64_t k = 0; k <= b->more; ++k) {
    one(c);
    if (++c[0] == l->grid[0]) {
      c[0] = 0;
      if (++c[1] == l->grid[1]) {
        c[1] = 0;
        ++c[2];
      }
    }
  }
}

struct Counts {
  std::vector<std::atomic<int>> hits;
  std::atomic<int> sharedClobbered{0};
};
Counts *gCounts;

// A hand-written block function: counts its block and checks that shared memory is private.
void countBlock(const cucpu_launch *l, cucpu_block *b) {
  eachBlock(l, b, [&](const uint32_t *c) {
    uint64_t id = c[0] + uint64_t(l->grid[0]) * (c[1] + uint64_t(l->grid[1]) * c[2]);
    auto *shared = reinterpret_cast<volatile uint64_t *>(b->shared);
    shared[0] = id;
    for (int i = 0; i < 100; ++i)
      if (shared[0] != id)
        gCounts->sharedClobbered++;
    gCounts->hits[id]++;
  });
}

void runGrid(unsigned threads, uint32_t gx, uint32_t gy, uint32_t gz) {
  cucpu::exec::ThreadPool pool(threads);
  Counts counts;
  counts.hits = std::vector<std::atomic<int>>(size_t(gx) * gy * gz);
  gCounts = &counts;
  cucpu_launch launch{};
  launch.grid[0] = gx;
  launch.grid[1] = gy;
  launch.grid[2] = gz;
  launch.block[0] = launch.block[1] = launch.block[2] = 1;
  launch.nthreads = 1;
  cucpu::exec::GridJob job;
  job.fn = countBlock;
  job.launch = &launch;
  job.sharedBytes = 64;
  for (int rep = 0; rep < 3; ++rep)
    ASSERT_EQ(pool.run(job).status, cucpu::exec::GridStatus::Ok);
  for (size_t i = 0; i < counts.hits.size(); ++i)
    ASSERT_EQ(counts.hits[i].load(), 3) << "block " << i;
  EXPECT_EQ(counts.sharedClobbered.load(), 0);
}

TEST(ThreadPool, OneThreadRunsEveryBlockOnce) { runGrid(1, 37, 3, 2); }
TEST(ThreadPool, FourThreadsRunEveryBlockOnce) { runGrid(4, 1000, 7, 3); }
TEST(ThreadPool, SingleBlockGrid) { runGrid(3, 1, 1, 1); }
TEST(ThreadPool, EmptyGridIsANoOp) { runGrid(2, 0, 1, 1); }

TEST(ThreadPool, DefaultThreadCountHonoursEnvironment) {
  setenv("CUCPU_THREADS", "7", 1);
  EXPECT_EQ(cucpu::exec::defaultThreadCount(), 7u);
  unsetenv("CUCPU_THREADS");
  EXPECT_GE(cucpu::exec::defaultThreadCount(), 1u);
}

} // namespace

namespace {

std::atomic<int> blocksRun{0};
// An unmapped address the compiler cannot see through.
volatile uintptr_t badAddress = 0x10;

// Block 5 writes through a bad pointer; every other block counts itself.
void faultingBlock(const cucpu_launch *l, cucpu_block *b) {
  eachBlock(l, b, [](const uint32_t *c) {
    if (c[0] == 5)
      *reinterpret_cast<volatile int *>(badAddress) = 1;
    blocksRun++;
  });
}

void trappingBlock(const cucpu_launch *l, cucpu_block *b) {
  eachBlock(l, b, [](const uint32_t *c) {
    if (c[0] == 2)
      cucpu::exec::raiseFault(cucpu::exec::FaultKind::Trap);
    blocksRun++;
  });
}

cucpu::exec::GridResult runOne(cucpu::exec::ThreadPool &pool, cucpu_block_fn fn, uint32_t blocks) {
  cucpu_launch launch{};
  launch.grid[0] = blocks;
  launch.grid[1] = launch.grid[2] = 1;
  launch.block[0] = launch.block[1] = launch.block[2] = 1;
  launch.nthreads = 1;
  cucpu::exec::GridJob job;
  job.fn = fn;
  job.launch = &launch;
  return pool.run(job);
}

TEST(ThreadPoolFaults, BadAddressEndsTheGridNotTheProcess) {
  for (unsigned threads : {1u, 2u, 4u}) {
    cucpu::exec::ThreadPool pool(threads);
    blocksRun = 0;
    auto r = runOne(pool, faultingBlock, 200);
    EXPECT_EQ(r.status, cucpu::exec::GridStatus::Fault);
    EXPECT_EQ(r.fault.kind, cucpu::exec::FaultKind::IllegalAddress);
    EXPECT_EQ(r.fault.address, 0x10u);
    EXPECT_LT(blocksRun.load(), 200);
    // The pool keeps working afterwards.
    blocksRun = 0;
    r = runOne(pool, trappingBlock, 1);
    EXPECT_EQ(r.status, cucpu::exec::GridStatus::Ok);
    EXPECT_EQ(blocksRun.load(), 1);
  }
}

TEST(ThreadPoolFaults, TrapRaisedByAServiceIsReported) {
  cucpu::exec::ThreadPool pool(2);
  auto r = runOne(pool, trappingBlock, 50);
  EXPECT_EQ(r.status, cucpu::exec::GridStatus::Fault);
  EXPECT_EQ(r.fault.kind, cucpu::exec::FaultKind::Trap);
}

TEST(ThreadPoolFaults, FaultsOutsideKernelsStillReachTheApplication) {
  cucpu::exec::ThreadPool pool(1); // installs the handlers
  EXPECT_DEATH(*reinterpret_cast<volatile int *>(badAddress) = 1, "");
}

} // namespace

namespace {

std::atomic<int> perGrid[4];

template <int G> void countInGrid(const cucpu_launch *l, cucpu_block *b) {
  eachBlock(l, b, [](const uint32_t *) { perGrid[G]++; });
}

TEST(ThreadPoolConcurrency, GridsFromSeveralThreadsShareTheWorkers) {
  cucpu::exec::ThreadPool pool(3);
  cucpu_block_fn fns[4] = {countInGrid<0>, countInGrid<1>, countInGrid<2>, countInGrid<3>};
  std::vector<std::thread> callers;
  for (int g = 0; g < 4; ++g) {
    perGrid[g] = 0;
    callers.emplace_back([&, g] {
      for (int rep = 0; rep < 20; ++rep) {
        cucpu_launch launch{};
        launch.grid[0] = 97 + g;
        launch.grid[1] = launch.grid[2] = 1;
        launch.block[0] = launch.block[1] = launch.block[2] = 1;
        launch.nthreads = 1;
        cucpu::exec::GridJob job;
        job.fn = fns[g];
        job.launch = &launch;
        EXPECT_EQ(pool.run(job).status, cucpu::exec::GridStatus::Ok);
      }
    });
  }
  for (auto &t : callers)
    t.join();
  for (int g = 0; g < 4; ++g)
    EXPECT_EQ(perGrid[g].load(), 20 * (97 + g)) << g;
}

// Lets this thread run on every CPU again.
void widen() {
  cpu_set_t all;
  CPU_ZERO(&all);
  for (long c = 0; c < sysconf(_SC_NPROCESSORS_CONF) && c < CPU_SETSIZE; ++c)
    CPU_SET(c, &all);
  pthread_setaffinity_np(pthread_self(), sizeof all, &all);
}

// Which CPUs each thread that ran blocks may use, by thread.
std::mutex gAffinityMutex;
std::map<std::thread::id, std::set<int>> gAffinity;

void recordAffinity(const cucpu_launch *, cucpu_block *) {
  cpu_set_t set;
  CPU_ZERO(&set);
  pthread_getaffinity_np(pthread_self(), sizeof set, &set);
  std::set<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set))
      cpus.insert(c);
  std::lock_guard lk(gAffinityMutex); // (also keeps the block long enough for workers to join)
  gAffinity[std::this_thread::get_id()] = cpus;
}

// With a thread per CPU, every worker is pinned to a CPU of its own, and not to the CPU the
// launching thread is on (the pool moves the worker that was there).
TEST(ThreadPoolAffinity, OneWorkerPerCpuAwayFromTheLaunchingThread) {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (cpus < 2)
    GTEST_SKIP() << "one CPU: no workers";
  cucpu::exec::ThreadPool pool(static_cast<unsigned>(cpus));
  // Launch from each CPU in turn (where this thread may go there).
  for (int from = 0; from < cpus; ++from) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(from, &one);
    if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0)
      continue;
    gAffinity.clear();
    for (int rep = 0; rep < 20 && gAffinity.size() < size_t(cpus); ++rep) {
      cucpu_launch launch{};
      launch.grid[0] = 256;
      launch.grid[1] = launch.grid[2] = 1;
      launch.block[0] = launch.block[1] = launch.block[2] = 1;
      launch.nthreads = 1;
      cucpu::exec::GridJob job;
      job.fn = recordAffinity;
      job.launch = &launch;
      ASSERT_EQ(pool.run(job).status, cucpu::exec::GridStatus::Ok);
    }
    std::set<int> used;
    for (const auto &[id, set] : gAffinity) {
      if (id == std::this_thread::get_id())
        continue;
      ASSERT_EQ(set.size(), 1u) << "a worker may move";
      EXPECT_NE(*set.begin(), from) << "a worker shares the launching thread's CPU";
      EXPECT_TRUE(used.insert(*set.begin()).second) << "two workers share CPU " << *set.begin();
    }
  }
  widen();
}

} // namespace
