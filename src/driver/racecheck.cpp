// racecheck: shared-memory hazards between threads of a block within one barrier interval.
// Each 4-byte word of a block's shared window has a shadow: its last writer and last reader
// (thread, access site, interval). A write after another thread's write (of a different value)
// or read, and a read after another thread's write, in the same interval, is a hazard. The
// threads of a block run one after another between barriers here, so a pair is found whatever
// order the GPU would have run it in; it is named in source order, as compute-sanitizer does.
#include "cucpu/driver/sanitizer.h"

#include "cucpu/support/log.h"
#include "kernel_abi.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace cucpu::driver::sanitizer {
namespace {

struct Word {
  uint64_t writeInterval = 0, readInterval = 0;
  uint64_t writeSync = 0, readSync = 0; // the writer's, last reader's warp synchronisation then
  const cucpu_access_site *writer = nullptr, *reader = nullptr;
  uint32_t writeThread = 0, readThread = 0;
  bool manyReaders = false; // threads other than readThread read in the interval too
  bool manyWarps = false;   // ... and some in other warps than readThread's
};

struct Shadow {
  uint64_t interval = 0;
  uint64_t syncs = 0;             // warp synchronisations so far, numbering each
  std::vector<uint64_t> warpSync; // per warp: the number of its last synchronisation
  std::vector<Word> words;
  uint64_t syncOf(uint32_t warp) const { return warp < warpSync.size() ? warpSync[warp] : 0; }
};

// The shadows of the shared windows blocks run on (the pool reuses a worker's window for its
// blocks, so intervals only grow and an old word never looks current).
std::mutex shadowsMutex;
std::unordered_map<void *, Shadow> *shadows = new std::unordered_map<void *, Shadow>();

Shadow &shadowOf(void *shared) {
  thread_local void *lastWindow = nullptr;
  thread_local Shadow *last = nullptr;
  if (shared != lastWindow) {
    std::lock_guard lk(shadowsMutex);
    last = &(*shadows)[shared];
    lastWindow = shared;
  }
  return *last;
}

} // namespace

struct RaceLog::Impl {
  struct Pair {
    uint64_t hazards = 0;
    bool acrossWarps = false; // an error; between lanes of one warp only, a warning (as on a GPU)
  };
  // (earlier access, later access in source order) -> the hazards between them
  std::mutex mutex;
  std::map<std::pair<const cucpu_access_site *, const cucpu_access_site *>, Pair> pairs;

  void hazard(const cucpu_access_site *a, const cucpu_access_site *b, bool acrossWarps) {
    if (std::tie(b->ptx_line, b->access) < std::tie(a->ptx_line, a->access))
      std::swap(a, b);
    std::lock_guard lk(mutex);
    Pair &p = pairs[{a, b}];
    ++p.hazards;
    p.acrossWarps = p.acrossWarps || acrossWarps;
  }
};

RaceLog::RaceLog() : impl_(std::make_unique<Impl>()) {}
RaceLog::~RaceLog() = default;

void RaceLog::barrier(void *shared, uint32_t warp) {
  Shadow &s = shadowOf(shared);
  if (warp == ~0u) {
    ++s.interval;
    return;
  }
  if (s.warpSync.size() <= warp)
    s.warpSync.resize(warp + 1);
  s.warpSync[warp] = ++s.syncs;
}

void RaceLog::access(const cucpu_access_site *site, uint64_t offset, const uint32_t *where,
                     const uint32_t block[3], uint64_t value, void *shared) {
  Shadow &s = shadowOf(shared);
  const uint32_t thread = where[3] + block[0] * (where[4] + block[1] * where[5]);
  const uint32_t warp = thread / 32;
  const uint64_t sync = s.syncOf(warp);
  const uint64_t first = offset / 4, last = (offset + std::max(1u, site->bytes) - 1) / 4;
  if (s.words.size() <= last)
    s.words.resize(last + 1);
  const bool write = site->access == CUCPU_ACCESS_WRITE;
  bool sameValue = false;
  if (write && site->bytes <= 8) { // the earlier store's bits are in memory: ours are not yet
    uint64_t now = 0;
    std::memcpy(&now, static_cast<const char *>(shared) + offset, site->bytes);
    sameValue = now == value;
  }
  // Another thread's access of this interval is unordered with ours, unless it is in our warp
  // and the warp has synchronised since.
  auto unordered = [&](uint32_t other, uint64_t otherSync) {
    return other != thread && (other / 32 != warp || otherSync == sync);
  };
  const cucpu_access_site *found = nullptr, *other = nullptr;
  uint32_t otherThread = 0;
  for (uint64_t i = first; i <= last; ++i) {
    Word &w = s.words[i];
    const bool written = w.writeInterval == s.interval && unordered(w.writeThread, w.writeSync);
    if (write) {
      const bool read =
          w.readInterval == s.interval &&
          (w.manyWarps || (w.manyReaders && w.readThread / 32 != warp) ||
           (w.manyReaders && w.readSync == sync) || unordered(w.readThread, w.readSync));
      if (written && !sameValue)
        found = site, other = w.writer, otherThread = w.writeThread;
      else if (read)
        found = site, other = w.reader, otherThread = w.manyWarps ? ~0u : w.readThread;
      w.writeInterval = s.interval;
      w.writeThread = thread;
      w.writeSync = sync;
      w.writer = site;
    } else {
      if (written)
        found = site, other = w.writer, otherThread = w.writeThread;
      if (w.readInterval == s.interval) {
        w.manyReaders = w.manyReaders || w.readThread != thread;
        w.manyWarps = w.manyWarps || w.readThread / 32 != warp;
        w.readSync = std::max(w.readSync, sync);
      } else {
        w.readInterval = s.interval;
        w.readThread = thread;
        w.readSync = sync;
        w.reader = site;
        w.manyReaders = w.manyWarps = false;
      }
    }
  }
  if (found)
    impl_->hazard(other, found, otherThread / 32 != warp);
}

void RaceLog::report() {
  std::lock_guard lk(impl_->mutex);
  for (const auto &[sites, pair] : impl_->pairs) {
    auto kind = [](const cucpu_access_site *s) {
      return s->access == CUCPU_ACCESS_WRITE ? "Write" : "Read";
    };
    const std::string text = fmt::format(
        "========= {}: Race reported between {} access at {}\n"
        "=========     and {} access at {} [{} hazards]\n========= \n",
        pair.acrossWarps ? "Error" : "Warning", kind(sites.first), sitePlace(sites.first),
        kind(sites.second), sitePlace(sites.second), pair.hazards);
    if (pair.acrossWarps)
      reportError(text);
    else
      reportWarning(text);
  }
  impl_->pairs.clear();
}

} // namespace cucpu::driver::sanitizer
