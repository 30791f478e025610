// memcheck's instrumentation (CUCPU_SANITIZER=memcheck): every global, shared, local and generic
// access of ld, st, atom and red is checked against what it may touch before it is made. The
// common case is inline (the block's shared window, the thread's local frame, and the last live
// range a check found); anything else goes to the runtime's check_access service, which finds the
// allocation or reports the access with its source line and ends the grid.
#include "lowering.h"

#include "kernel_abi.h"

#include <llvm/IR/MDBuilder.h>

#include <cstddef>

namespace cucpu::jit {

using llvm::Value;

const SourcePlaces &ModuleState::sourcePlaces() {
  if (places_)
    return *places_;
  places_.emplace();
  std::unordered_map<int64_t, const std::string *> files; // the module's own strings
  for (const auto &d : ast.directives)
    if (d.name == "file" && !d.args.empty())
      files[d.args[0].imm] = &d.text;
  auto fileName = [&](int64_t index) -> const std::string * {
    auto it = files.find(index);
    return it == files.end() ? nullptr : it->second;
  };
  for (const auto &fn : ast.functions) {
    SourcePlace current;
    for (const auto &st : fn.body) {
      if (const auto *d = std::get_if<ptx::Directive>(&st)) {
        if (d->name != "loc" || d->args.size() < 2)
          continue;
        current = SourcePlace{};
        current.file = fileName(d->args[0].imm);
        current.line = static_cast<uint32_t>(d->args[1].imm);
        // `.loc f l c, function_name $L, inlined_at f2 l2 c2`: the call site it was inlined at.
        for (size_t i = 3; i + 2 < d->args.size(); ++i)
          if (d->args[i].kind == ptx::Operand::Kind::Symbol && d->args[i].name == "inlined_at") {
            current.callerFile = fileName(d->args[i + 1].imm);
            current.callerLine = static_cast<uint32_t>(d->args[i + 2].imm);
          }
      } else if (const auto *in = std::get_if<ptx::Instruction>(&st)) {
        if (current.file)
          (*places_)[in->loc.line] = current;
      }
    }
  }
  return *places_;
}

llvm::Constant *KernelLowering::siteString(const std::string *text) {
  auto *ptrTy = llvm::PointerType::get(ctx, 0);
  if (!text)
    return llvm::ConstantPointerNull::get(ptrTy);
  auto [it, fresh] = siteStrings_.try_emplace(*text, nullptr);
  if (fresh)
    it->second = b.CreateGlobalString(*text, "memcheck.str", 0, ms.mod);
  return it->second;
}

llvm::Constant *KernelLowering::accessSite(const ptx::Instruction &in, unsigned space,
                                           unsigned bytes, unsigned access) {
  auto *ptrTy = llvm::PointerType::get(ctx, 0);
  auto *i32 = b.getInt32Ty();
  auto *siteTy = llvm::StructType::get(ctx, {ptrTy, ptrTy, ptrTy, i32, i32, i32, i32, i32, i32});
  SourcePlace place;
  const auto &places = ms.sourcePlaces();
  if (auto it = places.find(in.loc.line); it != places.end())
    place = it->second;
  auto u32 = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
  auto *init = llvm::ConstantStruct::get(siteTy, {siteString(&fn_.name), siteString(place.file),
                                                  siteString(place.callerFile), u32(place.line),
                                                  u32(place.callerLine), u32(in.loc.line),
                                                  u32(access), u32(space), u32(bytes)});
  static_assert(sizeof(cucpu_access_site) == 3 * sizeof(void *) + 6 * sizeof(uint32_t));
  return new llvm::GlobalVariable(*ms.mod, siteTy, true, llvm::GlobalValue::PrivateLinkage, init,
                                  "memcheck.site");
}

Value *KernelLowering::sharedWindowBytes() {
  return b.CreateAdd(b.getInt64(info_.dynamicSharedOffset),
                     b.CreateZExt(dynShared_, b.getInt64Ty()));
}

void KernelLowering::checkAccess(const ptx::Instruction &in, Value *p, ptx::Space space,
                                 unsigned bytes, unsigned access) {
  if (!loweringSwitches().memcheck)
    return;
  unsigned sp;
  switch (space) {
  case ptx::Space::Global:
    sp = CUCPU_SPACE_GLOBAL;
    break;
  case ptx::Space::Shared:
    sp = CUCPU_SPACE_SHARED;
    break;
  case ptx::Space::Local:
    sp = CUCPU_SPACE_LOCAL;
    break;
  case ptx::Space::None:
    sp = CUCPU_SPACE_GENERIC;
    break;
  default: // .param and .const: the kernel's own buffers, addressed by the compiler
    return;
  }
  auto *i64 = b.getInt64Ty();
  auto *ptrTy = llvm::PointerType::get(ctx, 0);
  Value *a = b.CreatePtrToInt(p, i64);
  Value *end = b.CreateAdd(a, b.getInt64(bytes));
  auto within = [&](Value *lo, Value *size) {
    return b.CreateAnd(b.CreateICmpUGE(a, lo), b.CreateICmpULE(end, b.CreateAdd(lo, size)));
  };
  Value *sharedLo = b.CreatePtrToInt(sharedBase_, i64);
  Value *localLo = localBase_ ? b.CreatePtrToInt(localBase_, i64) : nullptr;
  auto inShared = [&] { return within(sharedLo, sharedWindowBytes()); };
  auto inLocal = [&] { return localLo ? within(localLo, b.getInt64(localBytes_)) : b.getFalse(); };
  // Global and generic accesses: the live range the service last found for this access, kept
  // for this call of the block function (one per access: neighbouring accesses usually touch
  // different allocations). Shared and local accesses have their windows; the service only
  // reports those.
  Value *range = llvm::ConstantPointerNull::get(ptrTy);
  auto inCachedRange = [&] {
    llvm::IRBuilder<> eb(&f_->getEntryBlock(), f_->getEntryBlock().begin());
    auto *rangeTy = llvm::ArrayType::get(i64, 2);
    range = eb.CreateAlloca(rangeTy, nullptr, "memcheck.range");
    eb.CreateStore(eb.getInt64(0), eb.CreateConstGEP2_32(rangeTy, range, 0, 0));
    eb.CreateStore(eb.getInt64(0), eb.CreateConstGEP2_32(rangeTy, range, 0, 1));
    Value *lo = b.CreateLoad(i64, b.CreateConstGEP2_32(rangeTy, range, 0, 0));
    Value *hi = b.CreateLoad(i64, b.CreateConstGEP2_32(rangeTy, range, 0, 1));
    return within(lo, b.CreateSub(hi, lo));
  };
  Value *ok;
  Value *reported = a; // shared and local addresses are reported as offsets in their window
  switch (sp) {
  case CUCPU_SPACE_SHARED:
    ok = inShared();
    reported = b.CreateSub(a, sharedLo);
    break;
  case CUCPU_SPACE_LOCAL:
    ok = inLocal();
    reported = localLo ? b.CreateSub(a, localLo) : a;
    break;
  case CUCPU_SPACE_GLOBAL:
    ok = inCachedRange();
    break;
  default: {
    Value *inParams = within(b.CreatePtrToInt(params_, i64), b.getInt64(info_.paramBytes));
    ok = b.CreateOr(b.CreateOr(inShared(), inLocal()), b.CreateOr(inParams, inCachedRange()));
  }
  }
  if (bytes > 1) // accesses are aligned to their size, or the GPU faults
    ok = b.CreateAnd(ok, b.CreateICmpEQ(b.CreateAnd(a, b.getInt64(bytes - 1)), b.getInt64(0)));
  llvm::BasicBlock *slow = llvm::BasicBlock::Create(ctx, "memcheck.slow", f_);
  llvm::BasicBlock *cont = llvm::BasicBlock::Create(ctx, "memcheck.ok", f_);
  b.CreateCondBr(ok, cont, slow, llvm::MDBuilder(ctx).createBranchWeights(1000, 1));
  b.SetInsertPoint(slow);
  auto *fnTy = llvm::FunctionType::get(b.getVoidTy(), {ptrTy, ptrTy, i64, ptrTy, ptrTy}, false);
  b.CreateCall(fnTy, serviceFunction(offsetof(cucpu_services, check_access)),
               {launch_, accessSite(in, sp, bytes, access), reported, threadWhere(), range});
  b.CreateBr(cont);
  b.SetInsertPoint(cont);
}

} // namespace cucpu::jit
