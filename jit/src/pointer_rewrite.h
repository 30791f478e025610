// IR clean-up before optimisation: PTX addresses become pointer arithmetic LLVM can analyse.
#pragma once

namespace llvm {
class Module;
}

namespace cucpu::jit {

// Metadata kind naming the load of the launch's parameter-buffer pointer.
inline constexpr const char *kParamsMetadata = "cucpu.params";

// Runs on freshly lowered block functions, after registers were promoted to SSA:
//  - `inttoptr(base + offset)` where `base` is a pointer-like term (a loaded value, a ptrtoint)
//    becomes `getelementptr i8, inttoptr(base), offset`, so scalar evolution sees addresses that
//    advance with the thread index (contiguous vector loads instead of gathers);
//  - loads from the kernel's parameter buffer are marked invariant, so they leave thread loops.
void rewritePointers(llvm::Module &m);

} // namespace cucpu::jit
