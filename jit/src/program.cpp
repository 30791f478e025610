// Program: parse PTX and lower every kernel of the module (or read the lowered module from the
// on-disk cache), hand the IR to ORC, look kernels up.
#include "cucpu/jit/program.h"

#include "block_shape.h"
#include "code_cache.h"
#include "cucpu/ptx/targets.h"
#include "cucpu/support/log.h"
#include "device_runtime.h"
#include "engine.h"
#include "lowered_module.h"
#include "lowering.h"
#include "ptx_passes.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

namespace cucpu::jit {
namespace {
constexpr int kCudaErrorInvalidPtx = 218;
constexpr int kCudaErrorJitCompilerNotFound = 221; // the host JIT could not start
constexpr int kCudaErrorInvalidImage = 200;
constexpr int kCudaErrorUnsupportedPtxVersion = 222;
constexpr int kCudaErrorNotSupported = 801;
// Symbols carry no program number: each program has a JITDylib of its own, so the same PTX
// lowers to the same IR in every process and its cached objects link anywhere.
constexpr const char *kSymbolPrefix = "cucpu.";
// Shapes compiled per kernel before further shapes share one unspecialised function.
constexpr size_t kMaxShapesPerKernel = 8;
std::atomic<uint64_t> nextProgramId{1};

// The number of a .target architecture ("sm_75" -> 75, "sm_90a" -> 90), what a GPU driver
// reports as a kernel's PTX version (CUB multiplies it by 10 and picks its tuning policy by it);
// 0 when the module names none.
uint32_t targetArch(const std::string &target) {
  uint32_t v = 0;
  for (size_t i = target.starts_with("sm_") ? 3 : target.size(); i < target.size(); ++i) {
    if (target[i] < '0' || target[i] > '9')
      break;
    v = v * 10 + static_cast<uint32_t>(target[i] - '0');
  }
  return v;
}

// Whether `object` is an object file that defines `symbol` (a cache entry worth linking).
bool definesSymbol(const llvm::MemoryBuffer &object, const std::string &symbol) {
  auto file = llvm::object::ObjectFile::createObjectFile(object.getMemBufferRef());
  if (!file) {
    llvm::consumeError(file.takeError());
    return false;
  }
  for (const llvm::object::SymbolRef &s : (*file)->symbols()) {
    auto name = s.getName();
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    if (*name == symbol)
      return true;
  }
  return false;
}

// One compiled form of a kernel: for one block shape, or for any ({0, 0, 0}).
struct Compiled {
  uint32_t block[3];
  BlockFn fn;
};

// Why a well-formed module cannot be loaded ("line:col: message"), else "".
// Why NVIDIA's driver would refuse the module's header (with its result code), or an empty
// message: `.version` newer than supported is UNSUPPORTED_PTX_VERSION, an unknown target or a
// version older than the target needs INVALID_PTX (answers of an H200,
// tests/gpu/answers/ptx_limits.txt).
std::pair<int, std::string> unloadable(const ptx::Module &m) {
  const ptx::IsaVersion version{m.versionMajor, m.versionMinor};
  if (m.versionMajor == 0 || m.target.empty())
    return {kCudaErrorInvalidPtx, fmt::format("1:1: a PTX module must declare {}",
                                              m.versionMajor == 0 ? ".version" : ".target")};
  if (version > ptx::kNewestIsa)
    return {kCudaErrorUnsupportedPtxVersion,
            fmt::format("{}:{}: PTX ISA {}.{} is newer than this driver supports (up to {}.{}, "
                        "the PTX of CUDA 13.5's compilers); a newer cucpu is needed",
                        m.versionLoc.line, m.versionLoc.col, version.major, version.minor,
                        ptx::kNewestIsa.major, ptx::kNewestIsa.minor)};
  const auto introduced = ptx::targetIntroduced(m.target);
  if (!introduced)
    return {kCudaErrorInvalidPtx,
            fmt::format("{}:{}: unknown target '{}'", m.targetLoc.line, m.targetLoc.col, m.target)};
  if (version < *introduced)
    return {kCudaErrorInvalidPtx,
            fmt::format("{}:{}: target {} needs PTX ISA {}.{} or newer; the module declares {}.{}",
                        m.targetLoc.line, m.targetLoc.col, m.target, introduced->major,
                        introduced->minor, version.major, version.minor)};
  // NVIDIA's driver (CUDA 13) rejects 32-bit PTX on every target: its ptxas answers "32-Bit
  // compilation is no longer supported" (sm_75) or "32-Bit ABI ... is not supported on sm_90 or
  // higher architectures", with CUDA_ERROR_INVALID_PTX.
  if (m.addressSize == 32)
    return {kCudaErrorInvalidPtx,
            fmt::format("{}:{}: .address_size 32: 32-bit addressing is not supported (NVIDIA's "
                        "driver rejects it too; compile for 64-bit addresses)",
                        m.addressSizeLoc.line, m.addressSizeLoc.col)};
  return {0, {}};
}

} // namespace

struct Program::Impl {
  std::vector<KernelInfo> kernels;
  std::vector<std::string> llvmNames;     // parallel to kernels
  std::vector<std::string> kernelBitcode; // lowered IR, parallel to kernels
  llvm::orc::ThreadSafeContext tsc;       // the variables' module
  llvm::orc::JITDylib *dylib = nullptr;
  std::mutex mutex;
  std::vector<std::vector<Compiled>> compiled; // parallel to kernels
  // .global/.const variables: PTX name -> (LLVM symbol, bytes).
  std::unordered_map<std::string, std::pair<std::string, size_t>> globals;
  std::unordered_set<std::string> managed; // .attribute(.managed) variables
  std::vector<std::string> unresolvedExterns;
  std::unordered_map<uint64_t, size_t> kernelAddresses; // kernelAt's, filled at its first call
};

Program::Program(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Program::~Program() {
  if (impl_->dylib)
    if (auto err = engine(nullptr)->getExecutionSession().removeJITDylib(*impl_->dylib))
      log::warn(log::Component::Jit, "freeing generated code: {}", llvm::toString(std::move(err)));
}

const std::vector<KernelInfo> &Program::kernels() const { return impl_->kernels; }

const KernelInfo *Program::findKernel(std::string_view name) const {
  for (const auto &k : impl_->kernels)
    if (k.name == name)
      return &k;
  return nullptr;
}

namespace {

std::string bitcodeOf(const llvm::Module &m) {
  std::string bitcode;
  llvm::raw_string_ostream os(bitcode);
  llvm::WriteBitcodeToFile(m, os);
  return bitcode;
}

// A lowering error as the load's status, its "line:col: message" also in `log`.
Status loadError(const LowerError &e, std::string &log) {
  std::string where = e.loc.line ? fmt::format("{}:{}: ", e.loc.line, e.loc.col) : "";
  log += "ptx: " + where + e.message + "\n";
  return Status(e.code, where + e.message);
}

// The module `text` holds, with the device runtime's syscalls it declares defined; INVALID_PTX
// with every diagnostic in `log` ("ptx: line:col: message") when it is malformed or unloadable.
Expected<ptx::Module> parseModule(std::string_view text, std::string &log) {
  ptx::ParseResult parsed = ptx::parse(text);
  std::string first;
  for (const auto &d : parsed.errors) {
    log += "ptx: " + d.format() + "\n";
    if (first.empty())
      first = d.format();
  }
  if (!parsed.ok())
    return Status(kCudaErrorInvalidPtx, first);
  if (auto [code, msg] = unloadable(parsed.module); code != 0) {
    log += "ptx: " + msg + "\n";
    return Status(code, msg);
  }
  for (const auto &d : parsed.unsupported)
    log += "ptx: " + d.format() + " is not supported\n";
  if (!parsed.unsupported.empty())
    return Status(kCudaErrorNotSupported, parsed.unsupported[0].format() + " is not supported");
  addDeviceRuntime(parsed.module);
  try {
    passes::run(parsed.module);
  } catch (const LowerError &e) {
    return loadError(e, log);
  }
  return std::move(parsed.module);
}

// Parses and lowers `text`: one LLVM module for the module-scope variables and one per kernel
// (all verified), kept as bitcode with the kernels' layouts.
Expected<LoweredModule> lowerModule(std::string_view text, llvm::orc::LLJIT &jit,
                                    std::string &log) {
  auto parsed = parseModule(text, log);
  if (!parsed)
    return parsed.error();
  llvm::LLVMContext ctx;
  // Local value names only serve people reading the IR: without them the lowering is faster and
  // the bitcode the cache keeps is smaller. Kept when the IR is logged.
  ctx.setDiscardValueNames(!log::enabled(log::Component::Jit, log::Level::Trace));
  const std::string prefix = kSymbolPrefix;
  auto newModule = [&](const std::string &name) {
    auto m = std::make_unique<llvm::Module>(prefix + name, ctx);
    m->setDataLayout(jit.getDataLayout());
    m->setTargetTriple(jit.getTargetTriple().str());
    return m;
  };
  std::vector<std::unique_ptr<llvm::Module>> modules;
  modules.push_back(newModule("variables"));
  ModuleState ms(ctx, modules[0].get(), *parsed, prefix);
  LoweredModule out;
  try {
    lowerModuleScope(ms, out.kernels);
    for (const auto &[name, gv] : ms.globals)
      out.globals.push_back({name, gv->getName().str(),
                             modules[0]->getDataLayout().getTypeAllocSize(gv->getValueType())});
    for (const auto &v : parsed->globals)
      if (v.managed)
        out.managed.push_back(v.name);
    out.unresolvedExterns = ms.unresolvedExterns;
    for (const auto &fn : parsed->functions) {
      if (!fn.isEntry || !fn.hasBody)
        continue;
      KernelInfo info;
      info.name = fn.name;
      info.ptxVersion = targetArch(parsed->target);
      layoutParams(fn, info);
      info.dynamicSharedOffset = ms.dynamicSharedOffset;
      info.constBytes = ms.constBytes;
      std::string llvmName = prefix + fn.name;
      modules.push_back(newModule(fn.name));
      ms.mod = modules.back().get();
      KernelLowering(ms, fn, info).run(llvmName);
      out.kernels.push_back(std::move(info));
      out.llvmNames.push_back(std::move(llvmName));
    }
  } catch (const LowerError &e) {
    return loadError(e, log);
  }
  for (auto &m : modules) {
    std::string verifyMsg;
    llvm::raw_string_ostream os(verifyMsg);
    if (llvm::verifyModule(*m, &os)) {
      log += "jit: internal error, invalid IR: " + verifyMsg + "\n";
      log::error(log::Component::Jit, "invalid IR generated: {}", verifyMsg);
      return Status(kCudaErrorInvalidImage, "internal error: invalid IR");
    }
    if (log::enabled(log::Component::Jit, log::Level::Trace)) {
      std::string ir;
      llvm::raw_string_ostream irs(ir);
      m->print(irs, nullptr);
      log::trace(log::Component::Jit, "IR before optimisation:\n{}", ir);
    }
  }
  out.variablesBitcode = bitcodeOf(*modules[0]);
  for (size_t i = 1; i < modules.size(); ++i)
    out.kernelBitcode.push_back(bitcodeOf(*modules[i]));
  return out;
}

// The lowered form of `text`: from the on-disk cache, else lowered now (and stored there).
Expected<LoweredModule> lowered(std::string_view text, llvm::orc::LLJIT &jit, std::string &log,
                                bool &fromCache) {
  CodeCache &cache = CodeCache::instance();
  fromCache = false;
  if (!cache.enabled())
    return lowerModule(text, jit, log);
  using Kind = CodeCache::Kind;
  const std::string key = cache.moduleKey(text, loweringSwitchesText(), targetIdentity());
  if (auto bytes = cache.load(Kind::Module, key)) {
    if (auto m = deserialize(std::string_view(bytes->getBufferStart(), bytes->getBufferSize()))) {
      cache.countHit(Kind::Module);
      fromCache = true;
      return std::move(*m);
    }
    log::warn(log::Component::Jit, "code cache: unusable lowered module {}, lowering again", key);
    cache.remove(Kind::Module, key);
  }
  auto m = lowerModule(text, jit, log);
  if (m)
    cache.store(Kind::Module, key, serialize(*m));
  return m;
}

} // namespace

Expected<std::unique_ptr<Program>> Program::load(std::string_view text, std::string &log) {
  auto start = std::chrono::steady_clock::now();
  std::string error;
  llvm::orc::LLJIT *jit = engine(&error);
  if (!jit) {
    log += "jit: cannot start the host JIT: " + error + "\n";
    return Status(kCudaErrorJitCompilerNotFound, "host JIT unavailable: " + error);
  }
  bool fromCache = false;
  auto lm = lowered(text, *jit, log, fromCache);
  if (!lm)
    return lm.error();

  // The variables' module goes to ORC now (compiled when a kernel first needs it); each kernel's
  // bitcode is kept and compiled per block shape at its first launch (blockFunction).
  auto impl = std::make_unique<Impl>();
  impl->kernels = std::move(lm->kernels);
  impl->llvmNames = std::move(lm->llvmNames);
  impl->kernelBitcode = std::move(lm->kernelBitcode);
  for (auto &g : lm->globals)
    impl->globals[g.name] = {std::move(g.symbol), static_cast<size_t>(g.bytes)};
  impl->managed.insert(lm->managed.begin(), lm->managed.end());
  impl->unresolvedExterns = std::move(lm->unresolvedExterns);
  impl->compiled.resize(impl->kernels.size());
  impl->tsc = llvm::orc::ThreadSafeContext(std::make_unique<llvm::LLVMContext>());
  auto fail = [&](std::string msg) -> Status {
    log += "jit: " + msg + "\n";
    return Status(kCudaErrorInvalidImage, msg);
  };
  auto variables = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(lm->variablesBitcode, "cucpu.variables"), *impl->tsc.getContext());
  if (!variables)
    return fail(llvm::toString(variables.takeError()));
  uint64_t id = nextProgramId++;
  auto dylib = jit->createJITDylib("cucpu.m" + std::to_string(id));
  if (!dylib)
    return fail(llvm::toString(dylib.takeError()));
  impl->dylib = &*dylib;
  impl->dylib->addToLinkOrder(jit->getMainJITDylib());
  if (auto err = jit->addIRModule(*impl->dylib,
                                  llvm::orc::ThreadSafeModule(std::move(*variables), impl->tsc))) {
    llvm::consumeError(jit->getExecutionSession().removeJITDylib(*impl->dylib));
    impl->dylib = nullptr;
    return fail(llvm::toString(std::move(err)));
  }
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                                  start)
                .count();
  const char *how = fromCache ? "read from the on-disk cache" : "parsed and lowered";
  log += fmt::format("cucpu: loaded {} kernel(s) in {} us ({})\n", impl->kernels.size(), us, how);
  log::debug(log::Component::Jit, "module {}: {} kernels {} in {} us", id, impl->kernels.size(),
             how, us);
  return std::unique_ptr<Program>(new Program(std::move(impl)));
}

