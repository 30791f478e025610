// CUDA arrays and mipmapped arrays, texture and surface objects, and their handle registries.
#include "cucpu/driver/image.h"

#include "cucpu/driver/memory.h"
#include "cucpu/driver/reason.h"
#include "cucpu/support/log.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <new>
#include <set>

namespace cucpu::driver {

unsigned channelBytes(CUarray_format f) {
  switch (f) {
  case CU_AD_FORMAT_UNSIGNED_INT8:
  case CU_AD_FORMAT_SIGNED_INT8:
  case CU_AD_FORMAT_UNORM_INT8X1:
  case CU_AD_FORMAT_UNORM_INT8X2:
  case CU_AD_FORMAT_UNORM_INT8X4:
  case CU_AD_FORMAT_SNORM_INT8X1:
  case CU_AD_FORMAT_SNORM_INT8X2:
  case CU_AD_FORMAT_SNORM_INT8X4:
    return 1;
  case CU_AD_FORMAT_UNSIGNED_INT16:
  case CU_AD_FORMAT_SIGNED_INT16:
  case CU_AD_FORMAT_HALF:
  case CU_AD_FORMAT_UNORM_INT16X1:
  case CU_AD_FORMAT_UNORM_INT16X2:
  case CU_AD_FORMAT_UNORM_INT16X4:
  case CU_AD_FORMAT_SNORM_INT16X1:
  case CU_AD_FORMAT_SNORM_INT16X2:
  case CU_AD_FORMAT_SNORM_INT16X4:
    return 2;
  case CU_AD_FORMAT_UNSIGNED_INT32:
  case CU_AD_FORMAT_SIGNED_INT32:
  case CU_AD_FORMAT_FLOAT:
    return 4;
  default:
    return 0;
  }
}

unsigned formatChannels(CUarray_format f) {
  switch (f) {
  case CU_AD_FORMAT_UNORM_INT8X1:
  case CU_AD_FORMAT_SNORM_INT8X1:
  case CU_AD_FORMAT_UNORM_INT16X1:
  case CU_AD_FORMAT_SNORM_INT16X1:
    return 1;
  case CU_AD_FORMAT_UNORM_INT8X2:
  case CU_AD_FORMAT_SNORM_INT8X2:
  case CU_AD_FORMAT_UNORM_INT16X2:
  case CU_AD_FORMAT_SNORM_INT16X2:
    return 2;
  case CU_AD_FORMAT_UNORM_INT8X4:
  case CU_AD_FORMAT_SNORM_INT8X4:
  case CU_AD_FORMAT_UNORM_INT16X4:
  case CU_AD_FORMAT_SNORM_INT16X4:
    return 4;
  default:
    return 0;
  }
}

namespace {

// Formats cucpu cannot store (block-compressed, YUV) are NOT_SUPPORTED, values that name no
// format INVALID_VALUE.
// The channel count a block-compressed format's descriptor must give (0 for other formats).
unsigned blockCompressedChannels(CUarray_format f) {
  if (f >= CU_AD_FORMAT_BC1_UNORM && f <= CU_AD_FORMAT_BC3_UNORM_SRGB)
    return 4;
  if (f == CU_AD_FORMAT_BC4_UNORM || f == CU_AD_FORMAT_BC4_SNORM)
    return 1;
  if (f == CU_AD_FORMAT_BC5_UNORM || f == CU_AD_FORMAT_BC5_SNORM)
    return 2;
  if (f == CU_AD_FORMAT_BC6H_UF16 || f == CU_AD_FORMAT_BC6H_SF16)
    return 3;
  if (f == CU_AD_FORMAT_BC7_UNORM || f == CU_AD_FORMAT_BC7_UNORM_SRGB)
    return 4;
  return 0;
}

CUresult checkFormat(CUarray_format f, unsigned channels) {
  if (channelBytes(f) == 0) {
    // A descriptor that contradicts its format is invalid before the format is unsupported (an
    // H200 answers 1 for BC5 with one channel).
    if (unsigned want = blockCompressedChannels(f); want && want != channels)
      return fail(CUDA_ERROR_INVALID_VALUE, "format {:#x} has {} channels, not {}", unsigned(f),
                  blockCompressedChannels(f), channels);
    const bool known = (f >= 0x91 && f <= 0xb5) || f == CU_AD_FORMAT_UNORM_INT_101010_2;
    if (known)
      log::warn(log::Component::Api,
                "array format {:#x} (block-compressed or YUV) is not supported", unsigned(f));
    return known
               ? fail(CUDA_ERROR_NOT_SUPPORTED, "array format {:#x} is not supported", unsigned(f))
               : fail(CUDA_ERROR_INVALID_VALUE, "array format {:#x} is unknown", unsigned(f));
  }
  if (channels != 1 && channels != 2 && channels != 4)
    return fail(CUDA_ERROR_INVALID_VALUE, "{} channels: 1, 2 or 4", channels);
  if (formatChannels(f) && formatChannels(f) != channels)
    return fail(CUDA_ERROR_INVALID_VALUE, "format {:#x} has {} channels, not {}", unsigned(f),
                formatChannels(f), channels);
  return CUDA_SUCCESS;
}

constexpr unsigned kKnownArrayFlags = CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST |
                                      CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_TEXTURE_GATHER |
                                      CUDA_ARRAY3D_COLOR_ATTACHMENT;

} // namespace

CUresult Array::create(Context *ctx, const CUDA_ARRAY3D_DESCRIPTOR &d,
                       std::shared_ptr<Array> *out) {
  if (CUresult r = checkFormat(d.Format, d.NumChannels); r != CUDA_SUCCESS)
    return r;
  if (d.Flags & ~kKnownArrayFlags)
    return (d.Flags & (CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING |
                       CUDA_ARRAY3D_DEPTH_TEXTURE | CUDA_ARRAY3D_VIDEO_ENCODE_DECODE))
               ? fail(CUDA_ERROR_NOT_SUPPORTED, "array flags {:#x} are not supported", d.Flags)
               : fail(CUDA_ERROR_INVALID_VALUE, "array flags {:#x} has unknown bits", d.Flags);
  const bool layered = d.Flags & CUDA_ARRAY3D_LAYERED, cube = d.Flags & CUDA_ARRAY3D_CUBEMAP;
  if (d.Width == 0 || (d.Height == 0 && d.Depth != 0 && !layered))
    return fail(CUDA_ERROR_INVALID_VALUE, "an array of {} x {} x {}", d.Width, d.Height, d.Depth);
  if ((layered || cube) && d.Depth == 0)
    return fail(CUDA_ERROR_INVALID_VALUE, "a layered or cubemap array needs a depth");
  if (cube && (d.Width != d.Height || d.Depth % 6 || (!layered && d.Depth != 6)))
    return fail(CUDA_ERROR_INVALID_VALUE, "a cubemap needs square faces and 6 layers (per cube)");
  constexpr size_t kMaxDim = 1u << 17;
  if (d.Width > kMaxDim || d.Height > kMaxDim || d.Depth > kMaxDim)
    return fail(CUDA_ERROR_INVALID_VALUE, "an array of {} x {} x {}: at most {} each", d.Width,
                d.Height, d.Depth, kMaxDim);
  auto a = std::shared_ptr<Array>(new Array);
  a->desc_ = d;
  a->ctx_ = ctx;
  a->elementBytes_ = channelBytes(d.Format) * d.NumChannels;
  a->pitch_ = d.Width * a->elementBytes_;
  a->rows_ = d.Height ? uint32_t(d.Height) : 1;
  a->slices_ = d.Depth ? uint32_t(d.Depth) : 1;
  const size_t bytes = a->pitch_ * a->rows_ * a->slices_;
  a->storage_.reset(new (std::nothrow) uint8_t[bytes]());
  if (!a->storage_)
    return fail(CUDA_ERROR_OUT_OF_MEMORY, "no memory for {} bytes of array", bytes);
  *out = std::move(a);
  return CUDA_SUCCESS;
}

ImageLevel Array::level() const {
  ImageLevel l;
  l.data = storage_.get();
  l.width = uint32_t(desc_.Width);
  l.height = rows_;
  const bool layered = desc_.Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP);
  l.depth = layered ? 1 : slices_;
  l.pitch = pitch_;
  l.slicePitch = pitch_ * rows_;
  return l;
}

