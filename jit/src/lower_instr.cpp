// Instruction semantics: each PTX instruction family lowered to LLVM IR for one thread.
#include "lower_fp.h"
#include "lowering.h"

#include "kernel_abi.h"

#include "cucpu/ptx/isa.h"

#include <llvm/IR/Intrinsics.h>

namespace cucpu::jit {

using llvm::Value;
using T = ptx::Type;
using K = ptx::Operand::Kind;

namespace {

bool signedType(T t) { return ptx::isSigned(t); }

} // namespace

// --------------------------------------------------------------------------------------------
// Families

void KernelLowering::emitOrderedVector(const ptx::Instruction &in, const ptx::Operand &vec,
                                       Value *p, bool load, llvm::AtomicOrdering ordering,
                                       bool outside) {
  const T t = in.types[0];
  const unsigned n = static_cast<unsigned>(vec.elems.size());
  const unsigned bits = ptx::typeSize(t) * 8;
  llvm::Type *part = b.getIntNTy(bits);
  llvm::Type *whole = b.getIntNTy(bits * n);
  const auto align = llvm::Align(bits / 8 * n);
  if (load) {
    auto *ld = b.CreateAlignedLoad(whole, p, align, in.has(Mod::volatile_));
    ld->setAtomic(ordering);
    tagMemory(ld, outside);
    for (unsigned i = 0; i < n; ++i) {
      if (vec.elems[i].kind == K::Sink)
        continue;
      Value *v = b.CreateTrunc(b.CreateLShr(ld, uint64_t(i) * bits), part);
      write(vec.elems[i], b.CreateBitCast(v, llvmType(ctx, t)), t, in);
    }
    return;
  }
  Value *acc = llvm::ConstantInt::get(whole, 0);
  for (unsigned i = 0; i < n; ++i) {
    Value *v = b.CreateBitCast(read(vec.elems[i], t, in), part);
    acc = b.CreateOr(acc, b.CreateShl(b.CreateZExt(v, whole), uint64_t(i) * bits));
  }
  auto *st = b.CreateAlignedStore(acc, p, align, in.has(Mod::volatile_));
  st->setAtomic(ordering);
  tagMemory(st, outside);
}

// Atomically replaces the value of type ty at p by update(old); returns old.
Value *KernelLowering::atomicUpdate(Value *p, llvm::Type *ty,
                                    const std::function<Value *(Value *)> &update) {
  llvm::Type *bits = b.getIntNTy(ty->getPrimitiveSizeInBits());
  auto *init = b.CreateLoad(bits, p);
  tagMemory(init);
  llvm::BasicBlock *entry = b.GetInsertBlock();
  auto *loop = llvm::BasicBlock::Create(ctx, "atom.cas", entry->getParent());
  auto *done = llvm::BasicBlock::Create(ctx, "atom.done", entry->getParent());
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  llvm::PHINode *cur = b.CreatePHI(bits, 2);
  cur->addIncoming(init, entry);
  Value *next = b.CreateBitCast(update(b.CreateBitCast(cur, ty)), bits);
  auto *x = b.CreateAtomicCmpXchg(p, cur, next, llvm::MaybeAlign(),
                                  llvm::AtomicOrdering::SequentiallyConsistent,
                                  llvm::AtomicOrdering::SequentiallyConsistent);
  tagMemory(x);
  Value *seen = b.CreateExtractValue(x, 0);
  cur->addIncoming(seen, b.GetInsertBlock());
  b.CreateCondBr(b.CreateExtractValue(x, 1), done, loop);
  b.SetInsertPoint(done);
  return b.CreateBitCast(seen, ty);
}

namespace {

llvm::AtomicRMWInst::BinOp atomicOp(const ptx::Instruction &in, T t) {
  using Op = llvm::AtomicRMWInst::BinOp;
  bool f = ptx::isFloat(t), s = ptx::isSigned(t);
  for (Mod m : in.modIds) {
    if (m == Mod::add)
      return f ? Op::FAdd : Op::Add;
    if (m == Mod::min)
      return f ? Op::FMin : s ? Op::Min : Op::UMin;
    if (m == Mod::max)
      return f ? Op::FMax : s ? Op::Max : Op::UMax;
    if (m == Mod::exch)
      return Op::Xchg;
    if (m == Mod::and_)
      return Op::And;
    if (m == Mod::or_)
      return Op::Or;
    if (m == Mod::xor_)
      return Op::Xor;
    if (m == Mod::inc)
      return Op::UIncWrap;
    if (m == Mod::dec)
      return Op::UDecWrap;
  }
  return Op::BAD_BINOP;
}

} // namespace

// The instruction table names the emitter of each family (ptx/isa/instructions.def); the
// lowering's own pseudo-instructions, which have no form, are the runtime's.
void KernelLowering::emitInstruction(const ptx::Instruction &in) {
  const ptx::FormInfo *form = ptx::formOf(in);
  bool done = false;
  switch (form ? form->emitter : ptx::Emitter::Runtime) {
  case ptx::Emitter::Int:
    done = emitIntInstruction(in);
    break;
  case ptx::Emitter::Float:
    done = emitFloatInstruction(in);
    break;
  case ptx::Emitter::Convert:
    done = emitConvertInstruction(in);
    break;
  case ptx::Emitter::Compare:
    done = emitCompareInstruction(in);
    break;
  case ptx::Emitter::Image:
    done = emitImageInstruction(in);
    break;
  case ptx::Emitter::Warp:
    done = emitWarpInstruction(in);
    break;
  case ptx::Emitter::Matrix:
    done = emitMatrixInstruction(in);
    break;
  case ptx::Emitter::Video:
    done = emitVideoInstruction(in);
    break;
  case ptx::Emitter::Async:
    done = emitAsyncInstruction(in);
    break;
  case ptx::Emitter::Memory:
    done = emitMemoryInstruction(in);
    break;
  case ptx::Emitter::Control:
  case ptx::Emitter::Runtime:
    done = emitRuntimeInstruction(in);
    break;
  case ptx::Emitter::None:
    break;
  }
  if (!done)
    throwUnsupported(in.loc, "instruction '" + spellingOf(in) + "'");
}

// Data movement, memory, atomics and fences.
bool KernelLowering::emitMemoryInstruction(const ptx::Instruction &in) {
  const Op op = in.op;
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
  const bool f16ish = t == T::F16 || t == T::F16x2 || t == T::BF16 || t == T::BF16x2;
  if (f16ish && op != Op::ld && op != Op::st && op != Op::mov && op != Op::cvt && op != Op::atom &&
      op != Op::red)
    unsupported();

  if (op == Op::mov) {
    need(2);
    if (const unsigned n = ptx::vectorWidth(in); n > 1) { // mov.v2/.v4: element by element
      auto element = [](const ptx::Operand &v, unsigned i) {
        if (v.kind == K::Vector)
          return v.elems.at(i);
        ptx::Operand e = v; // a vector register: its component i
        e.component = static_cast<int>(i);
        return e;
      };
      std::vector<Value *> values;
      for (unsigned i = 0; i < n; ++i)
        values.push_back(read(element(o[1], i), t, in));
      for (unsigned i = 0; i < n; ++i)
        if (const ptx::Operand d = element(o[0], i); d.kind != K::Sink)
          write(d, values[i], t, in);
      return true;
    }
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
      return true;
    }
    write(o[0], src(1, t), t, in);
    return true;
  }