Expected<std::string> Program::inspect(std::string_view text, std::string_view kernel, Stage stage,
                                       const uint32_t *block) {
  std::string log;
  auto parsed = parseModule(text, log);
  if (!parsed)
    return parsed.error();
  const ptx::Function *fn = parsed->findFunction(kernel);
  if (!fn || !fn->isEntry || !fn->hasBody)
    return Status(500, "no kernel '" + std::string(kernel) + "' in the module"); // NOT_FOUND
  std::string error;
  llvm::orc::LLJIT *jit = engine(&error);
  if (!jit)
    return Status(kCudaErrorJitCompilerNotFound, "host JIT unavailable: " + error);
  llvm::LLVMContext ctx;
  llvm::Module mod("cucpu.inspect." + std::string(kernel), ctx);
  mod.setDataLayout(jit->getDataLayout());
  mod.setTargetTriple(jit->getTargetTriple().str());
  ModuleState ms(ctx, &mod, *parsed, "cucpu.inspect.");
  std::vector<KernelInfo> kernels;
  KernelInfo info;
  try {
    lowerModuleScope(ms, kernels);
    info.name = fn->name;
    layoutParams(*fn, info);
    info.dynamicSharedOffset = ms.dynamicSharedOffset;
    info.constBytes = ms.constBytes;
    KernelLowering(ms, *fn, info).run(ms.symbolPrefix + fn->name);
  } catch (const LowerError &e) {
    return Status(e.code, fmt::format("{}:{}: {}", e.loc.line, e.loc.col, e.message));
  }
  if (block && stage != Stage::LoweredIR)
    specializeBlockShape(mod, block);
  if (stage != Stage::LoweredIR)
    optimizeModule(mod);
  if (stage == Stage::Assembly)
    return assembly(mod);
  std::string ir;
  llvm::raw_string_ostream os(ir);
  mod.print(os, nullptr);
  return ir;
}

