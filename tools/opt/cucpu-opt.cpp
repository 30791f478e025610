// cucpu-opt: runs an LLVM pass pipeline, cucpu's passes included, over an IR file and prints the
// result (for the FileCheck tests of tests/lit and for looking at one pass's effect).
#include "cucpu/jit/passes.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

int main(int argc, char **argv) {
  std::string pipeline, file = "-";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "-passes=", 8) == 0)
      pipeline = argv[i] + 8;
    else if (std::strcmp(argv[i], "--list") == 0) {
      for (auto name : cucpu::jit::passNames())
        std::printf("%.*s\n", static_cast<int>(name.size()), name.data());
      std::printf("pre-optimization pipeline: %.*s\n",
                  static_cast<int>(cucpu::jit::preOptimizationPipeline().size()),
                  cucpu::jit::preOptimizationPipeline().data());
      return 0;
    } else
      file = argv[i];
  }
  if (pipeline.empty()) {
    std::fputs("usage: cucpu-opt -passes=PIPELINE [FILE.ll|-]   (LLVM's pipeline syntax)\n"
               "       cucpu-opt --list                         cucpu's passes\n",
               stderr);
    return 2;
  }
  std::stringstream ss;
  if (file == "-") {
    ss << std::cin.rdbuf();
  } else {
    std::ifstream in(file);
    if (!in) {
      std::fprintf(stderr, "cucpu-opt: cannot read %s\n", file.c_str());
      return 1;
    }
    ss << in.rdbuf();
  }
  std::string out, error;
  if (!cucpu::jit::runPipeline(ss.str(), pipeline, out, error)) {
    std::fprintf(stderr, "cucpu-opt: %s\n", error.c_str());
    return 1;
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}