  if (op == Op::ld || op == Op::ldu || op == Op::st) {
    const bool load = op != Op::st;
    // The cache policy operand of .L2::cache_hint forms is a hint for the GPU's L2: no effect.
    const size_t operands = in.has(Mod::L2_cache_hint) ? 3 : 2;
    if (o.size() != operands || t == T::None)
      throwInvalid(in.loc, "'" + spellingOf(in) + "' expects " + std::to_string(operands) +
                               " operands and a type");
    ptx::Space sp = ptx::spaceOf(in);
    const ptx::Operand &addrOp = load ? o[1] : o[0];
    const ptx::Operand &valOp = load ? o[0] : o[1];
    bool outside = false;
    Value *p = address(addrOp, sp, in, &outside);
    unsigned vw = ptx::vectorWidth(in);
    unsigned es = ptx::typeSize(t);
    checkAccess(in, p, sp, std::max(1u, es * vw), load ? CUCPU_ACCESS_READ : CUCPU_ACCESS_WRITE);
    // Volatile and memory-model accesses are how threads signal each other: not races.
    if (!in.has(Mod::volatile_) && !in.has(Mod::relaxed) && !in.has(Mod::acquire) &&
        !in.has(Mod::release) && !in.has(Mod::mmio))
      raceAccess(in, p, sp, std::max(1u, es * vw), load ? CUCPU_ACCESS_READ : CUCPU_ACCESS_WRITE,
                 load || vw != 1 ? nullptr : src(1, t));
    llvm::Type *memTy = t == T::Pred ? b.getInt8Ty() : ty;
    const bool isVolatile = in.has(Mod::volatile_);
    auto align = llvm::Align(es ? es : 1);
    // Memory-model forms (ld.acquire, ld.relaxed.gpu, st.release, ...) are atomic accesses:
    // other threads may spin on them (cooperative groups' grid barrier does).
    auto ordering = llvm::AtomicOrdering::NotAtomic;
    if (in.has(Mod::acquire))
      ordering = llvm::AtomicOrdering::Acquire;
    else if (in.has(Mod::release))
      ordering = llvm::AtomicOrdering::Release;
    else if (in.has(Mod::relaxed) || in.has(Mod::mmio))
      ordering = llvm::AtomicOrdering::Monotonic;
    if (ordering != llvm::AtomicOrdering::NotAtomic && (es > 8 || es == 0))
      throwUnsupported(in.loc, "instruction '" + spellingOf(in) + "'");
    // A load cannot release nor a store acquire (PTX has neither form): relaxed then.
    if (ordering == (load ? llvm::AtomicOrdering::Release : llvm::AtomicOrdering::Acquire))
      ordering = llvm::AtomicOrdering::Monotonic;
    if (vw == 1) {
      if (load) {
        auto *ld = b.CreateAlignedLoad(memTy, p, align, isVolatile);
        if (ordering != llvm::AtomicOrdering::NotAtomic)
          ld->setAtomic(ordering);
        tagMemory(ld, outside);
        write(valOp, ld, t, in);
      } else {
        auto *st = b.CreateAlignedStore(src(1, t), p, align, isVolatile);
        if (ordering != llvm::AtomicOrdering::NotAtomic)
          st->setAtomic(ordering);
        tagMemory(st, outside);
      }
      return true;
    }
    if (valOp.kind != K::Vector || valOp.elems.size() != vw)
      throwInvalid(in.loc, "'" + spellingOf(in) + "' needs a vector of " + std::to_string(vw));
    if (ordering != llvm::AtomicOrdering::NotAtomic && es * vw <= 16) {
      emitOrderedVector(in, valOp, p, load, ordering, outside);
      return true;
    }
    // Wider memory-model vectors are a set of scalar accesses in no particular order (the PTX
    // memory model's rule for vector data); each element is then an atomic access of its own.
    for (unsigned i = 0; i < vw; ++i) {
      Value *ep = b.CreateConstGEP1_64(b.getInt8Ty(), p, uint64_t(i) * es);
      if (load) {
        if (valOp.elems[i].kind == K::Sink)
          continue;
        auto *ld = b.CreateAlignedLoad(memTy, ep, i ? align : llvm::Align(es * vw), isVolatile);
        if (ordering != llvm::AtomicOrdering::NotAtomic)
          ld->setAtomic(ordering);
        tagMemory(ld, outside);
        write(valOp.elems[i], ld, t, in);
      } else {
        auto *st = b.CreateAlignedStore(read(valOp.elems[i], t, in), ep,
                                        i ? align : llvm::Align(es * vw), isVolatile);
        if (ordering != llvm::AtomicOrdering::NotAtomic)
          st->setAtomic(ordering);
        tagMemory(st, outside);
      }
    }
    return true;
  }