Expected<BlockFn> Program::blockFunction(const KernelInfo &kernel, const uint32_t block[3]) {
  std::lock_guard lk(impl_->mutex);
  size_t idx = static_cast<size_t>(&kernel - impl_->kernels.data());
  if (idx >= impl_->kernels.size())
    return Status(400, "kernel does not belong to this program"); // CUDA_ERROR_INVALID_HANDLE
  auto &forms = impl_->compiled[idx];
  uint32_t shape[3] = {block[0], block[1], block[2]};
  if (forms.size() >= kMaxShapesPerKernel)
    shape[0] = shape[1] = shape[2] = 0; // launched with many shapes: one function for the rest
  for (const auto &c : forms)
    if (c.block[0] == shape[0] && c.block[1] == shape[1] && c.block[2] == shape[2])
      return c.fn;
  auto start = std::chrono::steady_clock::now();
  llvm::orc::LLJIT *jit = engine(nullptr);
  const std::string &bitcode = impl_->kernelBitcode[idx];
  const std::string symbol =
      fmt::format("{}.b{}x{}x{}", impl_->llvmNames[idx], shape[0], shape[1], shape[2]);
  CodeCache &cache = CodeCache::instance();
  using Kind = CodeCache::Kind;
  const std::string key = cache.enabled() ? cache.key(bitcode, shape, targetIdentity()) : "";
  std::unique_ptr<llvm::MemoryBuffer> object =
      cache.enabled() ? cache.load(Kind::Object, key) : nullptr;
  if (object && !definesSymbol(*object, symbol)) { // truncated or overwritten: compile again
    log::warn(log::Component::Jit, "code cache: unusable entry {} for {}, compiling again", key,
              kernel.name);
    cache.remove(Kind::Object, key);
    object.reset();
  }
  const bool cached = object != nullptr;
  if (cached)
    cache.countHit(Kind::Object);
  auto fail = [&](std::string m) -> Status {
    log::error(log::Component::Jit, "compiling {}: {}", kernel.name, m);
    return Status(kCudaErrorInvalidImage, "compiling " + kernel.name + ": " + m);
  };
  if (!object) {
    llvm::LLVMContext ctx;
    auto mod = llvm::parseBitcodeFile(llvm::MemoryBufferRef(bitcode, symbol), ctx);
    if (!mod)
      return fail(llvm::toString(mod.takeError()));
    if (shape[0])
      specializeBlockShape(**mod, shape);
    (*mod)->getFunction(impl_->llvmNames[idx])->setName(symbol);
    auto obj = compileObject(**mod);
    if (!obj)
      return fail(llvm::toString(obj.takeError()));
    object = std::move(*obj);
    if (cache.enabled())
      cache.store(Kind::Object, key,
                  std::string_view(object->getBufferStart(), object->getBufferSize()));
  }
  if (auto err = jit->addObjectFile(*impl_->dylib, std::move(object)))
    return fail(llvm::toString(std::move(err)));
  auto sym = jit->lookup(*impl_->dylib, symbol);
  if (!sym)
    return fail(llvm::toString(sym.takeError()));
  auto fn = sym->toPtr<BlockFn>();
  forms.push_back({{shape[0], shape[1], shape[2]}, fn});
  log::debug(log::Component::Jit, "compiled {} for blocks of {}x{}x{} in {} us{}", kernel.name,
             shape[0], shape[1], shape[2],
             std::chrono::duration_cast<std::chrono::microseconds>(
                 std::chrono::steady_clock::now() - start)
                 .count(),
             cached ? " (from the on-disk cache)" : "");
  return fn;
}

