// Tags memory accesses with an alias scope for the block's scratch memory (see scratch_alias.h).
#include "scratch_alias.h"

#include "cucpu/support/log.h"
#include "parallel_loops.h"
#include "pointer_rewrite.h"

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>

namespace cucpu::jit {
namespace {

constexpr const char *kDomainName = "cucpu.scratch";

bool namesScratchScope(const llvm::MDNode *list) {
  if (!list)
    return false;
  for (const llvm::MDOperand &op : list->operands()) {
    const auto *scope = llvm::dyn_cast<llvm::MDNode>(op.get());
    if (!scope)
      continue;
    const llvm::MDNode *domain = llvm::AliasScopeNode(scope).getDomain();
    if (domain && domain->getNumOperands() > 1)
      if (const auto *name = llvm::dyn_cast<llvm::MDString>(domain->getOperand(1)))
        if (name->getString() == kDomainName)
          return true;
  }
  return false;
}

// Whether every address `v` can take is the scratch pointer plus an offset.
bool onlyScratch(const llvm::Value *v, llvm::SmallPtrSetImpl<const llvm::Value *> &visiting) {
  if (const auto *l = llvm::dyn_cast<llvm::LoadInst>(v))
    return l->getMetadata(kScratchMetadata);
  if (!visiting.insert(v).second)
    return true; // a cycle through phis adds no other origin
  if (const auto *g = llvm::dyn_cast<llvm::GetElementPtrInst>(v))
    return onlyScratch(g->getPointerOperand(), visiting);
  if (const auto *s = llvm::dyn_cast<llvm::SelectInst>(v))
    return onlyScratch(s->getTrueValue(), visiting) && onlyScratch(s->getFalseValue(), visiting);
  if (const auto *p = llvm::dyn_cast<llvm::PHINode>(v))
    return llvm::all_of(p->incoming_values(),
                        [&](const llvm::Value *in) { return onlyScratch(in, visiting); });
  return false;
}

// Shared memory, the parameter buffer, the block function's arguments (launch and block
// records) and its stack arrays are other allocations than scratch.
bool otherAllocation(const llvm::Value *ptr) {
  const llvm::Value *object = llvm::getUnderlyingObject(ptr, 8);
  if (llvm::isa<llvm::AllocaInst>(object) || llvm::isa<llvm::Argument>(object))
    return true; // the runtime's own records and stack arrays
  return derivedFrom(object, kSharedMetadata) || derivedFrom(object, kParamsMetadata);
}

const llvm::Value *accessedPointer(const llvm::Instruction &i) {
  if (const auto *l = llvm::dyn_cast<llvm::LoadInst>(&i))
    return l->getPointerOperand();
  if (const auto *s = llvm::dyn_cast<llvm::StoreInst>(&i))
    return s->getPointerOperand();
  if (const auto *rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(&i))
    return rmw->getPointerOperand();
  if (const auto *cx = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(&i))
    return cx->getPointerOperand();
  return nullptr;
}

void tagFunction(llvm::Function &f) {
  llvm::MDNode *scopes = nullptr;
  unsigned inScratch = 0, elsewhere = 0, unknown = 0;
  for (llvm::Instruction &i : llvm::instructions(f)) {
    const llvm::Value *ptr = accessedPointer(i);
    const bool outside = i.getMetadata(kOutsideScratchMetadata);
    i.setMetadata(kOutsideScratchMetadata, nullptr);
    if (!ptr)
      continue;
    if (!scopes) {
      llvm::MDBuilder md(f.getContext());
      llvm::MDNode *domain = md.createAnonymousAliasScopeDomain(kDomainName);
      scopes = llvm::MDNode::get(f.getContext(), {md.createAnonymousAliasScope(domain, "scratch")});
    }
    llvm::SmallPtrSet<const llvm::Value *, 16> visiting;
    if (onlyScratch(ptr, visiting)) {
      i.setMetadata(llvm::LLVMContext::MD_alias_scope, scopes);
      ++inScratch;
    } else if (outside || otherAllocation(ptr)) {
      i.setMetadata(llvm::LLVMContext::MD_noalias, scopes);
      ++elsewhere;
    } else {
      ++unknown;
    }
  }
  log::debug(log::Component::Jit,
             "{}: {} accesses to scratch, {} outside it, {} that may alias it (scratch alias "
             "scope)",
             f.getName().str(), inScratch, elsewhere, unknown);
}

} // namespace

bool accessesScratch(const llvm::Instruction &i) {
  return namesScratchScope(i.getMetadata(llvm::LLVMContext::MD_alias_scope));
}

bool outsideScratch(const llvm::Instruction &i) {
  return namesScratchScope(i.getMetadata(llvm::LLVMContext::MD_noalias));
}

void tagScratchAccesses(llvm::Module &m) {
  for (llvm::Function &f : m)
    if (!f.isDeclaration())
      tagFunction(f);
}

} // namespace cucpu::jit
