// cucpu's LLVM passes by name: the module passes that prepare lowered IR for optimisation and
// the function passes the JIT adds to LLVM's O3 pipeline; runPipeline for cucpu-opt.
#include "pass_registry.h"

#include "contiguous_gathers.h"
#include "cucpu/jit/passes.h"
#include "directed_rounding.h"
#include "parallel_loops.h"
#include "pointer_rewrite.h"
#include "scratch_alias.h"
#include "streaming_stores.h"

#include <llvm/AsmParser/Parser.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

namespace cucpu::jit {
namespace {

// PTX addresses to pointer arithmetic (pointer_rewrite.h), as a module pass.
struct RewritePointersPass : llvm::PassInfoMixin<RewritePointersPass> {
  llvm::PreservedAnalyses run(llvm::Module &m, llvm::ModuleAnalysisManager &) {
    rewritePointers(m);
    return llvm::PreservedAnalyses::none();
  }
};

// Alias scopes of the block's scratch memory (scratch_alias.h), as a module pass.
struct TagScratchPass : llvm::PassInfoMixin<TagScratchPass> {
  llvm::PreservedAnalyses run(llvm::Module &m, llvm::ModuleAnalysisManager &) {
    tagScratchAccesses(m);
    return llvm::PreservedAnalyses::none();
  }
};

} // namespace

std::vector<std::string_view> passNames() {
  return {"cucpu-rewrite-pointers",       "cucpu-tag-scratch",        "cucpu-retag-thread-loops",
          "cucpu-uniform-scratch-stores", "cucpu-contiguous-gathers", "cucpu-streaming-stores",
          "cucpu-directed-rounding"};
}

std::string_view preOptimizationPipeline() {
  return "function(sroa<modify-cfg>,early-cse),cucpu-rewrite-pointers,cucpu-tag-scratch";
}

void registerCucpuPasses(llvm::PassBuilder &pb) {
  pb.registerPipelineParsingCallback([](llvm::StringRef name, llvm::ModulePassManager &mpm,
                                        llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
    if (name == "cucpu-rewrite-pointers")
      mpm.addPass(RewritePointersPass());
    else if (name == "cucpu-tag-scratch")
      mpm.addPass(TagScratchPass());
    else
      return false;
    return true;
  });
  pb.registerPipelineParsingCallback([](llvm::StringRef name, llvm::FunctionPassManager &fpm,
                                        llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
    if (name == "cucpu-retag-thread-loops")
      fpm.addPass(RetagThreadLoopsPass());
    else if (name == "cucpu-uniform-scratch-stores")
      fpm.addPass(UniformScratchStoresPass());
    else if (name == "cucpu-contiguous-gathers")
      fpm.addPass(ContiguousGathersPass());
    else if (name == "cucpu-streaming-stores")
      fpm.addPass(StreamingStoresPass());
    else if (name == "cucpu-directed-rounding")
      fpm.addPass(DirectedRoundingPass());
    else
      return false;
    return true;
  });
}

bool runPipeline(const std::string &ir, const std::string &pipeline, std::string &out,
                 std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::LLVMContext ctx;
  llvm::SMDiagnostic diag;
  auto m = llvm::parseAssemblyString(ir, diag, ctx);
  if (!m) {
    llvm::raw_string_ostream os(error);
    diag.print("cucpu-opt", os);
    return false;
  }
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) {
    error = llvm::toString(jtmb.takeError());
    return false;
  }
  auto tm = jtmb->createTargetMachine();
  if (!tm) {
    error = llvm::toString(tm.takeError());
    return false;
  }
  if (m->getDataLayout().isDefault())
    m->setDataLayout((*tm)->createDataLayout());
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm->get());
  registerCucpuPasses(pb);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  if (auto err = pb.parsePassPipeline(mpm, pipeline)) {
    error = llvm::toString(std::move(err));
    return false;
  }
  mpm.run(*m, mam);
  llvm::raw_string_ostream vs(error);
  if (llvm::verifyModule(*m, &vs))
    return false;
  llvm::raw_string_ostream os(out);
  m->print(os, nullptr);
  return true;
}

} // namespace cucpu::jit