  if (op == Op::cvta) {
    need(2);
    ptx::Space sp = ptx::spaceOf(in);
    Value *v = src(1, T::U64);
    // Shared addresses are offsets into the block's shared window; generic addresses, and
    // .param addresses in registers, are host pointers.
    if (sp == ptx::Space::Shared) {
      Value *base = b.CreatePtrToInt(sharedBase_, b.getInt64Ty());
      v = in.has(Mod::to) ? b.CreateSub(v, base) : b.CreateAdd(v, base);
    }
    write(o[0], v, t, in);
    return true;
  }

  if (op == Op::isspacep) { // generic addresses are host pointers: find the window holding one
    if (o.size() != 2)
      throwInvalid(in.loc, "'" + spellingOf(in) + "' expects 2 operands");
    Value *a = src(1, T::U64);
    auto within = [&](Value *begin, Value *bytes) {
      return b.CreateICmpULT(b.CreateSub(a, b.CreatePtrToInt(begin, b.getInt64Ty())), bytes);
    };
    Value *shared = within(sharedBase_, sharedWindowBytes());
    Value *local = localBase_ ? within(localBase_, b.getInt64(localBytes_)) : b.getFalse();
    Value *param = within(params_, b.getInt64(info_.paramBytes));
    Value *konst = b.getFalse();
    for (const auto &v : ms.ast.globals)
      if (v.space == ptx::Space::Const)
        if (auto *gv = ms.global(v.name))
          konst = b.CreateOr(konst, within(gv, b.getInt64(varBytes(v))));
    Value *r;
    switch (ptx::spaceOf(in)) {
    case ptx::Space::Shared:
      r = shared;
      break;
    case ptx::Space::Local:
      r = local;
      break;
    case ptx::Space::Param:
      r = param;
      break;
    case ptx::Space::Const:
      r = konst;
      break;
    case ptx::Space::Global:
      r = b.CreateNot(b.CreateOr(b.CreateOr(shared, local), b.CreateOr(param, konst)));
      break;
    default:
      unsupported();
    }
    write(o[0], r, T::Pred, in);
    return true;
  }

