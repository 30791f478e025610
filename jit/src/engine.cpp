// ORC LLJIT set-up: host target, process symbols (libm), O3 pipeline with vectorisation.
#include "engine.h"
#include "cucpu/devicelib/devicelib.h"
#include "contiguous_gathers.h"
#include "cucpu/jit/passes.h"
#include "directed_rounding.h"
#include "pass_registry.h"

#include "perf_map.h"

#include "cucpu/support/env.h"
#include "cucpu/support/log.h"
#include "parallel_loops.h"
#include "pointer_rewrite.h"
#include "scratch_alias.h"
#include "streaming_stores.h"

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/IRTransformLayer.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/SROA.h>

#include <chrono>
#include <dlfcn.h>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace cucpu::jit {
namespace {

// Vector variants in glibc's libmvec of the functions PTX's approximate instructions become
// (ex2/lg2/sin/cos), beyond the ones LLVM's LIBMVEC_X86 table lists: AVX2 (d) and AVX-512 (e).
const llvm::VecDesc kExtraVectorMath[] = {
    {"llvm.exp2.f32", "_ZGVdN8v_exp2f", llvm::ElementCount::getFixed(8), false, "_ZGV_LLVM_N8v"},
    {"llvm.exp2.f32", "_ZGVeN16v_exp2f", llvm::ElementCount::getFixed(16), false, "_ZGV_LLVM_N16v"},
    {"llvm.log2.f32", "_ZGVdN8v_log2f", llvm::ElementCount::getFixed(8), false, "_ZGV_LLVM_N8v"},
    {"llvm.log2.f32", "_ZGVeN16v_log2f", llvm::ElementCount::getFixed(16), false, "_ZGV_LLVM_N16v"},
    {"llvm.sin.f32", "_ZGVeN16v_sinf", llvm::ElementCount::getFixed(16), false, "_ZGV_LLVM_N16v"},
    {"llvm.cos.f32", "_ZGVeN16v_cosf", llvm::ElementCount::getFixed(16), false, "_ZGV_LLVM_N16v"},
    {"llvm.exp.f32", "_ZGVeN16v_expf", llvm::ElementCount::getFixed(16), false, "_ZGV_LLVM_N16v"},
    {"llvm.log.f32", "_ZGVeN16v_logf", llvm::ElementCount::getFixed(16), false, "_ZGV_LLVM_N16v"},
    {"llvm.exp2.f64", "_ZGVdN4v_exp2", llvm::ElementCount::getFixed(4), false, "_ZGV_LLVM_N4v"},
    {"llvm.log2.f64", "_ZGVdN4v_log2", llvm::ElementCount::getFixed(4), false, "_ZGV_LLVM_N4v"},
    {"llvm.exp2.f64", "_ZGVeN8v_exp2", llvm::ElementCount::getFixed(8), false, "_ZGV_LLVM_N8v"},
    {"llvm.log2.f64", "_ZGVeN8v_log2", llvm::ElementCount::getFixed(8), false, "_ZGV_LLVM_N8v"},
    {"llvm.sin.f64", "_ZGVeN8v_sin", llvm::ElementCount::getFixed(8), false, "_ZGV_LLVM_N8v"},
    {"llvm.cos.f64", "_ZGVeN8v_cos", llvm::ElementCount::getFixed(8), false, "_ZGV_LLVM_N8v"},
    {"llvm.exp.f64", "_ZGVeN8v_exp", llvm::ElementCount::getFixed(8), false, "_ZGV_LLVM_N8v"},
    {"llvm.log.f64", "_ZGVeN8v_log", llvm::ElementCount::getFixed(8), false, "_ZGV_LLVM_N8v"},
};

struct Engine {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::unique_ptr<llvm::TargetMachine> tm;
  std::unique_ptr<llvm::TargetLibraryInfoImpl> libraryInfo;
  bool avx512 = false; // the host has AVX-512: kernels use 512-bit vectors
  std::mutex optMutex;
  std::string error;
  std::string identity;

