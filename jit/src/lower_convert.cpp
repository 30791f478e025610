// cvt: conversions between integer, f16, bf16, tf32, f32 and f64 types in every rounding mode,
// with .ftz, .sat, .relu and .satfinite, and the packed f16x2/bf16x2 forms.
#include "lower_fp.h"
#include "lowering.h"

#include <llvm/IR/Intrinsics.h>

namespace cucpu::jit {

using llvm::Value;
using T = ptx::Type;
using fp::Format;
using fp::Round;

namespace {

// The format of a scalar float type (not f16x2/bf16x2).
bool scalarFormat(T t, Format *f) {
  unsigned lanes;
  return fp::formatOf(t, f, &lanes) && lanes == 1;
}

} // namespace

bool KernelLowering::emitConvertInstruction(const ptx::Instruction &in) {
  if (in.op != Op::cvt)
    return false;
  if (in.has(Mod::pack) || in.has(Mod::e4m3x2) || in.has(Mod::e5m2x2))
    return emitNarrowConvert(in);
  const auto &o = in.operands;
  if (in.types.size() != 2)
    throwInvalid(in.loc, "'" + spellingOf(in) + "' expects two types");
  auto unsupported = [&]() { throwUnsupported(in.loc, "instruction '" + spellingOf(in) + "'"); };
  fp::Emitter e{b};
  T dt = in.types[0], st = in.types[1];
  const Round mode = fp::roundOf(in);
  const bool intRound =
      in.has(Mod::rni) || in.has(Mod::rzi) || in.has(Mod::rmi) || in.has(Mod::rpi);
  const bool ftz = in.has(Mod::ftz), sat = in.has(Mod::sat), relu = in.has(Mod::relu);
  const bool satfinite = in.has(Mod::satfinite);
  Format sf, df;
  const bool sFl = scalarFormat(st, &sf), dFl = scalarFormat(dt, &df);

  // float -> float (one value of format df from a value of format sf)
  auto floatToFloat = [&](Value *v) -> Value * {
    if (ftz && sf == Format::F32)
      v = e.ftz(v, sf);
    Value *r;
    if (intRound) {
      if (sf != df)
        unsupported();
      auto id = mode == Round::RN   ? llvm::Intrinsic::rint
                : mode == Round::RZ ? llvm::Intrinsic::trunc
                : mode == Round::RM ? llvm::Intrinsic::floor
                                    : llvm::Intrinsic::ceil;
      r = fp::isHalfFormat(sf) ? e.fromFloatRN(b.CreateUnaryIntrinsic(id, e.toFloat(v, sf)), sf)
                               : b.CreateUnaryIntrinsic(id, v);
    } else if (fp::formatBits(df) > fp::formatBits(sf) || sf == df) {
      r = df == Format::F64 ? e.toDouble(v, sf) : df == Format::F32 ? e.toFloat(v, sf) : v;
    } else {
      if (mode == Round::RNA)
        unsupported();
      r = e.roundNarrow(e.toDouble(v, sf), llvm::ConstantFP::get(b.getDoubleTy(), 0.0), df, mode);
    }
    if (ftz && df == Format::F32)
      r = e.ftz(r, df);
    if (sat)
      r = e.sat(r, df);
    if (relu || satfinite) {
      Value *x = e.toFloat(r, df);
      Value *nan = b.CreateFCmpUNO(x, x);
      unsigned n = fp::formatBits(df);
      llvm::Type *it = b.getIntNTy(n);
      Value *bits = b.CreateBitCast(r, it);
      if (relu)
        bits = b.CreateSelect(b.CreateFCmpOLE(x, llvm::ConstantFP::get(x->getType(), 0.0)),
                              llvm::ConstantInt::get(it, 0), bits);
      if (satfinite) {
        uint64_t maxBits = df == Format::F16 ? 0x7bff : df == Format::BF16 ? 0x7f7f : 0x7f7fffff;
        Value *inf = b.CreateFCmpOEQ(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x),
                                     llvm::ConstantFP::getInfinity(x->getType()));
        Value *sign = b.CreateAnd(bits, b.getInt(llvm::APInt::getSignMask(n)));
        bits = b.CreateSelect(inf, b.CreateOr(sign, llvm::ConstantInt::get(it, maxBits)), bits);
      }
      bits = b.CreateSelect(nan, b.getInt(llvm::APInt::getLowBitsSet(n, n - 1)), bits);
      r = b.CreateBitCast(bits, r->getType());
    }
    return r;
  };

