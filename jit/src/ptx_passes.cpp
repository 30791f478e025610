// The PTX-to-PTX pipeline: the passes of ptx_passes.h in order over a parsed module.
#include "ptx_passes.h"

namespace cucpu::jit::passes {

void run(ptx::Module &m) {
  for (auto &f : m.functions)
    if (f.hasBody) {
      expandVectorRegisters(f);
      splitGuardedSync(f);
      markSpinLoops(f);
    }
  const auto taken = addressTakenFunctions(m);
  for (auto &f : m.functions)
    if (f.hasBody)
      expandIndirectCalls(m, f, taken);
}

} // namespace cucpu::jit::passes
