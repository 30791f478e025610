// Floating-point building blocks: exact directed rounding through double-double residuals,
// round-to-odd narrowing, flush-to-zero, saturation.
#include "lower_fp.h"

#include "directed_rounding.h"

#include <llvm/IR/Intrinsics.h>

#include <algorithm>
#include <cmath>

namespace cucpu::jit::fp {

using llvm::Value;

Round roundOf(const ptx::Instruction &in, Round dflt) {
  for (Mod m : in.modIds) {
    if (m == Mod::rn || m == Mod::rni)
      return Round::RN;
    if (m == Mod::rz || m == Mod::rzi)
      return Round::RZ;
    if (m == Mod::rm || m == Mod::rmi)
      return Round::RM;
    if (m == Mod::rp || m == Mod::rpi)
      return Round::RP;
    if (m == Mod::rna)
      return Round::RNA;
  }
  return dflt;
}

bool hasRound(const ptx::Instruction &in) {
  for (Mod m : in.modIds)
    if (m == Mod::rn || m == Mod::rz || m == Mod::rm || m == Mod::rp || m == Mod::rna ||
        m == Mod::rni || m == Mod::rzi || m == Mod::rmi || m == Mod::rpi)
      return true;
  return false;
}

bool formatOf(ptx::Type t, Format *f, unsigned *lanes) {
  using T = ptx::Type;
  *lanes = (t == T::F16x2 || t == T::BF16x2) ? 2 : 1;
  switch (t) {
  case T::F16:
  case T::F16x2:
    *f = Format::F16;
    return true;
  case T::BF16:
  case T::BF16x2:
    *f = Format::BF16;
    return true;
  case T::F32:
    *f = Format::F32;
    return true;
  case T::F64:
    *f = Format::F64;
    return true;
  default:
    return false;
  }
}

bool isHalfFormat(Format f) { return f == Format::F16 || f == Format::BF16; }
unsigned formatBits(Format f) { return f == Format::F64 ? 64 : f == Format::F32 ? 32 : 16; }

Value *Emitter::toFloat(Value *v, Format f) {
  switch (f) {
  case Format::F16:
    return b.CreateFPExt(b.CreateBitCast(v, b.getHalfTy()), b.getFloatTy());
  case Format::BF16:
    return b.CreateBitCast(b.CreateShl(b.CreateZExt(v, b.getInt32Ty()), 16), b.getFloatTy());
  case Format::F32:
    return v;
  case Format::F64:
    return b.CreateFPTrunc(v, b.getFloatTy());
  }
  return v;
}

Value *Emitter::toDouble(Value *v, Format f) {
  return f == Format::F64 ? v : b.CreateFPExt(toFloat(v, f), dbl());
}

Value *Emitter::fromFloatRN(Value *x, Format f) {
  if (f == Format::F32)
    return x;
  return roundNarrow(b.CreateFPExt(x, dbl()), llvm::ConstantFP::get(dbl(), 0.0), f, Round::RN);
}

Value *Emitter::ftz(Value *x, Format f) {
  unsigned n = formatBits(f);
  llvm::Type *it = b.getIntNTy(n);
  llvm::APInt expMask = f == Format::F16    ? llvm::APInt(16, 0x7c00)
                        : f == Format::BF16 ? llvm::APInt(16, 0x7f80)
                        : f == Format::F32  ? llvm::APInt(32, 0x7f800000)
                                            : llvm::APInt(64, 0x7ff0000000000000ull);
  Value *bits = b.CreateBitCast(x, it);
  Value *sub = b.CreateICmpEQ(b.CreateAnd(bits, llvm::ConstantInt::get(it, expMask)),
                              llvm::ConstantInt::get(it, 0));
  Value *flushed = b.CreateAnd(bits, llvm::ConstantInt::get(it, llvm::APInt::getSignMask(n)));
  return b.CreateBitCast(b.CreateSelect(sub, flushed, bits), x->getType());
}

Value *Emitter::sat(Value *x, Format f) {
  if (isHalfFormat(f)) {
    Value *v = toFloat(x, f);
    Value *one = llvm::ConstantInt::get(x->getType(), f == Format::F16 ? 0x3c00 : 0x3f80);
    Value *zero = llvm::ConstantInt::get(x->getType(), 0);
    Value *gt0 = b.CreateFCmpOGT(v, llvm::ConstantFP::get(b.getFloatTy(), 0.0));
    Value *lt1 = b.CreateFCmpOLT(v, llvm::ConstantFP::get(b.getFloatTy(), 1.0));
    return b.CreateSelect(gt0, b.CreateSelect(lt1, x, one), zero);
  }
  llvm::Type *t = x->getType();
  Value *gt0 = b.CreateFCmpOGT(x, llvm::ConstantFP::get(t, 0.0));
  Value *lt1 = b.CreateFCmpOLT(x, llvm::ConstantFP::get(t, 1.0));
  return b.CreateSelect(gt0, b.CreateSelect(lt1, x, llvm::ConstantFP::get(t, 1.0)),
                        llvm::ConstantFP::get(t, 0.0));
}

Value *Emitter::step(Value *x, bool up) {
  unsigned n = x->getType()->getPrimitiveSizeInBits();
  llvm::Type *it = b.getIntNTy(n);
  Value *bits = b.CreateBitCast(x, it);
  Value *neg = b.CreateICmpSLT(bits, llvm::ConstantInt::get(it, 0));
  Value *zero = b.CreateFCmpOEQ(x, llvm::ConstantFP::get(x->getType(), 0.0));
  Value *one = llvm::ConstantInt::get(it, 1);
  Value *inc = b.CreateAdd(bits, one), *dec = b.CreateSub(bits, one);
  Value *r = up ? b.CreateSelect(zero, one, b.CreateSelect(neg, dec, inc))
                : b.CreateSelect(zero, llvm::ConstantInt::get(it, llvm::APInt::getSignMask(n) | 1),
                                 b.CreateSelect(neg, inc, dec));
  return b.CreateBitCast(r, x->getType());
}

Value *Emitter::adjust(Value *r, Value *resid, Round m) {
  if (m == Round::RN || m == Round::RNA)
    return r;
  Value *rz = llvm::ConstantFP::get(resid->getType(), 0.0);
  Value *pos = b.CreateFCmpOGT(resid, rz), *neg = b.CreateFCmpOLT(resid, rz);
  if (m == Round::RP)
    return b.CreateSelect(pos, step(r, true), r);
  if (m == Round::RM)
    return b.CreateSelect(neg, step(r, false), r);
  Value *zr = llvm::ConstantFP::get(r->getType(), 0.0);
  Value *down = b.CreateAnd(b.CreateFCmpOGT(r, zr), neg);
  Value *up = b.CreateAnd(b.CreateFCmpOLT(r, zr), pos);
  return b.CreateSelect(down, step(r, false), b.CreateSelect(up, step(r, true), r));
}

Value *Emitter::isFinite(Value *x) {
  Value *a = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  return b.CreateFCmpOLT(a, llvm::ConstantFP::getInfinity(x->getType()));
}

Value *Emitter::signBit(Value *x) {
  unsigned n = x->getType()->getPrimitiveSizeInBits();
  return b.CreateICmpSLT(b.CreateBitCast(x, b.getIntNTy(n)), b.getIntN(n, 0));
}

Value *Emitter::withSign(Value *x, Value *neg) {
  Value *a = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  return b.CreateSelect(neg, b.CreateFNeg(a), a);
}

Value *Emitter::fma(Value *a, Value *c, Value *d) {
  return b.CreateIntrinsic(llvm::Intrinsic::fma, {a->getType()}, {a, c, d});
}

std::pair<Value *, Value *> Emitter::twoSum(Value *a, Value *c) {
  Value *s = b.CreateFAdd(a, c);
  Value *bb = b.CreateFSub(s, a);
  Value *e = b.CreateFAdd(b.CreateFSub(a, b.CreateFSub(s, bb)), b.CreateFSub(c, bb));
  return {s, e};
}

Value *Emitter::roundNarrow(Value *hi, Value *lo, Format to, Round m) {
  Value *zero = llvm::ConstantFP::get(dbl(), 0.0);
  if (to == Format::F32 && m != Round::RN && m != Round::RNA) {
    // A directed rounding to f32 needs only the sign of the exact hi + lo - r32. hi - r32 is
    // exact (both on hi's double grid) and, when not zero, a multiple of hi's last place, which
    // outweighs lo (at most half of it): its sign decides, else lo's.
    Value *r32 = b.CreateFPTrunc(hi, b.getFloatTy());
    Value *d = b.CreateFSub(hi, b.CreateFPExt(r32, dbl()));
    return adjust(r32, b.CreateSelect(b.CreateFCmpONE(d, zero), d, lo), m);
  }
  // Round to odd into double first: exact when lo is 0, else hi with its last bit set toward lo.
  Value *odd = b.CreateTrunc(b.CreateBitCast(hi, b.getInt64Ty()), b.getInt1Ty());
  Value *nudge =
      b.CreateAnd(b.CreateAnd(isFinite(hi), b.CreateFCmpONE(lo, zero)), b.CreateNot(odd));
  Value *ro = b.CreateSelect(
      nudge, b.CreateSelect(b.CreateFCmpOGT(lo, zero), step(hi, true), step(hi, false)), hi);
  Value *r32 = b.CreateFPTrunc(ro, b.getFloatTy());
  Value *d = b.CreateFSub(ro, b.CreateFPExt(r32, dbl()));
  if (to == Format::F32)
    return adjust(r32, d, m);
  // Round to odd into f32 (24 bits suffice for a correct final rounding to 11 or 8 bits).
  Value *rz = adjust(r32, d, Round::RZ);
  Value *ro32 =
      b.CreateSelect(b.CreateFCmpONE(d, zero),
                     b.CreateBitCast(b.CreateOr(b.CreateBitCast(rz, b.getInt32Ty()), b.getInt32(1)),
                                     b.getFloatTy()),
                     r32);
  if (to == Format::F16) {
    Value *h = b.CreateFPTrunc(ro32, b.getHalfTy());
    h = adjust(h, b.CreateFSub(ro32, b.CreateFPExt(h, b.getFloatTy())), m);
    return b.CreateBitCast(h, b.getInt16Ty());
  }
  // bf16: integer rounding of the f32 bits
  Value *u = b.CreateBitCast(ro32, b.getInt32Ty());
  Value *isNaN = b.CreateFCmpUNO(ro32, ro32);
  Value *r;
  if (m == Round::RN) {
    r = b.CreateLShr(b.CreateAdd(b.CreateAdd(u, b.getInt32(0x7fff)),
                                 b.CreateAnd(b.CreateLShr(u, 16), b.getInt32(1))),
                     16);
  } else {
    Value *inexact = b.CreateICmpNE(b.CreateAnd(u, b.getInt32(0xffff)), b.getInt32(0));
    Value *neg = b.CreateICmpSLT(u, b.getInt32(0));
    Value *inc = m == Round::RP   ? b.CreateAnd(inexact, b.CreateNot(neg))
                 : m == Round::RM ? b.CreateAnd(inexact, neg)
                                  : b.getFalse();
    r = b.CreateAdd(b.CreateLShr(u, 16), b.CreateZExt(inc, b.getInt32Ty()));
  }
  return b.CreateTrunc(b.CreateSelect(isNaN, b.getInt32(0x7fff), r), b.getInt16Ty());
}

Value *Emitter::arith(Op op, Format f, Round m, std::vector<Value *> args) {
  Value *a = args[0];
  Value *c = args.size() > 1 ? args[1] : nullptr;
  Value *d = args.size() > 2 ? args[2] : nullptr;
  if (op == Op::sub)
    c = isHalfFormat(f) ? b.CreateXor(c, b.getInt16(0x8000)) : b.CreateFNeg(c);
  const bool addLike = op == Op::add || op == Op::sub;
  auto native = [&](Value *x, Value *y, Value *z) -> Value * {
    if (addLike)
      return b.CreateFAdd(x, y);
    if (op == Op::mul)
      return b.CreateFMul(x, y);
    if (op == Op::div)
      return b.CreateFDiv(x, y);
    if (op == Op::sqrt)
      return b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
    return fma(x, y, z);
  };
  // The sign of an exact zero sum in round-down mode: negative unless both addends are +0.
  auto rmZero = [&](Value *r, Value *p, Value *q) {
    if (m != Round::RM || !(addLike || op == Op::fma))
      return r;
    Value *isZero = b.CreateFCmpOEQ(r, llvm::ConstantFP::get(r->getType(), 0.0));
    return b.CreateSelect(isZero, withSign(r, b.CreateOr(signBit(p), signBit(q))), r);
  };
  if (f == Format::F64 || (f == Format::F32 && m == Round::RN)) {
    Value *r = native(a, c, d);
    if (m == Round::RN)
      return r;
    Value *resid;
    Value *fin = isFinite(a);
    // The residuals below are exact unless their terms fall below the subnormal range (tiny
    // results, tiny divisors): then they are computed on operands scaled by powers of two,
    // which keeps their sign. x * 2^k, exact while in range (steps stay normal).
    auto pow2 = [&](Value *x, int k) {
      for (int step; k; k -= step) {
        step = std::clamp(k, -537, 537);
        x = b.CreateFMul(x, llvm::ConstantFP::get(x->getType(), std::ldexp(1.0, step)));
      }
      return x;
    };
    auto below = [&](Value *x, int e) {
      return b.CreateFCmpOLT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x),
                             llvm::ConstantFP::get(x->getType(), std::ldexp(1.0, e)));
    };
    // a * c * 2^1074 as two exact factors, the smaller operand scaled: for products below
    // 2^-900, whose smaller operand is below 2^-450
    auto scaledFactors = [&]() -> std::pair<Value *, Value *> {
      Value *aBig = b.CreateFCmpOGE(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a),
                                    b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, c));
      return {b.CreateSelect(aBig, a, c), pow2(b.CreateSelect(aBig, c, a), 1074)};
    };
    if (addLike) {
      resid = twoSum(a, c).second;
      fin = b.CreateAnd(fin, isFinite(c));
    } else if (op == Op::mul) {
      Value *tiny = below(r, -960);
      auto [big, small] = scaledFactors();
      resid = fma(b.CreateSelect(tiny, big, a), b.CreateSelect(tiny, small, c),
                  b.CreateFNeg(b.CreateSelect(tiny, pow2(r, 1074), r)));
      fin = b.CreateAnd(fin, isFinite(c));
    } else if (op == Op::div) {
      // tiny quotient: scale it and the dividend up, or the (huge) divisor down;
      // tiny divisor: scale dividend and divisor up
      Value *tiny = below(r, -960), *smallA = below(a, -60), *tinyC = below(c, -900);
      Value *a2 = b.CreateSelect(tiny, b.CreateSelect(smallA, pow2(a, 1074), a),
                                 b.CreateSelect(tinyC, pow2(a, 850), a));
      Value *c2 = b.CreateSelect(tiny, b.CreateSelect(smallA, c, pow2(c, -1074)),
                                 b.CreateSelect(tinyC, pow2(c, 850), c));
      Value *r2 = b.CreateSelect(tiny, pow2(r, 1074), r);
      Value *one = llvm::ConstantFP::get(c->getType(), 1.0);
      resid = b.CreateFMul(fma(b.CreateFNeg(r2), c2, a2),
                           b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, one, c));
      fin = b.CreateAnd(b.CreateAnd(fin, isFinite(c)),
                        b.CreateFCmpONE(c, llvm::ConstantFP::get(c->getType(), 0.0)));
    } else if (op == Op::sqrt) {
      resid = fma(b.CreateFNeg(r), r, a);
    } else {
      Value *ac = b.CreateFMul(a, c), *tinyD = below(d, -900);
      Value *tiny = b.CreateAnd(below(ac, -900), tinyD);
      auto scaled = [&](Value *x, int k) { return b.CreateSelect(tiny, pow2(x, k), x); };
      auto [big, small] = scaledFactors();
      Value *a2 = b.CreateSelect(tiny, big, a), *c2 = b.CreateSelect(tiny, small, c);
      Value *d2 = scaled(d, 1074), *r2 = scaled(r, 1074);
      Value *p = b.CreateFMul(a2, c2);
      Value *pe = fma(a2, c2, b.CreateFNeg(p));
      auto [s, se] = twoSum(p, d2);
      resid = b.CreateFAdd(b.CreateFAdd(b.CreateFSub(s, r2), se), pe);
      // a product below half a unit of d's last place: r is d and the product the residual
      Value *sticky = b.CreateAnd(below(ac, -960), b.CreateAnd(b.CreateNot(tinyD), isFinite(d)));
      resid = b.CreateSelect(sticky, b.CreateFMul(big, small), resid);
      fin = b.CreateAnd(b.CreateAnd(fin, isFinite(c)), isFinite(d));
    }
    // overflow of an exact finite result: the exact value is smaller in magnitude
    Value *ovf = b.CreateAnd(fin, b.CreateNot(isFinite(r)));
    resid = b.CreateSelect(ovf, b.CreateFNeg(r), resid);
    if (op == Op::fma) {
      Value *sign = b.CreateXor(signBit(a), signBit(c));
      Value *isZero = b.CreateFCmpOEQ(r, llvm::ConstantFP::get(r->getType(), 0.0));
      Value *exactZero =
          b.CreateAnd(isZero, b.CreateFCmpOEQ(resid, llvm::ConstantFP::get(r->getType(), 0.0)));
      if (m == Round::RM)
        r = b.CreateSelect(exactZero, withSign(r, b.CreateOr(sign, signBit(d))), r);
      return adjust(r, resid, m);
    }
    return adjust(rmZero(r, a, c), resid, m);
  }
  if (f == Format::F32 && m != Round::RNA && nativeDirectedRounding()) {
    std::vector<Value *> ops{a};
    for (Value *x : {c, d})
      if (x)
        ops.push_back(x);
    return emitDirectedCall(b, addLike ? Op::add : op,
                            m == Round::RM   ? 1
                            : m == Round::RP ? 2
                                             : 3,
                            ops);
  }
  // f32 with a directed mode, f16, bf16: exact double-double, then one rounding.
  Value *A = toDouble(a, f);
  Value *C = c ? toDouble(c, f) : nullptr;
  Value *D = d ? toDouble(d, f) : nullptr;
  Value *hi, *lo = llvm::ConstantFP::get(dbl(), 0.0);
  if (addLike) {
    std::tie(hi, lo) = twoSum(A, C);
    hi = rmZero(hi, A, C);
  } else if (op == Op::mul) {
    hi = b.CreateFMul(A, C);
  } else if (op == Op::div) {
    hi = b.CreateFDiv(A, C);
    lo = b.CreateFMul(fma(b.CreateFNeg(hi), C, A), C);
  } else if (op == Op::sqrt) {
    hi = b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, A);
    lo = fma(b.CreateFNeg(hi), hi, A);
  } else {
    Value *p = b.CreateFMul(A, C);
    std::tie(hi, lo) = twoSum(p, D);
    if (m == Round::RM) {
      Value *isZero = b.CreateFCmpOEQ(hi, llvm::ConstantFP::get(dbl(), 0.0));
      hi = b.CreateSelect(isZero, withSign(hi, b.CreateOr(signBit(p), signBit(D))), hi);
    }
  }
  return roundNarrow(hi, lo, f, m);
}

} // namespace cucpu::jit::fp
