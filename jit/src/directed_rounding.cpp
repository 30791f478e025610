// f32 arithmetic with a directed rounding mode: AVX-512 instructions carry their own rounding
// mode (embedded rounding control), so fma.rm.f32 is one instruction instead of an exact
// double-double emulation. The lowering emits calls of pure functions with vector variants, so
// thread loops still vectorise; a pass after the vectoriser turns the calls into instructions.
#include "directed_rounding.h"

#include "cucpu/support/env.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

namespace cucpu::jit {

namespace {

constexpr const char *kPrefix = "cucpu.rnd.";
constexpr unsigned kWidths[] = {4, 8, 16};

llvm::Function *declare(llvm::Module &m, const std::string &name, llvm::Type *ty, size_t args) {
  if (llvm::Function *f = m.getFunction(name))
    return f;
  auto *fty = llvm::FunctionType::get(ty, std::vector<llvm::Type *>(args, ty), false);
  auto *f = llvm::Function::Create(fty, llvm::GlobalValue::ExternalLinkage, name, m);
  f->setDoesNotThrow();
  f->setDoesNotAccessMemory();
  f->setWillReturn();
  f->addFnAttr(llvm::Attribute::Speculatable);
  f->addFnAttr(llvm::Attribute::NoSync);
  return f;
}

// The 512-bit instruction for op (the name emitDirectedCall gave the call) with rounding `imm`
// on 16-lane operands.
llvm::Value *instruction(llvm::IRBuilder<> &b, llvm::StringRef op,
                         llvm::ArrayRef<llvm::Value *> args, llvm::Value *imm) {
  using namespace llvm::Intrinsic;
  if (op == "fma")
    return b.CreateIntrinsic(x86_avx512_vfmadd_ps_512, {}, {args[0], args[1], args[2], imm});
  if (op == "sqrt")
    return b.CreateIntrinsic(x86_avx512_sqrt_ps_512, {}, {args[0], imm});
  const ID id = op == "add"   ? x86_avx512_add_ps_512
                : op == "mul" ? x86_avx512_mul_ps_512
                              : x86_avx512_div_ps_512;
  return b.CreateIntrinsic(id, {}, {args[0], args[1], imm});
}

} // namespace

bool nativeDirectedRounding() {
  static const bool native = [] {
    if (env::get("CUCPU_DIRECTED_ROUNDING").value_or("") == "emulate")
      return false;
    return llvm::sys::getHostCPUFeatures().lookup("avx512f");
  }();
  return native;
}

llvm::Value *emitDirectedCall(llvm::IRBuilder<> &b, ptx::Op op, int mode,
                              const std::vector<llvm::Value *> &args) {
  llvm::Module &m = *b.GetInsertBlock()->getModule();
  llvm::Type *f32 = b.getFloatTy();
  const std::string name = kPrefix + std::string(ptx::opName(op)) + "." + std::to_string(mode);
  llvm::Function *scalar = declare(m, name, f32, args.size());
  std::string variants;
  for (unsigned w : kWidths) {
    const std::string vname = name + ".v" + std::to_string(w);
    // kept through GlobalDCE until the vectoriser looks for it (as InjectTLIMappings does)
    if (!m.getFunction(vname))
      llvm::appendToCompilerUsed(
          m, {declare(m, vname, llvm::FixedVectorType::get(f32, w), args.size())});
    variants += (variants.empty() ? "" : ",") + std::string("_ZGV_LLVM_N") + std::to_string(w) +
                std::string(args.size(), 'v') + "_" + name + "(" + vname + ")";
  }
  llvm::CallInst *call = b.CreateCall(scalar, args);
  call->addFnAttr(llvm::Attribute::get(b.getContext(), "vector-function-abi-variant", variants));
  return call;
}

llvm::PreservedAnalyses DirectedRoundingPass::run(llvm::Function &f,
                                                  llvm::FunctionAnalysisManager &) {
  std::vector<llvm::CallInst *> calls;
  for (auto &bb : f)
    for (auto &i : bb)
      if (auto *c = llvm::dyn_cast<llvm::CallInst>(&i))
        if (llvm::Function *callee = c->getCalledFunction();
            callee && callee->getName().starts_with(kPrefix))
          calls.push_back(c);
  if (calls.empty())
    return llvm::PreservedAnalyses::all();
  for (llvm::CallInst *c : calls) {
    // cucpu.rnd.<op>.<mode>[.v<width>]
    llvm::SmallVector<llvm::StringRef, 5> parts;
    c->getCalledFunction()->getName().drop_front(llvm::StringRef(kPrefix).size()).split(parts, '.');
    const int mode = std::stoi(parts[1].str());
    llvm::IRBuilder<> b(c);
    auto *v16 = llvm::FixedVectorType::get(b.getFloatTy(), 16);
    auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(c->getType());
    const unsigned lanes = vt ? vt->getNumElements() : 1;
    std::vector<int> widen(16, -1), narrow;
    for (unsigned k = 0; k < lanes; ++k) {
      widen[k] = static_cast<int>(k);
      narrow.push_back(static_cast<int>(k));
    }
    std::vector<llvm::Value *> args;
    for (llvm::Value *a : c->args())
      args.push_back(!vt ? b.CreateInsertElement(llvm::PoisonValue::get(v16), a, b.getInt64(0))
                     : lanes == 16 ? a
                                   : b.CreateShuffleVector(a, widen));
    // _MM_FROUND_NO_EXC (8) | the mode: 1 toward -inf, 2 toward +inf, 3 toward zero
    llvm::Value *r = instruction(b, parts[0], args, b.getInt32(8 | mode));
    r = !vt           ? b.CreateExtractElement(r, b.getInt64(0))
        : lanes == 16 ? r
                      : b.CreateShuffleVector(r, narrow);
    c->replaceAllUsesWith(r);
    c->eraseFromParent();
  }
  return llvm::PreservedAnalyses::none();
}

} // namespace cucpu::jit