  if (op == Op::atom || op == Op::red) {
    const bool isAtom = op == Op::atom;
    if (t == T::Pred) // memory holds no predicates
      throwInvalid(in.loc, "'" + spellingOf(in) + "' has no predicate form");
    ptx::Space sp = ptx::spaceOf(in);
    const size_t base = isAtom ? 1 : 0;
    bool outside = false;
    Value *p = address(o.at(base), sp, in, &outside);
    checkAccess(in, p, sp, ptx::typeSize(t) * std::max(1u, ptx::vectorWidth(in)),
                CUCPU_ACCESS_ATOMIC);
    llvm::Type *mty = ty;
    if (in.has(Mod::cas)) {
      if (o.size() != base + 3)
        throwInvalid(in.loc, "'" + spellingOf(in) + "' expects compare and swap values");
      Value *cmpv = convert(src(base + 1, t), b.getIntNTy(ptx::typeSize(t) * 8), false);
      Value *newv = convert(src(base + 2, t), b.getIntNTy(ptx::typeSize(t) * 8), false);
      auto *x = b.CreateAtomicCmpXchg(p, cmpv, newv, llvm::MaybeAlign(),
                                      llvm::AtomicOrdering::SequentiallyConsistent,
                                      llvm::AtomicOrdering::SequentiallyConsistent);
      tagMemory(x, outside);
      if (isAtom)
        write(o[0], b.CreateExtractValue(x, 0), t, in);
      return true;
    }
    auto bop = atomicOp(in, t);
    if (bop == llvm::AtomicRMWInst::BAD_BINOP || o.size() != base + 2)
      unsupported();
    Value *v = src(base + 1, t);
    fp::Format f;
    unsigned lanes;
    if (bop == llvm::AtomicRMWInst::FAdd && fp::formatOf(t, &f, &lanes) && f != fp::Format::F64) {
      // The GPU's f32 add in memory flushes subnormal operands and results; the .noftz
      // f16/bf16 (x2) adds keep them. Both round to nearest: a compare-and-swap loop.
      fp::Emitter e{b};
      Value *old = atomicUpdate(p, mty, [&](Value *cur) {
        if (f == fp::Format::F32)
          return e.ftz(b.CreateFAdd(e.ftz(cur, f), e.ftz(v, f)), f);
        return perLane(lanes, {cur, v}, [&](std::vector<Value *> &a) {
          return e.arith(Op::add, f, fp::Round::RN, a);
        });
      });
      if (isAtom)
        write(o[0], old, t, in);
      return true;
    }
    if (!mty->isFloatingPointTy() && bop != llvm::AtomicRMWInst::FAdd)
      v = convert(v, mty, signedType(t));
    auto *x = b.CreateAtomicRMW(bop, p, v, llvm::MaybeAlign(),
                                llvm::AtomicOrdering::SequentiallyConsistent);
    tagMemory(x, outside);
    if (isAtom)
      write(o[0], x, t, in);
    return true;
  }

  if (op == Op::membar || op == Op::fence) {
    if (!in.has(Mod::cta)) // threads of one block run on one worker between barriers
      b.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
    return true;
  }

  if ((op == Op::prefetch || op == Op::prefetchu) && !in.has(Mod::tensormap) &&
      in.operands.size() == 1) {
    // A hint to the CPU's caches (never faults): L1 keeps the line closest, L2 one level out.
    Value *addr = address(in.operands[0], ptx::spaceOf(in), in);
    b.CreateIntrinsic(llvm::Intrinsic::prefetch, {addr->getType()},
                      {addr, b.getInt32(0), b.getInt32(in.has(Mod::L1) ? 3 : 2), b.getInt32(1)});
    return true;
  }
  if (op == Op::prefetch || op == Op::prefetchu || op == Op::pmevent || op == Op::nanosleep)
    return true;
  // Programmatic dependent launch: a grid starts only after the grids before it in its stream
  // have finished and their memory is visible, so waiting on them and releasing the next grid
  // early are both already done.
  if (op == Op::griddepcontrol && (in.has(Mod::wait) || in.has(Mod::launch_dependents)))
    return true;

  return false;
}
} // namespace cucpu::jit