CUresult MipmappedArray::create(Context *ctx, const CUDA_ARRAY3D_DESCRIPTOR &d, unsigned levels,
                                std::shared_ptr<MipmappedArray> *out) {
  if (levels == 0)
    return fail(CUDA_ERROR_INVALID_VALUE, "levels is 0");
  const bool layered = d.Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP);
  const size_t largest = std::max({d.Width, d.Height, layered ? size_t(0) : d.Depth});
  unsigned most = 1;
  while ((largest >> most) > 0)
    ++most;
  levels = std::min(levels, most); // NVIDIA's driver accepts more and makes as many as fit
  auto m = std::make_shared<MipmappedArray>();
  m->desc_ = d;
  m->ctx_ = ctx;
  for (unsigned l = 0; l < levels; ++l) {
    CUDA_ARRAY3D_DESCRIPTOR ld = d;
    ld.Width = std::max<size_t>(1, d.Width >> l);
    ld.Height = d.Height ? std::max<size_t>(1, d.Height >> l) : 0;
    if (!layered)
      ld.Depth = d.Depth ? std::max<size_t>(1, d.Depth >> l) : 0;
    std::shared_ptr<Array> a;
    if (CUresult r = Array::create(ctx, ld, &a); r != CUDA_SUCCESS)
      return r;
    a->ownedByMipmap = true;
    m->levels_.push_back(std::move(a));
  }
  *out = std::move(m);
  return CUDA_SUCCESS;
}

