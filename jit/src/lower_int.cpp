// Integer instruction families: arithmetic (.sat .hi .wide, carry chains, 24-bit, SIMD 16x2),
// div/rem, min/max, logic, shifts, and bit manipulation (bfe bfi bfind prmt lop3 shf bmsk dp4a
// dp2a).
#include "lowering.h"

#include <llvm/IR/Intrinsics.h>

#include <set>

namespace cucpu::jit {

using llvm::Value;
using T = ptx::Type;

namespace {

// prmt modes with a 2-bit selector: source byte of d.b0..d.b3 for selector 0..3.
struct PrmtMode {
  Mod mod;
  uint8_t idx[4][4]; // [selector][destination byte]
};
const PrmtMode kPrmtModes[] = {
    {Mod::f4e, {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}}},
    {Mod::b4e, {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}}},
    {Mod::rc8, {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}},
    {Mod::ecl, {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}}},
    {Mod::ecr, {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}}},
    {Mod::rc16, {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}},
};

} // namespace

bool KernelLowering::emitIntInstruction(const ptx::Instruction &in) {
  const Op op = in.op;
  const bool simd = in.has(Mod::s16x2) || in.has(Mod::u16x2);
  if (!simd && (in.types.empty() || ptx::isFloat(in.types[0])))
    return false;
  const T t = simd ? T::B32 : in.types[0];
  llvm::Type *ty = llvmType(ctx, t);
  const auto &o = in.operands;
  auto unsupported = [&]() { throwUnsupported(in.loc, "instruction '" + spellingOf(in) + "'"); };
  auto need = [&](size_t n) {
    if (o.size() != n)
      throwInvalid(in.loc, "'" + spellingOf(in) + "' expects " + std::to_string(n) + " operands");
  };
  auto src = [&](size_t i, T want) { return read(o.at(i), want, in); };
  auto intrin = [&](llvm::Intrinsic::ID id, std::vector<Value *> args) -> Value * {
    return b.CreateIntrinsic(id, {args[0]->getType()}, args);
  };
  auto C = [&](llvm::Type *tt, uint64_t v) { return llvm::ConstantInt::get(tt, v); };
  const bool s = ptx::isSigned(t);
  const unsigned bits = ty->getIntegerBitWidth();
  auto wideT = [&](bool sign) {
    return bits == 16 ? (sign ? T::S32 : T::U32) : bits == 32 ? (sign ? T::S64 : T::U64) : T::None;
  };
  auto setCarry = [&](Value *c1) { b.CreateStore(b.CreateZExt(c1, b.getInt32Ty()), carry_); };
  auto carryIn = [&]() { return b.CreateZExtOrTrunc(b.CreateLoad(b.getInt32Ty(), carry_), ty); };

  if (simd) { // add/sub/min/max on two 16-bit lanes
    need(3);
    const bool ss = in.has(Mod::s16x2);
    Value *r = perLane(2, {src(1, t), src(2, t)}, [&](std::vector<Value *> &a) -> Value * {
      if (op == Op::add)
        return b.CreateAdd(a[0], a[1]);
      if (op == Op::sub)
        return b.CreateSub(a[0], a[1]);
      if (op != Op::min && op != Op::max)
        unsupported();
      Value *m = intrin(op == Op::min ? (ss ? llvm::Intrinsic::smin : llvm::Intrinsic::umin)
                                      : (ss ? llvm::Intrinsic::smax : llvm::Intrinsic::umax),
                        {a[0], a[1]});
      return in.has(Mod::relu) ? intrin(llvm::Intrinsic::smax, {m, b.getInt16(0)}) : m;
    });
    write(o[0], r, t, in);
    return true;
  }

  if (op == Op::add || op == Op::sub || op == Op::addc || op == Op::subc) {
    need(3);
    const bool isAdd = op == Op::add || op == Op::addc;
    Value *a = src(1, t), *c = src(2, t);
    if (in.has(Mod::sat)) {
      if (t != T::S32)
        unsupported();
      write(o[0], intrin(isAdd ? llvm::Intrinsic::sadd_sat : llvm::Intrinsic::ssub_sat, {a, c}), t,
            in);
      return true;
    }
    Value *r = isAdd ? b.CreateAdd(a, c) : b.CreateSub(a, c);
    if (in.has(Mod::cc) || op == Op::addc || op == Op::subc) {
      llvm::Type *w = b.getIntNTy(bits + 1);
      Value *wr = isAdd ? b.CreateAdd(b.CreateZExt(a, w), b.CreateZExt(c, w))
                        : b.CreateSub(b.CreateZExt(a, w), b.CreateZExt(c, w));
      if (op == Op::addc || op == Op::subc) {
        Value *cin = b.CreateZExt(carryIn(), w);
        wr = isAdd ? b.CreateAdd(wr, cin) : b.CreateSub(wr, cin);
      }
      r = b.CreateTrunc(wr, ty);
      if (in.has(Mod::cc))
        setCarry(b.CreateTrunc(b.CreateLShr(wr, bits), b.getInt1Ty())); // carry / borrow
    }
    write(o[0], r, t, in);
    return true;
  }

  if (op == Op::mul || op == Op::mad || op == Op::madc) {
    const bool mad = op != Op::mul;
    need(mad ? 4 : 3);
    Value *a = src(1, t), *c = src(2, t);
    const bool wide = in.has(Mod::wide), hi = in.has(Mod::hi);
    llvm::Type *w = b.getIntNTy(bits * 2);
    Value *p = b.CreateMul(s ? b.CreateSExt(a, w) : b.CreateZExt(a, w),
                           s ? b.CreateSExt(c, w) : b.CreateZExt(c, w));
    if (wide) {
      if (bits == 64)
        unsupported();
      if (mad)
        p = b.CreateAdd(p, src(3, wideT(s)));
      write(o[0], p, wideT(s), in);
      return true;
    }
    Value *r = hi ? b.CreateTrunc(b.CreateLShr(p, bits), ty) : b.CreateTrunc(p, ty);
    if (!mad) {
      write(o[0], r, t, in);
      return true;
    }
    Value *d = src(3, t);
    if (in.has(Mod::sat)) {
      if (t != T::S32 || !hi)
        unsupported();
      write(o[0], intrin(llvm::Intrinsic::sadd_sat, {r, d}), t, in);
      return true;
    }
    llvm::Type *w1 = b.getIntNTy(bits + 1);
    Value *sum = b.CreateAdd(b.CreateZExt(r, w1), b.CreateZExt(d, w1));
    if (op == Op::madc)
      sum = b.CreateAdd(sum, b.CreateZExt(carryIn(), w1));
    if (in.has(Mod::cc))
      setCarry(b.CreateTrunc(b.CreateLShr(sum, bits), b.getInt1Ty()));
    write(o[0], b.CreateTrunc(sum, ty), t, in);
    return true;
  }

  if (op == Op::mul24 || op == Op::mad24) {
    need(op == Op::mad24 ? 4 : 3);
    if (bits != 32 || in.has(Mod::sat))
      unsupported();
    llvm::Type *w = b.getInt64Ty();
    auto ext24 = [&](Value *v) {
      Value *x = b.CreateZExt(v, w);
      return s ? b.CreateAShr(b.CreateShl(x, 40), 40) : b.CreateAnd(x, C(w, 0xffffff));
    };
    Value *p = b.CreateMul(ext24(src(1, t)), ext24(src(2, t)));
    Value *r = b.CreateTrunc(in.has(Mod::hi) ? b.CreateLShr(p, 16) : p, ty);
    if (op == Op::mad24)
      r = b.CreateAdd(r, src(3, t));
    write(o[0], r, t, in);
    return true;
  }

  if (op == Op::sad) {
    need(4);
    Value *a = src(1, t), *c = src(2, t);
    Value *lt = s ? b.CreateICmpSLT(a, c) : b.CreateICmpULT(a, c);
    Value *diff = b.CreateSelect(lt, b.CreateSub(c, a), b.CreateSub(a, c));
    write(o[0], b.CreateAdd(src(3, t), diff), t, in);
    return true;
  }

  if (op == Op::div || op == Op::rem) {
    need(3);
    Value *a = src(1, t), *c = src(2, t);
    // No trap on division by zero or INT_MIN / -1: the results are what the GPU gives
    // (x / 0 and x % 0 are all ones).
    Value *zero = C(ty, 0);
    Value *isZero = b.CreateICmpEQ(c, zero);
    Value *safe = b.CreateSelect(isZero, C(ty, 1), c);
    Value *ones = llvm::ConstantInt::getAllOnesValue(ty);
    Value *r;
    if (s) {
      Value *ovf = b.CreateAnd(b.CreateICmpEQ(a, b.getInt(llvm::APInt::getSignedMinValue(bits))),
                               b.CreateICmpEQ(safe, ones));
      safe = b.CreateSelect(ovf, C(ty, 1), safe);
      r = op == Op::div ? b.CreateSDiv(a, safe) : b.CreateSRem(a, safe);
      r = b.CreateSelect(ovf, op == Op::div ? a : zero, r);
    } else {
      r = op == Op::div ? b.CreateUDiv(a, safe) : b.CreateURem(a, safe);
    }
    write(o[0], b.CreateSelect(isZero, ones, r), t, in);
    return true;
  }

  if (op == Op::min || op == Op::max) {
    need(3);
    Value *r = intrin(op == Op::min ? (s ? llvm::Intrinsic::smin : llvm::Intrinsic::umin)
                                    : (s ? llvm::Intrinsic::smax : llvm::Intrinsic::umax),
                      {src(1, t), src(2, t)});
    if (in.has(Mod::relu))
      r = intrin(llvm::Intrinsic::smax, {r, C(ty, 0)});
    write(o[0], r, t, in);
    return true;
  }

  if (op == Op::neg || op == Op::abs || op == Op::not_ || op == Op::cnot || op == Op::popc ||
      op == Op::clz || op == Op::brev || op == Op::bfind) {
    need(2);
    Value *a = src(1, t), *r;
    if (op == Op::neg)
      r = b.CreateNeg(a);
    else if (op == Op::abs)
      r = intrin(llvm::Intrinsic::abs, {a, b.getFalse()});
    else if (op == Op::not_)
      r = b.CreateNot(a);
    else if (op == Op::cnot)
      r = b.CreateZExt(b.CreateICmpEQ(a, C(ty, 0)), ty);
    else if (op == Op::popc)
      r = b.CreateZExtOrTrunc(intrin(llvm::Intrinsic::ctpop, {a}), b.getInt32Ty());
    else if (op == Op::clz)
      r = b.CreateZExtOrTrunc(intrin(llvm::Intrinsic::ctlz, {a, b.getFalse()}), b.getInt32Ty());
    else if (op == Op::brev)
      r = intrin(llvm::Intrinsic::bitreverse, {a});
    else { // bfind: the most significant non-sign bit, or all ones
      Value *x = s ? b.CreateSelect(b.CreateICmpSLT(a, C(ty, 0)), b.CreateNot(a), a) : a;
      Value *lz =
          b.CreateZExtOrTrunc(intrin(llvm::Intrinsic::ctlz, {x, b.getFalse()}), b.getInt32Ty());
      Value *none = b.CreateICmpEQ(x, C(ty, 0));
      Value *pos = in.has(Mod::shiftamt) ? lz : b.CreateSub(b.getInt32(bits - 1), lz);
      r = b.CreateSelect(none, b.getInt32(0xffffffff), pos);
    }
    bool u32 = op == Op::popc || op == Op::clz || op == Op::bfind;
    write(o[0], r, u32 ? T::U32 : t, in);
    return true;
  }

  if (op == Op::and_ || op == Op::or_ || op == Op::xor_) {
    need(3);
    Value *a = src(1, t), *c = src(2, t);
    write(o[0],
          op == Op::and_  ? b.CreateAnd(a, c)
          : op == Op::or_ ? b.CreateOr(a, c)
                          : b.CreateXor(a, c),
          t, in);
    return true;
  }

  if (op == Op::shl || op == Op::shr) {
    need(3);
    Value *a = src(1, t);
    Value *n32 = src(2, T::U32);
    Value *big = b.CreateICmpUGE(n32, b.getInt32(bits));
    Value *n = b.CreateSelect(big, C(ty, 0), b.CreateZExtOrTrunc(n32, ty));
    Value *r;
    if (op == Op::shl)
      r = b.CreateSelect(big, C(ty, 0), b.CreateShl(a, n));
    else if (s)
      r = b.CreateAShr(a, b.CreateSelect(big, C(ty, bits - 1), n));
    else
      r = b.CreateSelect(big, C(ty, 0), b.CreateLShr(a, n));
    write(o[0], r, t, in);
    return true;
  }

  if (op == Op::bfe) {
    need(4);
    Value *a = src(1, t);
    Value *pos = b.CreateAnd(src(2, T::U32), b.getInt32(0xff));
    Value *len = b.CreateAnd(src(3, T::U32), b.getInt32(0xff));
    Value *W = b.getInt32(bits);
    // L bits of the field lie inside the value; the sign is bit min(pos + len - 1, msb).
    Value *inside = b.CreateICmpULT(pos, W);
    Value *room = b.CreateSub(W, b.CreateSelect(inside, pos, W));
    Value *L = b.CreateSelect(b.CreateICmpULT(len, room), len, room);
    Value *hasL = b.CreateICmpNE(L, b.getInt32(0));
    Value *safeL = b.CreateSelect(hasL, L, b.getInt32(1));
    Value *shl = b.CreateZExtOrTrunc(
        b.CreateSub(b.CreateSub(W, b.CreateSelect(inside, pos, b.getInt32(0))), safeL), ty);
    Value *shr = b.CreateZExtOrTrunc(b.CreateSub(W, safeL), ty);
    Value *up = b.CreateShl(a, shl);
    Value *field = s ? b.CreateAShr(up, shr) : b.CreateLShr(up, shr);
    Value *r;
    if (s) {
      Value *sbitPos = b.CreateSub(b.CreateAdd(pos, len), b.getInt32(1));
      sbitPos = b.CreateSelect(b.CreateICmpULT(sbitPos, W), sbitPos, b.getInt32(bits - 1));
      Value *sbit = b.CreateAnd(b.CreateLShr(a, b.CreateZExtOrTrunc(sbitPos, ty)), C(ty, 1));
      Value *fill = b.CreateNeg(sbit);
      fill = b.CreateSelect(b.CreateICmpEQ(len, b.getInt32(0)), C(ty, 0), fill);
      r = b.CreateSelect(hasL, field, fill);
    } else {
      r = b.CreateSelect(hasL, field, C(ty, 0));
    }
    write(o[0], r, t, in);
    return true;
  }

  if (op == Op::bfi) {
    need(5);
    Value *f = src(1, t), *base = src(2, t);
    Value *pos = b.CreateAnd(src(3, T::U32), b.getInt32(0xff));
    Value *len = b.CreateAnd(src(4, T::U32), b.getInt32(0xff));
    llvm::Type *w = b.getIntNTy(bits * 2);
    Value *lenW = b.CreateZExt(
        b.CreateSelect(b.CreateICmpUGT(len, b.getInt32(bits)), b.getInt32(bits), len), w);
    Value *posW = b.CreateZExt(
        b.CreateSelect(b.CreateICmpUGT(pos, b.getInt32(bits)), b.getInt32(bits), pos), w);
    Value *mask = b.CreateShl(b.CreateSub(b.CreateShl(C(w, 1), lenW), C(w, 1)), posW);
    mask = b.CreateTrunc(mask, ty);
    Value *ins = b.CreateTrunc(b.CreateShl(b.CreateZExt(f, w), posW), ty);
    write(o[0], b.CreateOr(b.CreateAnd(base, b.CreateNot(mask)), b.CreateAnd(ins, mask)), t, in);
    return true;
  }

  if (op == Op::prmt) {
    need(4);
    Value *v = b.CreateOr(b.CreateZExt(src(1, T::B32), b.getInt64Ty()),
                          b.CreateShl(b.CreateZExt(src(2, T::B32), b.getInt64Ty()), 32));
    Value *c = src(3, T::B32);
    auto byteAt = [&](Value *idx) { // idx: i32 0..7
      return b.CreateAnd(
          b.CreateTrunc(b.CreateLShr(v, b.CreateZExt(b.CreateShl(idx, 3), b.getInt64Ty())),
                        b.getInt32Ty()),
          b.getInt32(0xff));
    };
    const PrmtMode *mode = nullptr;
    for (const auto &m : kPrmtModes)
      if (in.has(m.mod))
        mode = &m;
    Value *r = b.getInt32(0);
    Value *sel = b.CreateAnd(c, b.getInt32(3));
    for (unsigned k = 0; k < 4; ++k) {
      Value *byte;
      if (mode) {
        Value *idx = b.getInt32(mode->idx[3][k]);
        for (int sv = 2; sv >= 0; --sv)
          idx = b.CreateSelect(b.CreateICmpEQ(sel, b.getInt32(sv)), b.getInt32(mode->idx[sv][k]),
                               idx);
        byte = byteAt(idx);
      } else {
        Value *nib = b.CreateAnd(b.CreateLShr(c, 4 * k), b.getInt32(0xf));
        byte = byteAt(b.CreateAnd(nib, b.getInt32(7)));
        Value *rep = b.CreateICmpNE(b.CreateAnd(nib, b.getInt32(8)), b.getInt32(0));
        Value *signFill =
            b.CreateSelect(b.CreateICmpNE(b.CreateAnd(byte, b.getInt32(0x80)), b.getInt32(0)),
                           b.getInt32(0xff), b.getInt32(0));
        byte = b.CreateSelect(rep, signFill, byte);
      }
      r = b.CreateOr(r, b.CreateShl(byte, 8 * k));
    }
    write(o[0], r, T::B32, in);
    return true;
  }

  if (op == Op::lop3) {
    // lop3.b32 d, a, b, c, lut;  or, PTX 8.2, lop3.{or,and}.b32 d|p, a, b, c, lut, q;
    const bool withPred = o.size() == 6 && !o[0].name2.empty();
    if ((o.size() != 5 && !withPred) || o[4].kind != ptx::Operand::Kind::Imm)
      unsupported();
    if (withPred && in.has(Mod::or_) == in.has(Mod::and_))
      unsupported();
    Value *a = src(1, t), *c = src(2, t), *d = src(3, t);
    unsigned lut = static_cast<unsigned>(o[4].imm) & 0xff;
    Value *r = C(ty, 0);
    for (unsigned i = 0; i < 8; ++i) {
      if (!(lut >> i & 1))
        continue;
      Value *term = b.CreateAnd(b.CreateAnd(i & 4 ? a : b.CreateNot(a), i & 2 ? c : b.CreateNot(c)),
                                i & 1 ? d : b.CreateNot(d));
      r = b.CreateOr(r, term);
    }
    if (!withPred) {
      write(o[0], r, t, in);
      return true;
    }
    // p = (d != 0) BoolOp q
    ptx::Operand dOp = o[0], pOp = o[0];
    dOp.name2.clear();
    pOp.name = o[0].name2;
    pOp.name2.clear();
    Value *nz = b.CreateICmpNE(r, C(ty, 0));
    Value *q = read(o[5], T::Pred, in);
    write(dOp, r, t, in);
    write(pOp, in.has(Mod::or_) ? b.CreateOr(nz, q) : b.CreateAnd(nz, q), T::Pred, in);
    return true;
  }

  if (op == Op::shf) {
    need(4);
    if (bits != 32)
      unsupported();
    Value *v = b.CreateOr(b.CreateZExt(src(1, t), b.getInt64Ty()),
                          b.CreateShl(b.CreateZExt(src(2, t), b.getInt64Ty()), 32));
    Value *n = src(3, T::U32);
    n = in.has(Mod::wrap) ? b.CreateAnd(n, b.getInt32(31))
                          : b.CreateSelect(b.CreateICmpUGT(n, b.getInt32(32)), b.getInt32(32), n);
    Value *n64 = b.CreateZExt(n, b.getInt64Ty());
    Value *r = in.has(Mod::l) ? b.CreateLShr(b.CreateShl(v, n64), 32) : b.CreateLShr(v, n64);
    write(o[0], b.CreateTrunc(r, ty), t, in);
    return true;
  }

  if (op == Op::bmsk) {
    need(3);
    Value *pos = src(1, T::U32), *len = src(2, T::U32);
    if (in.has(Mod::wrap)) {
      pos = b.CreateAnd(pos, b.getInt32(31));
      len = b.CreateAnd(len, b.getInt32(31));
    } else {
      pos = b.CreateSelect(b.CreateICmpUGT(pos, b.getInt32(32)), b.getInt32(32), pos);
      len = b.CreateSelect(b.CreateICmpUGT(len, b.getInt32(32)), b.getInt32(32), len);
    }
    llvm::Type *w = b.getInt64Ty();
    Value *m = b.CreateShl(b.CreateSub(b.CreateShl(C(w, 1), b.CreateZExt(len, w)), C(w, 1)),
                           b.CreateZExt(pos, w));
    write(o[0], b.CreateTrunc(m, b.getInt32Ty()), T::B32, in);
    return true;
  }

  if (op == Op::dp4a || op == Op::dp2a) {
    need(4);
    if (in.types.size() != 2)
      unsupported();
    const bool sa = ptx::isSigned(in.types[0]), sb = ptx::isSigned(in.types[1]);
    Value *a = src(1, T::B32), *c = src(2, T::B32);
    Value *acc = src(3, T::B32);
    auto part = [&](Value *v, unsigned idx, unsigned w, bool sg) {
      Value *x = b.CreateTrunc(b.CreateLShr(v, idx * w), b.getIntNTy(w));
      return sg ? b.CreateSExt(x, b.getInt32Ty()) : b.CreateZExt(x, b.getInt32Ty());
    };
    if (op == Op::dp4a) {
      for (unsigned i = 0; i < 4; ++i)
        acc = b.CreateAdd(acc, b.CreateMul(part(a, i, 8, sa), part(c, i, 8, sb)));
    } else {
      unsigned base = in.has(Mod::hi) ? 2 : 0;
      for (unsigned i = 0; i < 2; ++i)
        acc = b.CreateAdd(acc, b.CreateMul(part(a, i, 16, sa), part(c, base + i, 8, sb)));
    }
    write(o[0], acc, T::B32, in);
    return true;
  }
  return false;
}

} // namespace cucpu::jit
