// Instruction semantics: each PTX instruction family lowered to LLVM IR for one thread.
#include "lowering.h"

#include <llvm/IR/Intrinsics.h>

namespace cucpu::jit {

using llvm::Value;
using T = ptx::Type;
using K = ptx::Operand::Kind;

namespace {

bool signedType(T t) { return ptx::isSigned(t); }


ptx::Space spaceOf(const ptx::Instruction &in) {
  for (const auto &m : in.mods) {
    if (m == "global") return ptx::Space::Global;
    if (m == "shared" || m == "shared::cta") return ptx::Space::Shared;
    if (m == "local") return ptx::Space::Local;
    if (m == "const") return ptx::Space::Const;
    if (m == "param" || m == "param::entry" || m == "param::func") return ptx::Space::Param;
  }
  return ptx::Space::None; // generic
}

unsigned vectorWidth(const ptx::Instruction &in) {
  if (in.hasMod("v2")) return 2;
  if (in.hasMod("v4")) return 4;
  if (in.hasMod("v8")) return 8;
  return 1;
}

} // namespace

// --------------------------------------------------------------------------------------------
// Families

namespace {

llvm::AtomicRMWInst::BinOp atomicOp(const ptx::Instruction &in, T t) {
  using Op = llvm::AtomicRMWInst::BinOp;
  bool f = ptx::isFloat(t), s = ptx::isSigned(t);
  for (const auto &m : in.mods) {
    if (m == "add") return f ? Op::FAdd : Op::Add;
    if (m == "min") return f ? Op::FMin : s ? Op::Min : Op::UMin;
    if (m == "max") return f ? Op::FMax : s ? Op::Max : Op::UMax;
    if (m == "exch") return Op::Xchg;
    if (m == "and") return Op::And;
    if (m == "or") return Op::Or;
    if (m == "xor") return Op::Xor;
    if (m == "inc") return Op::UIncWrap;
    if (m == "dec") return Op::UDecWrap;
  }
  return Op::BAD_BINOP;
}

} // namespace

void KernelLowering::emitInstruction(const ptx::Instruction &in) {
  if (emitWarpInstruction(in))
    return;
  const std::string &op = in.opcode;
  const T t = in.types.empty() ? T::None : in.types[0];
  llvm::Type *ty = t == T::None ? nullptr : llvmType(ctx, t);
  const auto &o = in.operands;
  auto need = [&](size_t n) {
    if (o.size() != n)
      throwInvalid(in.loc, "'" + spellingOf(in) + "' expects " + std::to_string(n) + " operands");
    if (t == T::None && n > 0)
      throwInvalid(in.loc, "'" + spellingOf(in) + "' has no type");
  };
  auto src = [&](size_t i, T want) { return read(o.at(i), want, in); };
  auto unsupported = [&]() { throwUnsupported(in.loc, "instruction '" + spellingOf(in) + "'"); };
  auto intrin = [&](llvm::Intrinsic::ID id, std::vector<Value *> args) -> Value * {
    return b.CreateIntrinsic(id, {args[0]->getType()}, args);
  };
  const bool isF = ptx::isFloat(t);
  const bool f16ish = t == T::F16 || t == T::F16x2 || t == T::BF16 || t == T::BF16x2;
  if (f16ish && op != "ld" && op != "st" && op != "mov" && op != "cvt" && op != "selp")
    unsupported();
  // Precise float arithmetic when a rounding mode is given; contraction allowed otherwise.
  auto fmf = [&]() {
    llvm::FastMathFlags fm;
    if (!in.hasMod("rn") && !in.hasMod("rz") && !in.hasMod("rm") && !in.hasMod("rp"))
      fm.setAllowContract(true);
    return fm;
  };
  auto sat01 = [&](Value *v) {
    if (!in.hasMod("sat") || !isF)
      return v;
    Value *zero = llvm::ConstantFP::get(ty, 0.0), *one = llvm::ConstantFP::get(ty, 1.0);
    return intrin(llvm::Intrinsic::minnum, {intrin(llvm::Intrinsic::maxnum, {v, zero}), one});
  };

  if (op == "mov") {
    need(2);
    if (o[0].kind == K::Vector || o[1].kind == K::Vector) { // pack / unpack
      const bool pack = o[1].kind == K::Vector;
      const auto &vec = pack ? o[1] : o[0];
      unsigned parts = static_cast<unsigned>(vec.elems.size());
      unsigned bits = ptx::typeSize(t) * 8;
      if (!parts || bits % parts)
        throwInvalid(in.loc, "bad vector in '" + spellingOf(in) + "'");
      llvm::Type *partTy = b.getIntNTy(bits / parts);
      llvm::Type *whole = b.getIntNTy(bits);
      if (pack) {
        Value *acc = llvm::ConstantInt::get(whole, 0);
        for (unsigned i = 0; i < parts; ++i) {
          unsigned pb = bits / parts;
          T pt = pb == 8 ? T::B8 : pb == 16 ? T::B16 : pb == 32 ? T::B32 : T::B64;
          Value *part = read(vec.elems[i], pt, in);
          acc = b.CreateOr(acc, b.CreateShl(b.CreateZExt(part, whole), i * (bits / parts)));
        }
        write(o[0], acc, t, in);
      } else {
        Value *w = convert(src(1, t), whole, false);
        for (unsigned i = 0; i < parts; ++i) {
          if (vec.elems[i].kind == K::Sink)
            continue;
          Value *part = b.CreateTrunc(b.CreateLShr(w, i * (bits / parts)), partTy);
          RegInfo &ri = reg(vec.elems[i].name, in);
          b.CreateStore(convert(part, ri.ty, false), ri.slot);
        }
      }
      return;
    }
    write(o[0], src(1, t), t, in);
    return;
  }

  if (op == "ld" || op == "ldu" || op == "st") {
    const bool load = op != "st";
    if (o.size() != 2 || t == T::None)
      throwInvalid(in.loc, "'" + spellingOf(in) + "' expects 2 operands and a type");
    ptx::Space sp = spaceOf(in);
    const ptx::Operand &addrOp = load ? o[1] : o[0];
    const ptx::Operand &valOp = load ? o[0] : o[1];
    Value *p = address(addrOp, sp, in);
    unsigned vw = vectorWidth(in);
    unsigned es = ptx::typeSize(t);
    llvm::Type *memTy = t == T::Pred ? b.getInt8Ty() : ty;
    const bool isVolatile = in.hasMod("volatile");
    auto align = llvm::Align(es ? es : 1);
    if (vw == 1) {
      if (load) {
        auto *ld = b.CreateAlignedLoad(memTy, p, align, isVolatile);
        tagMemory(ld);
        write(valOp, ld, t, in);
      } else {
        tagMemory(b.CreateAlignedStore(src(1, t), p, align, isVolatile));
      }
      return;
    }
    if (valOp.kind != K::Vector || valOp.elems.size() != vw)
      throwInvalid(in.loc, "'" + spellingOf(in) + "' needs a vector of " + std::to_string(vw));
    for (unsigned i = 0; i < vw; ++i) {
      Value *ep = b.CreateConstGEP1_64(b.getInt8Ty(), p, uint64_t(i) * es);
      if (load) {
        if (valOp.elems[i].kind == K::Sink)
          continue;
        auto *ld = b.CreateAlignedLoad(memTy, ep, i ? align : llvm::Align(es * vw), isVolatile);
        tagMemory(ld);
        write(valOp.elems[i], ld, t, in);
      } else {
        tagMemory(b.CreateAlignedStore(read(valOp.elems[i], t, in), ep,
                                       i ? align : llvm::Align(es * vw), isVolatile));
      }
    }
    return;
  }

  if (op == "cvta") {
    need(2);
    ptx::Space sp = spaceOf(in);
    Value *v = src(1, T::U64);
    if (sp == ptx::Space::Shared) {
      Value *base = b.CreatePtrToInt(sharedBase_, b.getInt64Ty());
      v = in.hasMod("to") ? b.CreateSub(v, base) : b.CreateAdd(v, base);
    }
    write(o[0], v, t, in);
    return;
  }

  if (op == "add" || op == "sub" || op == "mul" || op == "mad" || op == "fma") {
    if (isF) {
      need(op == "fma" || op == "mad" ? 4 : 3);
      Value *a = src(1, t), *c = src(2, t), *r;
      if (op == "add") r = b.CreateFAdd(a, c);
      else if (op == "sub") r = b.CreateFSub(a, c);
      else if (op == "mul") r = b.CreateFMul(a, c);
      else r = intrin(llvm::Intrinsic::fma, {a, c, src(3, t)});
      if (auto *fi = llvm::dyn_cast<llvm::Instruction>(r); fi && op != "fma" && op != "mad")
        fi->setFastMathFlags(fmf());
      write(o[0], sat01(r), t, in);
      return;
    }
    const bool cc = in.hasMod("cc");
    const bool wide = in.hasMod("wide"), hi = in.hasMod("hi");
    if ((op == "add" || op == "sub") && in.hasMod("sat")) {
      need(3);
      auto id = op == "add" ? llvm::Intrinsic::sadd_sat : llvm::Intrinsic::ssub_sat;
      write(o[0], intrin(id, {src(1, t), src(2, t)}), t, in);
      return;
    }
    if (op == "add" || op == "sub") {
      need(3);
      Value *a = src(1, t), *c = src(2, t);
      if (cc || in.hasMod("cc")) {
        auto id = op == "add" ? llvm::Intrinsic::uadd_with_overflow : llvm::Intrinsic::usub_with_overflow;
        Value *res = intrin(id, {a, c});
        b.CreateStore(b.CreateZExt(b.CreateExtractValue(res, 1), b.getInt32Ty()), carry_);
        write(o[0], b.CreateExtractValue(res, 0), t, in);
        return;
      }
      write(o[0], op == "add" ? b.CreateAdd(a, c) : b.CreateSub(a, c), t, in);
      return;
    }
    // mul / mad with .lo / .hi / .wide
    need(op == "mad" ? 4 : 3);
    const bool s = signedType(t);
    unsigned bits = ty->getIntegerBitWidth();
    Value *a = src(1, t), *c = src(2, t), *r;
    if (wide || hi) {
      llvm::Type *w = b.getIntNTy(bits * 2);
      Value *p = b.CreateMul(s ? b.CreateSExt(a, w) : b.CreateZExt(a, w),
                             s ? b.CreateSExt(c, w) : b.CreateZExt(c, w));
      if (hi) {
        p = b.CreateTrunc(b.CreateLShr(p, bits), ty);
        if (op == "mad")
          p = b.CreateAdd(p, src(3, t));
        write(o[0], p, t, in);
        return;
      }
      if (op == "mad") {
        T wt = s ? (bits == 16 ? T::S32 : T::S64) : (bits == 16 ? T::U32 : T::U64);
        p = b.CreateAdd(p, src(3, wt));
      }
      write(o[0], p, s ? (bits == 16 ? T::S32 : T::S64) : (bits == 16 ? T::U32 : T::U64), in);
      return;
    }
    r = b.CreateMul(a, c);
    if (op == "mad")
      r = b.CreateAdd(r, src(3, t));
    write(o[0], r, t, in);
    return;
  }

  if (op == "addc" || op == "subc") {
    need(3);
    Value *a = src(1, t), *c = src(2, t);
    Value *cin = b.CreateZExtOrTrunc(b.CreateLoad(b.getInt32Ty(), carry_), ty);
    Value *r = op == "addc" ? b.CreateAdd(b.CreateAdd(a, c), cin) : b.CreateSub(b.CreateSub(a, c), cin);
    if (in.hasMod("cc")) {
      Value *carry = op == "addc"
                         ? b.CreateOr(b.CreateICmpULT(r, a), b.CreateAnd(b.CreateICmpEQ(r, a), b.CreateICmpNE(cin, llvm::ConstantInt::get(ty, 0))))
                         : b.CreateOr(b.CreateICmpUGT(r, a), b.CreateAnd(b.CreateICmpEQ(r, a), b.CreateICmpNE(cin, llvm::ConstantInt::get(ty, 0))));
      b.CreateStore(b.CreateZExt(carry, b.getInt32Ty()), carry_);
    }
    write(o[0], r, t, in);
    return;
  }

  if (op == "div" || op == "rem") {
    need(3);
    Value *a = src(1, t), *c = src(2, t);
    if (isF) {
      write(o[0], b.CreateFDiv(a, c), t, in);
      return;
    }
    // No trap on division by zero or INT_MIN / -1: the results are what the GPU gives.
    Value *zero = llvm::ConstantInt::get(ty, 0);
    Value *isZero = b.CreateICmpEQ(c, zero);
    Value *safe = b.CreateSelect(isZero, llvm::ConstantInt::get(ty, 1), c);
    if (signedType(t)) {
      Value *ovf = b.CreateAnd(b.CreateICmpEQ(a, llvm::ConstantInt::get(ty, llvm::APInt::getSignedMinValue(ty->getIntegerBitWidth()))),
                               b.CreateICmpEQ(safe, llvm::ConstantInt::get(ty, -1, true)));
      safe = b.CreateSelect(ovf, llvm::ConstantInt::get(ty, 1), safe);
      Value *r = op == "div" ? b.CreateSDiv(a, safe) : b.CreateSRem(a, safe);
      r = b.CreateSelect(ovf, op == "div" ? a : zero, r);
      r = b.CreateSelect(isZero, op == "div" ? llvm::ConstantInt::get(ty, -1, true) : a, r);
      write(o[0], r, t, in);
    } else {
      Value *r = op == "div" ? b.CreateUDiv(a, safe) : b.CreateURem(a, safe);
      r = b.CreateSelect(isZero, op == "div" ? llvm::ConstantInt::getAllOnesValue(ty) : a, r);
      write(o[0], r, t, in);
    }
    return;
  }

  if (op == "min" || op == "max") {
    need(3);
    Value *a = src(1, t), *c = src(2, t), *r;
    if (isF) {
      bool nan = in.hasMod("NaN");
      auto id = op == "min" ? (nan ? llvm::Intrinsic::minimum : llvm::Intrinsic::minnum)
                            : (nan ? llvm::Intrinsic::maximum : llvm::Intrinsic::maxnum);
      r = intrin(id, {a, c});
    } else if (signedType(t)) {
      r = intrin(op == "min" ? llvm::Intrinsic::smin : llvm::Intrinsic::smax, {a, c});
    } else {
      r = intrin(op == "min" ? llvm::Intrinsic::umin : llvm::Intrinsic::umax, {a, c});
    }
    write(o[0], r, t, in);
    return;
  }

  if (op == "neg" || op == "abs" || op == "not" || op == "cnot" || op == "popc" || op == "clz" ||
      op == "brev") {
    need(2);
    Value *a = src(1, t), *r;
    if (op == "neg") r = isF ? b.CreateFNeg(a) : b.CreateNeg(a);
    else if (op == "abs") r = isF ? intrin(llvm::Intrinsic::fabs, {a}) : intrin(llvm::Intrinsic::abs, {a, b.getFalse()});
    else if (op == "not") r = b.CreateNot(a);
    else if (op == "cnot") r = b.CreateZExt(b.CreateICmpEQ(a, llvm::ConstantInt::get(ty, 0)), ty);
    else if (op == "popc") r = b.CreateZExtOrTrunc(intrin(llvm::Intrinsic::ctpop, {a}), b.getInt32Ty());
    else if (op == "clz") r = b.CreateZExtOrTrunc(intrin(llvm::Intrinsic::ctlz, {a, b.getFalse()}), b.getInt32Ty());
    else r = intrin(llvm::Intrinsic::bitreverse, {a});
    write(o[0], r, (op == "popc" || op == "clz") ? T::U32 : t, in);
    return;
  }

  if (op == "and" || op == "or" || op == "xor") {
    need(3);
    Value *a = src(1, t), *c = src(2, t);
    write(o[0], op == "and" ? b.CreateAnd(a, c) : op == "or" ? b.CreateOr(a, c) : b.CreateXor(a, c), t, in);
    return;
  }

  if (op == "shl" || op == "shr") {
    need(3);
    unsigned bits = ty->getIntegerBitWidth();
    Value *a = src(1, t);
    Value *n = b.CreateZExtOrTrunc(src(2, T::U32), ty);
    Value *big = b.CreateICmpUGE(src(2, T::U32), b.getInt32(bits));
    Value *r;
    if (op == "shl") {
      r = b.CreateSelect(big, llvm::ConstantInt::get(ty, 0), b.CreateShl(a, b.CreateSelect(big, llvm::ConstantInt::get(ty, 0), n)));
    } else if (signedType(t)) {
      r = b.CreateAShr(a, b.CreateSelect(big, llvm::ConstantInt::get(ty, bits - 1), n));
    } else {
      r = b.CreateSelect(big, llvm::ConstantInt::get(ty, 0), b.CreateLShr(a, b.CreateSelect(big, llvm::ConstantInt::get(ty, 0), n)));
    }
    write(o[0], r, t, in);
    return;
  }

  if (op == "setp") {
    if (o.size() != 3 && o.size() != 4)
      throwInvalid(in.loc, "'" + spellingOf(in) + "' expects 3 or 4 operands");
    if (t == T::None)
      throwInvalid(in.loc, "'" + spellingOf(in) + "' has no type");
    std::string cmp;
    std::string boolOp;
    for (const auto &m : in.mods) {
      if (m == "and" || m == "or" || m == "xor")
        boolOp = m;
      else if (m != "ftz")
        cmp = m;
    }
    Value *a = src(1, t), *c = src(2, t), *r;
    using P = llvm::CmpInst::Predicate;
    P pred;
    const bool s = signedType(t);
    if (isF) {
      static const std::pair<const char *, P> kF[] = {
          {"eq", P::FCMP_OEQ}, {"ne", P::FCMP_ONE}, {"lt", P::FCMP_OLT}, {"le", P::FCMP_OLE},
          {"gt", P::FCMP_OGT}, {"ge", P::FCMP_OGE}, {"equ", P::FCMP_UEQ}, {"neu", P::FCMP_UNE},
          {"ltu", P::FCMP_ULT}, {"leu", P::FCMP_ULE}, {"gtu", P::FCMP_UGT}, {"geu", P::FCMP_UGE},
          {"num", P::FCMP_ORD}, {"nan", P::FCMP_UNO}};
      pred = P::BAD_FCMP_PREDICATE;
      for (auto &[name, p] : kF)
        if (cmp == name)
          pred = p;
      if (pred == P::BAD_FCMP_PREDICATE)
        unsupported();
      r = b.CreateFCmp(pred, a, c);
    } else {
      static const std::pair<const char *, P> kI[] = {
          {"eq", P::ICMP_EQ}, {"ne", P::ICMP_NE}, {"lo", P::ICMP_ULT}, {"ls", P::ICMP_ULE},
          {"hi", P::ICMP_UGT}, {"hs", P::ICMP_UGE}};
      pred = P::BAD_ICMP_PREDICATE;
      for (auto &[name, p] : kI)
        if (cmp == name)
          pred = p;
      if (cmp == "lt") pred = s ? P::ICMP_SLT : P::ICMP_ULT;
      if (cmp == "le") pred = s ? P::ICMP_SLE : P::ICMP_ULE;
      if (cmp == "gt") pred = s ? P::ICMP_SGT : P::ICMP_UGT;
      if (cmp == "ge") pred = s ? P::ICMP_SGE : P::ICMP_UGE;
      if (pred == P::BAD_ICMP_PREDICATE)
        unsupported();
      r = b.CreateICmp(pred, a, c);
    }
    Value *q = b.CreateNot(r);
    if (!boolOp.empty()) {
      if (o.size() != 4)
        throwInvalid(in.loc, "'" + spellingOf(in) + "' needs a predicate operand to combine");
      Value *c3 = src(3, T::Pred);
      auto comb = [&](Value *x) {
        return boolOp == "and" ? b.CreateAnd(x, c3) : boolOp == "or" ? b.CreateOr(x, c3) : b.CreateXor(x, c3);
      };
      r = comb(r);
      q = comb(q);
    }
    RegInfo &pr = reg(o[0].name, in);
    b.CreateStore(r, pr.slot);
    if (!o[0].name2.empty())
      b.CreateStore(q, reg(o[0].name2, in).slot);
    return;
  }

  if (op == "selp") {
    need(4);
    write(o[0], b.CreateSelect(src(3, T::Pred), src(1, t), src(2, t)), t, in);
    return;
  }

  if (op == "cvt") {
    if (in.types.size() != 2 || o.size() != 2)
      throwInvalid(in.loc, "'" + spellingOf(in) + "' expects two types and two operands");
    T dt = in.types[0], st = in.types[1];
    llvm::Type *dty = llvmType(ctx, dt);
    auto halfTy = [&](T x) -> llvm::Type * {
      return x == T::F16 ? b.getHalfTy() : x == T::BF16 ? b.getBFloatTy() : nullptr;
    };
    Value *v = src(1, st);
    llvm::Type *sFloat = halfTy(st);
    if (sFloat)
      v = b.CreateBitCast(v, sFloat);
    llvm::Type *dFloat = halfTy(dt) ? halfTy(dt) : dty;
    auto roundMode = [&]() -> std::string {
      for (const auto &m : in.mods)
        if (m == "rn" || m == "rz" || m == "rm" || m == "rp" || m == "rni" || m == "rzi" ||
            m == "rmi" || m == "rpi" || m == "rna")
          return m;
      return "";
    }();
    const bool sFl = ptx::isFloat(st), dFl = ptx::isFloat(dt);
    Value *r;
    if (sFl && dFl) {
      if (st == dt) {
        r = v;
      } else if (dFloat->getPrimitiveSizeInBits() > v->getType()->getPrimitiveSizeInBits()) {
        r = b.CreateFPExt(v, dFloat);
      } else {
        r = b.CreateFPTrunc(v, dFloat);
      }
      if (roundMode == "rni") r = intrin(llvm::Intrinsic::rint, {r});
      else if (roundMode == "rzi") r = intrin(llvm::Intrinsic::trunc, {r});
      else if (roundMode == "rmi") r = intrin(llvm::Intrinsic::floor, {r});
      else if (roundMode == "rpi") r = intrin(llvm::Intrinsic::ceil, {r});
      if (in.hasMod("sat")) {
        Value *zero = llvm::ConstantFP::get(r->getType(), 0.0), *one = llvm::ConstantFP::get(r->getType(), 1.0);
        r = intrin(llvm::Intrinsic::minnum, {intrin(llvm::Intrinsic::maxnum, {r, zero}), one});
      }
    } else if (sFl) { // float -> int: round, then saturate (NaN -> 0)
      if (roundMode == "rni" || roundMode == "rn") v = intrin(llvm::Intrinsic::rint, {v});
      else if (roundMode == "rmi" || roundMode == "rm") v = intrin(llvm::Intrinsic::floor, {v});
      else if (roundMode == "rpi" || roundMode == "rp") v = intrin(llvm::Intrinsic::ceil, {v});
      auto id = signedType(dt) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
      r = b.CreateIntrinsic(id, {dty, v->getType()}, {v});
    } else if (dFl) { // int -> float
      r = signedType(st) ? b.CreateSIToFP(v, dFloat) : b.CreateUIToFP(v, dFloat);
    } else { // int -> int, with optional saturation to the destination range
      unsigned db = dty->getIntegerBitWidth(), sb = v->getType()->getIntegerBitWidth();
      if (in.hasMod("sat")) {
        unsigned wb = std::max(db, sb) + 1;
        llvm::Type *w = b.getIntNTy(wb);
        Value *x = signedType(st) ? b.CreateSExt(v, w) : b.CreateZExt(v, w);
        llvm::APInt lo = signedType(dt) ? llvm::APInt::getSignedMinValue(db).sext(wb) : llvm::APInt(wb, 0);
        llvm::APInt hi = signedType(dt) ? llvm::APInt::getSignedMaxValue(db).sext(wb) : llvm::APInt::getMaxValue(db).zext(wb);
        x = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x, llvm::ConstantInt::get(w, lo));
        x = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, x, llvm::ConstantInt::get(w, hi));
        r = b.CreateTrunc(x, dty);
      } else {
        r = convert(v, dty, signedType(st));
      }
    }
    if (halfTy(dt))
      r = b.CreateBitCast(r, dty);
    write(o[0], r, dt, in);
    return;
  }

  if (op == "rcp" || op == "sqrt" || op == "rsqrt" || op == "sin" || op == "cos" || op == "lg2" ||
      op == "ex2") {
    need(2);
    Value *a = src(1, t), *r;
    Value *one = llvm::ConstantFP::get(ty, 1.0);
    if (op == "rcp") r = b.CreateFDiv(one, a);
    else if (op == "sqrt") r = intrin(llvm::Intrinsic::sqrt, {a});
    else if (op == "rsqrt") r = b.CreateFDiv(one, intrin(llvm::Intrinsic::sqrt, {a}));
    else if (op == "sin") r = intrin(llvm::Intrinsic::sin, {a});
    else if (op == "cos") r = intrin(llvm::Intrinsic::cos, {a});
    else if (op == "lg2") r = intrin(llvm::Intrinsic::log2, {a});
    else r = intrin(llvm::Intrinsic::exp2, {a});
    write(o[0], r, t, in);
    return;
  }

  if (op == "atom" || op == "red") {
    const bool isAtom = op == "atom";
    ptx::Space sp = spaceOf(in);
    const size_t base = isAtom ? 1 : 0;
    Value *p = address(o.at(base), sp, in);
    llvm::Type *mty = ty;
    if (in.hasMod("cas")) {
      if (o.size() != base + 3)
        throwInvalid(in.loc, "'" + spellingOf(in) + "' expects compare and swap values");
      Value *cmpv = convert(src(base + 1, t), b.getIntNTy(ptx::typeSize(t) * 8), false);
      Value *newv = convert(src(base + 2, t), b.getIntNTy(ptx::typeSize(t) * 8), false);
      auto *x = b.CreateAtomicCmpXchg(p, cmpv, newv, llvm::MaybeAlign(), llvm::AtomicOrdering::SequentiallyConsistent,
                                      llvm::AtomicOrdering::SequentiallyConsistent);
      tagMemory(x);
      if (isAtom)
        write(o[0], b.CreateExtractValue(x, 0), t, in);
      return;
    }
    auto bop = atomicOp(in, t);
    if (bop == llvm::AtomicRMWInst::BAD_BINOP || o.size() != base + 2)
      unsupported();
    Value *v = src(base + 1, t);
    if (!mty->isFloatingPointTy() && bop != llvm::AtomicRMWInst::FAdd)
      v = convert(v, mty, signedType(t));
    auto *x = b.CreateAtomicRMW(bop, p, v, llvm::MaybeAlign(), llvm::AtomicOrdering::SequentiallyConsistent);
    tagMemory(x);
    if (isAtom)
      write(o[0], x, t, in);
    return;
  }

  if (op == "membar" || op == "fence") {
    if (!in.hasMod("cta")) // threads of one block run on one worker between barriers
      b.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
    return;
  }

  if (op == "prefetch" || op == "prefetchu" || op == "pmevent" || op == "nanosleep")
    return;

  unsupported();
}

} // namespace cucpu::jit