namespace {

// Arrays and mipmapped arrays by handle (their addresses).
struct ArrayRegistry {
  std::mutex mutex;
  std::map<const void *, std::shared_ptr<Array>> arrays;
  std::map<const void *, std::shared_ptr<MipmappedArray>> mipmaps;
  std::set<const void *> orphans; // handles of arrays their destroyed context took with it
};

ArrayRegistry &arrays() {
  static auto *r = new ArrayRegistry; // outlives static destructors of other translation units
  return *r;
}

// Texture and surface objects share one handle space, as in NVIDIA's driver (a texture, then a
// surface, get handles 1 and 2): the slots in use or free, under one lock.
struct HandleSlots {
  std::mutex mutex;
  std::vector<size_t> free;
  size_t next = 0;
};

HandleSlots &handleSlots() {
  static auto *s = new HandleSlots;
  return *s;
}

// Handle h is slot h - 1 of each kind's fixed chunks that never move, so generated code's lookups
// take no lock.
template <typename T> class ObjectTable {
public:
  CUresult add(std::unique_ptr<T> obj, unsigned long long *out) {
    HandleSlots &hs = handleSlots();
    std::lock_guard lk(hs.mutex);
    size_t slot;
    if (!hs.free.empty()) {
      slot = hs.free.back();
      hs.free.pop_back();
    } else {
      slot = hs.next++;
      if (slot >= kChunks * kChunkSize)
        return fail(CUDA_ERROR_OUT_OF_MEMORY, "every texture and surface object handle is in use");
    }
    auto &chunk = chunks_[slot / kChunkSize];
    if (!chunk.load(std::memory_order_relaxed))
      chunk.store(new Chunk(), std::memory_order_release);
    (*chunk.load())[slot % kChunkSize].store(obj.release(), std::memory_order_release);
    *out = slot + 1;
    return CUDA_SUCCESS;
  }
  const T *find(uint64_t h) const {
    if (h == 0 || h > kChunks * kChunkSize)
      return nullptr;
    const Chunk *c = chunks_[(h - 1) / kChunkSize].load(std::memory_order_acquire);
    return c ? (*c)[(h - 1) % kChunkSize].load(std::memory_order_acquire) : nullptr;
  }
  CUresult remove(uint64_t h) {
    HandleSlots &hs = handleSlots();
    std::lock_guard lk(hs.mutex);
    if (!find(h))
      return fail(CUDA_ERROR_INVALID_VALUE, "the texture or surface object is not live");
    auto &entry = (*chunks_[(h - 1) / kChunkSize].load())[(h - 1) % kChunkSize];
    delete entry.exchange(nullptr);
    hs.free.push_back(h - 1);
    return CUDA_SUCCESS;
  }
  void removeIf(const std::function<bool(const T &)> &pred) {
    HandleSlots &hs = handleSlots();
    std::lock_guard lk(hs.mutex);
    for (size_t s = 0; s < hs.next; ++s) {
      Chunk *chunk = chunks_[s / kChunkSize].load();
      if (!chunk)
        continue;
      auto &entry = (*chunk)[s % kChunkSize];
      if (T *o = entry.load(); o && pred(*o)) {
        delete entry.exchange(nullptr);
        hs.free.push_back(s);
      }
    }
  }

private:
  static constexpr size_t kChunkSize = 4096, kChunks = 256;
  using Chunk = std::array<std::atomic<T *>, kChunkSize>;
  std::array<std::atomic<Chunk *>, kChunks> chunks_{};
};

ObjectTable<TextureObject> &textures() {
  static auto *t = new ObjectTable<TextureObject>;
  return *t;
}
ObjectTable<SurfaceObject> &surfaces() {
  static auto *t = new ObjectTable<SurfaceObject>;
  return *t;
}

void addArrayLevels(ImageView &v, const std::shared_ptr<Array> &a) {
  v.levels.push_back(a->level());
  v.keepAlive.push_back(a);
}

// The view of a resource descriptor, validated as cuTexObjectCreate / cuSurfObjectCreate do.
CUresult viewOf(const CUDA_RESOURCE_DESC &res, bool surface, ImageView *out) {
  if (res.flags)
    return fail(CUDA_ERROR_INVALID_VALUE, "the resource's flags are not 0");
  ImageView v;
  const CUDA_ARRAY3D_DESCRIPTOR *d = nullptr;
  switch (res.resType) {
  case CU_RESOURCE_TYPE_ARRAY: {
    if (!res.res.array.hArray) // no array at all (an H200: 1), a stale one is a bad handle
      return fail(CUDA_ERROR_INVALID_VALUE, "the resource names no array");
    auto a = findArray(res.res.array.hArray);
    if (!a)
      return fail(CUDA_ERROR_INVALID_HANDLE, "the resource's array is not live");
    addArrayLevels(v, a);
    d = &a->descriptor();
    v.layers = (d->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) ? a->slices() : 1;
    break;
  }
  case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY: {
    if (surface)
      return fail(CUDA_ERROR_INVALID_VALUE, "a surface needs a CUDA array");
    auto m = findMipmappedArray(res.res.mipmap.hMipmappedArray);
    if (!m)
      return fail(CUDA_ERROR_INVALID_HANDLE, "the resource's mipmapped array is not live");
    for (const auto &a : m->levels())
      v.levels.push_back(a->level());
    v.keepAlive.push_back(m);
    d = &m->descriptor();
    v.layers = (d->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) ? uint32_t(d->Depth) : 1;
    break;
  }
  case CU_RESOURCE_TYPE_LINEAR:
  case CU_RESOURCE_TYPE_PITCH2D: {
    if (surface)
      return fail(CUDA_ERROR_INVALID_VALUE, "a surface needs a CUDA array");
    const bool lin = res.resType == CU_RESOURCE_TYPE_LINEAR;
    const CUdeviceptr p = lin ? res.res.linear.devPtr : res.res.pitch2D.devPtr;
    v.format = lin ? res.res.linear.format : res.res.pitch2D.format;
    v.channels = lin ? res.res.linear.numChannels : res.res.pitch2D.numChannels;
    if (CUresult r = checkFormat(v.format, v.channels); r != CUDA_SUCCESS)
      return r;
    v.elementBytes = channelBytes(v.format) * v.channels;
    ImageLevel l;
    l.data = reinterpret_cast<uint8_t *>(static_cast<uintptr_t>(p));
    size_t extent;
    if (lin) {
      l.width = uint32_t(std::min<size_t>(res.res.linear.sizeInBytes / v.elementBytes, 1u << 27));
      l.pitch = res.res.linear.sizeInBytes;
      extent = res.res.linear.sizeInBytes;
      if (l.width == 0)
        return fail(CUDA_ERROR_INVALID_VALUE, "the linear resource is empty");
    } else {
      const auto &pd = res.res.pitch2D;
      if (pd.width == 0 || pd.height == 0 || pd.pitchInBytes < pd.width * v.elementBytes ||
          pd.pitchInBytes % 32 || pd.width > 131072 || pd.height > 65536)
        return fail(CUDA_ERROR_INVALID_VALUE,
                    "pitch2D {} x {} with pitch {}: empty, too large, or a pitch too small or not "
                    "a multiple of 32",
                    pd.width, pd.height, pd.pitchInBytes);
      l.width = uint32_t(pd.width);
      l.height = uint32_t(pd.height);
      l.pitch = pd.pitchInBytes;
      extent = (pd.height - 1) * pd.pitchInBytes + pd.width * v.elementBytes;
    }
    l.slicePitch = l.pitch * l.height;
    if (!p || p % 256 || !memory().find(uintptr_t(p), extent, nullptr))
      return fail(CUDA_ERROR_INVALID_VALUE,
                  "{:#x}: NULL, not 256-byte aligned or not inside one live allocation", p);
    v.levels.push_back(l);
    v.linear = lin;
    v.dims = lin ? 1 : 2;
    *out = std::move(v);
    return CUDA_SUCCESS;
  }
  default:
    return fail(CUDA_ERROR_INVALID_VALUE, "res.resType = {} is not a value this call takes",
                static_cast<long long>(res.resType));
  }
  v.isArray = true;
  v.dims = d->Height == 0                                                                  ? 1
           : (d->Depth == 0 || (d->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP))) ? 2
                                                                                           : 3;
  v.format = d->Format;
  v.channels = d->NumChannels;
  v.elementBytes = channelBytes(v.format) * v.channels;
  v.arrayFlags = d->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP);
  *out = std::move(v);
  return CUDA_SUCCESS;
}

} // namespace

