// Layouts decided before lowering: kernel parameters, module variables, shared memory windows.
#include "lowering.h"

#include "kernel_abi.h"

#include <algorithm>
#include <cstring>

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
    } else {
      throwUnsupported(op.loc, "initializer referring to a symbol in '" + v.name + "'");
    }
    std::memcpy(out.data() + pos, &bits, std::min<size_t>(es, 8));
    pos += es;
  }
  return out;
}

} // namespace

llvm::GlobalVariable *ModuleState::global(const std::string &name) {
  auto it = globals.find(name);
  if (it == globals.end())
    return nullptr;
  llvm::GlobalVariable *def = it->second;
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

void lowerModuleScope(ModuleState &ms, std::vector<KernelInfo> &) {
  auto &ctx = ms.ctx;
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *ptrTy = llvm::PointerType::get(ctx, 0);
  auto *dim3 = llvm::ArrayType::get(i32, 3);
  // Mirrors cucpu_launch and cucpu_block of kernel_abi.h.
  ms.launchTy =
      llvm::StructType::create(ctx, {dim3, dim3, ptrTy, i32, i32, ptrTy, ptrTy}, "cucpu_launch");
  ms.blockTy = llvm::StructType::create(ctx, {dim3, i32, ptrTy, ptrTy}, "cucpu_block");
  const auto &dl = ms.mod->getDataLayout();
  if (dl.getStructLayout(ms.launchTy)->getElementOffset(5) != CUCPU_LAUNCH_OFFSET_ENVREG ||
      dl.getStructLayout(ms.blockTy)->getElementOffset(3) != CUCPU_BLOCK_OFFSET_SCRATCH)
    throwInvalid({}, "internal: kernel ABI layout mismatch");

  uint32_t sharedOff = 0;
  for (const auto &v : ms.ast.globals) {
    switch (v.space) {
    case ptx::Space::Shared: {
      if (!v.dims.empty() && v.dims[0] == 0) {
        ms.dynamicShared[v.name] = true;
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
      if (v.linkage == ptx::Linkage::Extern) { // defined by another input of a link
        bool defined = std::any_of(ms.ast.globals.begin(), ms.ast.globals.end(), [&](auto &o) {
          return o.name == v.name && o.linkage != ptx::Linkage::Extern;
        });
        if (!defined)
          throwUnsupported(v.loc, "external variable '" + v.name +
                                      "' (defined in no input: link the PTX that defines it)");
        break;
      }
      auto bytes = v.hasInit ? initBytes(v) : std::vector<uint8_t>(varBytes(v), 0);
      auto *init = llvm::ConstantDataArray::get(ctx, bytes);
      auto *gv = new llvm::GlobalVariable(*ms.mod, init->getType(), false,
                                          llvm::GlobalValue::ExternalLinkage, init,
                                          ms.symbolPrefix + v.name);
      gv->setAlignment(llvm::Align(std::max<uint32_t>(varAlign(v), 16)));
      ms.globals[v.name] = gv;
      break;
    }
    default:
      throwUnsupported(v.loc, "module-scope variable in this state space");
    }
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
    if (fn.hasBody)
      maxStatic = std::max(maxStatic, functionSharedBytes(fn, sharedOff));
  ms.dynamicSharedOffset = (maxStatic + 15) & ~15u;
}

} // namespace cucpu::jit
