// Rewrites integer address arithmetic into pointer arithmetic and marks parameter loads
// invariant, so the optimiser can vectorise thread loops with contiguous accesses.
#include "pointer_rewrite.h"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/LowerAtomic.h>

namespace cucpu::jit {
namespace {

// Flattens an i64 add tree into its terms (bounded depth).
void collectTerms(llvm::Value *v, llvm::SmallVectorImpl<llvm::Value *> &terms, int depth) {
  if (auto *bo = llvm::dyn_cast<llvm::BinaryOperator>(v);
      bo && bo->getOpcode() == llvm::Instruction::Add && depth < 6) {
    collectTerms(bo->getOperand(0), terms, depth + 1);
    collectTerms(bo->getOperand(1), terms, depth + 1);
    return;
  }
  terms.push_back(v);
}

// A term that holds an address rather than an offset.
bool pointerLike(llvm::Value *v) {
  return llvm::isa<llvm::LoadInst>(v) || llvm::isa<llvm::PtrToIntInst>(v) ||
         llvm::isa<llvm::Argument>(v);
}

} // namespace

bool derivedFrom(const llvm::Value *ptr, const char *kind, unsigned lookups) {
  const auto *ld = llvm::dyn_cast<llvm::LoadInst>(llvm::getUnderlyingObject(ptr, lookups));
  return ld && ld->getMetadata(kind);
}

void rewritePointers(llvm::Module &m) {
  for (llvm::Function &f : m) {
    if (f.isDeclaration())
      continue;
    std::vector<llvm::IntToPtrInst *> casts;
    std::vector<llvm::LoadInst *> loads;
    std::vector<llvm::Instruction *> atomics;
    for (llvm::Instruction &i : llvm::instructions(f)) {
      if (auto *c = llvm::dyn_cast<llvm::IntToPtrInst>(&i))
        casts.push_back(c);
      else if (auto *l = llvm::dyn_cast<llvm::LoadInst>(&i))
        loads.push_back(l);
      else if (llvm::isa<llvm::AtomicRMWInst>(i) || llvm::isa<llvm::AtomicCmpXchgInst>(i))
        atomics.push_back(&i);
    }
    for (llvm::Instruction *a : atomics) {
      if (auto *rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(a);
          rmw && derivedFrom(rmw->getPointerOperand(), kSharedMetadata))
        llvm::lowerAtomicRMWInst(rmw);
      else if (auto *cx = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(a);
               cx && derivedFrom(cx->getPointerOperand(), kSharedMetadata))
        llvm::lowerAtomicCmpXchgInst(cx);
    }
    for (llvm::LoadInst *l : loads)
      if (!l->isVolatile() && derivedFrom(l->getPointerOperand(), kParamsMetadata))
        l->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(f.getContext(), {}));
    for (llvm::IntToPtrInst *c : casts) {
      llvm::SmallVector<llvm::Value *, 4> terms;
      collectTerms(c->getOperand(0), terms, 0);
      if (terms.size() < 2)
        continue;
      auto base = std::find_if(terms.begin(), terms.end(), pointerLike);
      if (base == terms.end())
        continue;
      llvm::IRBuilder<> b(c);
      llvm::Value *ptr = b.CreateIntToPtr(*base, c->getType());
      llvm::Value *offset = nullptr;
      for (auto it = terms.begin(); it != terms.end(); ++it)
        if (it != base)
          offset = offset ? b.CreateAdd(offset, *it) : *it;
      llvm::Value *gep = b.CreateGEP(b.getInt8Ty(), ptr, offset);
      c->replaceAllUsesWith(gep);
      c->eraseFromParent();
    }
  }
}

} // namespace cucpu::jit
