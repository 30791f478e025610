// Block-shape specialisation: %ntid and the thread count become constants in a block function.
#include "block_shape.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>

#include <vector>

namespace cucpu::jit {

llvm::MDNode *blockDimTag(llvm::LLVMContext &ctx, unsigned dim) {
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  return llvm::MDNode::get(ctx, {llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i32, dim))});
}

void specializeBlockShape(llvm::Module &m, const uint32_t block[3]) {
  const uint32_t values[4] = {block[0], block[1], block[2], block[0] * block[1] * block[2]};
  const unsigned kind = m.getContext().getMDKindID(kBlockDimMetadata);
  std::vector<llvm::LoadInst *> loads;
  for (auto &f : m)
    for (auto &bb : f)
      for (auto &inst : bb)
        if (auto *ld = llvm::dyn_cast<llvm::LoadInst>(&inst); ld && ld->getMetadata(kind))
          loads.push_back(ld);
  for (auto *ld : loads) {
    auto *md = ld->getMetadata(kind);
    unsigned dim = static_cast<unsigned>(
        llvm::mdconst::extract<llvm::ConstantInt>(md->getOperand(0))->getZExtValue());
    ld->replaceAllUsesWith(llvm::ConstantInt::get(ld->getType(), values[dim]));
    ld->eraseFromParent();
  }
}

} // namespace cucpu::jit
