// Calls into runtime services: device printf (vprintf), assert (__assertfail), malloc/free and
// trap, through the services table of the launch record (kernel_abi.h).
#include "device_runtime.h"
#include "lowering.h"

#include "kernel_abi.h"

#include <cstddef>

namespace cucpu::jit {

using llvm::Value;
using K = ptx::Operand::Kind;

namespace {

// Byte offsets of the service function pointers in cucpu_services.
constexpr unsigned kVprintf = offsetof(cucpu_services, vprintf);
constexpr unsigned kAssertFail = offsetof(cucpu_services, assert_fail);
constexpr unsigned kTrap = offsetof(cucpu_services, trap);
constexpr unsigned kMalloc = offsetof(cucpu_services, malloc);
constexpr unsigned kFree = offsetof(cucpu_services, free);
constexpr unsigned kBadCall = offsetof(cucpu_services, bad_call);
constexpr unsigned kGridSync = offsetof(cucpu_services, grid_sync);
constexpr unsigned kDeviceRuntime = offsetof(cucpu_services, device_runtime);

} // namespace

Value *KernelLowering::threadWhere() {
  auto *i32 = b.getInt32Ty();
  if (!where_) {
    llvm::IRBuilder<> eb(&f_->getEntryBlock(), f_->getEntryBlock().begin());
    where_ = eb.CreateAlloca(llvm::ArrayType::get(i32, 6), nullptr, "where");
  }
  auto *arr = where_;
  for (int d = 0; d < 3; ++d) {
    b.CreateStore(ctaid_[d], b.CreateConstGEP2_32(arr->getAllocatedType(), arr, 0, d));
    b.CreateStore(tid_[d], b.CreateConstGEP2_32(arr->getAllocatedType(), arr, 0, 3 + d));
  }
  return arr;
}

Value *KernelLowering::serviceFunction(unsigned offset) {
  return b.CreateLoad(llvm::PointerType::get(ctx, 0),
                      b.CreateConstGEP1_32(b.getInt8Ty(), services_, offset));
}

bool KernelLowering::emitRuntimeInstruction(const ptx::Instruction &in) {
  auto *ptrTy = llvm::PointerType::get(ctx, 0);
  auto *i32 = b.getInt32Ty();
  auto *i64 = b.getInt64Ty();

  if (in.op == Op::trap && in.hasMod(kBadCallMod)) { // an indirect call's pointer missed
    auto *fnTy = llvm::FunctionType::get(b.getVoidTy(), {ptrTy, ptrTy, i64}, false);
    b.CreateCall(fnTy, serviceFunction(kBadCall),
                 {launch_, threadWhere(), read(in.operands[0], ptx::Type::U64, in)});
    return true;
  }
  if (in.op == Op::mapa) { // one-block clusters: rank 0 is the block itself
    write(in.operands.at(0), read(in.operands.at(1), in.types.at(0), in), in.types.at(0), in);
    return true;
  }
  if (in.op == Op::getctarank) {
    write(in.operands.at(0), b.getInt32(0), ptx::Type::U32, in);
    return true;
  }
  if (in.op == Op::setmaxnreg)
    return true; // no register file to divide between warps
  if (in.op == Op::trap) {
    auto *fnTy = llvm::FunctionType::get(b.getVoidTy(), {ptrTy, ptrTy}, false);
    b.CreateCall(fnTy, serviceFunction(kTrap), {launch_, threadWhere()});
    return true;
  }
  if (in.op == Op::brkpt)
    return true; // no debugger to stop for: execution continues
  if (in.op != Op::call)
    return false;

  // call [(ret)], callee, [(args)];
  const auto &o = in.operands;
  size_t i = 0;
  const ptx::Operand *ret = nullptr;
  if (i < o.size() && o[i].kind == K::List)
    ret = &o[i++];
  if (i >= o.size() || o[i].kind != K::Symbol)
    throwUnsupported(in.loc, "indirect call");
  const std::string callee = o[i++].name;
  std::vector<const ptx::Operand *> args;
  if (i < o.size() && o[i].kind == K::List)
    for (const auto &e : o[i].elems)
      args.push_back(&e);
  // An argument or return slot: a .param variable declared for the call.
  auto slot = [&](const ptx::Operand &op) {
    if (!localOffsets_.count(op.name))
      throwInvalid(op.loc, "call argument '" + op.name + "' is not a declared .param variable");
    return b.CreateConstGEP1_64(b.getInt8Ty(), localBase_, localOffsets_.at(op.name));
  };
  auto arg = [&](size_t k, llvm::Type *ty) -> Value * {
    if (k >= args.size())
      throwInvalid(in.loc, "too few arguments in the call to '" + callee + "'");
    return b.CreateLoad(ty, slot(*args[k]));
  };
  auto setReturn = [&](Value *v) {
    if (ret && !ret->elems.empty())
      b.CreateStore(v, slot(ret->elems[0]));
  };

  if (callee == "vprintf") {
    auto *fnTy = llvm::FunctionType::get(i32, {ptrTy, ptrTy, ptrTy}, false);
    Value *fmt = b.CreateIntToPtr(arg(0, i64), ptrTy);
    Value *packed = b.CreateIntToPtr(arg(1, i64), ptrTy);
    setReturn(b.CreateCall(fnTy, serviceFunction(kVprintf), {launch_, fmt, packed}));
    return true;
  }
  if (callee == "__assertfail") {
    auto *fnTy =
        llvm::FunctionType::get(b.getVoidTy(), {ptrTy, ptrTy, ptrTy, i32, ptrTy, ptrTy}, false);
    Value *msg = b.CreateIntToPtr(arg(0, i64), ptrTy);
    Value *file = b.CreateIntToPtr(arg(1, i64), ptrTy);
    Value *line = arg(2, i32);
    Value *func = b.CreateIntToPtr(arg(3, i64), ptrTy);
    b.CreateCall(fnTy, serviceFunction(kAssertFail),
                 {launch_, msg, file, line, func, threadWhere()});
    return true;
  }
  if (callee == "malloc") {
    auto *fnTy = llvm::FunctionType::get(ptrTy, {ptrTy, i64}, false);
    Value *p = b.CreateCall(fnTy, serviceFunction(kMalloc), {launch_, arg(0, i64)});
    setReturn(b.CreatePtrToInt(p, i64));
    return true;
  }
  if (callee == "free") {
    auto *fnTy = llvm::FunctionType::get(b.getVoidTy(), {ptrTy, ptrTy}, false);
    b.CreateCall(fnTy, serviceFunction(kFree), {launch_, b.CreateIntToPtr(arg(0, i64), ptrTy)});
    return true;
  }
  if (callee == kGridSyncFunction) { // device_runtime.cpp's cooperative-groups grid barrier
    auto *fnTy = llvm::FunctionType::get(i32, {ptrTy, i64, i32, ptrTy}, false);
    setReturn(b.CreateCall(fnTy, serviceFunction(kGridSync),
                           {launch_, arg(0, i64), arg(1, i32), threadWhere()}));
    return true;
  }
  if (callee == kDeviceRuntimeFunction) { // device_runtime.cpp's dynamic-parallelism functions
    auto *fnTy = llvm::FunctionType::get(i64, {ptrTy, i32, ptrTy, ptrTy}, false);
    setReturn(
        b.CreateCall(fnTy, serviceFunction(kDeviceRuntime),
                     {launch_, arg(0, i32), b.CreateIntToPtr(arg(1, i64), ptrTy), threadWhere()}));
    return true;
  }
  // The device runtime functions device_runtime.cpp does not supply (device-side memcpy and
  // memset, events, graphs): a feature cucpu lacks, not a broken input.
  if (callee.starts_with("__cudaCDP") || callee.starts_with("cudaGetParameterBuffer") ||
      callee.starts_with("cudaLaunchDevice"))
    throwUnsupported(in.loc, "device runtime function '" + callee + "' (dynamic parallelism)");
  // An extern function no input defines (NVIDIA's driver: CUDA_ERROR_INVALID_PTX, "Unresolved
  // extern function").
  throwInvalid(in.loc, "unresolved extern function '" + callee + "'");
}

} // namespace cucpu::jit
