// Restores the access-group tags of thread loops that the optimiser's store merging dropped.
#include "parallel_loops.h"

#include "pointer_rewrite.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Metadata.h>

namespace cucpu::jit {
namespace {

// The access group a loop's `llvm.loop.parallel_accesses` names, or null.
llvm::MDNode *parallelAccessGroup(const llvm::Loop &loop) {
  llvm::MDNode *id = loop.getLoopID();
  if (!id)
    return nullptr;
  for (const llvm::MDOperand &op : id->operands()) {
    auto *md = llvm::dyn_cast_or_null<llvm::MDNode>(op.get());
    if (!md || md->getNumOperands() < 2)
      continue;
    auto *name = llvm::dyn_cast<llvm::MDString>(md->getOperand(0));
    if (name && name->getString() == "llvm.loop.parallel_accesses")
      return llvm::dyn_cast<llvm::MDNode>(md->getOperand(1));
  }
  return nullptr;
}

bool inScratch(const llvm::Value *ptr) { return derivedFrom(ptr, kScratchMetadata, 12); }

// Both passes change instructions, never the control flow.
llvm::PreservedAnalyses preserved(bool changed) {
  if (!changed)
    return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses pa;
  pa.preserveSet<llvm::CFGAnalyses>();
  return pa;
}

} // namespace

llvm::PreservedAnalyses RetagThreadLoopsPass::run(llvm::Function &f,
                                                  llvm::FunctionAnalysisManager &am) {
  auto &li = am.getResult<llvm::LoopAnalysis>(f);
  bool changed = false;
  for (llvm::Loop *loop : li.getLoopsInPreorder()) {
    llvm::MDNode *group = parallelAccessGroup(*loop);
    if (!group)
      continue;
    for (llvm::BasicBlock *bb : loop->blocks())
      for (llvm::Instruction &i : *bb) {
        if (i.getMetadata(llvm::LLVMContext::MD_access_group))
          continue;
        const llvm::Value *ptr = nullptr;
        if (auto *ld = llvm::dyn_cast<llvm::LoadInst>(&i); ld && ld->isSimple())
          ptr = ld->getPointerOperand();
        else if (auto *st = llvm::dyn_cast<llvm::StoreInst>(&i); st && st->isSimple())
          ptr = st->getPointerOperand();
        if (ptr && inScratch(ptr)) {
          i.setMetadata(llvm::LLVMContext::MD_access_group, group);
          changed = true;
        }
      }
  }
  return preserved(changed);
}

llvm::PreservedAnalyses UniformScratchStoresPass::run(llvm::Function &f,
                                                      llvm::FunctionAnalysisManager &) {
  std::vector<llvm::IntrinsicInst *> scatters;
  for (llvm::Instruction &i : llvm::instructions(f))
    if (auto *ii = llvm::dyn_cast<llvm::IntrinsicInst>(&i);
        ii && ii->getIntrinsicID() == llvm::Intrinsic::masked_scatter)
      scatters.push_back(ii);
  bool changed = false;
  for (llvm::IntrinsicInst *sc : scatters) {
    llvm::Value *value = llvm::getSplatValue(sc->getArgOperand(0));
    llvm::Value *ptr = llvm::getSplatValue(sc->getArgOperand(1));
    if (!value || !ptr || !inScratch(ptr))
      continue;
    llvm::IRBuilder<> b(sc);
    const llvm::Align align(llvm::cast<llvm::ConstantInt>(sc->getArgOperand(2))->getZExtValue());
    llvm::Value *any = b.CreateOrReduce(sc->getArgOperand(3));
    llvm::Value *old = b.CreateAlignedLoad(value->getType(), ptr, align);
    b.CreateAlignedStore(b.CreateSelect(any, value, old), ptr, align);
    sc->eraseFromParent();
    changed = true;
  }
  return preserved(changed);
}

} // namespace cucpu::jit
