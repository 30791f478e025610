// Operands: registers, immediates, special registers, symbols and addresses of every state space.
#include "lowering.h"

#include "kernel_abi.h"

#include <llvm/IR/Intrinsics.h>

#include <cstddef>

namespace cucpu::jit {

using llvm::Value;
using T = ptx::Type;
using K = ptx::Operand::Kind;

std::string spellingOf(const ptx::Instruction &in) {
  std::string s = in.opcode;
  for (auto &m : in.mods)
    s += "." + m;
  for (auto t : in.types)
    s += "." + std::string(ptx::typeName(t));
  return s;
}

Value *KernelLowering::convert(Value *v, llvm::Type *to, bool isSigned) {
  llvm::Type *from = v->getType();
  if (from == to)
    return v;
  unsigned fb = from->getPrimitiveSizeInBits(), tb = to->getPrimitiveSizeInBits();
  if (fb == tb)
    return b.CreateBitCast(v, to);
  if (!from->isIntegerTy())
    v = b.CreateBitCast(v, b.getIntNTy(fb));
  llvm::Type *toInt = to->isIntegerTy() ? to : b.getIntNTy(tb);
  Value *r;
  if (fb > tb)
    r = b.CreateTrunc(v, toInt);
  else if (fb == 1)
    r = b.CreateZExt(v, toInt);
  else
    r = isSigned ? b.CreateSExt(v, toInt) : b.CreateZExt(v, toInt);
  return to->isIntegerTy() ? r : b.CreateBitCast(r, to);
}

Value *KernelLowering::special(const ptx::Operand &op, const ptx::Instruction &in) {
  const std::string &n = op.name;
  int c = op.component < 0 ? 0 : op.component;
  if (c > 2 && (n == "%tid" || n == "%ntid" || n == "%ctaid" || n == "%nctaid"))
    return b.getInt32(n == "%ntid" || n == "%nctaid" ? 1 : 0);
  if (n == "%tid")
    return tid_[c];
  if (n == "%ntid")
    return ntid_[c];
  if (n == "%ctaid")
    return ctaid_[c];
  if (n == "%nctaid")
    return nctaid_[c];
  if (n == "%laneid")
    return b.CreateAnd(linearTid_, b.getInt32(31));
  if (n == "%warpid")
    return b.CreateLShr(linearTid_, b.getInt32(5));
  if (n == "%nwarpid")
    return b.CreateLShr(b.CreateAdd(nthreads_, b.getInt32(31)), b.getInt32(5));
  if (n == "WARP_SZ")
    return b.getInt32(32);
  if (n == "%smid")
    return b.getInt32(0);
  if (n == "%nsmid")
    return b.getInt32(1);
  if (n == "%gridid")
    return b.getInt64(0);
  if (n == "%dynamic_smem_size")
    return dynShared_;
  // Every launch is a grid of one-block clusters (the device reports no cluster launch).
  if (n == "%clusterid")
    return ctaid_[std::min(c, 2)];
  if (n == "%nclusterid")
    return nctaid_[std::min(c, 2)];
  if (n == "%cluster_ctaid" || n == "%cluster_ctarank")
    return b.getInt32(0);
  if (n == "%cluster_nctaid")
    return b.getInt32(c > 2 ? 0 : 1);
  if (n == "%cluster_nctarank")
    return b.getInt32(1);
  if (n == "%is_explicit_cluster")
    return b.getFalse();
  if (n == "%aggr_smem_size") // with the 1 KiB a block reserves (RESERVED_SHARED_MEMORY_PER_BLOCK)
    return b.CreateAdd(dynShared_, b.getInt32(info_.staticSharedBytes + 1024));
  if (n == "%total_smem_size")
    return b.CreateAdd(dynShared_, b.getInt32(info_.staticSharedBytes));
  if (n == "%lanemask_eq" || n == "%lanemask_lt" || n == "%lanemask_le" || n == "%lanemask_gt" ||
      n == "%lanemask_ge") {
    Value *lane = b.CreateAnd(linearTid_, b.getInt32(31));
    Value *bit = b.CreateShl(b.getInt32(1), lane);
    if (n == "%lanemask_eq")
      return bit;
    if (n == "%lanemask_lt")
      return b.CreateSub(bit, b.getInt32(1));
    if (n == "%lanemask_le")
      return b.CreateOr(bit, b.CreateSub(bit, b.getInt32(1)));
    if (n == "%lanemask_ge")
      return b.CreateNot(b.CreateSub(bit, b.getInt32(1)));
    return b.CreateShl(b.getInt32(-2), lane); // gt
  }
  if (n == "%clock" || n == "%clock64") {
    Value *t = b.CreateIntrinsic(llvm::Intrinsic::readcyclecounter, {}, {});
    return n == "%clock" ? b.CreateTrunc(t, b.getInt32Ty()) : t;
  }
  if (n == "%globaltimer" || n == "%globaltimer_lo" || n == "%globaltimer_hi") {
    // Nanoseconds, as on a GPU: the runtime reads the real-time clock.
    auto *ptrTy = llvm::PointerType::get(ctx, 0);
    Value *fn = b.CreateLoad(ptrTy, b.CreateConstGEP1_32(b.getInt8Ty(), services_,
                                                         offsetof(cucpu_services, globaltimer)));
    Value *t = b.CreateCall(llvm::FunctionType::get(b.getInt64Ty(), false), fn);
    if (n == "%globaltimer_lo")
      return b.CreateTrunc(t, b.getInt32Ty());
    if (n == "%globaltimer_hi")
      return b.CreateTrunc(b.CreateLShr(t, 32), b.getInt32Ty());
    return t;
  }
  if (n.rfind("%envreg", 0) == 0) {
    int idx = std::atoi(n.c_str() + 7);
    if (idx < 0 || idx > 31)
      throwInvalid(op.loc, "no special register '" + n + "'");
    return b.CreateLoad(b.getInt32Ty(), b.CreateConstGEP1_32(b.getInt32Ty(), envreg_, idx));
  }
  throwUnsupported(op.loc, "special register '" + n + "' in '" + spellingOf(in) + "'");
}

Value *KernelLowering::symbolAddress(const std::string &name, const ptx::Instruction &in,
                                     ptx::Space *spaceOut) {
  if (auto it = sharedOffsets_.find(name); it != sharedOffsets_.end()) {
    *spaceOut = ptx::Space::Shared;
    return b.getInt64(it->second);
  }
  if (auto it = ms.sharedOffsets.find(name); it != ms.sharedOffsets.end()) {
    *spaceOut = ptx::Space::Shared;
    return b.getInt64(it->second);
  }
  if (ms.dynamicShared.count(name)) {
    *spaceOut = ptx::Space::Shared;
    return b.getInt64(ms.dynamicSharedOffset);
  }
  if (auto it = localOffsets_.find(name); it != localOffsets_.end()) {
    *spaceOut = ptx::Space::Local;
    return b.CreatePtrToInt(b.CreateConstGEP1_64(b.getInt8Ty(), localBase_, it->second),
                            b.getInt64Ty());
  }
  if (auto *gv = ms.global(name)) {
    *spaceOut = ptx::Space::Global;
    return b.CreatePtrToInt(gv, b.getInt64Ty());
  }
  if (auto *fn = ms.functionMarker(name)) { // a device function's address (function pointer)
    *spaceOut = ptx::Space::Global;
    return b.CreatePtrToInt(fn, b.getInt64Ty());
  }
  if (auto it = paramOffsets_.find(name); it != paramOffsets_.end()) {
    *spaceOut = ptx::Space::Param;
    return b.getInt64(it->second);
  }
  throwInvalid(in.loc, "unknown symbol '" + name + "' in '" + spellingOf(in) + "'");
}

Value *KernelLowering::read(const ptx::Operand &op, T want, const ptx::Instruction &in) {
  llvm::Type *ty = llvmType(ctx, want);
  switch (op.kind) {
  case K::Reg: {
    Value *v;
    auto it = regIds_.find(op.name);
    if (it == regIds_.end()) {
      v = special(op, in);
    } else {
      const RegInfo &ri = regs_[it->second];
      v = b.CreateLoad(ri.ty, ri.slot);
    }
    v = convert(v, ty, ptx::isSigned(want));
    if (op.negate)
      v = b.CreateNot(v);
    return v;
  }
  case K::Imm:
    if (ty->isFloatingPointTy())
      return llvm::ConstantFP::get(ty, static_cast<double>(op.imm));
    return llvm::ConstantInt::get(ty, static_cast<uint64_t>(op.imm), ptx::isSigned(want));
  case K::FImm: {
    if (ty->isFloatTy()) {
      if (op.fwidth == 32)
        return llvm::ConstantFP::get(
            ctx, llvm::APFloat(llvm::APFloat::IEEEsingle(), llvm::APInt(32, op.fbits)));
      return llvm::ConstantFP::get(ty,
                                   op.fwidth == 64 ? llvm::bit_cast<double>(op.fbits) : op.fval);
    }
    if (ty->isDoubleTy()) {
      if (op.fwidth == 64)
        return llvm::ConstantFP::get(
            ctx, llvm::APFloat(llvm::APFloat::IEEEdouble(), llvm::APInt(64, op.fbits)));
      if (op.fwidth == 32)
        return llvm::ConstantFP::get(ty, llvm::bit_cast<float>(static_cast<uint32_t>(op.fbits)));
      return llvm::ConstantFP::get(ty, op.fval);
    }
    if (ty->isIntegerTy() && op.fwidth)
      return llvm::ConstantInt::get(ty, op.fbits);
    throwInvalid(op.loc, "float literal used as ." + std::string(ptx::typeName(want)));
  }
  case K::Symbol: {
    if (op.name == "WARP_SZ") { // the warp size, spelled without '%'
      ptx::Operand asReg = op;
      asReg.kind = K::Reg;
      return read(asReg, want, in);
    }
    ptx::Space sp;
    Value *a = symbolAddress(op.name, in, &sp);
    if (sp == ptx::Space::Param) // a kernel parameter's address in a register: a host pointer
      a = b.CreateAdd(b.CreatePtrToInt(params_, b.getInt64Ty()), a);
    if (op.imm)
      a = b.CreateAdd(a, b.getInt64(op.imm));
    return convert(a, ty, false);
  }
  default:
    throwInvalid(op.loc, "unexpected operand in '" + spellingOf(in) + "'");
  }
}

void KernelLowering::write(const ptx::Operand &op, Value *v, T type, const ptx::Instruction &in) {
  if (op.kind == K::Sink)
    return;
  if (op.kind != K::Reg)
    throwInvalid(op.loc, "destination of '" + spellingOf(in) + "' is not a register");
  RegInfo &ri = reg(op.name, in);
  b.CreateStore(convert(v, ri.ty, ptx::isSigned(type)), ri.slot);
}

Value *KernelLowering::address(const ptx::Operand &op, ptx::Space space, const ptx::Instruction &in,
                               bool *outsideScratch) {
  if (op.kind != K::Address && op.kind != K::Symbol && op.kind != K::Reg)
    throwInvalid(op.loc, "expected an address in '" + spellingOf(in) + "'");
  Value *base;
  bool wrapped = false; // the offset is in `base` already
  ptx::Space symSpace = space;
  if (op.kind == K::Reg || (op.kind == K::Address && op.addrIsReg)) {
    RegInfo &ri = reg(op.name, in);
    Value *v = b.CreateLoad(ri.ty, ri.slot);
    // A 32-bit address register and its offset add modulo 2^32, as on the GPU: compilers lean
    // on it ([%r+8320] with %r "below" a shared array by a negative index).
    if (op.kind != K::Reg && op.imm && v->getType()->isIntegerTy(32)) {
      v = b.CreateAdd(v, b.getInt32(static_cast<uint32_t>(op.imm)));
      wrapped = true;
    }
    base = convert(v, b.getInt64Ty(), false);
    // .param addresses in registers are host pointers: a kernel parameter's (mov adds the
    // buffer's base) or a device function's argument slot (.local memory)
    if (space == ptx::Space::Param)
      space = symSpace = ptx::Space::Local;
  } else if (!op.name.empty()) {
    base = symbolAddress(op.name, in, &symSpace);
    if (space == ptx::Space::None && symSpace == ptx::Space::Shared)
      base = b.CreatePtrToInt(b.CreateGEP(b.getInt8Ty(), sharedBase_, base), b.getInt64Ty());
    if (symSpace == ptx::Space::Param && space != ptx::Space::Param)
      throwUnsupported(op.loc, "taking the address of a kernel parameter");
    if (symSpace == ptx::Space::Local) // a .local or call .param variable: a real pointer
      space = ptx::Space::Local;
  } else {
    base = b.getInt64(0);
  }
  Value *off = b.CreateAdd(base, b.getInt64(op.kind == K::Reg || wrapped ? 0 : op.imm));
  if (outsideScratch) // a generic address may name .local memory, which lives in scratch
    *outsideScratch = space != ptx::Space::None && space != ptx::Space::Local;
  switch (space) {
  case ptx::Space::Shared:
    return b.CreateGEP(b.getInt8Ty(), sharedBase_, off);
  case ptx::Space::Param:
    return b.CreateGEP(b.getInt8Ty(), params_, off);
  default:
    return b.CreateIntToPtr(off, llvm::PointerType::get(ctx, 0));
  }
}

} // namespace cucpu::jit
