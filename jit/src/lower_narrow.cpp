// cvt to and from the 8-bit floats e4m3 and e5m2 (pairs: .e4m3x2/.e5m2x2 from two f32 or an
// f16x2, with .satfinite and .relu; back to f16x2), tf32 rounding, and cvt.pack.sat.
#include "lower_fp.h"
#include "lowering.h"

#include <llvm/IR/Intrinsics.h>

namespace cucpu::jit {

using llvm::Value;
using T = ptx::Type;

namespace {

struct EightBit {
  int mbits, bias, emin, emax;
  uint32_t maxCode, nanCode; // the largest finite value's code and the NaN the GPU gives
};

constexpr EightBit kE4M3{3, 7, -6, 8, 0x7e, 0x7f};
constexpr EightBit kE5M2{2, 15, -14, 15, 0x7b, 0x7f};

} // namespace

// float x rounded to nearest even in the 8-bit format; .satfinite keeps it finite (every
// 8-bit conversion from a wider float has it), .relu makes negatives +0. Returns the code (i32).
static Value *toEightBit(llvm::IRBuilder<> &b, Value *x, const EightBit &f, bool relu) {
  auto *i32 = b.getInt32Ty();
  Value *bits = b.CreateBitCast(x, i32);
  Value *neg = b.CreateICmpSLT(bits, b.getInt32(0));
  Value *nan = b.CreateFCmpUNO(x, x);
  Value *ax = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  // The binade's exponent, at least the format's smallest: the quantum is 2^(e - mbits).
  Value *field = b.CreateAnd(b.CreateLShr(bits, 23), b.getInt32(0xff));
  Value *e = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, b.CreateSub(field, b.getInt32(127)),
                                     b.getInt32(f.emin));
  e = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, e, b.getInt32(f.emax + 1));
  auto pow2 = [&](Value *k) { // 2^k as a float, k in the normal range
    return b.CreateBitCast(b.CreateShl(b.CreateAdd(k, b.getInt32(127)), 23), b.getFloatTy());
  };
  Value *scaled = b.CreateFMul(ax, pow2(b.CreateSub(b.getInt32(f.mbits), e)));
  Value *k = b.CreateIntrinsic(llvm::Intrinsic::fptoui_sat, {i32, b.getFloatTy()},
                               {b.CreateUnaryIntrinsic(llvm::Intrinsic::rint, scaled)});
  // k in [0, 2^(mbits+1)]: 2^(mbits+1) is the next binade's first value.
  const uint32_t implicit = 1u << f.mbits;
  Value *carry = b.CreateICmpUGE(k, b.getInt32(2 * implicit));
  e = b.CreateSelect(carry, b.CreateAdd(e, b.getInt32(1)), e);
  k = b.CreateSelect(carry, b.getInt32(implicit), k);
  Value *normal = b.CreateICmpUGE(k, b.getInt32(implicit));
  Value *code =
      b.CreateSelect(normal,
                     b.CreateOr(b.CreateShl(b.CreateAdd(e, b.getInt32(f.bias)), uint64_t(f.mbits)),
                                b.CreateAnd(k, b.getInt32(implicit - 1))),
                     k);
  Value *big = b.CreateOr(b.CreateICmpUGT(code, b.getInt32(f.maxCode)),
                          b.CreateFCmpOEQ(ax, llvm::ConstantFP::getInfinity(b.getFloatTy())));
  code = b.CreateSelect(big, b.getInt32(f.maxCode), code);
  code = b.CreateSelect(neg, b.CreateOr(code, b.getInt32(0x80)), code);
  if (relu)
    code = b.CreateSelect(neg, b.getInt32(0), code);
  return b.CreateSelect(nan, b.getInt32(f.nanCode), code);
}

// The 8-bit code c (i32) as an f16 (i32 holding the bits); .relu makes negatives +0.
static Value *fromEightBit(llvm::IRBuilder<> &b, Value *c, const EightBit &f, bool relu,
                           fp::Emitter &e) {
  auto *i32 = b.getInt32Ty();
  const uint32_t fieldMask = (0x7fu >> f.mbits), mantMask = (1u << f.mbits) - 1;
  Value *mant = b.CreateAnd(c, b.getInt32(mantMask));
  Value *field = b.CreateAnd(b.CreateLShr(c, uint64_t(f.mbits)), b.getInt32(fieldMask));
  Value *neg = b.CreateICmpNE(b.CreateAnd(c, b.getInt32(0x80)), b.getInt32(0));
  // value = (field ? 2^mbits + mant : mant) * 2^(max(field, 1) - bias - mbits)
  Value *sig = b.CreateSelect(b.CreateICmpEQ(field, b.getInt32(0)), mant,
                              b.CreateOr(mant, b.getInt32(mantMask + 1)));
  Value *ex = b.CreateSub(b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, field, b.getInt32(1)),
                          b.getInt32(f.bias + f.mbits));
  Value *mag = b.CreateFMul(
      b.CreateUIToFP(sig, b.getFloatTy()),
      b.CreateBitCast(b.CreateShl(b.CreateAdd(ex, b.getInt32(127)), 23), b.getFloatTy()));
  Value *isNan, *isInf = b.getFalse();
  if (f.mbits == 3) {
    isNan = b.CreateICmpEQ(b.CreateAnd(c, b.getInt32(0x7f)), b.getInt32(0x7f));
  } else {
    Value *top = b.CreateICmpEQ(field, b.getInt32(fieldMask));
    isNan = b.CreateAnd(top, b.CreateICmpNE(mant, b.getInt32(0)));
    isInf = b.CreateAnd(top, b.CreateICmpEQ(mant, b.getInt32(0)));
  }
  mag = b.CreateSelect(isInf, llvm::ConstantFP::getInfinity(b.getFloatTy()), mag);
  Value *h = b.CreateZExt(e.fromFloatRN(mag, fp::Format::F16), i32);
  h = b.CreateSelect(neg, b.CreateOr(h, b.getInt32(0x8000)), h);
  if (relu)
    h = b.CreateSelect(neg, b.getInt32(0), h);
  return b.CreateSelect(isNan, b.getInt32(0x7fff), h);
}

