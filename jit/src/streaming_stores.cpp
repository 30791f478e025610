// Guards whole-line vector stores with a non-temporal path for grids larger than the cache.
#include "streaming_stores.h"

#include "kernel_abi.h"
#include "parallel_loops.h"
#include "pointer_rewrite.h"
#include "scratch_alias.h"

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

namespace cucpu::jit {
namespace {

constexpr unsigned kLineBytes = 64;
// Vector arithmetic per line stored above which a loop counts as compute-bound.
constexpr unsigned kComputePerStore = 16;

struct Store {
  llvm::Instruction *inst;
  llvm::Value *ptr, *value, *mask; // mask: null for a plain store
};

bool wholeLine(const llvm::Function &f, const llvm::Value *v) {
  return llvm::isa<llvm::FixedVectorType>(v->getType()) &&
         f.getDataLayout().getTypeStoreSize(v->getType()).getFixedValue() == kLineBytes;
}

std::optional<Store> candidate(const llvm::Function &f, llvm::Instruction &i) {
  if (!outsideScratch(i)) // a kernel's own .global store (scratch_alias.h)
    return std::nullopt;
  Store s{&i, nullptr, nullptr, nullptr};
  if (auto *st = llvm::dyn_cast<llvm::StoreInst>(&i); st && st->isSimple()) {
    s.ptr = st->getPointerOperand();
    s.value = st->getValueOperand();
  } else if (auto *ii = llvm::dyn_cast<llvm::IntrinsicInst>(&i);
             ii && ii->getIntrinsicID() == llvm::Intrinsic::masked_store) {
    s.value = ii->getArgOperand(0);
    s.ptr = ii->getArgOperand(1);
    s.mask = ii->getArgOperand(3);
  } else {
    return std::nullopt;
  }
  if (!wholeLine(f, s.value))
    return std::nullopt;
  if (derivedFrom(s.ptr, kSharedMetadata) || derivedFrom(s.ptr, kScratchMetadata))
    return std::nullopt; // shared memory and context arrays are reread, and small
  return s;
}

// Vector arithmetic in the store's block, against the instructions there that write memory.
bool computeBound(const llvm::BasicBlock &bb) {
  unsigned arithmetic = 0, stores = 0;
  for (const llvm::Instruction &i : bb) {
    if (llvm::isa<llvm::StoreInst>(i) || llvm::isa<llvm::IntrinsicInst>(i)) {
      if (const auto *ii = llvm::dyn_cast<llvm::IntrinsicInst>(&i);
          ii && ii->getIntrinsicID() != llvm::Intrinsic::masked_store &&
          ii->getType()->isVectorTy() && !ii->mayReadOrWriteMemory())
        ++arithmetic; // fma, min, max, ...
      else if (i.mayWriteToMemory())
        ++stores;
    } else if (i.getType()->isVectorTy() &&
               (llvm::isa<llvm::BinaryOperator>(i) || llvm::isa<llvm::CallInst>(i))) {
      ++arithmetic;
    }
  }
  return arithmetic > kComputePerStore * std::max(1u, stores);
}

} // namespace

llvm::PreservedAnalyses StreamingStoresPass::run(llvm::Function &f,
                                                 llvm::FunctionAnalysisManager &) {
  // A block function (launch record, block record), for x86's non-temporal stores and sfence.
  if (f.arg_size() != 2 || !llvm::Triple(f.getParent()->getTargetTriple()).isX86())
    return llvm::PreservedAnalyses::all();
  llvm::SmallPtrSet<const llvm::Value *, 32> loaded; // addresses this function reads
  std::vector<Store> stores;
  for (llvm::Instruction &i : llvm::instructions(f)) {
    if (auto *l = llvm::dyn_cast<llvm::LoadInst>(&i))
      loaded.insert(l->getPointerOperand());
    else if (auto *ii = llvm::dyn_cast<llvm::IntrinsicInst>(&i);
             ii && ii->getIntrinsicID() == llvm::Intrinsic::masked_load)
      loaded.insert(ii->getArgOperand(0));
    else if (auto s = candidate(f, i))
      stores.push_back(*s);
  }
  std::erase_if(stores, [&](const Store &s) {
    return loaded.contains(s.ptr) || computeBound(*s.inst->getParent());
  });
  if (stores.empty())
    return llvm::PreservedAnalyses::all();

  llvm::BasicBlock &entry = f.getEntryBlock();
  llvm::IRBuilder<> b(&entry, entry.getFirstInsertionPt());
  auto *flags = b.CreateLoad(
      b.getInt32Ty(), b.CreateConstGEP1_64(b.getInt8Ty(), f.getArg(0), CUCPU_LAUNCH_OFFSET_FLAGS));
  flags->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(f.getContext(), {}));
  llvm::Value *streaming =
      b.CreateICmpNE(b.CreateAnd(flags, CUCPU_LAUNCH_STREAMING_STORES), b.getInt32(0));
  llvm::MDNode *nontemporal =
      llvm::MDNode::get(f.getContext(), {llvm::ConstantAsMetadata::get(b.getInt32(1))});
  for (const Store &s : stores) {
    b.SetInsertPoint(s.inst);
    llvm::Value *address = b.CreatePtrToInt(s.ptr, b.getInt64Ty());
    llvm::Value *ok =
        b.CreateAnd(streaming, b.CreateICmpEQ(b.CreateAnd(address, kLineBytes - 1), b.getInt64(0)));
    if (s.mask)
      ok = b.CreateAnd(ok, b.CreateAndReduce(s.mask));
    // Frozen: a masked store with no active lane may have a poison address or mask lanes.
    ok = b.CreateFreeze(ok);
    llvm::Instruction *thenTerm = nullptr, *elseTerm = nullptr;
    llvm::SplitBlockAndInsertIfThenElse(ok, s.inst, &thenTerm, &elseTerm);
    s.inst->moveBefore(elseTerm);
    b.SetInsertPoint(thenTerm);
    auto *nt = b.CreateAlignedStore(s.value, s.ptr, llvm::Align(kLineBytes));
    nt->copyMetadata(*s.inst, {llvm::LLVMContext::MD_noalias, llvm::LLVMContext::MD_access_group});
    nt->setMetadata(llvm::LLVMContext::MD_nontemporal, nontemporal);
  }
  // Non-temporal stores are weakly ordered: a release store (a plain `mov` on x86, `st.release`
  // publishing data to another block) and the end of the block function get an sfence before
  // them. Fences and locked read-modify-writes order them already.
  std::vector<llvm::Instruction *> orderingPoints;
  for (llvm::Instruction &i : llvm::instructions(f))
    if (auto *st = llvm::dyn_cast<llvm::StoreInst>(&i);
        (st && st->getOrdering() == llvm::AtomicOrdering::Release) ||
        llvm::isa<llvm::ReturnInst>(i))
      orderingPoints.push_back(&i);
  for (llvm::Instruction *at : orderingPoints) {
    b.SetInsertPoint(at);
    b.CreateIntrinsic(llvm::Intrinsic::x86_sse_sfence, {}, {});
  }
  return llvm::PreservedAnalyses::none();
}

} // namespace cucpu::jit
