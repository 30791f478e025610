// The lowering agrees with the instruction table: every form the table says cucpu lowers loads,
// and every form it marks as not lowered answers CUDA_ERROR_NOT_SUPPORTED naming the form. The
// instances (each choice of each suffix once) are generated from ptx/isa/instructions.def.
#include "cucpu/jit/program.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#ifndef CUCPU_PTX_FORMS
#define CUCPU_PTX_FORMS "ptx_forms.txt"
#endif

namespace {

struct Instance {
  bool lowered;
  std::string form, instruction;
};

std::vector<Instance> instances() {
  std::ifstream in(CUCPU_PTX_FORMS);
  std::vector<Instance> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    auto a = line.find('\t'), b = line.find('\t', a + 1);
    out.push_back({line[0] == '1', line.substr(a + 1, b - a - 1), line.substr(b + 1)});
  }
  return out;
}

// A kernel around one instruction, declaring the registers the instances name (%<type>_<n>).
std::string kernel(const std::string &instruction) {
  std::string ptx = ".version 9.0\n.target sm_120\n.address_size 64\n"
                    ".global .b32 gsym[64];\n.visible .entry k()\n{\n";
  for (const char *t :
       {"pred", "b8",  "b16", "b32", "b64",   "b128", "u8",     "u16",  "u32", "u64", "s8",
        "s16",  "s32", "s64", "f16", "f16x2", "bf16", "bf16x2", "tf32", "f32", "f64"})
    ptx += std::string(".reg .") + t + " %" + t + "_<4>;\n";
  return ptx + instruction + "\n$Lend:\nret;\n}\n";
}

TEST(TableForms, LoweringAgreesWithTheTable) {
  setenv("CUDA_CACHE_DISABLE", "1", 1);
  const auto all = instances();
  ASSERT_GT(all.size(), 1000u) << CUCPU_PTX_FORMS;
  std::map<std::string, std::vector<std::string>> wrong;
  for (const auto &i : all) {
    std::string log;
    auto p = cucpu::jit::Program::load(kernel(i.instruction), log);
    const int code = p.hasValue() ? 0 : p.error().code();
    const int want = i.lowered ? 0 : 801;
    if (code != want)
      wrong[i.lowered ? "lowered forms that do not load" : "forms the table says are not lowered"]
          .push_back(i.instruction + "  [" + std::to_string(code) + "] " +
                     log.substr(0, log.find('\n')));
  }
  for (const auto &[what, list] : wrong) {
    ADD_FAILURE() << what << ": " << list.size();
    for (const auto &w : list)
      std::printf("  %s\n", w.c_str());
  }
}

} // namespace
