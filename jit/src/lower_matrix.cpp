// Warp-level matrix instructions. mma.sync, wmma.mma, ldmatrix, stmatrix and movmatrix are warp
// sync points (lower_warp.cpp runs them): each lane publishes its fragment registers or address,
// the collective step computes the warp's results (the product through the device library's
// cucpu_mma, the matrix loads, stores and transposes as loops over the lanes), and each lane
// takes its registers back. wmma.load and wmma.store are per-lane memory accesses in cucpu's
// fragment element order (element e of lane l is element 32e + l of the row-major tile).
#include "lowering.h"
#include "ptx_passes.h"

#include "cucpu/devicelib/devicelib.h"
#include "kernel_abi.h"

#include <array>

namespace cucpu::jit {

using llvm::Value;
using T = ptx::Type;

namespace {

constexpr int kLanes = 32;

struct Shape {
  int m = 0, n = 0, k = 0;
};

// The .mMnNkK modifier.
Shape shapeOf(const ptx::Instruction &in) {
  for (const auto &mod : in.mods) {
    Shape s;
    if (std::sscanf(mod.c_str(), "m%dn%dk%d", &s.m, &s.n, &s.k) == 3)
      return s;
  }
  throwInvalid(in.loc, "matrix instruction without a .mMnNkK shape");
}

uint16_t formatOf(std::string_view name, const ptx::SourceLoc &loc) {
  static const std::array<std::pair<std::string_view, uint16_t>, 13> kFormats = {{
      {"f16", CUCPU_MF_F16},
      {"bf16", CUCPU_MF_BF16},
      {"tf32", CUCPU_MF_TF32},
      {"f32", CUCPU_MF_F32},
      {"f64", CUCPU_MF_F64},
      {"s8", CUCPU_MF_S8},
      {"u8", CUCPU_MF_U8},
      {"s4", CUCPU_MF_S4},
      {"u4", CUCPU_MF_U4},
      {"b1", CUCPU_MF_B1},
      {"e4m3", CUCPU_MF_E4M3},
      {"e5m2", CUCPU_MF_E5M2},
      {"s32", CUCPU_MF_S32},
  }};
  for (const auto &[n, f] : kFormats)
    if (n == name)
      return f;
  throwUnsupported(loc, "matrix element type '" + std::string(name) + "'");
}

// D, A, B and C's element formats: the type suffixes in order (dtype, atype, btype, ctype), where
// 8-bit floats, sub-byte integers and b1 are modifiers after the first type; wmma's f16 form
// names only dtype and ctype.
std::array<uint16_t, 4> elementFormats(const ptx::Instruction &in) {
  std::vector<std::string> names;
  for (T t : in.types)
    names.emplace_back(ptx::typeName(t));
  if (names.size() == 2) {
    std::vector<std::string> middle;
    for (size_t i = in.modsBeforeType; i < in.mods.size(); ++i)
      if (in.mods[i] != "and" && in.mods[i] != "xor" && in.mods[i] != "popc")
        middle.push_back(in.mods[i]);
    if (middle.empty()) // wmma.mma's .dtype.ctype with f16 inputs
      middle = {"f16", "f16"};
    names = {names[0], middle.at(0), middle.at(1), names[1]};
  }
  if (names.size() != 4)
    throwInvalid(in.loc, "matrix product without its four element types");
  std::array<uint16_t, 4> f{};
  for (size_t i = 0; i < 4; ++i)
    f[i] = formatOf(names[i], in.loc);
  return f;
}

unsigned regBytes(uint16_t format) { return format == CUCPU_MF_F64 ? 8 : 4; }

size_t vectorSize(const ptx::Instruction &in, size_t i) {
  if (in.operands.size() <= i || in.operands[i].kind != ptx::Operand::Kind::Vector)
    throwInvalid(in.loc, "operand " + std::to_string(i + 1) + " must be a vector of registers");
  return in.operands[i].elems.size();
}

cucpu_mma_desc describeProduct(const ptx::Instruction &in) {
  const Shape s = shapeOf(in);
  const auto f = elementFormats(in); // d, a, b, c
  cucpu_mma_desc d{};
  d.m = uint16_t(s.m), d.n = uint16_t(s.n), d.k = uint16_t(s.k);
  d.d = f[0], d.a = f[1], d.b = f[2], d.c = f[3];
  d.d_regs = uint16_t(vectorSize(in, 0));
  d.a_regs = uint16_t(vectorSize(in, 1));
  d.b_regs = uint16_t(vectorSize(in, 2));
  d.c_regs = uint16_t(vectorSize(in, 3));
  d.reg_bytes[0] = uint16_t(regBytes(d.a)), d.reg_bytes[1] = uint16_t(regBytes(d.b));
  d.reg_bytes[2] = uint16_t(regBytes(d.c)), d.reg_bytes[3] = uint16_t(regBytes(d.d));
  const bool wmma = in.op == Op::wmma;
  d.flags = uint16_t((in.has(Mod::satfinite) ? CUCPU_MMA_SATFINITE : 0) |
                     (in.has(Mod::xor_) ? CUCPU_MMA_XOR : 0) | (wmma ? CUCPU_MMA_WMMA : 0));
  // Each lane must hold its share of every matrix.
  auto regsFor = [](int elements, uint16_t fmt) {
    const int bits = devicelib::elementBits(fmt);
    const int perReg = bits >= 32 ? 1 : 32 / bits;
    return (elements / kLanes + perReg - 1) / perReg;
  };
  // mma.sync's fragments hold each element once (ptxas wants exactly as many registers);
  // wmma's f16 A and B fragments repeat theirs, so only a lower bound applies.
  const int counts[4] = {d.a_regs, d.b_regs, d.c_regs, d.d_regs};
  const int needed[4] = {regsFor(s.m * s.k, d.a), regsFor(s.k * s.n, d.b), regsFor(s.m * s.n, d.c),
                         regsFor(s.m * s.n, d.d)};
  for (int i = 0; i < 4; ++i)
    if (counts[i] < needed[i] || (!wmma && counts[i] != needed[i]))
      throwInvalid(in.loc, "vector of " + std::to_string(needed[i]) + " registers expected for " +
                               "ABCD"[i] + " of '" + spellingOf(in) + "'");
  return d;
}

bool isProduct(const ptx::Instruction &in) {
  return in.op == Op::mma || (in.op == Op::wmma && in.has(Mod::mma));
}

unsigned matrixCount(const ptx::Instruction &in) {
  return in.has(Mod::x4) ? 4 : in.has(Mod::x2) ? 2 : 1;
}

// ldmatrix/stmatrix: a register per matrix (.x1, .x2, .x4), as ptxas requires.
void checkMatrixCount(const ptx::Instruction &in) {
  const size_t vec = in.op == Op::ldmatrix ? 0 : 1;
  if (vectorSize(in, vec) != matrixCount(in))
    throwInvalid(in.loc, "vector of " + std::to_string(matrixCount(in)) +
                             " registers expected for '" + spellingOf(in) + "'");
}

} // namespace

std::pair<unsigned, unsigned> matrixSyncSlotBytes(const ptx::Instruction &in) {
  if (isProduct(in)) {
    const cucpu_mma_desc d = describeProduct(in);
    return {d.a_regs * d.reg_bytes[0] + d.b_regs * d.reg_bytes[1] + d.c_regs * d.reg_bytes[2],
            d.d_regs * d.reg_bytes[3]};
  }
  if (in.op == Op::ldmatrix || in.op == Op::stmatrix)
    checkMatrixCount(in);
  if (in.op == Op::ldmatrix)
    return {8, 4 * matrixCount(in)};
  if (in.op == Op::stmatrix)
    return {8 + 4 * matrixCount(in), 0};
  return {4, 4}; // movmatrix
}

// A lane at a matrix sync point publishes its operands: the fragments of A, B and C one register
// after another; the row address (and, for stmatrix, the registers to store).
void KernelLowering::arriveAtMatrixSync(const ptx::Instruction &in, Value *slot) {
  unsigned offset = 0;
  auto put = [&](Value *v) {
    tagMemory(b.CreateStore(v, b.CreateConstGEP1_32(b.getInt8Ty(), slot, offset)));
    offset += unsigned(v->getType()->getPrimitiveSizeInBits() / 8);
  };
  const auto &o = in.operands;
  if (isProduct(in)) {
    const cucpu_mma_desc d = describeProduct(in);
    const uint16_t formats[3] = {d.a, d.b, d.c};
    for (size_t i = 1; i <= 3; ++i)
      for (const auto &e : o[i].elems)
        put(read(e, regBytes(formats[i - 1]) == 8 ? T::B64 : T::B32, in));
    return;
  }
  if (in.op == Op::movmatrix) {
    put(read(o.at(1), T::B32, in));
    return;
  }
  const ptx::Operand &addr = in.op == Op::ldmatrix ? o.at(1) : o.at(0);
  const ptx::Space space =
      ptx::spaceOf(in) == ptx::Space::Shared ? ptx::Space::Shared : ptx::Space::None;
  put(b.CreatePtrToInt(address(addr, space, in), b.getInt64Ty()));
  if (in.op == Op::stmatrix)
    for (const auto &e : o.at(1).elems)
      put(read(e, T::B32, in));
}

// The warp's results from every lane's publication: `pub(lane, offset, type)` reads one.
void KernelLowering::emitMatrixCollectiveStep(
    const ptx::Instruction &in,
    const std::function<Value *(Value *, unsigned, llvm::Type *)> &pub) {
  auto *i16 = b.getInt16Ty(), *i32 = b.getInt32Ty(), *i64 = b.getInt64Ty();
  auto *ptr = b.getPtrTy();
  Value *resBase = threadSlot(resultOff_, resultBytes_, warpBase_);
  auto result = [&](Value *lane, unsigned offset) {
    Value *slot = b.CreateGEP(b.getInt8Ty(), resBase,
                              b.CreateMul(b.CreateZExt(lane, i64), b.getInt64(resultBytes_)));
    return b.CreateConstGEP1_32(b.getInt8Ty(), slot, offset);
  };
  auto rowAddress = [&](Value *lane) { return b.CreateIntToPtr(pub(lane, 0, i64), ptr); };
  auto at = [&](Value *p, Value *bytes) {
    return b.CreateGEP(b.getInt8Ty(), p, b.CreateZExt(bytes, i64));
  };
  if (isProduct(in)) {
    const cucpu_mma_desc d = describeProduct(in);
    const uint16_t *fields = &d.m;
    std::vector<uint16_t> words(fields, fields + sizeof d / sizeof(uint16_t));
    auto *init = llvm::ConstantDataArray::get(ctx, words);
    auto *desc = new llvm::GlobalVariable(*ms.mod, init->getType(), true,
                                          llvm::GlobalValue::PrivateLinkage, init, "mma.desc");
    auto fn = ms.mod->getOrInsertFunction(
        "cucpu_mma", llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr, i64, ptr, i64, i32}, false));
    b.CreateCall(fn, {desc, threadSlot(pubOff_, pubBytes_, warpBase_), b.getInt64(pubBytes_),
                      resBase, b.getInt64(resultBytes_), warpLanes_});
    return;
  }
  const unsigned count = matrixCount(in);
  const bool trans = in.has(Mod::trans);
  Value *c4 = b.getInt32(4), *c2 = b.getInt32(2);
  laneLoop("matrix.lane", [&](Value *lane) {
    Value *row = b.CreateUDiv(lane, c4), *quad = b.CreateURem(lane, c4);
    // For .trans: this lane's two elements are rows 2*quad and 2*quad+1 of column `row`.
    Value *tRow = b.CreateMul(quad, c2), *tCol = b.CreateMul(row, c2);
    if (in.op == Op::movmatrix) {
      // D[row][2q + h] = A[2q + h][row], held by lane 4(2q + h) + row/2, half row % 2.
      Value *shift = b.CreateMul(b.CreateURem(row, c2), b.getInt32(16));
      Value *v = nullptr;
      for (unsigned h = 0; h < 2; ++h) {
        Value *src =
            b.CreateAdd(b.CreateMul(b.CreateAdd(tRow, b.getInt32(h)), c4), b.CreateUDiv(row, c2));
        Value *half = b.CreateAnd(b.CreateLShr(pub(src, 0, i32), shift), b.getInt32(0xffff));
        v = h == 0 ? half : b.CreateOr(v, b.CreateShl(half, 16));
      }
      b.CreateStore(v, result(lane, 0));
      return;
    }
    for (unsigned j = 0; j < count; ++j) {
      Value *base = b.getInt32(8 * j);
      if (!trans) {
        Value *p = at(rowAddress(b.CreateAdd(base, row)), b.CreateMul(quad, c4));
        if (in.op == Op::ldmatrix)
          b.CreateStore(b.CreateLoad(i32, p), result(lane, 4 * j));
        else
          b.CreateStore(pub(lane, 8 + 4 * j, i32), p);
        continue;
      }
      for (unsigned h = 0; h < 2; ++h) {
        Value *p = at(rowAddress(b.CreateAdd(base, b.CreateAdd(tRow, b.getInt32(h)))), tCol);
        if (in.op == Op::ldmatrix)
          b.CreateStore(b.CreateLoad(i16, p), result(lane, 4 * j + 2 * h));
        else
          b.CreateStore(b.CreateTrunc(b.CreateLShr(pub(lane, 8 + 4 * j, i32), 16 * h), i16), p);
      }
    }
  });
}

