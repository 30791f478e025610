// Forward progress between blocks: fibers (ucontext) that let a worker run other blocks while one
// waits. A GPU keeps many blocks resident and runs the others while one spins; a worker here runs
// one block at a time, so a block waiting on a later block (or one suspended on this worker)
// would wait forever. Switches happen only inside blockWaits(), called from generated code.
#include "cucpu/exec/block_fibers.h"

#include "cucpu/support/log.h"
#include "fault_state.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sched.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <vector>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUCPU_FIBERS_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define CUCPU_FIBERS_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(CUCPU_FIBERS_ASAN)
#define CUCPU_FIBERS_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__) && !defined(CUCPU_FIBERS_TSAN)
#define CUCPU_FIBERS_TSAN 1
#endif
#ifdef CUCPU_FIBERS_ASAN
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef CUCPU_FIBERS_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace cucpu::exec {

namespace {

// A block that has waited this many rounds may start a block not yet started on a new fiber;
// before that it only takes turns with the fibers there are (a block on another worker usually
// gets there first, as in decoupled look-back).
constexpr uint32_t kStartAfter = 256;
// With nothing else to run here, a block waiting this long lets the CPU go to other threads.
constexpr uint32_t kYieldAfter = 1024;
// Per worker: as many blocks as a GPU keeps resident in all, within a memory budget.
constexpr size_t kMaxFibers = 1024;
constexpr size_t kMaxFiberMemory = size_t(1) << 30;
constexpr size_t kStackBytes = size_t(8) << 20; // as a thread's default stack
constexpr size_t kGuardBytes = 64 * 1024;

struct Fiber {
  ucontext_t context{};
  uint8_t *mapping = nullptr; // guard region then stack (none for the thread's own context)
  uint8_t *memory = nullptr;  // the block's shared memory and scratch (owned unless the first)
  bool finished = false;
  // The thread's fault state while this fiber is switched out (fault_state.h).
  sigjmp_buf jump;
  bool armed = false;
  const void *stackBottom = nullptr; // for AddressSanitizer
  size_t stackSize = 0;
#ifdef CUCPU_FIBERS_TSAN
  void *tsan = nullptr;
#endif

  ~Fiber() {
    if (mapping) {
      munmap(mapping, kGuardBytes + kStackBytes);
      std::free(memory);
    }
  }
};

class Fibers {
public:
  Fibers(BlockSource &source, uint8_t *memory, size_t memoryBytes, size_t align)
      : source_(source), memoryBytes_(memoryBytes), align_(align) {
    auto self = std::make_unique<Fiber>();
    self->memory = memory;
#ifdef CUCPU_FIBERS_TSAN
    self->tsan = __tsan_get_current_fiber();
#endif
    fibers_.push_back(std::move(self));
  }
  ~Fibers() {
#ifdef CUCPU_FIBERS_TSAN
    for (size_t i = 1; i < fibers_.size(); ++i)
      __tsan_destroy_fiber(fibers_[i]->tsan);
#endif
  }

  BlockSource &source() { return source_; }
  Fiber &current() { return *fibers_[current_]; }

  // The thread's own context, once its blocks are done: runs the other fibers until all are.
  void finishOthers() {
    fibers_[0]->finished = true;
    for (size_t next = nextLive(); next != kNone; next = nextLive())
      switchTo(next, false);
    if (fibers_.size() > 1)
      log::debug(log::Component::Exec, "a worker started {} fibers while blocks waited",
                 fibers_.size() - 1);
  }

  // A block of the current fiber waits: start a new one, or take turns with the others.
  void wait(uint32_t rounds) {
    if (rounds >= kStartAfter && source_.blocksLeft() && start())
      return;
    if (size_t next = nextLive(); next != kNone) {
      switchTo(next, false);
      return;
    }
    if (rounds >= kYieldAfter)
      sched_yield();
  }

  // Entry of a new fiber: runs blocks, then hands the thread back to its own context.
  static void entry();

private:
  static constexpr size_t kNone = ~size_t(0);

  // The next unfinished fiber after the current one, round robin; kNone when there is none.
  size_t nextLive() const {
    for (size_t k = 1; k < fibers_.size(); ++k) {
      size_t i = (current_ + k) % fibers_.size();
      if (!fibers_[i]->finished)
        return i;
    }
    return kNone;
  }

  bool start() {
    if (fibers_.size() >= kMaxFibers || fibers_.size() * memoryBytes_ >= kMaxFiberMemory)
      return false;
    auto f = std::make_unique<Fiber>();
    void *map = mmap(nullptr, kGuardBytes + kStackBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (map == MAP_FAILED)
      return false;
    f->mapping = static_cast<uint8_t *>(map);
    mprotect(f->mapping, kGuardBytes, PROT_NONE); // an overflow faults instead of corrupting
    const size_t bytes = (std::max<size_t>(memoryBytes_, 1) + align_ - 1) & ~(align_ - 1);
    f->memory = static_cast<uint8_t *>(std::aligned_alloc(align_, bytes));
    if (!f->memory || getcontext(&f->context) != 0)
      return false;
    f->context.uc_stack.ss_sp = f->mapping + kGuardBytes;
    f->context.uc_stack.ss_size = kStackBytes;
    f->context.uc_link = nullptr;
    f->stackBottom = f->mapping + kGuardBytes;
    f->stackSize = kStackBytes;
    makecontext(&f->context, &Fibers::entry, 0);
#ifdef CUCPU_FIBERS_TSAN
    f->tsan = __tsan_create_fiber(0);
#endif
    fibers_.push_back(std::move(f));
    switchTo(fibers_.size() - 1, false);
    return true;
  }

  // Saves the thread's fault state with the current fiber, runs `next`, and restores it when
  // the current fiber runs again. `leaving`: the current fiber never runs again.
  void switchTo(size_t next, bool leaving) {
    Fiber &from = current();
    Fiber &to = *fibers_[next];
    std::memcpy(from.jump, tlsFault.jump, sizeof(sigjmp_buf));
    from.armed = tlsFault.armed;
    previous_ = current_;
    current_ = next;
#ifdef CUCPU_FIBERS_ASAN
    void *fakeStack = nullptr;
    __sanitizer_start_switch_fiber(leaving ? nullptr : &fakeStack, to.stackBottom, to.stackSize);
#else
    (void)leaving;
#endif
#ifdef CUCPU_FIBERS_TSAN
    __tsan_switch_to_fiber(to.tsan, 0);
#endif
    swapcontext(&from.context, &to.context);
#ifdef CUCPU_FIBERS_ASAN
    arrived(fakeStack);
#endif
    std::memcpy(tlsFault.jump, from.jump, sizeof(sigjmp_buf));
    tlsFault.armed = from.armed;
  }

  // Completes a switch for AddressSanitizer: learns the stack of the fiber switched away from
  // (the thread's own stack is known only this way).
  void arrived([[maybe_unused]] void *fakeStack) {
#ifdef CUCPU_FIBERS_ASAN
    Fiber &from = *fibers_[previous_];
    __sanitizer_finish_switch_fiber(fakeStack, &from.stackBottom, &from.stackSize);
#endif
  }

  BlockSource &source_;
  size_t memoryBytes_;
  size_t align_;
  std::vector<std::unique_ptr<Fiber>> fibers_; // [0]: the thread's own context
  size_t current_ = 0;
  size_t previous_ = 0;
};

thread_local Fibers *tlsFibers = nullptr;

void Fibers::entry() {
  Fibers &w = *tlsFibers;
  w.arrived(nullptr);
  Fiber &me = w.current();
  tlsFault.armed = false;
  w.source_.runBlocks(me.memory);
  me.finished = true;
  w.switchTo(0, true); // the thread's own context frees this fiber once all have finished
  std::abort();        // never resumed
}

} // namespace

void runBlocksWithFibers(BlockSource &source, uint8_t *memory, size_t memoryBytes, size_t align) {
  Fibers fibers(source, memory, memoryBytes, align);
  Fibers *outer = tlsFibers;
  tlsFibers = &fibers;
  source.runBlocks(memory);
  fibers.finishOthers();
  tlsFibers = outer;
}

void blockWaits(uint32_t rounds) {
  Fibers *w = tlsFibers;
  if (!w) {
    if (rounds >= kYieldAfter)
      sched_yield();
    return;
  }
  if (w->source().stopped())
    raiseFault(FaultKind::None); // ends this block; the grid's fault is already recorded
  w->wait(rounds);
}

} // namespace cucpu::exec
