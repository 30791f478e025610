// The persistent worker pool: workers take chunks of block indices from an atomic counter.
#include "cucpu/exec/thread_pool.h"

#include "cucpu/exec/arena.h"
#include "cucpu/exec/block_fibers.h"
#include "cucpu/support/env.h"
#include "cucpu/support/log.h"
#include "fault_state.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

namespace cucpu::exec {

struct ThreadPool::Current final : BlockSource {
  GridJob job;
  uint64_t total = 0;
  uint64_t chunk = 1;
  std::atomic<uint64_t> next{0};
  std::atomic<bool> outOfMemory{false};
  std::atomic<bool> faulted{false};
  std::mutex faultMutex;
  Fault fault;       // the first fault of the grid
  unsigned busy = 0; // workers inside drain() for this grid (guarded by the pool's mutex)

  GridResult result() {
    if (fault.kind != FaultKind::None)
      return {GridStatus::Fault, fault};
    return {outOfMemory ? GridStatus::OutOfMemory : GridStatus::Ok, {}};
  }
  // A block's memory: shared memory, then scratch from the next multiple of align().
  size_t align() const { return std::max<size_t>(64, job.memoryAlign); }
  size_t scratchOffset() const { return (job.sharedBytes + align() - 1) & ~(align() - 1); }
  bool blocksLeft() const override { return next.load(std::memory_order_relaxed) < total; }
  bool stopped() const override { return faulted.load(std::memory_order_relaxed); }
  void runBlocks(uint8_t *memory) override;
};

namespace {

// Workers may run on every CPU of the machine, whatever pinning the thread that created the pool
// had (an application pinned with OMP_PROC_BIND or taskset would otherwise confine us to one core).
void widenAffinity(pthread_t t) {
  long n = sysconf(_SC_NPROCESSORS_CONF);
  if (n <= 0 || n > CPU_SETSIZE)
    return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (long i = 0; i < n; ++i)
    CPU_SET(i, &set);
  pthread_setaffinity_np(t, sizeof(set), &set); // best effort: cgroups may refuse
}

bool pinTo(pthread_t t, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(t, sizeof(set), &set) == 0;
}

} // namespace

ThreadPool::ThreadPool(unsigned threads) {
  installFaultHandlers();
  unsigned workers = threads > 1 ? threads - 1 : 0;
  workers_.reserve(workers);
  for (unsigned i = 0; i < workers; ++i)
    workers_.emplace_back([this] { workerLoop(); });
  // Pinning: a worker free to move is woken on whichever CPU the scheduler picks, and on virtual
  // machines that is often the busy CPU of the thread that woke it (an idle virtual CPU looks
  // preempted), where it waits milliseconds for the load balancer: 2-5 ms wake-ups were measured
  // on the 2-core development VM, a whole grid's run time. A worker pinned to a CPU of its own
  // is woken there. CUCPU_AFFINITY=0, another thread count or a refused CPU (cgroups): workers
  // may run on every CPU.
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const int first = sched_getcpu();
  bool pinned = env::getBool("CUCPU_AFFINITY", true) && workers > 0 && cpus == long(threads) &&
                cpus <= CPU_SETSIZE && first >= 0;
  for (unsigned i = 0; i < workers && pinned; ++i) {
    cpuOf_.push_back(static_cast<int>((first + 1 + long(i)) % cpus));
    pinned = pinTo(workers_[i].native_handle(), cpuOf_.back());
  }
  if (pinned) {
    freeCpu_ = first;
  } else {
    cpuOf_.clear();
    for (auto &w : workers_)
      widenAffinity(w.native_handle());
  }
  log::debug(log::Component::Exec, "thread pool started with {} threads{}", threads,
             pinned ? ", one worker per CPU" : "");
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lk(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto &t : workers_)
    t.join();
}

void ThreadPool::drain(Current &cur) {
  thread_local Arena arena;
  const size_t bytes = cur.scratchOffset() + cur.job.scratchBytes;
  uint8_t *mem = arena.reserve(bytes, cur.align());
  if (!mem) {
    cur.outOfMemory = true;
    return;
  }
  runBlocksWithFibers(cur, mem, bytes, cur.align());
}

void ThreadPool::Current::runBlocks(uint8_t *memory) {
  cucpu_block blk{};
  blk.shared = memory;
  blk.scratch = memory + scratchOffset();
  const uint32_t gx = job.launch->grid[0], gy = job.launch->grid[1];
  WorkerFaultState &fs = tlsFault;
  for (;;) {
    uint64_t begin = next.fetch_add(chunk, std::memory_order_relaxed);
    if (begin >= total)
      return;
    uint64_t end = std::min(begin + chunk, total);
    // A fault in generated code (signal, trap, assert) jumps back here.
    if (sigsetjmp(fs.jump, 0)) {
      std::lock_guard lk(faultMutex);
      if (fault.kind == FaultKind::None)
        fault = fs.fault;
      faulted.store(true, std::memory_order_relaxed);
      next.store(total, std::memory_order_relaxed); // start no more blocks
      return;
    }
    fs.armed = true;
    // One call runs many consecutive blocks (the block function steps ctaid itself).
    for (uint64_t i = begin; i < end;) {
      uint64_t n = std::min<uint64_t>(end - i, uint64_t(1) << 30);
      blk.ctaid[0] = static_cast<uint32_t>(i % gx);
      blk.ctaid[1] = static_cast<uint32_t>((i / gx) % gy);
      blk.ctaid[2] = static_cast<uint32_t>(i / (uint64_t(gx) * gy));
      blk.more = static_cast<uint32_t>(n - 1);
      job.fn(job.launch, &blk);
      i += n;
    }
    fs.armed = false;
  }
}

GridResult ThreadPool::run(const GridJob &job) {
  Current cur;
  cur.job = job;
  cur.total = uint64_t(job.launch->grid[0]) * job.launch->grid[1] * job.launch->grid[2];
  if (cur.total == 0)
    return {};
  const unsigned parallel = job.maxThreads ? std::min(job.maxThreads, threads()) : threads();
  // Blocks that may wait for others are taken one at a time, so a block waiting on a later one
  // never holds it back in its own chunk.
  cur.chunk = job.blocksMayWait ? 1 : std::max<uint64_t>(1, cur.total / (uint64_t(parallel) * 8));
  if (workers_.empty() || parallel == 1 || cur.total <= cur.chunk) {
    drain(cur); // one chunk: no worker needs waking
    return cur.result();
  }
  {
    std::lock_guard lk(mutex_);
    keepLaunchingCpuFree();
    active_.push_back(&cur);
  }
  wake_.notify_all();
  drain(cur);
  {
    std::unique_lock lk(mutex_);
    std::erase(active_, &cur); // late workers no longer join
    done_.wait(lk, [&] { return cur.busy == 0; });
  }
  return cur.result();
}

GridResult ThreadPool::runCooperative(const GridJob &job) {
  Current cur;
  cur.job = job;
  cur.total = uint64_t(job.launch->grid[0]) * job.launch->grid[1] * job.launch->grid[2];
  cur.chunk = 1;
  std::vector<std::thread> blocks;
  for (uint64_t i = 1; i < cur.total; ++i)
    blocks.emplace_back([&cur] {
      widenAffinity(pthread_self());
      ensureAltStack();
      drain(cur);
    });
  drain(cur);
  for (auto &t : blocks)
    t.join();
  return cur.result();
}

// A grid that still has blocks nobody has taken, or null.
ThreadPool::Current *ThreadPool::pickWork() {
  for (Current *c : active_) {
    // The launching thread runs blocks too: a grid limited to n threads takes n - 1 workers.
    const bool full = c->job.maxThreads && c->busy + 1 >= c->job.maxThreads;
    if (!full && c->next.load(std::memory_order_relaxed) < c->total)
      return c;
  }
  return nullptr;
}

// A launch from a pinned worker's CPU: that worker takes the free CPU instead, so the launching
// thread and the worker do not share a CPU while another idles. Called with mutex_ held.
void ThreadPool::keepLaunchingCpuFree() {
  if (cpuOf_.empty())
    return;
  const int here = sched_getcpu();
  if (here == freeCpu_)
    return;
  for (size_t w = 0; w < cpuOf_.size(); ++w)
    if (cpuOf_[w] == here && pinTo(workers_[w].native_handle(), freeCpu_)) {
      cpuOf_[w] = freeCpu_;
      freeCpu_ = here;
      return;
    }
}

void ThreadPool::workerLoop() {
  ensureAltStack();
  for (;;) {
    Current *cur = nullptr;
    {
      std::unique_lock lk(mutex_);
      wake_.wait(lk, [&] { return stop_ || (cur = pickWork()) != nullptr; });
      if (stop_)
        return;
      ++cur->busy;
    }
    drain(*cur);
    {
      std::lock_guard lk(mutex_);
      if (--cur->busy == 0)
        done_.notify_all();
    }
  }
}

unsigned defaultThreadCount() {
  // Deterministic execution: the launching thread alone runs every block, in index order.
  if (env::getBool("CUCPU_DETERMINISTIC", false))
    return 1;
  int64_t n = env::getInt("CUCPU_THREADS", 0);
  if (n > 0)
    return static_cast<unsigned>(std::min<int64_t>(n, 1024));
  // Not the calling thread's affinity: the application may have pinned it to one core.
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return cpus > 0 ? static_cast<unsigned>(cpus) : 1;
}

uint64_t lastLevelCacheBytes() {
  static const uint64_t bytes = [] {
    uint64_t largest = 0;
    for (int index = 0; index < 8; ++index) {
      std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) +
                       "/size");
      uint64_t n = 0;
      char unit = 0;
      if (!(in >> n))
        continue;
      in >> unit;
      n <<= unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : 0;
      largest = std::max(largest, n);
    }
    return largest ? largest : uint64_t(32) << 20;
  }();
  return bytes;
}

} // namespace cucpu::exec