// At the start of a matrix sync point's region each lane takes its registers.
void KernelLowering::emitMatrixCollective(const ptx::Instruction &in) {
  if (in.op == Op::stmatrix)
    return;
  Value *slot = threadSlot(resultOff_, resultBytes_, linearTid_);
  const ptx::Operand &dst = in.operands.at(0);
  if (in.op == Op::movmatrix) {
    auto *v = b.CreateLoad(b.getInt32Ty(), slot);
    tagMemory(v);
    write(dst, v, T::B32, in);
    return;
  }
  const bool wide = isProduct(in) && describeProduct(in).d == CUCPU_MF_F64;
  unsigned offset = 0;
  for (const auto &e : dst.elems) {
    auto *v = b.CreateLoad(wide ? b.getInt64Ty() : b.getInt32Ty(),
                           b.CreateConstGEP1_32(b.getInt8Ty(), slot, offset));
    tagMemory(v);
    write(e, v, wide ? T::B64 : T::B32, in);
    offset += wide ? 8 : 4;
  }
}

// wmma.load / wmma.store: this lane's elements of the tile, one access each.
bool KernelLowering::emitMatrixInstruction(const ptx::Instruction &in) {
  if (passes::isMatrixSync(in))
    throwInvalid(in.loc, "internal: matrix sync point outside its region");
  if (in.op != Op::wmma || !(in.has(Mod::load) || in.has(Mod::store)))
    return false;
  const bool load = in.has(Mod::load);
  const Shape s = shapeOf(in);
  const int rows = in.has(Mod::b) ? s.k : s.m;
  const int cols = in.has(Mod::a) ? s.k : s.n;
  if (in.types.empty())
    throwInvalid(in.loc, "wmma without an element type");
  const uint16_t fmt = formatOf(ptx::typeName(in.types.back()), in.loc);
  const int bits = devicelib::elementBits(fmt), bytes = bits / 8;
  const int perReg = bits >= 32 ? 1 : 32 / bits;
  const ptx::Operand &vec = in.operands.at(load ? 0 : 1);
  const ptx::Operand &addr = in.operands.at(load ? 1 : 0);
  const int elements = rows * cols / kLanes;
  const int regs = int(vec.elems.size());
  if (regs * perReg < elements)
    throwInvalid(in.loc, "wmma fragment with too few registers for the shape and type");
  const bool colMajor = in.has(Mod::col);
  const ptx::Space space = ptx::spaceOf(in);
  Value *base = address(addr, space, in);
  auto *i64 = b.getInt64Ty();
  Value *stride = in.operands.size() > 2 ? b.CreateZExt(read(in.operands[2], T::U32, in), i64)
                                         : b.getInt64(uint64_t(colMajor ? rows : cols));
  Value *lane = b.CreateZExt(b.CreateAnd(linearTid_, b.getInt32(kLanes - 1)), i64);
  llvm::Type *elemTy = b.getIntNTy(unsigned(bits));
  llvm::Type *regTy = b.getIntNTy(bits == 64 ? 64 : 32);
  auto elementAddress = [&](int e) {
    Value *idx = b.CreateAdd(b.getInt64(uint64_t(e * kLanes)), lane);
    Value *r = b.CreateUDiv(idx, b.getInt64(uint64_t(cols)));
    Value *c = b.CreateURem(idx, b.getInt64(uint64_t(cols)));
    Value *off =
        colMajor ? b.CreateAdd(b.CreateMul(c, stride), r) : b.CreateAdd(b.CreateMul(r, stride), c);
    return b.CreateGEP(b.getInt8Ty(), base, b.CreateMul(off, b.getInt64(uint64_t(bytes))));
  };
  const bool outside = space == ptx::Space::Global || space == ptx::Space::Shared;
  if (load) {
    std::vector<Value *> loaded(size_t(elements), nullptr);
    for (int e = 0; e < elements; ++e) {
      Value *p = elementAddress(e);
      checkAccess(in, p, space, unsigned(std::max(1, bytes)), CUCPU_ACCESS_READ);
      auto *ld = b.CreateLoad(elemTy, p);
      tagMemory(ld, outside);
      loaded[size_t(e)] = ld;
    }
    for (int r = 0; r < regs; ++r) {
      Value *reg = llvm::ConstantInt::get(regTy, 0);
      for (int p = 0; p < perReg; ++p) {
        Value *v = b.CreateZExt(loaded[size_t((r * perReg + p) % elements)], regTy);
        reg = b.CreateOr(reg, b.CreateShl(v, uint64_t(p * bits)));
      }
      write(vec.elems[size_t(r)], reg, bits == 64 ? T::B64 : T::B32, in);
    }
    return true;
  }
  for (int e = 0; e < elements; ++e) {
    Value *reg = read(vec.elems[size_t(e / perReg)], bits == 64 ? T::B64 : T::B32, in);
    Value *v = b.CreateTrunc(b.CreateLShr(reg, uint64_t((e % perReg) * bits)), elemTy);
    Value *p = elementAddress(e);
    checkAccess(in, p, space, unsigned(std::max(1, bytes)), CUCPU_ACCESS_WRITE);
    tagMemory(b.CreateStore(v, p), outside);
  }
  return true;
}

} // namespace cucpu::jit