CUresult registerArray(std::shared_ptr<Array> a, CUarray *out) {
  auto &r = arrays();
  std::lock_guard lk(r.mutex);
  *out = reinterpret_cast<CUarray>(a.get());
  r.orphans.erase(a.get());
  r.arrays.emplace(a.get(), std::move(a));
  return CUDA_SUCCESS;
}

std::shared_ptr<Array> findArray(CUarray h) {
  auto &r = arrays();
  std::lock_guard lk(r.mutex);
  auto it = r.arrays.find(h);
  return it == r.arrays.end() ? nullptr : it->second;
}

CUresult destroyArray(CUarray h) {
  auto &r = arrays();
  std::lock_guard lk(r.mutex);
  auto it = r.arrays.find(h);
  if (it == r.arrays.end())
    return r.orphans.count(h) ? CUDA_ERROR_CONTEXT_IS_DESTROYED : CUDA_ERROR_INVALID_HANDLE;
  if (!it->second->ownedByMipmap) // a mipmap level goes with its mipmapped array (NVIDIA's
    r.arrays.erase(it);           // driver reports success and keeps it too)
  return CUDA_SUCCESS;
}

CUresult registerMipmappedArray(std::shared_ptr<MipmappedArray> m, CUmipmappedArray *out) {
  auto &r = arrays();
  std::lock_guard lk(r.mutex);
  *out = reinterpret_cast<CUmipmappedArray>(m.get());
  for (const auto &a : m->levels())
    r.arrays.emplace(a.get(), a);
  r.mipmaps.emplace(m.get(), std::move(m));
  return CUDA_SUCCESS;
}