  Engine() {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    parseLlvmOptions();
    auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!jtmb) {
      error = llvm::toString(jtmb.takeError());
      return;
    }
    jtmb->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
    auto tmOrErr = jtmb->createTargetMachine();
    if (!tmOrErr) {
      error = llvm::toString(tmOrErr.takeError());
      return;
    }
    tm = std::move(*tmOrErr);
    identity = std::string("LLVM " LLVM_VERSION_STRING " ") + tm->getTargetTriple().str() + " " +
               tm->getTargetCPU().str() + " " + tm->getTargetFeatureString().str() + " " +
               env::get("CUCPU_LLVM_OPTIONS").value_or(""); // they change the code too
    auto j = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(*jtmb).create();
    if (!j) {
      error = llvm::toString(j.takeError());
      return;
    }
    jit = std::move(*j);
    enablePerfMapIfRequested(*jit);
    auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
        jit->getDataLayout().getGlobalPrefix());
    if (!gen) {
      error = llvm::toString(gen.takeError());
      jit.reset();
      return;
    }
    jit->getMainJITDylib().addGenerator(std::move(*gen));
    // The device library's functions, which generated code calls by name.
    llvm::orc::SymbolMap library;
    for (const auto &s : devicelib::symbols())
      library[jit->mangleAndIntern(s.name)] = {llvm::orc::ExecutorAddr::fromPtr(s.address),
                                               llvm::JITSymbolFlags::Exported};
    if (auto err = jit->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(library)))) {
      error = llvm::toString(std::move(err));
      jit.reset();
      return;
    }
    libraryInfo = std::make_unique<llvm::TargetLibraryInfoImpl>(tm->getTargetTriple());
    // Vector math: glibc's libmvec, loaded globally so generated code finds its symbols.
    avx512 = tm->getMCSubtargetInfo()->checkFeatures("+avx512f");
    if (dlopen("libmvec.so.1", RTLD_NOW | RTLD_GLOBAL)) {
      libraryInfo->addVectorizableFunctionsFromVecLib(llvm::TargetLibraryInfoImpl::LIBMVEC_X86,
                                                      tm->getTargetTriple());
      for (const auto &d : kExtraVectorMath)
        if (avx512 || d.getVectorFnName().substr(0, 5) != "_ZGVe")
          libraryInfo->addVectorizableFunctions({d});
    } else {
      log::info(log::Component::Jit, "libmvec not found: transcendental functions stay scalar");
    }
    jit->getIRTransformLayer().setTransform(
        [this](llvm::orc::ThreadSafeModule tsm, const llvm::orc::MaterializationResponsibility &)
            -> llvm::Expected<llvm::orc::ThreadSafeModule> {
          tsm.withModuleDo([this](llvm::Module &m) { optimize(m); });
          return tsm;
        });
    log::debug(log::Component::Jit, "LLJIT ready for {} ({})", tm->getTargetTriple().str(),
               tm->getTargetCPU().str());
  }

  // CUCPU_LLVM_OPTIONS="-unroll-threshold=600 ...": LLVM's own options for the JIT's passes and
  // code generator, for performance investigations (this library's LLVM is private to it).
  static void parseLlvmOptions() {
    auto text = env::get("CUCPU_LLVM_OPTIONS");
    if (!text || text->empty())
      return;
    std::vector<std::string> words{"cucpu"};
    std::istringstream in(*text);
    for (std::string w; in >> w;)
      words.push_back(w);
    std::vector<const char *> argv;
    for (const auto &w : words)
      argv.push_back(w.c_str());
    std::string errors;
    llvm::raw_string_ostream es(errors);
    if (!llvm::cl::ParseCommandLineOptions(static_cast<int>(argv.size()), argv.data(), "cucpu",
                                           &es))
      log::warn(log::Component::Jit, "CUCPU_LLVM_OPTIONS: {}", errors);
  }

  void optimize(llvm::Module &m) {
    std::lock_guard lk(optMutex);
    optimizeLocked(m);
  }

  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> compile(llvm::Module &m) {
    std::lock_guard lk(optMutex);
    optimizeLocked(m);
    auto start = std::chrono::steady_clock::now();
    auto obj = llvm::orc::SimpleCompiler(*tm)(m);
    log::debug(log::Component::Jit, "generated code for {} in {} us", m.getModuleIdentifier(),
               std::chrono::duration_cast<std::chrono::microseconds>(
                   std::chrono::steady_clock::now() - start)
                   .count());
    return obj;
  }

  void optimizeLocked(llvm::Module &m) {
    auto start = std::chrono::steady_clock::now();
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PipelineTuningOptions pto;
    pto.LoopVectorization = true;
    pto.SLPVectorization = true;
    llvm::PassBuilder pb(tm.get(), pto);
    pb.registerVectorizerStartEPCallback(
        [](llvm::FunctionPassManager &fpm, llvm::OptimizationLevel) {
          fpm.addPass(RetagThreadLoopsPass());
        });
    pb.registerOptimizerLastEPCallback([](llvm::ModulePassManager &mpm, llvm::OptimizationLevel) {
      mpm.addPass(llvm::createModuleToFunctionPassAdaptor(UniformScratchStoresPass()));
      mpm.addPass(llvm::createModuleToFunctionPassAdaptor(ContiguousGathersPass()));
      mpm.addPass(llvm::createModuleToFunctionPassAdaptor(StreamingStoresPass()));
      mpm.addPass(llvm::createModuleToFunctionPassAdaptor(DirectedRoundingPass()));
    });
    fam.registerPass([&] { return llvm::TargetLibraryAnalysis(*libraryInfo); });
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    // Registers to SSA first, then PTX's integer addresses to pointer arithmetic and scratch
    // alias scopes (preOptimizationPipeline, passes by name as cucpu-opt runs them), then O3.
    registerCucpuPasses(pb);
    llvm::ModulePassManager pre;
    if (auto err = pb.parsePassPipeline(pre, preOptimizationPipeline()))
      log::warn(log::Component::Jit, "pre-optimization pipeline: {}",
                llvm::toString(std::move(err)));
    // Full-width vectors wherever AVX-512 is there: LLVM's tuning for Intel's AVX-512 cores
    // (Skylake-X to Sapphire Rapids) prefers 256 bits, which halves a thread loop's lanes and
    // leaves no store a whole cache line wide for the streaming-store path.
    if (avx512)
      for (llvm::Function &f : m)
        if (!f.isDeclaration())
          f.addFnAttr("prefer-vector-width", "512");
    pre.run(m, mam);
    if (log::enabled(log::Component::Jit, log::Level::Trace)) {
      std::string ir;
      llvm::raw_string_ostream os(ir);
      m.print(os, nullptr);
      log::trace(log::Component::Jit, "IR entering the O3 pipeline:\n{}", ir);
    }
    auto mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    mpm.run(m, mam);
    auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                  std::chrono::steady_clock::now() - start)
                  .count();
    log::debug(log::Component::Jit, "optimised {} in {} us", m.getModuleIdentifier(), us);
    if (log::enabled(log::Component::Jit, log::Level::Trace)) {
      std::string ir;
      llvm::raw_string_ostream os(ir);
      m.print(os, nullptr);
      log::trace(log::Component::Jit, "IR after optimisation:\n{}", ir);
    }
  }
};

} // namespace

static Engine &theEngine() {
  static Engine *e = new Engine(); // lives for the process: generated code may run at exit
  return *e;
}

llvm::orc::LLJIT *engine(std::string *error) {
  Engine &e = theEngine();
  if (!e.jit && error)
    *error = e.error;
  return e.jit.get();
}

void optimizeModule(llvm::Module &m) { theEngine().optimize(m); }

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> compileObject(llvm::Module &m) {
  return theEngine().compile(m);
}

const std::string &targetIdentity() { return theEngine().identity; }

std::string assembly(llvm::Module &m) {
  Engine &e = theEngine();
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager pm;
  if (e.tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
    return "; the host target cannot emit assembly\n";
  pm.run(m);
  return std::string(text.str());
}

} // namespace cucpu::jit
