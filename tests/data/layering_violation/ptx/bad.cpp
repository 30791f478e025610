// A deliberate layering violation: the PTX front end may not see LLVM.
#include <llvm/IR/Module.h>