std::shared_ptr<MipmappedArray> findMipmappedArray(CUmipmappedArray h) {
  auto &r = arrays();
  std::lock_guard lk(r.mutex);
  auto it = r.mipmaps.find(h);
  return it == r.mipmaps.end() ? nullptr : it->second;
}

CUresult destroyMipmappedArray(CUmipmappedArray h) {
  auto &r = arrays();
  std::lock_guard lk(r.mutex);
  auto it = r.mipmaps.find(h);
  if (it == r.mipmaps.end())
    return fail(CUDA_ERROR_INVALID_HANDLE, "the mipmapped array is not live");
  for (const auto &a : it->second->levels())
    r.arrays.erase(a.get());
  r.mipmaps.erase(it);
  return CUDA_SUCCESS;
}

CUresult createTextureObject(Context *ctx, const CUDA_RESOURCE_DESC &res,
                             const CUDA_TEXTURE_DESC &tex, const CUDA_RESOURCE_VIEW_DESC *view,
                             CUtexObject *out) {
  auto obj = std::make_unique<TextureObject>();
  if (CUresult r = viewOf(res, false, &obj->image); r != CUDA_SUCCESS)
    return r;
  for (auto m : tex.addressMode)
    if (m < CU_TR_ADDRESS_MODE_WRAP || m > CU_TR_ADDRESS_MODE_BORDER)
      return fail(CUDA_ERROR_INVALID_VALUE, "address mode {} is unknown", static_cast<int>(m));
  if (tex.filterMode > CU_TR_FILTER_MODE_LINEAR || tex.mipmapFilterMode > CU_TR_FILTER_MODE_LINEAR)
    return fail(CUDA_ERROR_INVALID_VALUE, "filter mode {} or {} is unknown",
                static_cast<int>(tex.filterMode), static_cast<int>(tex.mipmapFilterMode));
  if (view && view->format != CU_RES_VIEW_FORMAT_NONE) {
    log::warn(log::Component::Api, "texture resource views with a format are not supported");
    return fail(CUDA_ERROR_NOT_SUPPORTED, "texture resource views with a format are not supported");
  }
  obj->res = res;
  obj->tex = tex;
  obj->ctx = ctx;
  if (view) {
    obj->view = *view;
    obj->hasView = true;
  }
  return textures().add(std::move(obj), out);
}

