// Alias information for the block's scratch memory, which kernel code cannot address.
#pragma once

namespace llvm {
class Instruction;
class Module;
} // namespace llvm

namespace cucpu::jit {

// Metadata kind the lowering puts on a kernel's loads, stores and atomics in a state space that
// can never be scratch memory (.global, .shared, .const, kernel .param): PTX leaves an access to
// another space's memory undefined, so a generic address of a .local variable never reaches them.
inline constexpr const char *kOutsideScratchMetadata = "cucpu.outside.scratch";

// Scratch memory (context arrays, resume states, published operands, `.local` variables) is
// the runtime's: saving a register there between barriers must not make the optimiser reload
// shared or global memory (a tile of shared memory read in every iteration of a thread loop is
// loop-invariant). Runs before optimisation: accesses through pointers derived only from the
// scratch pointer get an alias scope; the accesses marked as outside scratch, and those through
// the shared-memory or parameter pointers, get `!noalias` of that scope. Everything else (generic
// and .local accesses through integer addresses, the runtime's calls) stays untagged and may
// alias anything.
void tagScratchAccesses(llvm::Module &m);

// Whether `i` carries the scratch scope as its alias scope (an access to scratch memory) or in
// its `!noalias` list (an access known to be outside scratch). Other scopes (the vectoriser's
// runtime alias checks add their own) do not count.
bool accessesScratch(const llvm::Instruction &i);
bool outsideScratch(const llvm::Instruction &i);

} // namespace cucpu::jit
