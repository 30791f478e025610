// IR clean-up before optimisation: PTX addresses become pointer arithmetic LLVM can analyse.
#pragma once

namespace llvm {
class Module;
class Value;
} // namespace llvm

namespace cucpu::jit {

// Metadata kinds naming the loads of the parameter-buffer and shared-memory pointers.
inline constexpr const char *kParamsMetadata = "cucpu.params";
inline constexpr const char *kSharedMetadata = "cucpu.shared";

// Whether `ptr`'s underlying object (through up to `lookups` GEPs, casts, ...) is the load that
// carries metadata `kind` (kParamsMetadata, kSharedMetadata, kScratchMetadata).
bool derivedFrom(const llvm::Value *ptr, const char *kind, unsigned lookups = 8);

// Runs on freshly lowered block functions, after registers were promoted to SSA:
//  - `inttoptr(base + offset)` where `base` is a pointer-like term (a loaded value, a ptrtoint)
//    becomes `getelementptr i8, inttoptr(base), offset`, so scalar evolution sees addresses that
//    advance with the thread index (contiguous vector loads instead of gathers);
//  - loads from the kernel's parameter buffer are marked invariant, so they leave thread loops;
//  - atomics on shared memory become plain read-modify-writes: one OS thread runs all threads
//    of a block, so nothing else can touch the block's shared memory meanwhile.
void rewritePointers(llvm::Module &m);

} // namespace cucpu::jit