  // integer -> float: the exact value as a double-double, then one rounding
  auto intToFloat = [&](Value *v) -> Value * {
    const bool sg = ptx::isSigned(st);
    Value *hi = sg ? b.CreateSIToFP(v, b.getDoubleTy()) : b.CreateUIToFP(v, b.getDoubleTy());
    Value *lo = llvm::ConstantFP::get(b.getDoubleTy(), 0.0);
    if (v->getType()->getIntegerBitWidth() > 32) {
      llvm::Type *w = b.getInt128Ty();
      Value *x = sg ? b.CreateSExt(v, w) : b.CreateZExt(v, w);
      Value *back = sg ? b.CreateFPToSI(hi, w) : b.CreateFPToUI(hi, w);
      lo = b.CreateSIToFP(b.CreateSub(x, back), b.getDoubleTy());
    }
    if (df == Format::F64)
      return e.adjust(hi, lo, mode);
    return e.roundNarrow(hi, lo, df, mode);
  };

  if (o.size() == 3 && (dt == T::F16x2 || dt == T::BF16x2) && st == T::F32) {
    sf = Format::F32;
    df = dt == T::F16x2 ? Format::F16 : Format::BF16;
    Value *hiPart = b.CreateZExt(floatToFloat(read(o[1], st, in)), b.getInt32Ty());
    Value *loPart = b.CreateZExt(floatToFloat(read(o[2], st, in)), b.getInt32Ty());
    write(o[0], b.CreateOr(b.CreateShl(hiPart, 16), loPart), dt, in);
    return true;
  }
  if (o.size() != 2)
    throwInvalid(in.loc, "'" + spellingOf(in) + "' expects two operands");
  Value *v = read(o[1], st, in);
  llvm::Type *dty = llvmType(ctx, dt);
  Value *r;
  if (dt == T::TF32 && st == T::F32) {
    r = toTf32(in, v);
  } else if (sFl && dFl) {
    r = floatToFloat(v);
  } else if (sFl) { // float -> int: round, then saturate; NaN gives what the GPU gives
    if (ftz && sf == Format::F32)
      v = e.ftz(v, sf);
    Value *x = sf == Format::F64 ? v : e.toFloat(v, sf);
    if (mode == Round::RN)
      x = b.CreateUnaryIntrinsic(llvm::Intrinsic::rint, x);
    else if (mode == Round::RM)
      x = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x);
    else if (mode == Round::RP)
      x = b.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, x);
    auto id = ptx::isSigned(dt) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
    r = b.CreateIntrinsic(id, {dty, x->getType()}, {x});
    unsigned db = dty->getIntegerBitWidth();
    Value *nanValue = (sf == Format::F64 || db == 64) ? b.getInt(llvm::APInt::getSignedMinValue(db))
                                                      : llvm::ConstantInt::get(dty, 0);
    r = b.CreateSelect(b.CreateFCmpUNO(x, x), nanValue, r);
  } else if (dFl) {
    r = intToFloat(v);
    if (sat)
      r = e.sat(r, df);
  } else { // int -> int, with optional saturation to the destination range
    unsigned db = dty->getIntegerBitWidth(), sb = v->getType()->getIntegerBitWidth();
    if (sat) {
      unsigned wb = std::max(db, sb) + 1;
      llvm::Type *w = b.getIntNTy(wb);
      Value *x = ptx::isSigned(st) ? b.CreateSExt(v, w) : b.CreateZExt(v, w);
      llvm::APInt lo =
          ptx::isSigned(dt) ? llvm::APInt::getSignedMinValue(db).sext(wb) : llvm::APInt(wb, 0);
      llvm::APInt hi = ptx::isSigned(dt) ? llvm::APInt::getSignedMaxValue(db).sext(wb)
                                         : llvm::APInt::getMaxValue(db).zext(wb);
      x = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x, llvm::ConstantInt::get(w, lo));
      x = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, x, llvm::ConstantInt::get(w, hi));
      r = b.CreateTrunc(x, dty);
    } else {
      r = convert(v, dty, ptx::isSigned(st));
    }
  }
  write(o[0], r, dt, in);
  return true;
}

} // namespace cucpu::jit
