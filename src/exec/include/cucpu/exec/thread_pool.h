// The persistent worker pool that runs the blocks of a grid in parallel.
#pragma once

#include "cucpu/exec/fault.h"
#include "kernel_abi.h"

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace cucpu::exec {

// One grid to run: every block index in grid[0] x grid[1] x grid[2] is run exactly once.
struct GridJob {
  cucpu_block_fn fn = nullptr;
  const cucpu_launch *launch = nullptr;
  size_t sharedBytes = 0;     // static + dynamic shared memory per block
  size_t scratchBytes = 0;    // scratch per block
  size_t memoryAlign = 64;    // both start at multiples of this (a power of two)
  unsigned maxThreads = 0;    // threads that may run its blocks at once (0: all of the pool's)
  bool blocksMayWait = false; // its threads may wait for other blocks (yield points)
};

// Outcome of running a grid. After a fault, blocks not yet started are not run.
enum class GridStatus { Ok, OutOfMemory, Fault };
struct GridResult {
  GridStatus status = GridStatus::Ok;
  Fault fault; // the first fault, when status is Fault
};

class ThreadPool {
public:
  // `threads` is the total parallelism: the calling thread takes part, so threads - 1 workers
  // are started. Workers sleep on a condition variable when idle.
  explicit ThreadPool(unsigned threads);
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;
  ~ThreadPool();

  unsigned threads() const { return static_cast<unsigned>(workers_.size()) + 1; }

  // Runs every block of the job and returns when all have finished. Several threads may run
  // grids at once (streams): the workers share themselves among the grids that have blocks left.
  GridResult run(const GridJob &job);

  // Runs a cooperative grid: every block is resident at once (each on a thread of its own), so
  // blocks may wait for each other (cooperative groups' grid.sync()). The caller keeps the grid
  // small (at most threads() blocks) so that every block has a core.
  GridResult runCooperative(const GridJob &job);

private:
  struct Current;
  void workerLoop();
  Current *pickWork();
  static void drain(Current &cur);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::vector<Current *> active_; // grids accepting workers
  bool stop_ = false;
  // With one worker per CPU but one (the default), each worker is pinned to a CPU of its own and
  // `freeCpu_` is left for the launching thread; a launch from a worker's CPU swaps the two
  // (guarded by mutex_). Empty when workers move freely.
  std::vector<int> cpuOf_;
  int freeCpu_ = -1;
  void keepLaunchingCpuFree();
};

// Threads the pool should use: CUCPU_THREADS, else the online CPUs.
unsigned defaultThreadCount();

// Bytes of the largest CPU cache the kernel reports (sysfs), 32 MiB when it reports none.
uint64_t lastLevelCacheBytes();

} // namespace cucpu::exec
