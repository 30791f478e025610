// Video and SIMD integer instructions: vadd/vsub/vabsdiff/vmin/vmax/vshl/vshr/vmad/vset with byte
// and half selectors, saturation, secondary operations and merges, and their 2- and 4-way SIMD
// forms. Since sm_70 the GPU has no video unit: ptxas emulates these instructions, and its
// emulation is the reference (tests/conformance/cases/video.cu, recorded on an H200). It
// differs from the ISA's description in three places, reproduced here: an unsigned saturation
// of a 32-bit result only clamps negative values (to 0); a saturated merge into a byte or half
// clamps negative and too large values to the field's largest value and takes the field's bits
// from the unshifted value; vshl/vshr compute in 34 bits, vmad sign-extends c.
#include "lowering.h"

#include <llvm/IR/Intrinsics.h>

namespace cucpu::jit {

using llvm::Value;
using T = ptx::Type;

namespace {

bool videoSigned(T t) { return t == T::S32; }

struct Field {
  unsigned width = 32, shift = 0; // a byte, a half, or the whole word
};

Field fieldOf(const std::string &sel, const ptx::SourceLoc &loc) {
  if (sel.empty())
    return {};
  if (sel.size() != 2)
    throwInvalid(loc, "selector ." + sel + " where one byte or half is expected");
  const unsigned idx = unsigned(sel[1] - '0');
  if (sel[0] == 'b' && idx < 4)
    return {8, 8 * idx};
  if (sel[0] == 'h' && idx < 2)
    return {16, 16 * idx};
  throwInvalid(loc, "selector ." + sel + " where one byte or half is expected");
}

} // namespace

bool KernelLowering::emitVideoInstruction(const ptx::Instruction &in) {
  auto *i32 = b.getInt32Ty(), *i64 = b.getInt64Ty();
  const Op op = in.op;
  const auto &o = in.operands;
  const bool simd2 = op == Op::vadd2 || op == Op::vsub2 || op == Op::vavrg2 ||
                     op == Op::vabsdiff2 || op == Op::vmin2 || op == Op::vmax2 || op == Op::vset2;
  const bool simd4 = op == Op::vadd4 || op == Op::vsub4 || op == Op::vavrg4 ||
                     op == Op::vabsdiff4 || op == Op::vmin4 || op == Op::vmax4 || op == Op::vset4;
  const bool vset = op == Op::vset || op == Op::vset2 || op == Op::vset4;
  // Types: d, a, b (vset has no d type: its result is 0 or 1).
  const T dt = vset ? T::U32 : in.types.at(0);
  const T at = in.types.at(vset ? 0 : 1), bt = in.types.at(vset ? 1 : 2);
  Value *a = read(o.at(1), T::B32, in), *bv = read(o.at(2), T::B32, in);
  Value *c = o.size() > 3 ? read(o[3], T::B32, in) : b.getInt32(0);
  const bool sat = in.has(Mod::sat);
  auto cmp = [&](Value *x, Value *y) -> Value * {
    using P = llvm::CmpInst::Predicate;
    P p = P::ICMP_EQ;
    if (in.has(Mod::ne))
      p = P::ICMP_NE;
    else if (in.has(Mod::lt))
      p = P::ICMP_SLT;
    else if (in.has(Mod::le))
      p = P::ICMP_SLE;
    else if (in.has(Mod::gt))
      p = P::ICMP_SGT;
    else if (in.has(Mod::ge))
      p = P::ICMP_SGE;
    return b.CreateZExt(b.CreateICmp(p, x, y), i64);
  };
  auto smin = [&](Value *x, Value *y) {
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, x, y);
  };
  auto smax = [&](Value *x, Value *y) {
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x, y);
  };
  auto clampTo = [&](Value *x, int64_t lo, int64_t hi) {
    return smin(smax(x, b.getInt64(uint64_t(lo))), b.getInt64(uint64_t(hi)));
  };
  // bits [shift, shift + width) of v, sign- or zero-extended to i64
  auto extract = [&](Value *v, unsigned shift, unsigned width, bool isSigned) -> Value * {
    Value *x = b.CreateTrunc(b.CreateLShr(v, uint64_t(shift)), b.getIntNTy(width));
    return isSigned ? b.CreateSExt(x, i64) : b.CreateZExt(x, i64);
  };

  if (simd2 || simd4) {
    const unsigned n = simd2 ? 2 : 4, w = 32 / n;
    // The 2n source elements: a's, then b's.
    auto element = [&](unsigned k, bool isSigned) {
      return extract(k < n ? a : bv, (k % n) * w, w, isSigned);
    };
    auto pick = [&](const std::string &sel, const char *fallback, unsigned lane) {
      const std::string digits = sel.empty() ? std::string(fallback) : sel.substr(1);
      if (digits.size() != n || (!sel.empty() && sel[0] != (simd2 ? 'h' : 'b')))
        throwInvalid(in.loc,
                     "selector ." + sel + " of a " + std::to_string(n) + "-way instruction");
      return unsigned(digits[n - 1 - lane] - '0');
    };
    std::vector<bool> mask(n, true);
    if (!o[0].select.empty()) {
      if (o[0].select[0] != (simd2 ? 'h' : 'b'))
        throwInvalid(in.loc,
                     "mask ." + o[0].select + " of a " + std::to_string(n) + "-way instruction");
      for (unsigned i = 0; i < n; ++i)
        mask[i] = o[0].select.find(char('0' + i)) != std::string::npos;
    }
    Value *d = in.has(Mod::add) ? b.CreateZExt(c, i64) : b.getInt64(0);
    for (unsigned i = 0; i < n; ++i) {
      Value *x = element(pick(o[1].select, simd2 ? "10" : "3210", i), videoSigned(at));
      Value *y = element(pick(o[2].select, simd2 ? "32" : "7654", i), videoSigned(bt));
      Value *t;
      if (vset)
        t = cmp(x, y);
      else if (op == Op::vadd2 || op == Op::vadd4)
        t = b.CreateAdd(x, y);
      else if (op == Op::vsub2 || op == Op::vsub4)
        t = b.CreateSub(x, y);
      else if (op == Op::vavrg2 || op == Op::vavrg4) { // rounds half away from zero
        Value *s = b.CreateAdd(x, y);
        t = b.CreateAShr(
            b.CreateSelect(b.CreateICmpSGE(s, b.getInt64(0)), b.CreateAdd(s, b.getInt64(1)), s), 1);
      } else if (op == Op::vabsdiff2 || op == Op::vabsdiff4)
        t = b.CreateBinaryIntrinsic(llvm::Intrinsic::abs, b.CreateSub(x, y), b.getFalse());
      else if (op == Op::vmin2 || op == Op::vmin4)
        t = smin(x, y);
      else
        t = smax(x, y);
      if (sat)
        t = videoSigned(dt) ? clampTo(t, -(int64_t(1) << (w - 1)), (int64_t(1) << (w - 1)) - 1)
                            : clampTo(t, 0, (int64_t(1) << w) - 1);
      if (in.has(Mod::add)) {
        if (mask[i])
          d = b.CreateAdd(d, t);
        continue;
      }
      Value *lane = mask[i]
                        ? b.CreateAnd(t, b.getInt64((uint64_t(1) << w) - 1))
                        : b.CreateZExt(b.CreateAnd(c, b.getInt32(((1u << w) - 1) << (w * i))), i64);
      d = b.CreateOr(d, mask[i] ? b.CreateShl(lane, uint64_t(w * i)) : lane);
    }
    write(o[0], b.CreateTrunc(d, i32), T::B32, in);
    return true;
  }

  const Field fa = fieldOf(o[1].select, in.loc), fb = fieldOf(o[2].select, in.loc);
  Value *ta = extract(a, fa.shift, fa.width, videoSigned(at));
  Value *tb = extract(bv, fb.shift, fb.width, videoSigned(bt));
  const bool dsigned = videoSigned(dt);
  if (op == Op::vmad) {
    auto *i128 = b.getInt128Ty();
    Value *prod = b.CreateMul(b.CreateSExt(ta, i128), b.CreateSExt(tb, i128));
    if (o[1].minus != o[2].minus)
      prod = b.CreateNeg(prod);
    Value *cc = b.CreateSExt(c, i128);
    if (o[3].minus)
      cc = b.CreateNeg(cc);
    Value *t = b.CreateAdd(prod, cc);
    if (in.has(Mod::po))
      t = b.CreateAdd(t, llvm::ConstantInt::get(i128, 1));
    if (in.has(Mod::shr7))
      t = b.CreateAShr(t, 7);
    else if (in.has(Mod::shr15))
      t = b.CreateAShr(t, 15);
    if (sat) {
      auto *lo = llvm::ConstantInt::get(i128, dsigned ? uint64_t(INT32_MIN) : 0, dsigned);
      auto *hi = llvm::ConstantInt::get(i128, dsigned ? uint64_t(INT32_MAX) : UINT32_MAX);
      if (dsigned)
        t = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin,
                                    b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, t, lo), hi);
      else // negative or too large: the largest value
        t = b.CreateSelect(b.CreateOr(b.CreateICmpSLT(t, lo), b.CreateICmpSGT(t, hi)), hi, t);
    }
    write(o[0], b.CreateTrunc(t, i32), T::B32, in);
    return true;
  }

  Value *t;
  if (vset)
    t = cmp(ta, tb);
  else if (op == Op::vshl || op == Op::vshr) {
    Value *amount = b.CreateTrunc(tb, i32);
    amount = in.has(Mod::clamp)
                 ? b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, amount, b.getInt32(32))
                 : b.CreateAnd(amount, b.getInt32(31));
    Value *n = b.CreateZExt(amount, i64);
    t = op == Op::vshl ? b.CreateShl(ta, n)
                       : (videoSigned(at) ? b.CreateAShr(ta, n) : b.CreateLShr(ta, n));
    t = b.CreateAShr(b.CreateShl(t, 30), 30); // 34 bits
  } else if (op == Op::vadd)
    t = b.CreateAdd(ta, tb);
  else if (op == Op::vsub)
    t = b.CreateSub(ta, tb);
  else if (op == Op::vabsdiff)
    t = b.CreateBinaryIntrinsic(llvm::Intrinsic::abs, b.CreateSub(ta, tb), b.getFalse());
  else if (op == Op::vmin)
    t = smin(ta, tb);
  else
    t = smax(ta, tb);

  if (!o[0].select.empty()) { // merge into a byte or half of c
    const Field fd = fieldOf(o[0].select, in.loc);
    const uint64_t fmask = (uint64_t(1) << fd.width) - 1;
    Value *field;
    if (sat) {
      const int64_t top = dsigned ? (int64_t(1) << (fd.width - 1)) - 1 : int64_t(fmask);
      Value *outside = b.CreateOr(b.CreateICmpSLT(t, b.getInt64(0)),
                                  b.CreateICmpSGT(t, b.getInt64(uint64_t(top))));
      Value *v = b.CreateSelect(outside, b.getInt64(uint64_t(top)), t);
      field = b.CreateAnd(b.CreateLShr(v, uint64_t(fd.shift)), b.getInt64(fmask));
    } else {
      field = b.CreateAnd(t, b.getInt64(fmask));
    }
    Value *keep = b.CreateAnd(c, b.getInt32(~uint32_t(fmask << fd.shift)));
    Value *d = b.CreateOr(keep, b.CreateShl(b.CreateTrunc(field, i32), uint64_t(fd.shift)));
    write(o[0], d, T::B32, in);
    return true;
  }
  if (sat)
    t = dsigned ? clampTo(t, INT32_MIN, INT32_MAX) : smax(t, b.getInt64(0));
  Value *d = b.CreateTrunc(t, i32);
  if (in.has(Mod::add))
    d = b.CreateAdd(d, c);
  else if (in.has(Mod::min))
    d = b.CreateBinaryIntrinsic(dsigned ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, d, c);
  else if (in.has(Mod::max))
    d = b.CreateBinaryIntrinsic(dsigned ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, d, c);
  write(o[0], d, T::B32, in);
  return true;
}

} // namespace cucpu::jit
