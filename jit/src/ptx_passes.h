// PTX-to-PTX passes: rewrites of a parsed module, each with one job, run in order before the
// lowering (parseModule in program.cpp; docs/architecture.md lists them).
#pragma once

#include "cucpu/ptx/ast.h"

namespace cucpu::jit::passes {

// Whether `in` is a warp-level synchronisation point (bar.warp.sync, shfl, vote, match, redux,
// activemask, elect): the warp scheduler cuts regions there.
bool isWarpSync(const ptx::Instruction &in);

// `@p call ...` and guarded synchronisation points (`@p bar.sync 0`, `@p shfl.sync ...`) become
// `@!p bra $guard.skip<n>; <the instruction, unguarded>; $guard.skip<n>:`, so the call can be
// inlined and the sync point handled as one inside any branch.
void splitGuardedSync(ptx::Function &f);

// Every pass above, in order, over every function with a body.
void run(ptx::Module &m);

} // namespace cucpu::jit::passes
