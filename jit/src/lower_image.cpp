// Texture and surface instructions (tex, tld4, txq, suld, sust, sured, suq): a request record on
// the stack and a call into the texture/surface services of the launch record (kernel_abi.h).
#include "lowering.h"

#include "kernel_abi.h"

#include <cstddef>

namespace cucpu::jit {

using llvm::Value;
using K = ptx::Operand::Kind;
using T = ptx::Type;

namespace {

constexpr unsigned kTexture = offsetof(cucpu_services, texture);
constexpr unsigned kSurface = offsetof(cucpu_services, surface);
constexpr unsigned kImageQuery = offsetof(cucpu_services, image_query);

// The geometry modifier of a texture or surface instruction, or -1.
int geometryOf(const ptx::Instruction &in) {
  static const std::pair<Mod, int> kGeoms[] = {
      {Mod::_1d, CUCPU_GEOM_1D},     {Mod::_2d, CUCPU_GEOM_2D},  {Mod::_3d, CUCPU_GEOM_3D},
      {Mod::a1d, CUCPU_GEOM_A1D},    {Mod::a2d, CUCPU_GEOM_A2D}, {Mod::cube, CUCPU_GEOM_CUBE},
      {Mod::acube, CUCPU_GEOM_ACUBE}};
  for (Mod m : in.modIds)
    for (const auto &[name, g] : kGeoms)
      if (m == name)
        return g;
  return -1;
}

// Coordinates per geometry: (array index first for layered geometries) then x, y, z.
unsigned coordCount(int g) {
  switch (g) {
  case CUCPU_GEOM_1D:
  case CUCPU_GEOM_A1D:
    return 1;
  case CUCPU_GEOM_2D:
  case CUCPU_GEOM_A2D:
    return 2;
  default:
    return 3;
  }
}

bool layeredGeometry(int g) {
  return g == CUCPU_GEOM_A1D || g == CUCPU_GEOM_A2D || g == CUCPU_GEOM_ACUBE;
}

int queryOf(Mod m) {
  static const std::pair<Mod, int> kQueries[] = {
      {Mod::width, CUCPU_Q_WIDTH},
      {Mod::height, CUCPU_Q_HEIGHT},
      {Mod::depth, CUCPU_Q_DEPTH},
      {Mod::channel_data_type, CUCPU_Q_CHANNEL_DATA_TYPE},
      {Mod::channel_order, CUCPU_Q_CHANNEL_ORDER},
      {Mod::normalized_coords, CUCPU_Q_NORMALIZED_COORDS},
      {Mod::array_size, CUCPU_Q_ARRAY_SIZE},
      {Mod::num_mipmap_levels, CUCPU_Q_NUM_MIPMAP_LEVELS},
      {Mod::num_samples, CUCPU_Q_NUM_SAMPLES},
      {Mod::filter_mode, CUCPU_Q_FILTER_MODE},
      {Mod::addr_mode_0, CUCPU_Q_ADDR_MODE_0},
      {Mod::addr_mode_1, CUCPU_Q_ADDR_MODE_1},
      {Mod::addr_mode_2, CUCPU_Q_ADDR_MODE_2},
      {Mod::force_unnormalized_coords, CUCPU_Q_FORCE_UNNORMALIZED_COORDS},
      {Mod::memory_layout, CUCPU_Q_MEMORY_LAYOUT}};
  for (const auto &[name, q] : kQueries)
    if (m == name)
      return q;
  return -1;
}

} // namespace

bool KernelLowering::emitImageInstruction(const ptx::Instruction &in) {
  const Op op = in.op;
  if (op != Op::tex && op != Op::tld4 && op != Op::txq && op != Op::suld && op != Op::sust &&
      op != Op::sured && op != Op::suq)
    return false;
  auto unsupported = [&](const std::string &what) {
    throwUnsupported(in.loc, what + " in '" + spellingOf(in) + "'");
  };
  const auto &o = in.operands;
  auto *ptrTy = llvm::PointerType::get(ctx, 0);
  auto *i8 = b.getInt8Ty();
  auto *i32 = b.getInt32Ty();
  auto *i64 = b.getInt64Ty();
  auto stackBytes = [&](size_t bytes, const char *name) {
    llvm::IRBuilder<> eb(&f_->getEntryBlock(), f_->getEntryBlock().begin());
    auto *a = eb.CreateAlloca(llvm::ArrayType::get(i8, bytes), nullptr, name);
    a->setAlignment(llvm::Align(16));
    return a;
  };
  auto field = [&](Value *base, size_t offset) { return b.CreateConstGEP1_64(i8, base, offset); };
  // The handle of `[a, ...]`: a 64-bit register (texture/surface objects). Texture and surface
  // references (.texref/.surfref variables) are not supported.
  auto handleOf = [&](const ptx::Operand &addr) -> Value * {
    if (addr.kind != K::Address && addr.kind != K::Reg)
      throwInvalid(addr.loc, "expected [handle, ...] in '" + spellingOf(in) + "'");
    ptx::Operand r = addr;
    r.kind = K::Reg;
    r.elems.clear();
    if (!addr.addrIsReg && !regIds_.count(addr.name))
      unsupported("texture or surface reference '" + addr.name + "'");
    return read(r, T::U64, in);
  };
  // The elements of a coordinate (or value) operand: a vector or one scalar.
  auto elementsOf = [&](const ptx::Operand &v) {
    std::vector<const ptx::Operand *> out;
    if (v.kind == K::Vector)
      for (const auto &e : v.elems)
        out.push_back(&e);
    else
      out.push_back(&v);
    return out;
  };

  if (op == Op::txq || op == Op::suq) {
    // txq[.level].query.b32 d, [a][, lod];  suq.query.b32 d, [a];
    int q = -1;
    for (Mod m : in.modIds)
      if (queryOf(m) >= 0)
        q = queryOf(m);
    const bool level = in.has(Mod::level);
    if (q < 0 || o.size() != (level ? 3u : 2u))
      throwInvalid(in.loc, "malformed '" + spellingOf(in) + "'");
    if (o[1].kind == K::Address && !o[1].elems.empty())
      throwInvalid(in.loc, "'" + spellingOf(in) + "' takes [handle]");
    Value *handle = handleOf(o[1]);
    Value *lod = level ? read(o[2], T::S32, in) : b.getInt32(0);
    const uint32_t query = uint32_t(q) | (op == Op::suq ? uint32_t(CUCPU_Q_SURFACE) : 0u);
    auto *fnTy = llvm::FunctionType::get(i32, {ptrTy, i64, i32, i32, ptrTy}, false);
    Value *v = b.CreateCall(fnTy, serviceFunction(kImageQuery),
                            {launch_, handle, b.getInt32(query), lod, threadWhere()});
    write(o[0], v, T::B32, in);
    return true;
  }

  const int geom = geometryOf(in);
  if (geom < 0) {
    if (in.has(Mod::_2dms) || in.has(Mod::a2dms))
      unsupported("multisample texture geometry");
    throwInvalid(in.loc, "'" + spellingOf(in) + "' has no geometry (.1d, .2d, ...)");
  }
  const bool layered = layeredGeometry(geom);
  const unsigned ncoord = coordCount(geom);

  if (op == Op::tex || op == Op::tld4) {
    // tex{.level|.grad}.geom.v4.dtype.ctype d[|p], [a, c]{, lod | dPdx, dPdy}{, e}{, f};
    if (in.types.size() != 2 || o.size() < 2 || o[1].kind != K::Address)
      throwInvalid(in.loc, "malformed '" + spellingOf(in) + "'");
    if (o[1].elems.size() != 1)
      unsupported("a separate sampler (texmode_independent)");
    const T dtype = in.types[0], ctype = in.types[1];
    const bool f16 = dtype == T::F16x2;
    if (dtype != T::F32 && dtype != T::S32 && dtype != T::U32 && !f16)
      unsupported("result type ." + std::string(ptx::typeName(dtype)));
    if (ctype != T::F32 && ctype != T::S32)
      throwInvalid(in.loc, "coordinates of '" + spellingOf(in) + "' must be .f32 or .s32");
    if (in.has(Mod::base) || in.has(Mod::clamp))
      unsupported("level-of-detail clamp forms");
    Value *handle = handleOf(o[1]);
    Value *req = stackBytes(sizeof(cucpu_tex_request), "texreq");
    uint32_t flags = ctype == T::S32 ? CUCPU_TEX_INT_COORDS : 0;
    if (f16)
      flags |= CUCPU_TEX_F16X2;
    auto coords = elementsOf(o[1].elems[0]);
    if (coords.size() < ncoord + (layered ? 1 : 0))
      throwInvalid(in.loc, "too few coordinates in '" + spellingOf(in) + "'");
    size_t c = 0;
    if (layered)
      b.CreateStore(read(*coords[c++], T::S32, in), field(req, offsetof(cucpu_tex_request, layer)));
    for (unsigned d = 0; d < 3; ++d) {
      Value *v =
          d < ncoord ? read(*coords[c + d], ctype == T::S32 ? T::B32 : T::F32, in) : b.getInt32(0);
      if (v->getType()->isFloatTy())
        v = b.CreateBitCast(v, i32);
      b.CreateStore(v, field(req, offsetof(cucpu_tex_request, coord) + 4 * d));
    }
    size_t k = 2;
    auto floats = [&](const ptx::Operand &v, size_t offset) {
      auto es = elementsOf(v);
      for (unsigned d = 0; d < 3; ++d)
        b.CreateStore(d < es.size() && es[d]->kind != K::Sink
                          ? read(*es[d], T::F32, in)
                          : llvm::ConstantFP::get(b.getFloatTy(), 0.0),
                      field(req, offset + 4 * d));
    };
    if (op == Op::tld4) {
      unsigned comp = 4;
      static constexpr Mod kComponents[] = {Mod::r, Mod::g, Mod::b, Mod::a};
      for (unsigned i = 0; i < 4; ++i)
        if (in.has(kComponents[i]))
          comp = i;
      if (comp == 4)
        throwInvalid(in.loc, "'" + spellingOf(in) + "' has no component (.r, .g, .b, .a)");
      flags |= CUCPU_TEX_GATHER;
      b.CreateStore(b.getInt32(comp), field(req, offsetof(cucpu_tex_request, component)));
    } else if (in.has(Mod::level)) {
      if (k >= o.size())
        throwInvalid(in.loc, "'" + spellingOf(in) + "' needs a level of detail");
      flags |= CUCPU_TEX_LEVEL;
      b.CreateStore(read(o[k++], T::F32, in), field(req, offsetof(cucpu_tex_request, lod)));
    } else if (in.has(Mod::grad)) {
      if (k + 2 > o.size())
        throwInvalid(in.loc, "'" + spellingOf(in) + "' needs two gradients");
      flags |= CUCPU_TEX_GRAD;
      floats(o[k++], offsetof(cucpu_tex_request, dpdx));
      floats(o[k++], offsetof(cucpu_tex_request, dpdy));
    }
    if (k < o.size() && (o[k].kind == K::Vector || geom == CUCPU_GEOM_1D)) { // texel offsets
      flags |= CUCPU_TEX_OFFSET;
      auto es = elementsOf(o[k++]);
      for (unsigned d = 0; d < 3; ++d)
        b.CreateStore(d < es.size() ? read(*es[d], T::S32, in) : b.getInt32(0),
                      field(req, offsetof(cucpu_tex_request, offset) + 4 * d));
    }
    if (k < o.size())
      unsupported("depth comparison");
    b.CreateStore(b.getInt32(uint32_t(geom)), field(req, offsetof(cucpu_tex_request, geometry)));
    b.CreateStore(b.getInt32(flags), field(req, offsetof(cucpu_tex_request, flags)));
    b.CreateStore(threadWhere(), field(req, offsetof(cucpu_tex_request, where)));
    Value *out = stackBytes(16, "texout");
    auto *fnTy = llvm::FunctionType::get(i32, {ptrTy, i64, ptrTy, ptrTy}, false);
    Value *resident = b.CreateCall(fnTy, serviceFunction(kTexture), {launch_, handle, req, out});
    const ptx::Operand &d = o[0];
    auto dest = elementsOf(d);
    if (dest.size() > (f16 ? 2u : 4u))
      throwInvalid(in.loc, "too many results in '" + spellingOf(in) + "'");
    for (size_t i = 0; i < dest.size(); ++i) {
      Value *w = b.CreateLoad(i32, field(out, 4 * i));
      if (dtype == T::F32)
        write(*dest[i], b.CreateBitCast(w, b.getFloatTy()), T::F32, in);
      else
        write(*dest[i], w, T::B32, in);
    }
    if (!d.name2.empty()) {
      ptx::Operand p = d;
      p.kind = K::Reg;
      p.name = d.name2;
      p.name2.clear();
      p.elems.clear();
      write(p, b.CreateICmpNE(resident, b.getInt32(0)), T::Pred, in);
    }
    return true;
  }

  // suld.b.geom{.cop}.vec.dtype.clamp d, [a, b];  sust.{b|p}.geom{.cop}.vec.ctype.clamp [a, b], c;
  // sured.{b|p}.op.geom.ctype.clamp [a, b], c;
  if (in.types.size() != 1 || o.size() != 2)
    throwInvalid(in.loc, "malformed '" + spellingOf(in) + "'");
  const bool load = op == Op::suld;
  const ptx::Operand &addr = load ? o[1] : o[0];
  const ptx::Operand &val = load ? o[0] : o[1];
  if (addr.kind != K::Address || addr.elems.size() != 1)
    throwInvalid(in.loc, "expected [surface, coordinates] in '" + spellingOf(in) + "'");
  if (geom == CUCPU_GEOM_CUBE || geom == CUCPU_GEOM_ACUBE)
    throwInvalid(in.loc, "surfaces have no cube geometry: '" + spellingOf(in) + "'");
  const bool formatted = in.has(Mod::p);
  if (!formatted && !in.has(Mod::b))
    throwInvalid(in.loc, "'" + spellingOf(in) + "' needs .b or .p");
  if (formatted && load)
    unsupported("formatted surface loads");
  const T type = in.types[0];
  const unsigned es = ptx::typeSize(type);
  const unsigned vw = in.has(Mod::v4) ? 4 : in.has(Mod::v2) ? 2 : 1;
  uint32_t clamp = CUCPU_SURF_TRAP;
  if (in.has(Mod::clamp))
    clamp = CUCPU_SURF_CLAMP;
  else if (in.has(Mod::zero))
    clamp = CUCPU_SURF_ZERO;
  Value *handle = handleOf(addr);
  Value *req = stackBytes(sizeof(cucpu_surf_request), "surfreq");
  auto coords = elementsOf(addr.elems[0]);
  if (coords.size() < ncoord + (layered ? 1 : 0))
    throwInvalid(in.loc, "too few coordinates in '" + spellingOf(in) + "'");
  size_t c = 0;
  b.CreateStore(layered ? read(*coords[c++], T::S32, in) : b.getInt32(0),
                field(req, offsetof(cucpu_surf_request, layer)));
  for (unsigned d = 0; d < 3; ++d)
    b.CreateStore(d < ncoord ? read(*coords[c + d], T::S32, in) : b.getInt32(0),
                  field(req, offsetof(cucpu_surf_request, coord) + 4 * d));
  uint32_t sop = load ? CUCPU_SURF_LOAD : CUCPU_SURF_STORE;
  uint32_t red = 0;
  unsigned bytes = vw * es;
  Value *data = stackBytes(32, "surfdata");
  auto elems = elementsOf(val);
  if (op == Op::sured) {
    sop = CUCPU_SURF_RED;
    static const std::pair<Mod, uint32_t> kOps[] = {{Mod::add, CUCPU_RED_ADD},
                                                    {Mod::min, CUCPU_RED_MIN},
                                                    {Mod::max, CUCPU_RED_MAX},
                                                    {Mod::and_, CUCPU_RED_AND},
                                                    {Mod::or_, CUCPU_RED_OR}};
    bool found = false;
    for (const auto &[name, r] : kOps)
      if (in.has(name)) {
        red = r;
        found = true;
      }
    if (!found || (es != 4 && es != 8) || vw != 1)
      throwInvalid(in.loc, "malformed '" + spellingOf(in) + "'");
    const bool isSigned = ptx::isSigned(type);
    red |= es == 4 ? (isSigned ? CUCPU_RED_S32 : CUCPU_RED_U32)
                   : (isSigned ? CUCPU_RED_S64 : CUCPU_RED_U64);
    if (formatted)
      bytes = 0; // x counts samples
    b.CreateStore(read(val, type, in), data);
  } else if (formatted) {
    sop = CUCPU_SURF_STORE_P;
    if (es != 4)
      throwInvalid(in.loc, "'" + spellingOf(in) + "' stores .b32 values");
    for (unsigned i = 0; i < 4; ++i)
      b.CreateStore(i < elems.size() ? read(*elems[i], T::B32, in) : b.getInt32(0),
                    field(data, 4 * i));
  } else {
    if (elems.size() != vw || es == 0 || es > 8)
      throwInvalid(in.loc, "malformed '" + spellingOf(in) + "'");
    if (!load)
      for (unsigned i = 0; i < vw; ++i)
        b.CreateStore(read(*elems[i], type, in), field(data, es * i));
  }
  b.CreateStore(b.getInt32(sop), field(req, offsetof(cucpu_surf_request, op)));
  b.CreateStore(b.getInt32(uint32_t(geom)), field(req, offsetof(cucpu_surf_request, geometry)));
  b.CreateStore(b.getInt32(bytes), field(req, offsetof(cucpu_surf_request, bytes)));
  b.CreateStore(b.getInt32(clamp), field(req, offsetof(cucpu_surf_request, clamp)));
  b.CreateStore(b.getInt32(red), field(req, offsetof(cucpu_surf_request, red)));
  b.CreateStore(threadWhere(), field(req, offsetof(cucpu_surf_request, where)));
  auto *fnTy = llvm::FunctionType::get(b.getVoidTy(), {ptrTy, i64, ptrTy, ptrTy}, false);
  b.CreateCall(fnTy, serviceFunction(kSurface), {launch_, handle, req, data});
  if (load) { // (the shape was checked with the stores' above)
    llvm::Type *ety = b.getIntNTy(es * 8);
    for (unsigned i = 0; i < vw; ++i)
      write(*elems[i], b.CreateLoad(ety, field(data, es * i)), type, in);
  }
  return true;
}

} // namespace cucpu::jit
