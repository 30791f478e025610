// The on-disk cache of compiled kernels and lowered modules, keyed by what went into them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace llvm {
class MemoryBuffer;
}

namespace cucpu::jit {

// Where compiled block functions and lowered modules are kept between processes. The directory is
// $CUDA_CACHE_PATH/cucpu, else $XDG_CACHE_HOME/cucpu, else ~/.cache/cucpu; CUDA_CACHE_DISABLE=1
// turns the cache off and CUDA_CACHE_MAXSIZE (bytes, default 256 MiB) bounds it, oldest entries
// going first. Entries are written to a temporary file and renamed, so concurrent processes
// never read a partial object.
class CodeCache {
public:
  // What an entry holds: a compiled block function (an object file), or a lowered module
  // (lowered_module.h), so a later load of the same PTX skips parsing and lowering.
  enum class Kind { Object, Module };

  // The process-wide cache, configured from the environment on first use.
  static CodeCache &instance();

  bool enabled() const { return !dir_.empty(); }
  const std::string &directory() const { return dir_; }
  // The entry stored under `key`, or null.
  std::unique_ptr<llvm::MemoryBuffer> load(Kind kind, const std::string &key) const;
  void store(Kind kind, const std::string &key, std::string_view bytes);
  // An entry that turned out unusable (truncated, overwritten): deleted.
  void remove(Kind kind, const std::string &key);
  void countHit(Kind kind);

  // The key of one kernel: a hash of its lowered IR (bitcode), the block shape it is specialised
  // for, the code generator (`target`: LLVM's version, the host CPU and its features) and the
  // build of this library (its GNU build ID).
  std::string key(std::string_view bitcode, const uint32_t block[3], std::string_view target) const;
  // The key of a lowered module: a hash of its PTX text, the lowering's switches, the code
  // generator and the build of this library.
  std::string moduleKey(std::string_view ptx, std::string_view switches,
                        std::string_view target) const;

  // Counters for the tools and tests: lookups answered from disk, and entries written.
  uint64_t hits(Kind kind) const;
  uint64_t stores(Kind kind) const;

private:
  CodeCache();
  std::string path(Kind kind, const std::string &key) const;
  void prune();
  std::string dir_;
  std::string buildId_;
  uint64_t maxBytes_ = 0;
};

} // namespace cucpu::jit
