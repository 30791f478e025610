// Float instruction families (f16, f16x2, bf16, bf16x2, f32, f64): arithmetic in every rounding
// mode with .ftz/.sat/.relu, div/rcp/sqrt, approximate functions, min/max, testp, copysign.
#include "lower_fp.h"
#include "lowering.h"

#include <llvm/IR/Intrinsics.h>

#include <set>

namespace cucpu::jit {

using llvm::Value;
using T = ptx::Type;
using fp::Format;
using fp::Round;

using fp::formatOf;

// Splits packed operands into lanes, applies `fn` per lane and packs the result.
Value *KernelLowering::perLane(unsigned lanes, const std::vector<Value *> &args,
                               const std::function<Value *(std::vector<Value *> &)> &fn) {
  if (lanes == 1) {
    std::vector<Value *> a = args;
    return fn(a);
  }
  Value *out = b.getInt32(0);
  for (unsigned l = 0; l < lanes; ++l) {
    std::vector<Value *> a;
    for (Value *v : args)
      a.push_back(b.CreateTrunc(b.CreateLShr(v, 16 * l), b.getInt16Ty()));
    Value *r = b.CreateZExt(fn(a), b.getInt32Ty());
    out = b.CreateOr(out, b.CreateShl(r, 16 * l));
  }
  return out;
}

bool KernelLowering::emitFloatInstruction(const ptx::Instruction &in) {
  const Op op = in.op;
  if (in.types.size() != 1)
    return false;
  const T t = in.types[0];
  Format f;
  unsigned lanes;
  if (!formatOf(t, &f, &lanes))
    return false;
  fp::Emitter e{b};
  const auto &o = in.operands;
  auto unsupported = [&]() { throwUnsupported(in.loc, "instruction '" + spellingOf(in) + "'"); };
  const bool half = fp::isHalfFormat(f);
  const bool ftz = in.has(Mod::ftz), sat = in.has(Mod::sat), relu = in.has(Mod::relu);
  const bool approx = in.has(Mod::approx);
  const Round mode = fp::roundOf(in);
  static constexpr Mod kHandled[] = {Mod::ftz,  Mod::sat, Mod::relu,    Mod::approx,
                                     Mod::full, Mod::rn,  Mod::rz,      Mod::rm,
                                     Mod::rp,   Mod::NaN, Mod::xorsign, Mod::abs};
  static constexpr Mod kClasses[] = {Mod::finite,     Mod::infinite, Mod::number,
                                     Mod::notanumber, Mod::normal,   Mod::subnormal};
  for (Mod m : in.modIds)
    if (std::find(std::begin(kHandled), std::end(kHandled), m) == std::end(kHandled) &&
        !(op == Op::testp &&
          std::find(std::begin(kClasses), std::end(kClasses), m) != std::end(kClasses)))
      unsupported();

  size_t nsrc = (op == Op::fma || op == Op::mad) ? 3
                : (op == Op::add || op == Op::sub || op == Op::mul || op == Op::div ||
                   op == Op::min || op == Op::max || op == Op::copysign)
                    ? 2
                    : 1;
  if (o.size() != nsrc + 1)
    throwInvalid(in.loc,
                 "'" + spellingOf(in) + "' expects " + std::to_string(nsrc + 1) + " operands");

  if (op == Op::testp) {
    if (half)
      unsupported();
    Value *x = read(o[1], t, in);
    Value *a = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    llvm::Type *ty = x->getType();
    Value *inf = llvm::ConstantFP::getInfinity(ty);
    Value *minNormal = llvm::ConstantFP::get(ty, f == Format::F32 ? 0x1p-126 : 0x1p-1022);
    Value *r = nullptr;
    if (in.has(Mod::finite))
      r = b.CreateFCmpOLT(a, inf);
    else if (in.has(Mod::infinite))
      r = b.CreateFCmpOEQ(a, inf);
    else if (in.has(Mod::number))
      r = b.CreateFCmpORD(x, x);
    else if (in.has(Mod::notanumber))
      r = b.CreateFCmpUNO(x, x);
    else if (in.has(Mod::normal)) // zero counts as normal on the GPU
      r = b.CreateAnd(b.CreateFCmpOLT(a, inf),
                      b.CreateNot(b.CreateAnd(b.CreateFCmpOLT(a, minNormal),
                                              b.CreateFCmpONE(a, llvm::ConstantFP::get(ty, 0.0)))));
    else if (in.has(Mod::subnormal))
      r = b.CreateAnd(b.CreateFCmpOLT(a, minNormal),
                      b.CreateFCmpONE(a, llvm::ConstantFP::get(ty, 0.0)));
    else
      unsupported();
    write(o[0], r, T::Pred, in);
    return true;
  }

  std::vector<Value *> src;
  for (size_t i = 1; i <= nsrc; ++i)
    src.push_back(read(o[i], t, in));

  // Per-lane helpers on values of format f (i16 bits for the half formats).
  auto flush = [&](Value *v) { return ftz ? e.ftz(v, f) : v; };
  auto asFloat = [&](Value *v) { return half ? e.toFloat(v, f) : v; };
  auto bitsOf = [&](Value *v) { return b.CreateBitCast(v, b.getIntNTy(fp::formatBits(f))); };
  auto fromBits = [&](Value *v, Value *like) { return b.CreateBitCast(v, like->getType()); };
  auto signMask = [&]() { return b.getInt(llvm::APInt::getSignMask(fp::formatBits(f))); };
  auto canonNaN = [&](Value *like) {
    unsigned n = fp::formatBits(f);
    return fromBits(b.getInt(llvm::APInt::getLowBitsSet(n, n - 1)), like);
  };
  auto isNaN = [&](Value *v) {
    Value *x = asFloat(v);
    return b.CreateFCmpUNO(x, x);
  };
  // f32 math on a lane: convert, apply, round back
  // 2^x for ex2.approx (PTX: at most 2 ulp): x = n + f with |f| <= 1/2, 2^f by its Taylor
  // polynomial of degree 7 (truncation below 2^-27) in Horner form with FMAs, then scaled by
  // 2^n in two steps so that subnormal results and overflow come out right. Inline rather than
  // a vector-library call, so a thread loop keeps its values in registers across it.
  auto exp2Approx = [&](Value *x) -> Value * {
    auto *fty = b.getFloatTy();
    auto c = [&](double v) { return llvm::ConstantFP::get(fty, v); };
    Value *xc = b.CreateBinaryIntrinsic(
        llvm::Intrinsic::minnum, b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, x, c(-160)),
        c(130));
    Value *n = b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, xc);
    Value *fr = b.CreateFSub(xc, n);
    double coef[8], term = 1.0;
    for (int k = 0; k < 8; ++k) {
      coef[k] = term;
      term *= 0.69314718055994530942 / (k + 1);
    }
    Value *p = c(coef[7]);
    for (int k = 6; k >= 0; --k)
      p = b.CreateIntrinsic(llvm::Intrinsic::fma, {fty}, {p, fr, c(coef[k])});
    Value *ni = b.CreateFPToSI(n, b.getInt32Ty());
    Value *n1 = b.CreateAShr(ni, 1), *n2 = b.CreateSub(ni, n1);
    auto pow2 = [&](Value *k) {
      return b.CreateBitCast(b.CreateShl(b.CreateAdd(k, b.getInt32(127)), 23), fty);
    };
    Value *r = b.CreateFMul(b.CreateFMul(p, pow2(n1)), pow2(n2));
    return b.CreateSelect(b.CreateFCmpUNO(x, x), b.CreateFAdd(x, x), r);
  };
  auto viaFloat = [&](Value *v, const std::function<Value *(Value *)> &fn) -> Value * {
    if (f == Format::F64)
      return fn(v);
    Value *r = fn(asFloat(v));
    return half ? e.fromFloatRN(r, f) : r;
  };

  Value *result = perLane(lanes, src, [&](std::vector<Value *> &a) -> Value * {
    for (auto &v : a)
      v = flush(v);
    Value *r = nullptr;
    if (op == Op::add || op == Op::sub || op == Op::mul || op == Op::fma || op == Op::mad) {
      const Op aop = op == Op::mad ? Op::fma : op;
      if (!half && !fp::hasRound(in) && aop != Op::fma) {
        // no rounding modifier: round to nearest, contraction into fma allowed
        r = aop == Op::add   ? b.CreateFAdd(a[0], a[1])
            : aop == Op::sub ? b.CreateFSub(a[0], a[1])
                             : b.CreateFMul(a[0], a[1]);
        llvm::FastMathFlags fm;
        fm.setAllowContract(true);
        llvm::cast<llvm::Instruction>(r)->setFastMathFlags(fm);
      } else {
        if (mode == Round::RNA)
          unsupported();
        r = e.arith(aop, f, mode, a);
      }
    } else if (op == Op::div) {
      if (approx) {
        // a * (1/b), the reciprocal flushed (|b| > 2^126 gives 0); a subnormal divisor (kept
        // without .ftz) is scaled by the GPU first, which gives the quotient itself
        Value *rcp = b.CreateFDiv(llvm::ConstantFP::get(a[1]->getType(), 1.0), a[1]);
        r = b.CreateFMul(a[0], e.ftz(rcp, f));
        Value *subnormal = b.CreateFCmpONE(a[1], e.ftz(a[1], f));
        Value *q = b.CreateFPTrunc(b.CreateFDiv(e.toDouble(a[0], f), e.toDouble(a[1], f)),
                                   a[1]->getType());
        r = b.CreateSelect(subnormal, q, r);
      } else {
        r = e.arith(Op::div, f, in.has(Mod::full) ? Round::RN : mode, a);
      }
    } else if (op == Op::rcp) {
      r = e.arith(Op::div, f, approx ? Round::RN : mode,
                  {llvm::ConstantFP::get(a[0]->getType(), 1.0), a[0]});
    } else if (op == Op::sqrt) {
      r = e.arith(Op::sqrt, f, approx ? Round::RN : mode, a);
    } else if (op == Op::rsqrt) {
      r = viaFloat(a[0], [&](Value *x) -> Value * {
        Value *d = f == Format::F64 ? x : b.CreateFPExt(x, b.getDoubleTy());
        Value *q = b.CreateFDiv(llvm::ConstantFP::get(d->getType(), 1.0),
                                b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, d));
        return f == Format::F64 ? q : b.CreateFPTrunc(q, b.getFloatTy());
      });
    } else if (op == Op::ex2 && f != Format::F64) {
      r = viaFloat(a[0], [&](Value *x) { return exp2Approx(x); });
    } else if (op == Op::sin || op == Op::cos || op == Op::lg2 || op == Op::ex2) {
      if (f == Format::F64)
        unsupported();
      auto id = op == Op::sin   ? llvm::Intrinsic::sin
                : op == Op::cos ? llvm::Intrinsic::cos
                : op == Op::lg2 ? llvm::Intrinsic::log2
                                : llvm::Intrinsic::exp2;
      r = viaFloat(a[0], [&](Value *x) { return b.CreateUnaryIntrinsic(id, x); });
    } else if (op == Op::tanh) {
      if (f == Format::F64)
        unsupported();
      r = viaFloat(a[0], [&](Value *x) -> Value * {
        // (e^2x - 1) / (e^2x + 1) in double; |x| clamped where tanh is 1 in f32
        Value *d = b.CreateFPExt(x, b.getDoubleTy());
        Value *ad = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, d);
        Value *z = b.CreateBinaryIntrinsic(
            llvm::Intrinsic::minnum,
            b.CreateFMul(ad, llvm::ConstantFP::get(b.getDoubleTy(), 2.8853900817779268)),
            llvm::ConstantFP::get(b.getDoubleTy(), 128.0));
        Value *ex = b.CreateUnaryIntrinsic(llvm::Intrinsic::exp2, z);
        Value *one = llvm::ConstantFP::get(b.getDoubleTy(), 1.0);
        Value *th = b.CreateFDiv(b.CreateFSub(ex, one), b.CreateFAdd(ex, one));
        th = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, th, d);
        th = b.CreateSelect(b.CreateFCmpUNO(d, d), d, th);
        return b.CreateFPTrunc(th, b.getFloatTy());
      });
    } else if (op == Op::neg || op == Op::abs) {
      Value *bits = bitsOf(a[0]);
      bits = op == Op::neg ? b.CreateXor(bits, signMask())
                           : b.CreateAnd(bits, b.CreateNot(signMask()));
      r = fromBits(bits, a[0]);
    } else if (op == Op::copysign) { // d = b with the sign of a
      Value *s = b.CreateAnd(bitsOf(a[0]), signMask());
      r = fromBits(b.CreateOr(b.CreateAnd(bitsOf(a[1]), b.CreateNot(signMask())), s), a[1]);
    } else if (op == Op::min || op == Op::max) {
      const bool isMin = op == Op::min;
      Value *x = a[0], *y = a[1];
      Value *sx = nullptr;
      if (in.has(Mod::xorsign)) {
        sx = b.CreateAnd(b.CreateXor(bitsOf(x), bitsOf(y)), signMask());
        x = fromBits(b.CreateAnd(bitsOf(x), b.CreateNot(signMask())), x);
        y = fromBits(b.CreateAnd(bitsOf(y), b.CreateNot(signMask())), y);
      }
      Value *X = asFloat(x), *Y = asFloat(y);
      Value *less = b.CreateFCmpOLT(X, Y), *eq = b.CreateFCmpOEQ(X, Y);
      Value *pick = isMin ? b.CreateSelect(less, x, y) : b.CreateSelect(less, y, x);
      Value *zeros =
          fromBits(isMin ? b.CreateOr(bitsOf(x), bitsOf(y)) : b.CreateAnd(bitsOf(x), bitsOf(y)), x);
      r = b.CreateSelect(eq, zeros, pick);
      Value *nx = isNaN(x), *ny = isNaN(y);
      if (in.has(Mod::NaN))
        r = b.CreateSelect(b.CreateOr(nx, ny), canonNaN(x), r);
      else
        r = b.CreateSelect(nx, b.CreateSelect(ny, canonNaN(x), y), b.CreateSelect(ny, x, r));
      if (sx)
        r = b.CreateSelect(isNaN(r), r, fromBits(b.CreateOr(bitsOf(r), sx), r));
    }
    if (!r)
      unsupported();
    r = flush(r);
    if (sat)
      r = e.sat(r, f);
    if (relu) {
      Value *X = asFloat(r);
      Value *zero = fromBits(b.getIntN(fp::formatBits(f), 0), r);
      r = b.CreateSelect(
          isNaN(r), canonNaN(r),
          b.CreateSelect(b.CreateFCmpOGT(X, llvm::ConstantFP::get(X->getType(), 0.0)), r, zero));
    }
    return r;
  });
  write(o[0], result, t, in);
  return true;
}

} // namespace cucpu::jit
