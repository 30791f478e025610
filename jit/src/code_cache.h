// The on-disk cache of compiled kernels: object files keyed by what went into them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace llvm {
class MemoryBuffer;
}

namespace cucpu::jit {

// Where compiled block functions are kept between processes. The directory is
// $CUDA_CACHE_PATH/cucpu, else $XDG_CACHE_HOME/cucpu, else ~/.cache/cucpu; CUDA_CACHE_DISABLE=1
// turns the cache off and CUDA_CACHE_MAXSIZE (bytes, default 256 MiB) bounds it, oldest entries
// going first. Entries are written to a temporary file and renamed, so concurrent processes
// never read a partial object.
class CodeCache {
public:
  // The process-wide cache, configured from the environment on first use.
  static CodeCache &instance();

  bool enabled() const { return !dir_.empty(); }
  const std::string &directory() const { return dir_; }
  // The object stored under `key`, or null.
  std::unique_ptr<llvm::MemoryBuffer> load(const std::string &key) const;
  void store(const std::string &key, std::string_view object);
  // An entry that turned out unusable (not an object defining the kernel): deleted.
  void remove(const std::string &key);
  void countHit();

  // The key of one kernel: a hash of its lowered IR (bitcode), the block shape it is specialised
  // for, the code generator (`target`: LLVM's version, the host CPU and its features) and the
  // build of this library (its GNU build ID).
  std::string key(std::string_view bitcode, const uint32_t block[3], std::string_view target) const;

  // Counters for the tools and tests: lookups answered from disk, and objects written.
  uint64_t hits() const;
  uint64_t stores() const;

private:
  CodeCache();
  void prune();
  std::string dir_;
  std::string buildId_;
  uint64_t maxBytes_ = 0;
};

} // namespace cucpu::jit
