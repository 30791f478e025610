// The lowered module's byte format: little-endian fixed-width integers and length-prefixed
// strings, one field visitor shared by the writer and the reader so they cannot disagree.
#include "lowered_module.h"

#include <llvm/Support/BLAKE3.h>

#include <cstring>
#include <type_traits>

namespace cucpu::jit {
namespace {
constexpr char kMagic[8] = {'C', 'U', 'C', 'P', 'U', 'L', 'M', '2'};
constexpr size_t kChecksumBytes = 16;

// Every field of a KernelInfo, in format order.
template <class K, class F> void kernelFields(K &k, F &&f) {
  f(k.name);
  f(k.params);
  f(k.paramBytes);
  f(k.staticSharedBytes);
  f(k.dynamicSharedOffset);
  f(k.localBytesPerThread);
  f(k.scratchBytesPerThread);
  f(k.blockMemoryAlign);
  f(k.constBytes);
  f(k.maxntid);
  f(k.reqntid);
  f(k.numRegs);
  f(k.regions);
  f(k.warpScheduled);
  f(k.blocksMayWait);
  f(k.ptxVersion);
}
static_assert(sizeof(KernelInfo) == 128,
              "a KernelInfo field was added or removed: update kernelFields (and the magic)");

template <class P, class F> void paramFields(P &p, F &&f) {
  f(p.offset);
  f(p.size);
  f(p.align);
}

template <class G, class F> void globalFields(G &g, F &&f) {
  f(g.name);
  f(g.symbol);
  f(g.bytes);
}

// The fields of any of the format's structs, by the visitor above that lists them.
template <class S, class F> void structFields(S &s, F &&f) {
  using T = std::remove_const_t<S>;
  if constexpr (std::is_same_v<T, ParamInfo>)
    paramFields(s, f);
  else if constexpr (std::is_same_v<T, LoweredGlobal>)
    globalFields(s, f);
  else
    kernelFields(s, f);
}

template <class T>
constexpr bool kIsStruct = std::is_same_v<T, ParamInfo> || std::is_same_v<T, LoweredGlobal> ||
                           std::is_same_v<T, KernelInfo>;

template <class M, class F> void moduleFields(M &m, F &&f) {
  f(m.kernels);
  f(m.llvmNames);
  f(m.kernelBitcode);
  f(m.variablesBitcode);
  f(m.globals);
  f(m.managed);
  f(m.unresolvedExterns);
}

class Writer {
public:
  std::string out;
  template <class T> void operator()(const T &v) {
    if constexpr (std::is_integral_v<T>) {
      uint64_t x = static_cast<uint64_t>(v);
      char b[sizeof(T)];
      for (size_t i = 0; i < sizeof(T); ++i)
        b[i] = static_cast<char>(x >> (8 * i));
      out.append(b, sizeof(T));
    } else if constexpr (std::is_same_v<T, std::string>) {
      (*this)(static_cast<uint64_t>(v.size()));
      out += v;
    } else if constexpr (std::is_array_v<T>) {
      for (const auto &e : v)
        (*this)(e);
    } else if constexpr (kIsStruct<T>) {
      structFields(v, *this);
    } else { // a vector
      (*this)(static_cast<uint64_t>(v.size()));
      for (const auto &e : v)
        (*this)(e);
    }
  }
};

class Reader {
public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool ok() const { return ok_; }
  bool atEnd() const { return pos_ == in_.size(); }
  template <class T> void operator()(T &v) {
    if (!ok_)
      return;
    if constexpr (std::is_integral_v<T>) {
      if (!need(sizeof(T)))
        return;
      uint64_t x = 0;
      for (size_t i = 0; i < sizeof(T); ++i)
        x |= uint64_t(static_cast<uint8_t>(in_[pos_ + i])) << (8 * i);
      pos_ += sizeof(T);
      v = static_cast<T>(x);
    } else if constexpr (std::is_same_v<T, std::string>) {
      uint64_t n = 0;
      (*this)(n);
      if (!need(n))
        return;
      v.assign(in_.substr(pos_, n));
      pos_ += n;
    } else if constexpr (std::is_array_v<T>) {
      for (auto &e : v)
        (*this)(e);
    } else if constexpr (kIsStruct<T>) {
      structFields(v, *this);
    } else { // a vector: every element takes at least one byte, which bounds the count
      uint64_t n = 0;
      (*this)(n);
      if (!need(n))
        return;
      v.resize(n);
      for (auto &e : v)
        (*this)(e);
    }
  }

private:
  bool need(uint64_t n) {
    if (n > in_.size() - pos_)
      ok_ = false;
    return ok_;
  }
  std::string_view in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

std::string checksum(std::string_view payload) {
  llvm::BLAKE3 h;
  h.update(llvm::StringRef(payload.data(), payload.size()));
  auto d = h.final<kChecksumBytes>();
  return std::string(reinterpret_cast<const char *>(d.data()), d.size());
}
} // namespace

std::string serialize(const LoweredModule &m) {
  Writer w;
  moduleFields(m, w);
  Writer head;
  head.out.assign(kMagic, sizeof kMagic);
  head(static_cast<uint64_t>(w.out.size()));
  return head.out + w.out + checksum(w.out);
}

std::optional<LoweredModule> deserialize(std::string_view bytes) {
  constexpr size_t kHead = sizeof kMagic + sizeof(uint64_t);
  if (bytes.size() < kHead + kChecksumBytes || std::memcmp(bytes.data(), kMagic, sizeof kMagic))
    return std::nullopt;
  uint64_t size = 0;
  Reader head(bytes.substr(sizeof kMagic, sizeof size));
  head(size);
  if (size != bytes.size() - kHead - kChecksumBytes)
    return std::nullopt;
  std::string_view payload = bytes.substr(kHead, size);
  if (checksum(payload) != bytes.substr(kHead + size))
    return std::nullopt;
  LoweredModule m;
  Reader r(payload);
  moduleFields(m, r);
  if (!r.ok() || !r.atEnd() || m.llvmNames.size() != m.kernels.size() ||
      m.kernelBitcode.size() != m.kernels.size())
    return std::nullopt;
  return m;
}

} // namespace cucpu::jit