bool KernelLowering::emitNarrowConvert(const ptx::Instruction &in) {
  auto *i32 = b.getInt32Ty();
  const auto &o = in.operands;
  fp::Emitter e{b};
  const bool relu = in.has(Mod::relu);
  if (in.has(Mod::pack)) {
    // cvt.pack.sat.{u8,s8,u16,s16}.s32{.b32}: a and b saturated to the narrow type; for 8-bit
    // types d = c[15:0] : a : b, for 16-bit ones d = a : b.
    const T nt = in.types.at(0);
    const unsigned w = ptx::typeSize(nt) * 8;
    const int64_t lo = ptx::isSigned(nt) ? -(int64_t(1) << (w - 1)) : 0;
    const int64_t hi = ptx::isSigned(nt) ? (int64_t(1) << (w - 1)) - 1 : (int64_t(1) << w) - 1;
    auto sat = [&](const ptx::Operand &x) {
      Value *v = read(x, T::S32, in);
      v = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, v, b.getInt32(uint32_t(lo)));
      v = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, v, b.getInt32(uint32_t(hi)));
      return b.CreateAnd(v, b.getInt32((1u << w) - 1));
    };
    Value *d = b.CreateOr(b.CreateShl(sat(o.at(1)), w), sat(o.at(2)));
    if (w == 8)
      d = b.CreateOr(d, b.CreateShl(o.size() > 3 ? read(o[3], T::B32, in) : b.getInt32(0), 16));
    write(o[0], d, T::B32, in);
    return true;
  }
  const bool e4 = in.has(Mod::e4m3x2);
  const EightBit &f = e4 ? kE4M3 : kE5M2;
  bool toEight = false;
  for (size_t i = 0; i < in.modsBeforeType && i < in.mods.size(); ++i)
    toEight = toEight || in.mods[i] == "e4m3x2" || in.mods[i] == "e5m2x2";
  if (!toEight) { // f16x2 from a pair of 8-bit codes
    Value *a = b.CreateZExt(read(o.at(1), T::B16, in), i32);
    Value *lo = fromEightBit(b, b.CreateAnd(a, b.getInt32(0xff)), f, relu, e);
    Value *hi = fromEightBit(b, b.CreateLShr(a, 8), f, relu, e);
    write(o[0], b.CreateOr(b.CreateShl(hi, 16), lo), T::B32, in);
    return true;
  }
  Value *hiCode, *loCode;
  if (in.types.at(0) == T::F32) { // d = cvt(a) : cvt(b)
    hiCode = toEightBit(b, read(o.at(1), T::F32, in), f, relu);
    loCode = toEightBit(b, read(o.at(2), T::F32, in), f, relu);
  } else { // from the two halves of an f16x2
    Value *a = read(o.at(1), T::B32, in);
    auto half = [&](Value *bits16) {
      return e.toFloat(b.CreateTrunc(bits16, b.getInt16Ty()), fp::Format::F16);
    };
    hiCode = toEightBit(b, half(b.CreateLShr(a, 16)), f, relu);
    loCode = toEightBit(b, half(a), f, relu);
  }
  Value *d = b.CreateOr(b.CreateShl(hiCode, 8), loCode);
  write(o[0], b.CreateTrunc(d, b.getInt16Ty()), T::B16, in);
  return true;
}

// cvt.{rna,rn,rz}{.relu}{.satfinite}.tf32.f32: the bits rounded to 10 fraction bits (.rna ties
// away from zero, .rn to even, .rz truncates). As on an H200: .rna takes NaNs through the same
// arithmetic, .rn and .rz give the NaN 0x7fffe000; .satfinite takes a result whose exponent is
// all ones (NaNs included) one step down.
Value *KernelLowering::toTf32(const ptx::Instruction &in, Value *v) {
  auto *i32 = b.getInt32Ty();
  Value *u = b.CreateBitCast(v, i32);
  const fp::Round mode = fp::roundOf(in);
  Value *add = b.getInt32(0);
  if (mode == fp::Round::RNA)
    add = b.getInt32(0x1000);
  else if (mode == fp::Round::RN)
    add = b.CreateAdd(b.getInt32(0xfff), b.CreateAnd(b.CreateLShr(u, 13), b.getInt32(1)));
  else if (mode != fp::Round::RZ)
    throwUnsupported(in.loc, "instruction '" + spellingOf(in) + "'");
  Value *r = b.CreateAnd(b.CreateAdd(u, add), b.getInt32(0xffffe000));
  Value *isNan = b.CreateFCmpUNO(v, v);
  if (mode != fp::Round::RNA)
    r = b.CreateSelect(isNan, b.getInt32(0x7fffe000), r);
  if (in.has(Mod::satfinite)) {
    Value *top = b.CreateICmpEQ(b.CreateAnd(r, b.getInt32(0x7f800000)), b.getInt32(0x7f800000));
    r = b.CreateSelect(top, b.CreateSub(r, b.getInt32(0x2000)), r);
  }
  if (in.has(Mod::relu))
    r = b.CreateSelect(b.CreateAnd(b.CreateICmpSLT(u, b.getInt32(0)), b.CreateNot(isNan)),
                       b.getInt32(0), r);
  return b.CreateBitCast(r, b.getFloatTy());
}

} // namespace cucpu::jit
