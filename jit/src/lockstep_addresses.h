// What lockstep needs to know of a kernel's memory accesses: which memory an address may point
// into (its roots: the kernel parameter or variable it is derived from) and whether other lanes
// may meet the locations it touches (not when it is a fixed function of the thread's index, as
// elementwise kernels' addresses are).
#pragma once

#include "cucpu/ptx/ast.h"

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace cucpu::jit {

class AddressAnalysis {
public:
  // Flow-insensitive: every register's class is the join over all its definitions.
  // `threadMemory`: whether a variable is the thread's own (.local and .param variables).
  AddressAnalysis(const std::vector<ptx::Statement> &flat,
                  std::function<bool(const std::string &)> threadMemory);

  struct Access {
    uint64_t roots;   // root bits the access may touch (unknown ones included)
    uint64_t aliases; // root bits of the accesses that may touch the same memory
    bool open;        // other lanes' accesses may meet it: a mixed address, or a function of
                      // the thread index used beside other such addresses on its roots
  };
  // `in`: an ld or st.
  Access access(const ptx::Instruction &in) const;

  // How a value depends on the thread, from least to most mixed: the same for every thread and
  // fixed for the kernel (parameters, constants), the same for every thread but changing (a
  // loop's counter), an affine function of the thread index, a fixed function of an affine value
  // (`i / shape % extent`, `i & mask` with kernel-fixed operands), anything else.
  enum class Class : uint8_t { Invariant, Uniform, Affine, Fixed, Mixed };
  struct Value {
    Class cls = Class::Invariant;
    uint64_t roots = 0;
    bool operator==(const Value &) const = default;
  };

private:
  // Root bits past the named roots: the thread's own memory, unknown global and shared memory.
  static constexpr int kOwn = 61, kUnknownGlobal = 62, kUnknownShared = 63;
  Value reg(const std::string &name) const;
  Value operand(const ptx::Operand &o) const;
  Value evaluate(const ptx::Instruction &in) const;
  void addRoot(const std::string &key);
  uint64_t rootBit(const std::string &key) const;
  std::function<bool(const std::string &)> threadMemory_;
  std::unordered_map<std::string, Value> regs_;
  std::unordered_map<std::string, int> rootIds_;
  // Roots whose thread-dependent accesses use more than one address (`s[tid]` and `s[tid + 1]`,
  // two steps of an unrolled sort): their lanes may meet, so those accesses are not private.
  uint64_t severalAddresses_ = 0;
  Value address(const ptx::Instruction &in, const ptx::Operand **operand) const;
  // `*indexed`: the address is an affine or fixed function of the thread index.
  Access classify(const ptx::Instruction &in, const ptx::Operand **operand, bool *indexed) const;
};

} // namespace cucpu::jit
