// Guards gathers and scatters through addresses loaded from scratch with a contiguity test.
#include "contiguous_gathers.h"

#include "scratch_alias.h"

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include <functional>

namespace cucpu::jit {
namespace {

// Whether the lanes of `v` come, through address arithmetic, from a vector loaded from the
// block's scratch memory (a context array: the loads carry the scratch alias scope).
bool fromContextArray(const llvm::Value *v, llvm::SmallPtrSetImpl<const llvm::Value *> &seen,
                      int depth) {
  if (depth > 8 || !seen.insert(v).second)
    return false;
  const auto *ii = llvm::dyn_cast<llvm::IntrinsicInst>(v);
  if (llvm::isa<llvm::LoadInst>(v) || (ii && ii->getIntrinsicID() == llvm::Intrinsic::masked_load))
    return accessesScratch(*llvm::cast<llvm::Instruction>(v));
  const auto *i = llvm::dyn_cast<llvm::Instruction>(v);
  if (!i || !(llvm::isa<llvm::GetElementPtrInst>(i) || llvm::isa<llvm::CastInst>(i) ||
              llvm::isa<llvm::BinaryOperator>(i)))
    return false;
  for (const llvm::Value *op : i->operands())
    if (op->getType()->isVectorTy() && fromContextArray(op, seen, depth + 1))
      return true;
  return false;
}

bool allTrue(const llvm::Value *mask) {
  const auto *c = llvm::dyn_cast<llvm::Constant>(mask);
  return c && c->isAllOnesValue();
}

// Replaces `access` (a masked gather or scatter) by: if its active lanes' addresses are lane 0's
// plus the lane's index in elements, `contiguous(lane 0's address)`, else the original.
// Inactive lanes' addresses may be poison (loaded by a masked load): they are frozen and not
// compared; when lane 0 is inactive the test fails unless its frozen address happens to fit the
// active lanes, which then are exactly the ones the masked vector access touches.
void guard(llvm::IntrinsicInst *access, llvm::Value *ptrs, llvm::Value *mask, llvm::Type *elem,
           const std::function<llvm::Value *(llvm::IRBuilder<> &, llvm::Value *)> &contiguous) {
  llvm::IRBuilder<> b(access);
  auto *vt = llvm::cast<llvm::FixedVectorType>(ptrs->getType());
  llvm::SmallVector<llvm::Constant *, 16> lanes;
  for (unsigned l = 0; l < vt->getNumElements(); ++l)
    lanes.push_back(b.getInt64(l));
  llvm::Value *frozen = b.CreateFreeze(ptrs);
  llvm::Value *first = b.CreateExtractElement(frozen, uint64_t(0));
  llvm::Value *expected = b.CreateGEP(elem, first, llvm::ConstantVector::get(lanes));
  llvm::Value *fits = b.CreateICmpEQ(frozen, expected);
  if (!allTrue(mask))
    fits = b.CreateSelect(mask, fits, llvm::Constant::getAllOnesValue(fits->getType()));
  // Frozen: a poison mask lane must not make the branch undefined.
  llvm::Value *consecutive = b.CreateFreeze(b.CreateAndReduce(fits));
  llvm::Instruction *thenTerm = nullptr, *elseTerm = nullptr;
  llvm::SplitBlockAndInsertIfThenElse(consecutive, access, &thenTerm, &elseTerm);
  llvm::BasicBlock *general = elseTerm->getParent();
  access->moveBefore(elseTerm);
  b.SetInsertPoint(thenTerm);
  llvm::Value *fast = contiguous(b, first);
  if (auto *i = llvm::dyn_cast<llvm::Instruction>(fast))
    i->copyMetadata(*access, {llvm::LLVMContext::MD_noalias, llvm::LLVMContext::MD_alias_scope,
                              llvm::LLVMContext::MD_access_group});
  if (access->getType()->isVoidTy())
    return;
  b.SetInsertPoint(thenTerm->getSuccessor(0), thenTerm->getSuccessor(0)->begin());
  llvm::PHINode *phi = b.CreatePHI(access->getType(), 2);
  access->replaceAllUsesWith(phi);
  phi->addIncoming(fast, thenTerm->getParent());
  phi->addIncoming(access, general);
}

} // namespace

llvm::PreservedAnalyses ContiguousGathersPass::run(llvm::Function &f,
                                                   llvm::FunctionAnalysisManager &) {
  const llvm::DataLayout &dl = f.getDataLayout();
  std::vector<llvm::IntrinsicInst *> accesses;
  for (llvm::Instruction &i : llvm::instructions(f))
    if (auto *ii = llvm::dyn_cast<llvm::IntrinsicInst>(&i);
        ii && (ii->getIntrinsicID() == llvm::Intrinsic::masked_gather ||
               ii->getIntrinsicID() == llvm::Intrinsic::masked_scatter))
      accesses.push_back(ii);
  bool changed = false;
  for (llvm::IntrinsicInst *a : accesses) {
    const bool gather = a->getIntrinsicID() == llvm::Intrinsic::masked_gather;
    llvm::Value *ptrs = a->getArgOperand(gather ? 0 : 1);
    llvm::Type *data = gather ? a->getType() : a->getArgOperand(0)->getType();
    auto *dataTy = llvm::dyn_cast<llvm::FixedVectorType>(data);
    // Lanes must be whole bytes apart for `lane 0 + lane * size` to be the vector's layout.
    if (!dataTy || !llvm::isa<llvm::FixedVectorType>(ptrs->getType()) ||
        !dl.typeSizeEqualsStoreSize(dataTy->getElementType()))
      continue;
    llvm::SmallPtrSet<const llvm::Value *, 16> seen;
    if (llvm::getSplatValue(ptrs) || !fromContextArray(ptrs, seen, 0))
      continue;
    // The gather's alignment is per lane; lane 0's address is only known to be a multiple of
    // the element's size away from an active lane's.
    const llvm::MaybeAlign laneAlign(
        llvm::cast<llvm::ConstantInt>(a->getArgOperand(gather ? 1 : 2))->getZExtValue());
    const llvm::Align align =
        llvm::commonAlignment(laneAlign.value_or(dl.getABITypeAlign(dataTy->getElementType())),
                              dl.getTypeStoreSize(dataTy->getElementType()));
    llvm::Value *mask = a->getArgOperand(gather ? 2 : 3);
    if (gather) {
      llvm::Type *vt = dataTy;
      llvm::Value *passThru = a->getArgOperand(3);
      guard(a, ptrs, mask, dataTy->getElementType(),
            [&](llvm::IRBuilder<> &b, llvm::Value *first) -> llvm::Value * {
              if (allTrue(mask))
                return b.CreateAlignedLoad(vt, first, align);
              return b.CreateMaskedLoad(vt, first, align, mask, passThru);
            });
    } else {
      llvm::Value *value = a->getArgOperand(0);
      guard(a, ptrs, mask, dataTy->getElementType(),
            [&](llvm::IRBuilder<> &b, llvm::Value *first) -> llvm::Value * {
              if (allTrue(mask))
                return b.CreateAlignedStore(value, first, align);
              return b.CreateMaskedStore(value, first, align, mask);
            });
    }
    changed = true;
  }
  return changed ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
}

} // namespace cucpu::jit
