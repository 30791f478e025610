// nvJitLink inputs taken apart: fat binary containers found in cubins, host objects' .nv_fatbin
// and __nv_relfatbin sections and static libraries' members (libcudadevrt.a among them); every
// size read is checked against the input's.
#include "cucpu/rtc/link_inputs.h"

#include "cucpu/support/fatbin_container.h"

#include <elf.h>

#include <cctype>
#include <cstring>
#include <set>
#include <string_view>

namespace cucpu::rtc {
namespace {

constexpr uint16_t kMachineCuda = 190; // EM_CUDA: a cubin's e_machine
constexpr std::string_view kArchiveMagic = "!<arch>\n";

std::string_view bytesOf(const void *data, size_t size) {
  return {static_cast<const char *>(data), size};
}

bool isElf(std::string_view b) {
  return b.size() >= sizeof(Elf64_Ehdr) && b.starts_with("\x7f"
                                                         "ELF");
}

uint16_t elfMachine(std::string_view b) {
  Elf64_Ehdr h;
  std::memcpy(&h, b.data(), sizeof h);
  return h.e_machine;
}

bool isContainer(std::string_view b) {
  uint32_t magic = 0;
  if (b.size() >= 16)
    std::memcpy(&magic, b.data(), 4);
  return magic == fatbin::kContainerMagic;
}

// Every container laid end to end in `b` (a .nv_fatbin section holds several, 8-byte aligned).
bool collectContainers(std::string_view b, const std::string &name, unsigned arch, LinkUnits *units,
                       std::string *log) {
  bool sawCode = false, sawPtx = false;
  while (b.size() >= 16 && isContainer(b)) {
    std::vector<fatbin::Entry> entries;
    uint64_t span = 0;
    const auto *p = reinterpret_cast<const unsigned char *>(b.data());
    if (!fatbin::readEntries(p, b.size(), &entries, &span, log))
      return false;
    const uint32_t chosen = fatbin::choosePtxArch(entries, int(arch));
    const size_t before = units->ptx.size();
    if (!fatbin::ptxOfArch(entries, chosen, &units->ptx, log))
      return false;
    sawPtx |= units->ptx.size() > before;
    sawCode |= !entries.empty();
    span = (span + 7) & ~uint64_t(7);
    b.remove_prefix(std::min<uint64_t>(span, b.size()));
  }
  if (sawCode && !sawPtx)
    units->machineCodeOnly.push_back(name);
  return true;
}

// The fat binary sections of a host object.
bool collectObject(std::string_view b, const std::string &name, unsigned arch, LinkUnits *units,
                   std::string *log) {
  Elf64_Ehdr h;
  std::memcpy(&h, b.data(), sizeof h);
  const uint64_t tableEnd = h.e_shoff + uint64_t(h.e_shnum) * sizeof(Elf64_Shdr);
  if (h.e_ident[EI_CLASS] != ELFCLASS64 || h.e_shentsize != sizeof(Elf64_Shdr) ||
      h.e_shoff > b.size() || tableEnd > b.size() || h.e_shstrndx >= h.e_shnum) {
    *log = name + ": malformed ELF object";
    return false;
  }
  auto section = [&](unsigned i) {
    Elf64_Shdr s;
    std::memcpy(&s, b.data() + h.e_shoff + i * sizeof(Elf64_Shdr), sizeof s);
    return s;
  };
  const Elf64_Shdr names = section(h.e_shstrndx);
  if (names.sh_offset > b.size() || names.sh_size > b.size() - names.sh_offset) {
    *log = name + ": malformed ELF section names";
    return false;
  }
  std::string_view strtab = b.substr(names.sh_offset, names.sh_size);
  for (unsigned i = 0; i < h.e_shnum; ++i) {
    const Elf64_Shdr s = section(i);
    if (s.sh_name >= strtab.size() || s.sh_type == SHT_NOBITS)
      continue;
    std::string_view secName = strtab.substr(s.sh_name);
    secName = secName.substr(0, secName.find('\0'));
    if (secName != ".nv_fatbin" && secName != "__nv_relfatbin") // -rdc=true objects: the latter
      continue;
    if (s.sh_offset > b.size() || s.sh_size > b.size() - s.sh_offset) {
      *log = name + ": malformed .nv_fatbin section";
      return false;
    }
    if (!collectContainers(b.substr(s.sh_offset, s.sh_size), name, arch, units, log))
      return false;
  }
  return true;
}

bool collect(InputType type, std::string_view b, const std::string &name, unsigned arch,
             LinkUnits *units, std::string *log, int depth);

// Archives inside archives are followed this many levels at most: each level is a stack frame, and
// a hostile input of nested headers could otherwise exhaust the stack.
constexpr int kMaxArchiveDepth = 8;

// The members of a static library (ar format), each an object, cubin or fat binary.
bool collectLibrary(std::string_view b, const std::string &name, unsigned arch, LinkUnits *units,
                    std::string *log, int depth) {
  if (depth >= kMaxArchiveDepth) {
    *log = name + ": archives nested more than " + std::to_string(kMaxArchiveDepth) + " deep";
    return false;
  }
  constexpr size_t kHeader = 60;
  b.remove_prefix(kArchiveMagic.size());
  while (b.size() >= kHeader) {
    std::string_view header = b.substr(0, kHeader);
    const std::string size(header.substr(48, 10));
    char *end = nullptr;
    const unsigned long long bytes = std::strtoull(size.c_str(), &end, 10);
    if (header.substr(58, 2) != "`\n" || bytes > b.size() - kHeader) {
      *log = name + ": malformed archive member header";
      return false;
    }
    std::string_view member = b.substr(kHeader, bytes);
    std::string memberName = name + "(" + std::string(header.substr(0, 16)) + ")";
    if (!header.starts_with("/ ") && !header.starts_with("// ") &&
        !collect(kInputAny, member, memberName, arch, units, log, depth + 1))
      return false;
    b.remove_prefix(std::min<size_t>(kHeader + bytes + (bytes & 1), b.size()));
  }
  return true;
}

} // namespace

InputType inputTypeOf(InputType type, const void *data, size_t size) {
  std::string_view b = bytesOf(data, size);
  if (isContainer(b) && (type == kInputCubin || type == kInputAny))
    return kInputFatbin; // what cucpu's NVRTC hands out as a cubin
  if (type != kInputAny)
    return type;
  if (b.starts_with(kArchiveMagic))
    return kInputLibrary;
  if (isElf(b))
    return elfMachine(b) == kMachineCuda ? kInputCubin : kInputObject;
  const size_t text = b.find_first_not_of(" \t\r\n");
  if (text != std::string_view::npos &&
      (b.substr(text).starts_with("//") || b.substr(text).starts_with(".version")))
    return kInputPtx;
  return kInputLtoir;
}

namespace {

bool collect(InputType type, std::string_view b, const std::string &name, unsigned arch,
             LinkUnits *units, std::string *log, int depth) {
  switch (inputTypeOf(type, b.data(), b.size())) {
  case kInputPtx:
    units->ptx.emplace_back(b.substr(0, b.find('\0')));
    return true;
  case kInputLtoir:
    units->ltoir.emplace_back(b);
    return true;
  case kInputFatbin:
    return collectContainers(b, name, arch, units, log);
  case kInputCubin:
    units->machineCodeOnly.push_back(name);
    return true;
  case kInputObject:
    return isElf(b) ? collectObject(b, name, arch, units, log) : (*log = name + ": not ELF", false);
  case kInputLibrary:
    return b.starts_with(kArchiveMagic) ? collectLibrary(b, name, arch, units, log, depth)
                                        : (*log = name + ": not an archive", false);
  default:
    return true; // index files name other inputs and carry no code
  }
}

} // namespace

bool collectUnits(InputType type, const void *data, size_t size, const std::string &name,
                  unsigned arch, LinkUnits *units, std::string *log) {
  return collect(type, bytesOf(data, size), name, arch, units, log, 0);
}

std::vector<std::string> externFunctions(const std::vector<std::string> &ptx) {
  auto isIdentStart = [](char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
  };
  auto isIdent = [&](char c) {
    return isIdentStart(c) || std::isdigit(static_cast<unsigned char>(c));
  };
  std::set<std::string> declared, defined;
  for (const std::string &text : ptx) {
    for (size_t at = text.find(".func"); at != std::string::npos; at = text.find(".func", at + 5)) {
      // The directive's own statement: from the previous ';', '{' or '}' up to `.func`.
      size_t start = text.find_last_of(";{}", at);
      const bool isExtern =
          text.substr(start == std::string::npos ? 0 : start, at - start).find(".extern") !=
          std::string::npos;
      size_t i = at + 5;
      auto skipSpace = [&] {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
          ++i;
      };
      skipSpace();
      if (i < text.size() && text[i] == '(') { // the return parameters
        i = text.find(')', i);
        if (i == std::string::npos)
          break;
        ++i;
        skipSpace();
      }
      if (i >= text.size() || !isIdentStart(text[i]))
        continue;
      size_t end = i;
      while (end < text.size() && (isIdent(text[end]) || text[end] == '$'))
        ++end;
      std::string name = text.substr(i, end - i);
      if (name.find('$') == std::string::npos) // PTX names C cannot spell are left alone
        (isExtern ? declared : defined).insert(std::move(name));
    }
  }
  std::vector<std::string> out;
  for (const std::string &name : declared)
    if (!defined.count(name))
      out.push_back(name);
  return out;
}

std::string keepAliveSource(const std::vector<std::string> &names) {
  std::string src;
  for (const std::string &n : names)
    src += "extern \"C\" __device__ void " + n + "();\n";
  src += "extern \"C\" __global__ void __cucpu_keep_externs(void **out) {\n";
  for (size_t i = 0; i < names.size(); ++i)
    src += "  out[" + std::to_string(i) + "] = (void *)&" + names[i] + ";\n";
  return src + "}\n";
}

} // namespace cucpu::rtc
