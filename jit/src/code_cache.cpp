// On-disk object cache: directory from the environment, atomic writes, size-bounded pruning.
#include "code_cache.h"

#include "cucpu/jit/program.h"

#include "cucpu/support/env.h"
#include "cucpu/support/log.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/BLAKE3.h>
#include <llvm/Support/MemoryBuffer.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <elf.h>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <link.h>
#include <unistd.h>
#include <vector>

namespace cucpu::jit {
namespace fs = std::filesystem;

namespace {
constexpr uint64_t kDefaultMaxBytes = 256ull << 20;
constexpr const char *kSuffixes[] = {".o", ".lowered"}; // by CodeCache::Kind
std::atomic<uint64_t> hitCount[2], storeCount[2];

size_t index(CodeCache::Kind kind) { return static_cast<size_t>(kind); }
bool isEntry(const fs::path &p) {
  for (const char *s : kSuffixes)
    if (p.extension() == s)
      return true;
  return false;
}

std::string cacheDirectory() {
  if (env::getBool("CUDA_CACHE_DISABLE", false))
    return {};
  std::string base;
  if (auto p = env::get("CUDA_CACHE_PATH"); p && !p->empty())
    base = *p;
  else if (auto x = env::get("XDG_CACHE_HOME"); x && !x->empty())
    base = *x;
  else if (auto h = env::get("HOME"); h && !h->empty())
    base = *h + "/.cache";
  else
    return {};
  std::error_code ec;
  fs::path dir = fs::path(base) / "cucpu";
  fs::create_directories(dir, ec);
  if (ec) {
    log::warn(log::Component::Jit, "code cache off: cannot create {}: {}", dir.string(),
              ec.message());
    return {};
  }
  return dir.string();
}
// The GNU build ID of the binary this code is linked into (libcuda.so.1, or a test program): it
// changes whenever the lowering or the pipeline changes. Empty when the binary has none.
std::string selfBuildId() {
  struct Search {
    uintptr_t address;
    std::string id;
  } search{reinterpret_cast<uintptr_t>(&selfBuildId), {}};
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) -> int {
        auto *s = static_cast<Search *>(data);
        bool mine = false;
        for (int i = 0; i < info->dlpi_phnum && !mine; ++i) {
          const auto &ph = info->dlpi_phdr[i];
          uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
          mine = ph.p_type == PT_LOAD && s->address >= lo && s->address < lo + ph.p_memsz;
        }
        if (!mine)
          return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const auto &ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_NOTE)
            continue;
          auto *p = reinterpret_cast<const uint8_t *>(info->dlpi_addr + ph.p_vaddr);
          const uint8_t *end = p + ph.p_memsz;
          while (p + sizeof(ElfW(Nhdr)) <= end) {
            ElfW(Nhdr) nh;
            std::memcpy(&nh, p, sizeof nh);
            const uint8_t *name = p + sizeof nh;
            const uint8_t *desc = name + ((nh.n_namesz + 3) & ~3u);
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
                std::memcmp(name, "GNU", 4) == 0 && desc + nh.n_descsz <= end)
              s->id.assign(reinterpret_cast<const char *>(desc), nh.n_descsz);
            p = desc + ((nh.n_descsz + 3) & ~3u);
          }
        }
        return 1;
      },
      &search);
  return search.id;
}
} // namespace

CodeCache &CodeCache::instance() {
  static CodeCache *c = new CodeCache();
  return *c;
}

CodeCache::CodeCache() : dir_(cacheDirectory()), buildId_(selfBuildId()) {
  maxBytes_ = env::getSize("CUDA_CACHE_MAXSIZE", kDefaultMaxBytes);
  if (maxBytes_ == 0 || buildId_.empty())
    dir_.clear(); // without a build ID, a rebuilt library could not tell its objects apart
  log::debug(log::Component::Jit, "code cache: {}", dir_.empty() ? "off" : dir_);
}

std::string CodeCache::path(Kind kind, const std::string &key) const {
  return dir_ + "/" + key + kSuffixes[index(kind)];
}

std::unique_ptr<llvm::MemoryBuffer> CodeCache::load(Kind kind, const std::string &key) const {
  if (dir_.empty())
    return nullptr;
  std::string path = this->path(kind, key);
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buf)
    return nullptr;
  std::error_code ec;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec); // recently used: pruned last
  return std::move(*buf);
}

void CodeCache::store(Kind kind, const std::string &key, std::string_view object) {
  if (dir_.empty())
    return;
  std::string path = this->path(kind, key);
  std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(object.data(), static_cast<std::streamsize>(object.size()));
    if (!out) {
      log::debug(log::Component::Jit, "code cache: cannot write {}", tmp);
      std::error_code ec;
      fs::remove(tmp, ec);
      return;
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return;
  }
  ++storeCount[index(kind)];
  prune();
}

// Deletes the least recently used entries while the cache holds more than its maximum.
void CodeCache::prune() {
  struct Entry {
    fs::path path;
    fs::file_time_type time;
    uint64_t size;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (const auto &de : fs::directory_iterator(dir_, ec)) {
    if (!isEntry(de.path()))
      continue;
    std::error_code e1, e2;
    uint64_t size = de.file_size(e1);
    auto time = de.last_write_time(e2);
    if (e1 || e2)
      continue;
    entries.push_back({de.path(), time, size});
    total += size;
  }
  if (total <= maxBytes_)
    return;
  std::sort(entries.begin(), entries.end(),
            [](const Entry &a, const Entry &b) { return a.time < b.time; });
  for (const auto &e : entries) {
    if (total <= maxBytes_)
      break;
    if (fs::remove(e.path, ec))
      total -= e.size;
  }
}

void CodeCache::remove(Kind kind, const std::string &key) {
  std::error_code ec;
  fs::remove(path(kind, key), ec);
}

void CodeCache::countHit(Kind kind) { ++hitCount[index(kind)]; }

uint64_t CodeCache::hits(Kind kind) const { return hitCount[index(kind)]; }
uint64_t CodeCache::stores(Kind kind) const { return storeCount[index(kind)]; }

CodeCacheStats codeCacheStats() {
  const CodeCache &c = CodeCache::instance();
  using K = CodeCache::Kind;
  return {c.directory(), c.hits(K::Object), c.stores(K::Object), c.hits(K::Module),
          c.stores(K::Module)};
}

namespace {
// A hash of length-prefixed parts (no two lists of parts hash alike), as hexadecimal.
std::string hashParts(std::initializer_list<std::string_view> parts) {
  llvm::BLAKE3 h;
  for (std::string_view part : parts) {
    uint64_t n = part.size();
    h.update(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(&n), sizeof n));
    h.update(llvm::StringRef(part.data(), part.size()));
  }
  auto digest = h.final<20>();
  return llvm::toHex(digest, /*LowerCase=*/true);
}
} // namespace

std::string CodeCache::key(std::string_view bitcode, const uint32_t block[3],
                           std::string_view target) const {
  const std::string_view shape(reinterpret_cast<const char *>(block), 3 * sizeof(uint32_t));
  return hashParts({"object", buildId_, target, shape, bitcode});
}

std::string CodeCache::moduleKey(std::string_view ptx, std::string_view switches,
                                 std::string_view target) const {
  return hashParts({"lowered module", buildId_, target, switches, ptx});
}

} // namespace cucpu::jit
