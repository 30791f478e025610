// CUDA arrays, mipmapped arrays, texture and surface objects, and the registries of their handles.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace cucpu::driver {

class Context;

// Bytes of one channel of `format`, 0 for formats cucpu does not store (block-compressed, YUV).
unsigned channelBytes(CUarray_format format);
// Channels fixed by the format itself (UNORM_INT8X4: 4), 0 when the descriptor gives them.
unsigned formatChannels(CUarray_format format);

// Elements laid out row by row: rows `pitch` bytes apart, slices (z or layers) `slicePitch`.
struct ImageLevel {
  uint8_t *data = nullptr;
  uint32_t width = 1, height = 1, depth = 1; // depth: z extent of 3D arrays, else 1
  size_t pitch = 0, slicePitch = 0;
};

// A CUDA array: its descriptor and host storage. A layered or cubemap array keeps its layers
// (faces) as slices after each other.
class Array {
public:
  // Validates `d` as cuArray3DCreate does; INVALID_VALUE / NOT_SUPPORTED / OUT_OF_MEMORY.
  static CUresult create(Context *ctx, const CUDA_ARRAY3D_DESCRIPTOR &d,
                         std::shared_ptr<Array> *out);
  const CUDA_ARRAY3D_DESCRIPTOR &descriptor() const { return desc_; }
  Context *context() const { return ctx_; }
  unsigned elementBytes() const { return elementBytes_; }
  // Slices: depth of a 3D array, layers of a layered one (6 per cube), else 1.
  uint32_t slices() const { return slices_; }
  ImageLevel level() const;
  size_t bytes() const { return pitch_ * rows_ * slices_; }
  uint8_t *data() const { return storage_.get(); }
  bool ownedByMipmap = false; // a level of a mipmapped array: destroyed with it

private:
  CUDA_ARRAY3D_DESCRIPTOR desc_{};
  Context *ctx_ = nullptr;
  unsigned elementBytes_ = 0;
  uint32_t rows_ = 1, slices_ = 1;
  size_t pitch_ = 0;
  std::unique_ptr<uint8_t[]> storage_;
};

class MipmappedArray {
public:
  static CUresult create(Context *ctx, const CUDA_ARRAY3D_DESCRIPTOR &d, unsigned levels,
                         std::shared_ptr<MipmappedArray> *out);
  const CUDA_ARRAY3D_DESCRIPTOR &descriptor() const { return desc_; }
  Context *context() const { return ctx_; }
  const std::vector<std::shared_ptr<Array>> &levels() const { return levels_; }

private:
  CUDA_ARRAY3D_DESCRIPTOR desc_{};
  Context *ctx_ = nullptr;
  std::vector<std::shared_ptr<Array>> levels_;
};

// What a texture or surface reads: the resource's levels, format and shape.
struct ImageView {
  std::vector<ImageLevel> levels;
  CUarray_format format = CU_AD_FORMAT_FLOAT;
  unsigned channels = 1, elementBytes = 4;
  unsigned arrayFlags = 0; // CUDA_ARRAY3D_LAYERED / CUBEMAP
  uint32_t layers = 1;     // layers (cubes of 6 faces for a layered cubemap count 6 each)
  unsigned dims = 1;       // 1, 2 or 3: the array's dimensions (layers and faces not counted)
  bool isArray = false;    // a CUDA array (or mipmapped array), not linear or pitch memory
  bool linear = false;     // CU_RESOURCE_TYPE_LINEAR
  std::vector<std::shared_ptr<void>> keepAlive;
};

struct TextureObject {
  CUDA_RESOURCE_DESC res{};
  CUDA_TEXTURE_DESC tex{};
  CUDA_RESOURCE_VIEW_DESC view{};
  bool hasView = false;
  Context *ctx = nullptr;
  ImageView image;
};

struct SurfaceObject {
  CUDA_RESOURCE_DESC res{};
  Context *ctx = nullptr;
  ImageView image;
};

// Live-handle registries. Arrays and mipmapped arrays are owned here until destroyed (or their
// context is); texture and surface objects have small integer handles that generated code
// resolves without a lock.
CUresult registerArray(std::shared_ptr<Array> a, CUarray *out);
std::shared_ptr<Array> findArray(CUarray h);
CUresult destroyArray(CUarray h);
CUresult registerMipmappedArray(std::shared_ptr<MipmappedArray> m, CUmipmappedArray *out);
std::shared_ptr<MipmappedArray> findMipmappedArray(CUmipmappedArray h);
CUresult destroyMipmappedArray(CUmipmappedArray h);

CUresult createTextureObject(Context *ctx, const CUDA_RESOURCE_DESC &res,
                             const CUDA_TEXTURE_DESC &tex, const CUDA_RESOURCE_VIEW_DESC *view,
                             CUtexObject *out);
CUresult createSurfaceObject(Context *ctx, const CUDA_RESOURCE_DESC &res, CUsurfObject *out);
CUresult destroyTextureObject(CUtexObject h);
CUresult destroySurfaceObject(CUsurfObject h);
// nullptr when the handle names no live object of that kind.
const TextureObject *findTexture(uint64_t h);
const SurfaceObject *findSurface(uint64_t h);

// Drops every array and object of a context being destroyed.
void releaseImages(Context *ctx);

} // namespace cucpu::driver
