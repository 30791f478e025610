// Names of host code addresses from the ELF symbol tables of the files mapped in the process
// (.symtab, which dladdr does not read: programs' own functions, main included, are not exported).
#include "host_symbols.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

namespace cucpu::driver {
namespace {

struct Symbol {
  uint64_t begin, end;
  std::string name;
};

struct SymbolFile {
  bool absolute = false; // ET_EXEC: symbol values are addresses, not offsets from the load base
  std::vector<Symbol> symbols; // sorted by begin
};

// The function symbols of one ELF file (empty when it cannot be read).
SymbolFile readSymbols(const std::string &path) {
  SymbolFile out;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return out;
  struct stat st {};
  void *map = MAP_FAILED;
  if (::fstat(fd, &st) == 0 && st.st_size > static_cast<off_t>(sizeof(Elf64_Ehdr)))
    map = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED)
    return out;
  const auto *base = static_cast<const unsigned char *>(map);
  const auto size = static_cast<uint64_t>(st.st_size);
  const auto *eh = reinterpret_cast<const Elf64_Ehdr *>(base);
  const bool elf64 = std::equal(eh->e_ident, eh->e_ident + SELFMAG, ELFMAG) &&
                     eh->e_ident[EI_CLASS] == ELFCLASS64 && eh->e_shentsize == sizeof(Elf64_Shdr);
  if (elf64 && eh->e_shoff < size && eh->e_shnum <= (size - eh->e_shoff) / sizeof(Elf64_Shdr)) {
    out.absolute = eh->e_type == ET_EXEC;
    const auto *sh = reinterpret_cast<const Elf64_Shdr *>(base + eh->e_shoff);
    for (unsigned i = 0; i < eh->e_shnum; ++i) {
      if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
        continue;
      const Elf64_Shdr &strtab = sh[sh[i].sh_link];
      if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset ||
          strtab.sh_offset > size || strtab.sh_size > size - strtab.sh_offset)
        continue;
      const auto *syms = reinterpret_cast<const Elf64_Sym *>(base + sh[i].sh_offset);
      const char *names = reinterpret_cast<const char *>(base + strtab.sh_offset);
      for (uint64_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Sym); ++k) {
        const Elf64_Sym &s = syms[k];
        if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || s.st_value == 0 || s.st_name >= strtab.sh_size)
          continue;
        const char *n = names + s.st_name;
        out.symbols.push_back(Symbol{s.st_value, s.st_value + std::max<uint64_t>(s.st_size, 1),
                                     std::string(n, strnlen(n, strtab.sh_size - s.st_name))});
      }
    }
    std::sort(out.symbols.begin(), out.symbols.end(),
              [](const Symbol &a, const Symbol &b) { return a.begin < b.begin; });
  }
  ::munmap(map, static_cast<size_t>(st.st_size));
  return out;
}

} // namespace

std::string hostSymbol(const std::string &file, uintptr_t loadBase, uintptr_t pc) {
  static std::mutex mutex;
  static auto *files = new std::map<std::string, SymbolFile>(); // for the exit handler too
  std::lock_guard lk(mutex);
  auto it = files->find(file);
  if (it == files->end()) {
    // The main program may be named by a path relative to a directory left since.
    SymbolFile f = readSymbols(::access(file.c_str(), R_OK) == 0 ? file : "/proc/self/exe");
    it = files->emplace(file, std::move(f)).first;
  }
  const SymbolFile &f = it->second;
  const uint64_t key = f.absolute ? pc : pc - loadBase;
  auto s = std::upper_bound(f.symbols.begin(), f.symbols.end(), key,
                            [](uint64_t k, const Symbol &sym) { return k < sym.begin; });
  if (s == f.symbols.begin())
    return {};
  --s;
  return key < s->end ? s->name : std::string();
}

} // namespace cucpu::driver
