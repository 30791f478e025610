// cucpu's LLVM passes by name, and running a pass pipeline over textual IR (the cucpu-opt tool).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cucpu::jit {

// The names of cucpu's own passes, usable in a pipeline next to LLVM's ("cucpu-rewrite-pointers",
// "function(cucpu-streaming-stores)", ...).
std::vector<std::string_view> passNames();

// The pipeline the JIT runs before LLVM's O3 on a lowered block function.
std::string_view preOptimizationPipeline();

// Runs `pipeline` (LLVM's textual pipeline syntax; "default<O3>" and the like too) over the IR
// module `ir` for this host; the resulting IR in `out`, or false with the reason in `error`.
bool runPipeline(const std::string &ir, const std::string &pipeline, std::string &out,
                 std::string &error);

} // namespace cucpu::jit
