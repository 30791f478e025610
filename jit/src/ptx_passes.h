// PTX-to-PTX passes: rewrites of a parsed module, each with one job, run in order before the
// lowering (parseModule in program.cpp; docs/architecture.md lists them).
#pragma once

#include "cucpu/ptx/ast.h"

#include <vector>

namespace cucpu::jit::passes {

// Whether `in` is a warp-level synchronisation point (bar.warp.sync, shfl, vote, match, redux,
// activemask, elect): the warp scheduler cuts regions there.
bool isWarpSync(const ptx::Instruction &in);
// The warp-level matrix instructions among them: mma, wmma.mma, ldmatrix, stmatrix, movmatrix.
bool isMatrixSync(const ptx::Instruction &in);
// Where a thread waits for others without a barrier (nanosleep, mbarrier.test_wait/try_wait):
// the lowering lets the block's other threads, and the runtime other blocks, run there.
bool isYieldPoint(const ptx::Instruction &in);
// Opcodes whose operands are all sources (no destination register).
bool writesNoRegister(ptx::Op op);

// `@p call ...` and guarded synchronisation points (`@p bar.sync 0`, `@p shfl.sync ...`) become
// `@!p bra $guard.skip<n>; <the instruction, unguarded>; $guard.skip<n>:`, so the call can be
// inlined and the sync point handled as one inside any branch.
void splitGuardedSync(ptx::Function &f);

// A vector register (`.reg .v4 .f32 %v;`, also in %v<N> ranges) becomes its components, scalar
// registers %v.x ... %v.w; an operand naming one component (%v.y) names that register, one
// naming the whole vector (in ld, st, mov) is the vector {%v.x, %v.y, %v.z, %v.w}.
void expandVectorRegisters(ptx::Function &f);

// The functions whose address some instruction or initializer of the module takes (an operand
// naming the function anywhere but as a call's direct target).
std::vector<const ptx::Function *> addressTakenFunctions(const ptx::Module &m);

// An indirect call (`call (r), %rd, (a), proto;`, unguarded) becomes, for each function it may
// reach (its `.calltargets` list, else the functions in `taken` with the prototype's parameter
// and result sizes), `setp.eq.u64 %$icall<n>, %rd, g; @%$icall<n> bra $icall<n>_<k>;`, then a
// trap for a pointer to none of them, then per target `$icall<n>_<k>: call (r), g, (a);
// bra $icall<n>_end;`.
void expandIndirectCalls(const ptx::Module &m, ptx::Function &f,
                         const std::vector<const ptx::Function *> &taken);

// A loop that polls memory (whether it goes round again depends on a value it loads with
// ld.volatile/.relaxed/.acquire/.mmio/.cv or gets from an atom in the loop; no mbarrier wait in
// it) waits at a yield point on its way round: each backward branch to its head `@p bra L`
// becomes `@!p bra $spin.skip<n>; nanosleep.u32 0; bra L; $spin.skip<n>:`, and the loop's own
// nanosleeps go. Spin-waiting threads then let the threads and blocks they wait for run
// (Volta's forward progress), and a poll that succeeds at once costs nothing. A nanosleep in no
// loop (a delay before a first poll) goes too: it waits for nothing.
void markSpinLoops(ptx::Function &f);

// Every pass above, in order, over every function with a body.
void run(ptx::Module &m);

} // namespace cucpu::jit::passes