std::vector<std::string> Program::globalNames() const {
  std::vector<std::string> names;
  for (const auto &g : impl_->globals)
    names.push_back(g.first);
  return names;
}

bool Program::isManaged(std::string_view name) const {
  return impl_->managed.count(std::string(name)) != 0;
}

const std::vector<std::string> &Program::unresolvedExterns() const {
  return impl_->unresolvedExterns;
}

const KernelInfo *Program::kernelAt(uint64_t address) {
  std::lock_guard lk(impl_->mutex);
  if (impl_->kernelAddresses.empty())
    for (size_t i = 0; i < impl_->kernels.size(); ++i) {
      // Every function's address is its marker variable (kernel_layout.cpp).
      auto sym = engine(nullptr)->lookup(*impl_->dylib, std::string(kSymbolPrefix) + "fn." +
                                                            impl_->kernels[i].name);
      if (!sym) {
        log::error(log::Component::Jit, "looking up kernel {}: {}", impl_->kernels[i].name,
                   llvm::toString(sym.takeError()));
        continue;
      }
      impl_->kernelAddresses[sym->getValue()] = i;
    }
  auto it = impl_->kernelAddresses.find(address);
  return it == impl_->kernelAddresses.end() ? nullptr : &impl_->kernels[it->second];
}

Expected<std::pair<void *, size_t>> Program::global(std::string_view name) {
  constexpr int kCudaErrorNotFound = 500;
  auto it = impl_->globals.find(std::string(name));
  if (it == impl_->globals.end())
    return Status(kCudaErrorNotFound, "no variable '" + std::string(name) + "' in the module");
  std::lock_guard lk(impl_->mutex);
  auto sym = engine(nullptr)->lookup(*impl_->dylib, it->second.first);
  if (!sym) {
    std::string m = llvm::toString(sym.takeError());
    log::error(log::Component::Jit, "looking up {}: {}", it->second.first, m);
    return Status(kCudaErrorInvalidImage, "looking up " + std::string(name) + ": " + m);
  }
  return std::pair<void *, size_t>{sym->toPtr<void *>(), it->second.second};
}

} // namespace cucpu::jit