CUresult createSurfaceObject(Context *ctx, const CUDA_RESOURCE_DESC &res, CUsurfObject *out) {
  if (res.resType != CU_RESOURCE_TYPE_ARRAY)
    return fail(CUDA_ERROR_INVALID_VALUE, "a surface needs a CUDA array");
  auto obj = std::make_unique<SurfaceObject>();
  if (CUresult r = viewOf(res, true, &obj->image); r != CUDA_SUCCESS)
    return r;
  obj->res = res;
  obj->ctx = ctx;
  return surfaces().add(std::move(obj), out);
}

// NVIDIA's driver reports success for a handle that is no longer (or never was) an object.
CUresult destroyTextureObject(CUtexObject h) {
  textures().remove(h);
  return CUDA_SUCCESS;
}
CUresult destroySurfaceObject(CUsurfObject h) {
  surfaces().remove(h);
  return CUDA_SUCCESS;
}
const TextureObject *findTexture(uint64_t h) { return textures().find(h); }
const SurfaceObject *findSurface(uint64_t h) { return surfaces().find(h); }

void releaseImages(Context *ctx) {
  textures().removeIf([&](const TextureObject &t) { return t.ctx == ctx; });
  surfaces().removeIf([&](const SurfaceObject &s) { return s.ctx == ctx; });
  auto &r = arrays();
  std::lock_guard lk(r.mutex);
  std::erase_if(r.arrays, [&](const auto &e) {
    if (e.second->context() != ctx)
      return false;
    r.orphans.insert(e.first);
    return true;
  });
  std::erase_if(r.mipmaps, [&](const auto &e) { return e.second->context() == ctx; });
}

} // namespace cucpu::driver
