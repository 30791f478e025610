// Compare and select family: setp, set, slct, selp over integer, f16/bf16 (and x2), f32, f64.
#include "lower_fp.h"
#include "lowering.h"

namespace cucpu::jit {

using llvm::Value;
using T = ptx::Type;
using P = llvm::CmpInst::Predicate;

namespace {

P floatPredicate(Mod cmp) {
  static const std::pair<Mod, P> kF[] = {
      {Mod::eq, P::FCMP_OEQ},  {Mod::ne, P::FCMP_ONE},  {Mod::lt, P::FCMP_OLT},
      {Mod::le, P::FCMP_OLE},  {Mod::gt, P::FCMP_OGT},  {Mod::ge, P::FCMP_OGE},
      {Mod::equ, P::FCMP_UEQ}, {Mod::neu, P::FCMP_UNE}, {Mod::ltu, P::FCMP_ULT},
      {Mod::leu, P::FCMP_ULE}, {Mod::gtu, P::FCMP_UGT}, {Mod::geu, P::FCMP_UGE},
      {Mod::num, P::FCMP_ORD}, {Mod::nan, P::FCMP_UNO}};
  for (auto &[name, p] : kF)
    if (cmp == name)
      return p;
  return P::BAD_FCMP_PREDICATE;
}

P intPredicate(Mod cmp, bool s) {
  static const std::pair<Mod, P> kI[] = {{Mod::eq, P::ICMP_EQ},  {Mod::ne, P::ICMP_NE},
                                         {Mod::lo, P::ICMP_ULT}, {Mod::ls, P::ICMP_ULE},
                                         {Mod::hi, P::ICMP_UGT}, {Mod::hs, P::ICMP_UGE}};
  for (auto &[name, p] : kI)
    if (cmp == name)
      return p;
  if (cmp == Mod::lt)
    return s ? P::ICMP_SLT : P::ICMP_ULT;
  if (cmp == Mod::le)
    return s ? P::ICMP_SLE : P::ICMP_ULE;
  if (cmp == Mod::gt)
    return s ? P::ICMP_SGT : P::ICMP_UGT;
  if (cmp == Mod::ge)
    return s ? P::ICMP_SGE : P::ICMP_UGE;
  return P::BAD_ICMP_PREDICATE;
}

// The bits of "true" in a set destination element: 1.0 for floats, all ones for integers.
llvm::APInt trueBits(T t, unsigned bits) {
  switch (t) {
  case T::F16:
  case T::F16x2:
    return llvm::APInt(bits, 0x3c00);
  case T::BF16:
  case T::BF16x2:
    return llvm::APInt(bits, 0x3f80);
  case T::F32:
    return llvm::APInt(bits, 0x3f800000);
  default:
    return llvm::APInt::getAllOnes(bits);
  }
}

} // namespace

bool KernelLowering::emitCompareInstruction(const ptx::Instruction &in) {
  const Op op = in.op;
  if (op != Op::setp && op != Op::set && op != Op::slct && op != Op::selp)
    return false;
  const auto &o = in.operands;
  auto invalid = [&](const std::string &why) {
    throwInvalid(in.loc, "'" + spellingOf(in) + "' " + why);
  };
  auto unsupported = [&]() { throwUnsupported(in.loc, "instruction '" + spellingOf(in) + "'"); };
  // setp.cmp.t / selp.t: one type; set.cmp.dtype.stype / slct.dtype.ctype: two.
  const size_t ntypes = (op == Op::setp || op == Op::selp) ? 1 : 2;
  if (in.types.size() != ntypes)
    invalid("expects " + std::to_string(ntypes) + " type(s)");
  const T dt = in.types[0], st = in.types.back();
  const bool ftz = in.has(Mod::ftz);
  fp::Emitter e{b};

  if (op == Op::selp) {
    if (o.size() != 4)
      invalid("expects 4 operands");
    write(o[0], b.CreateSelect(read(o[3], T::Pred, in), read(o[1], dt, in), read(o[2], dt, in)), dt,
          in);
    return true;
  }

  if (op == Op::slct) { // d = c >= 0 ? a : b
    if (o.size() != 4)
      invalid("expects 4 operands");
    Value *c = read(o[3], st, in), *ge0;
    if (st == T::F32)
      ge0 = b.CreateFCmpOGE(ftz ? e.ftz(c, fp::Format::F32) : c,
                            llvm::ConstantFP::get(c->getType(), 0.0));
    else if (st == T::S32)
      ge0 = b.CreateICmpSGE(c, b.getInt32(0));
    else
      unsupported();
    write(o[0], b.CreateSelect(ge0, read(o[1], dt, in), read(o[2], dt, in)), dt, in);
    return true;
  }

  // setp / set: compare per lane, optionally combine each lane's result with a predicate.
  Mod cmp = Mod::Unknown, boolOp = Mod::Unknown;
  for (Mod m : in.modIds) {
    if (m == Mod::and_ || m == Mod::or_ || m == Mod::xor_)
      boolOp = m;
    else if (m != Mod::ftz)
      cmp = m;
  }
  const bool combines = boolOp != Mod::Unknown;
  if (o.size() != (combines ? 4u : 3u))
    invalid(combines ? "needs a predicate operand to combine" : "expects 3 operands");
  fp::Format f;
  unsigned lanes = 1;
  const bool isF = fp::formatOf(st, &f, &lanes);
  P pred = isF ? floatPredicate(cmp) : intPredicate(cmp, ptx::isSigned(st));
  if (pred == P::BAD_FCMP_PREDICATE || pred == P::BAD_ICMP_PREDICATE)
    unsupported();
  Value *a = read(o[1], st, in), *c = read(o[2], st, in);
  Value *combine = combines ? read(o[3], T::Pred, in) : nullptr;
  auto comb = [&](Value *x) -> Value * {
    if (!combine)
      return x;
    return boolOp == Mod::and_  ? b.CreateAnd(x, combine)
           : boolOp == Mod::or_ ? b.CreateOr(x, combine)
                                : b.CreateXor(x, combine);
  };
  // The comparison of lane l (i1).
  auto lane = [&](unsigned l) -> Value * {
    if (!isF)
      return b.CreateICmp(pred, a, c);
    auto operand = [&](Value *v) {
      if (lanes == 2)
        v = b.CreateTrunc(b.CreateLShr(v, 16 * l), b.getInt16Ty());
      if (ftz)
        v = e.ftz(v, f);
      return fp::isHalfFormat(f) ? e.toFloat(v, f) : v;
    };
    return b.CreateFCmp(pred, operand(a), operand(c));
  };

  if (op == Op::setp) {
    Value *r0 = lane(0);
    Value *r1 = lanes == 2 ? lane(1) : b.CreateNot(r0);
    write(o[0], comb(r0), T::Pred, in);
    if (!o[0].name2.empty()) {
      ptx::Operand second = o[0];
      second.name = o[0].name2;
      write(second, comb(r1), T::Pred, in);
    }
    return true;
  }

  // set: each lane's result encoded as 1.0 / 0.0 (float destinations) or all ones / 0.
  const unsigned dbits = ptx::typeSize(dt) * 8;
  if (!dbits || dbits % lanes)
    invalid("has a bad destination type");
  const unsigned laneBits = dbits / lanes;
  llvm::Type *dty = b.getIntNTy(dbits);
  Value *d = llvm::ConstantInt::get(dty, 0);
  for (unsigned l = 0; l < lanes; ++l) {
    Value *one = llvm::ConstantInt::get(dty, trueBits(dt, laneBits).zext(dbits).shl(l * laneBits));
    d = b.CreateOr(d, b.CreateSelect(comb(lane(l)), one, llvm::ConstantInt::get(dty, 0)));
  }
  write(o[0], b.CreateBitCast(d, llvmType(ctx, dt)), dt, in);
  return true;
}

} // namespace cucpu::jit
