// Layouts decided before lowering: kernel parameters, module variables, shared memory windows.
#include "lowering.h"
#include "ptx_passes.h"

#include "cucpu/support/log.h"

#include "kernel_abi.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <set>

namespace cucpu::jit {

uint64_t varBytes(const ptx::VarDecl &v) {
  uint64_t n = std::max(1u, ptx::typeSize(v.type)) * v.vecWidth;
  for (uint64_t d : v.dims)
    n *= d;
  return n;
}

uint32_t varAlign(const ptx::VarDecl &v) {
  if (v.align)
    return v.align;
  return std::max(1u, ptx::typeSize(v.type) * v.vecWidth);
}

void layoutParams(const ptx::Function &fn, KernelInfo &info) {
  uint32_t off = 0;
  info.params.clear();
  for (const auto &p : fn.params) {
    ParamInfo pi;
    pi.size = static_cast<uint32_t>(varBytes(p.decl));
    pi.align = varAlign(p.decl);
    off = (off + pi.align - 1) / pi.align * pi.align;
    pi.offset = off;
    off += pi.size;
    info.params.push_back(pi);
  }
  info.paramBytes = off;
  for (int d = 0; d < 3; ++d) {
    info.maxntid[d] = fn.maxntid[d];
    info.reqntid[d] = fn.reqntid[d];
  }
}

namespace {

// Static shared memory a function declares in its own body.
uint32_t functionSharedBytes(const ptx::Function &fn, uint32_t start) {
  uint32_t off = start;
  for (const auto &st : fn.body)
    if (auto *v = std::get_if<ptx::VarDecl>(&st); v && v->space == ptx::Space::Shared) {
      uint32_t a = varAlign(*v);
      off = (off + a - 1) / a * a + static_cast<uint32_t>(varBytes(*v));
    }
  return off;
}

// Little-endian bytes of a variable's initializer.
std::vector<uint8_t> initBytes(const ptx::VarDecl &v) {
  std::vector<uint8_t> out(varBytes(v), 0);
  const unsigned es = std::max(1u, ptx::typeSize(v.type));
  size_t pos = 0;
  for (const auto &op : v.init) {
    if (pos + es > out.size())
      throwInvalid(op.loc, "too many initializers for '" + v.name + "'");
    uint64_t bits = 0;
    if (op.kind == ptx::Operand::Kind::Imm) {
      if (v.type == ptx::Type::F32) {
        float f = static_cast<float>(op.imm);
        std::memcpy(&bits, &f, 4);
      } else if (v.type == ptx::Type::F64) {
        double d = static_cast<double>(op.imm);
        std::memcpy(&bits, &d, 8);
      } else {
        bits = static_cast<uint64_t>(op.imm);
      }
    } else if (op.kind == ptx::Operand::Kind::FImm) {
      if (v.type == ptx::Type::F32) {
        float f = op.fwidth == 32 ? 0.f : static_cast<float>(op.fval);
        if (op.fwidth == 32)
          bits = op.fbits;
        else
          std::memcpy(&bits, &f, 4);
      } else if (v.type == ptx::Type::F64) {
        double d = op.fval;
        if (op.fwidth == 64)
          bits = op.fbits;
        else
          std::memcpy(&bits, &d, 8);
      } else {
        bits = op.fbits;
      }
    } else if (op.kind != ptx::Operand::Kind::Symbol) { // symbols: addresses, see initializer()
      throwUnsupported(op.loc, "this initializer element in '" + v.name + "'");
    }
    std::memcpy(out.data() + pos, &bits, std::min<size_t>(es, 8));
    pos += es;
  }
  return out;
}

// A definition of the variables' module as seen from `mod`: itself, or a declaration there.
llvm::GlobalVariable *declaredIn(llvm::Module *mod, llvm::GlobalVariable *def) {
  if (def->getParent() == mod)
    return def;
  auto *decl = mod->getNamedGlobal(def->getName());
  if (!decl) {
    decl = new llvm::GlobalVariable(*mod, def->getValueType(), def->isConstant(),
                                    llvm::GlobalValue::ExternalLinkage, nullptr, def->getName());
    decl->setAlignment(def->getAlign());
  }
  return decl;
}

} // namespace

llvm::GlobalVariable *ModuleState::global(const std::string &name) {
  auto it = globals.find(name);
  return it == globals.end() ? nullptr : declaredIn(mod, it->second);
}

llvm::GlobalVariable *ModuleState::functionMarker(const std::string &name) {
  auto it = functionMarkers.find(name);
  return it == functionMarkers.end() ? nullptr : declaredIn(mod, it->second);
}

namespace {

// A variable's initializer. Elements naming a variable or a device function (`{f, g}`,
// `{&table, 0}`) hold its address: the bytes become a packed structure of byte runs and 64-bit
// addresses, which the JIT relocates.
llvm::Constant *initializer(ModuleState &ms, const ptx::VarDecl &v) {
  std::vector<uint8_t> bytes = v.hasInit ? initBytes(v) : std::vector<uint8_t>(varBytes(v), 0);
  auto &ctx = ms.ctx;
  std::vector<llvm::Constant *> parts;
  size_t done = 0;
  const unsigned es = std::max(1u, ptx::typeSize(v.type));
  for (size_t k = 0; k < v.init.size(); ++k) {
    const auto &op = v.init[k];
    if (op.kind != ptx::Operand::Kind::Symbol)
      continue;
    llvm::GlobalVariable *target = ms.global(op.name);
    if (!target)
      target = ms.functionMarker(op.name);
    if (!target)
      throwInvalid(op.loc,
                   "unknown symbol '" + op.name + "' in the initializer of '" + v.name + "'");
    const size_t at = k * es;
    if (op.mask) {
      // nvcc spreads an address over smaller elements, each the masked part of it:
      // {0xFF(generic(x)), 0xFF00(generic(x)), ..., 0xFF00000000000000(generic(x))} for .b8.
      const size_t parts8 = es < 8 ? 8 / es : 0;
      const uint64_t low = es < 8 ? (uint64_t(1) << (8 * es)) - 1 : 0;
      bool whole = parts8 && k + parts8 <= v.init.size();
      for (size_t j = 0; whole && j < parts8; ++j) {
        const auto &p = v.init[k + j];
        whole = p.kind == ptx::Operand::Kind::Symbol && p.name == op.name && p.imm == op.imm &&
                p.mask == low << (8 * es * j);
      }
      if (!whole)
        throwUnsupported(op.loc,
                         "a partial byte-masked address in the initializer of '" + v.name + "'");
      k += parts8 - 1;
    } else if (es != 8) {
      throwUnsupported(op.loc, "an address in a " + std::to_string(es * 8) +
                                   "-bit initializer element of '" + v.name + "'");
    }
    if (at > done)
      parts.push_back(llvm::ConstantDataArray::get(
          ctx, llvm::ArrayRef<uint8_t>(bytes.data() + done, at - done)));
    auto *i8 = llvm::Type::getInt8Ty(ctx);
    llvm::Constant *addr = llvm::ConstantExpr::getGetElementPtr(
        i8, target, llvm::ConstantInt::get(llvm::Type::getInt64Ty(ctx), op.imm));
    parts.push_back(llvm::ConstantExpr::getPtrToInt(addr, llvm::Type::getInt64Ty(ctx)));
    done = at + 8;
  }
  if (parts.empty())
    return llvm::ConstantDataArray::get(ctx, bytes);
  if (done < bytes.size())
    parts.push_back(llvm::ConstantDataArray::get(
        ctx, llvm::ArrayRef<uint8_t>(bytes.data() + done, bytes.size() - done)));
  return llvm::ConstantStruct::getAnon(ctx, parts, /*Packed=*/true);
}

} // namespace

void lowerModuleScope(ModuleState &ms, std::vector<KernelInfo> &) {
  auto &ctx = ms.ctx;
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *ptrTy = llvm::PointerType::get(ctx, 0);
  auto *dim3 = llvm::ArrayType::get(i32, 3);
  // Mirrors cucpu_launch and cucpu_block of kernel_abi.h.
  ms.launchTy = llvm::StructType::create(ctx, {dim3, dim3, ptrTy, i32, i32, ptrTy, ptrTy, i32},
                                         "cucpu_launch");
  ms.blockTy = llvm::StructType::create(ctx, {dim3, i32, ptrTy, ptrTy}, "cucpu_block");
  const auto &dl = ms.mod->getDataLayout();
  if (dl.getStructLayout(ms.launchTy)->getElementOffset(5) != CUCPU_LAUNCH_OFFSET_ENVREG ||
      dl.getStructLayout(ms.launchTy)->getElementOffset(7) != CUCPU_LAUNCH_OFFSET_FLAGS ||
      dl.getStructLayout(ms.blockTy)->getElementOffset(3) != CUCPU_BLOCK_OFFSET_SCRATCH)
    throwInvalid({}, "internal: kernel ABI layout mismatch");

  for (const auto &fn : ms.ast.functions)
    if (fn.hasBody && !ms.functionMarkers.count(fn.name)) {
      auto *i8 = llvm::Type::getInt8Ty(ctx);
      auto *gv = new llvm::GlobalVariable(*ms.mod, i8, true, llvm::GlobalValue::ExternalLinkage,
                                          llvm::ConstantInt::get(i8, 0),
                                          ms.symbolPrefix + "fn." + fn.name);
      gv->setAlignment(llvm::Align(16));
      ms.functionMarkers[fn.name] = gv;
    }
  ms.addressTaken = passes::addressTakenFunctions(ms.ast);

  uint32_t sharedOff = 0, dynamicAlign = 16;
  for (const auto &v : ms.ast.globals) {
    switch (v.space) {
    case ptx::Space::Shared: {
      ms.sharedAlign = std::max(ms.sharedAlign, varAlign(v));
      if (!v.dims.empty() && v.dims[0] == 0) {
        ms.dynamicShared[v.name] = true;
        dynamicAlign = std::max(dynamicAlign, varAlign(v));
        break;
      }
      uint32_t a = varAlign(v);
      sharedOff = (sharedOff + a - 1) / a * a;
      ms.sharedOffsets[v.name] = sharedOff;
      sharedOff += static_cast<uint32_t>(varBytes(v));
      break;
    }
    case ptx::Space::Global:
    case ptx::Space::Const: {
      if (v.space == ptx::Space::Const && v.linkage != ptx::Linkage::Extern) {
        // The constant bank is 64 KiB: more is INVALID_PTX at load, as an H200 answers.
        constexpr uint64_t kConstBank = 64 * 1024;
        const uint32_t a = varAlign(v);
        const uint64_t start = (uint64_t(ms.constBytes) + a - 1) / a * a;
        if (varBytes(v) > kConstBank - std::min(start, kConstBank))
          throwInvalid(v.loc, "'.const' data beyond the 64 KiB constant bank ('" + v.name + "')");
        ms.constBytes = static_cast<uint32_t>(start + varBytes(v));
      }
      if (v.linkage == ptx::Linkage::Extern) { // defined by another input of a link
        bool defined = std::any_of(ms.ast.globals.begin(), ms.ast.globals.end(), [&](auto &o) {
          return o.name == v.name && o.linkage != ptx::Linkage::Extern;
        });
        if (defined)
          break;
        // Defined by no input: NVIDIA's compiler ignores the extern qualifier and defines it
        // (zero), with a warning; so does cucpu.
        log::warn(log::Component::Jit,
                  "{}:{}: unresolved extern variable '{}': defined here, zero-initialised",
                  v.loc.line, v.loc.col, v.name);
        ms.unresolvedExterns.push_back(v.name);
      }
      // Zero for now: initializers may name variables defined further down (set below).
      auto *zero = llvm::ConstantAggregateZero::get(
          llvm::ArrayType::get(llvm::Type::getInt8Ty(ctx), varBytes(v)));
      auto *gv = new llvm::GlobalVariable(*ms.mod, zero->getType(), false,
                                          llvm::GlobalValue::ExternalLinkage, zero,
                                          ms.symbolPrefix + v.name);
      gv->setAlignment(llvm::Align(std::max<uint32_t>(varAlign(v), 16)));
      ms.globals[v.name] = gv;
      break;
    }
    default:
      throwUnsupported(v.loc, "module-scope variable in this state space");
    }
  }
  // Initializers, now that every variable and function has its address. A variable's type
  // becomes its initializer's (bytes, or bytes and addresses); users address it as bytes.
  for (const auto &v : ms.ast.globals) {
    auto it = ms.globals.find(v.name);
    if ((v.space != ptx::Space::Global && v.space != ptx::Space::Const) || it == ms.globals.end() ||
        v.linkage == ptx::Linkage::Extern)
      continue;
    llvm::GlobalVariable *old = it->second;
    llvm::Constant *init = initializer(ms, v);
    if (init->getType() == old->getValueType()) {
      old->setInitializer(init);
      continue;
    }
    auto *gv = new llvm::GlobalVariable(*ms.mod, init->getType(), false,
                                        llvm::GlobalValue::ExternalLinkage, init, "", old);
    gv->setAlignment(old->getAlign());
    gv->takeName(old);
    old->replaceAllUsesWith(gv);
    old->eraseFromParent();
    it->second = gv;
  }
  // .shared variables declared inside device functions are per block too, whatever inlined
  // copy of the function uses them: they follow the module-scope ones.
  for (const auto &fn : ms.ast.functions) {
    if (fn.isEntry || !fn.hasBody)
      continue;
    for (const auto &st : fn.body)
      if (auto *v = std::get_if<ptx::VarDecl>(&st); v && v->space == ptx::Space::Shared) {
        if (!v->dims.empty() && v->dims[0] == 0)
          throwUnsupported(v->loc, "function-scope extern .shared");
        uint32_t a = varAlign(*v);
        sharedOff = (sharedOff + a - 1) / a * a;
        ms.sharedOffsets[fn.name + "::" + v->name] = sharedOff;
        sharedOff += static_cast<uint32_t>(varBytes(*v));
      }
  }
  ms.moduleSharedBytes = sharedOff;
  uint32_t maxStatic = sharedOff;
  for (const auto &fn : ms.ast.functions)
    if (fn.hasBody) {
      maxStatic = std::max(maxStatic, functionSharedBytes(fn, sharedOff));
      for (const auto &st : fn.body)
        if (auto *v = std::get_if<ptx::VarDecl>(&st); v && v->space == ptx::Space::Shared)
          ms.sharedAlign = std::max(ms.sharedAlign, varAlign(*v));
    }
  ms.dynamicSharedOffset = (maxStatic + dynamicAlign - 1) / dynamicAlign * dynamicAlign;
}

} // namespace cucpu::jit
