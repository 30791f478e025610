// Surface loads, stores and reductions (suld, sust, sured) on the host layout of CUDA arrays,
// and the txq/suq queries of texture and surface objects.
#include "sampler.h"
#include "texel_format.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

namespace cucpu::driver {

using texel::floatToHalf;
using texel::Format;
using texel::formatOf;
using texel::fromBits;
using texel::normMax;

namespace {

// Converts one sust.p value (f32 for float and normalized formats, else an integer) to channel
// bits of the format: floats round to nearest, normalized values saturate, integers clamp.
uint32_t formatValue(const Format &f, uint32_t value) {
  const unsigned bitsPer = f.bytes * 8;
  if (f.isFloat)
    return f.bytes == 2 ? floatToHalf(fromBits(value)) : value;
  if (f.normalized) {
    const float x = fromBits(value);
    const float scale = normMax(f);
    const float lo = f.isSigned ? -1.0f : 0.0f;
    const float c = std::isnan(x) ? 0.0f : std::clamp(x, lo, 1.0f);
    return uint32_t(int32_t(std::nearbyint(c * scale)));
  }
  if (bitsPer == 32)
    return value;
  if (f.isSigned) {
    const int64_t lo = -(int64_t(1) << (bitsPer - 1)), hi = (int64_t(1) << (bitsPer - 1)) - 1;
    return uint32_t(std::clamp<int64_t>(int32_t(value), lo, hi));
  }
  return std::min<uint32_t>(value, (1u << bitsPer) - 1);
}

template <typename T> void reduce(void *at, uint32_t op, T v) {
  std::atomic_ref<T> a(*static_cast<T *>(at));
  T cur = a.load();
  for (;;) {
    T next = cur;
    switch (op) {
    case CUCPU_RED_ADD:
      next = T(cur + v);
      break;
    case CUCPU_RED_MIN:
      next = std::min(cur, v);
      break;
    case CUCPU_RED_MAX:
      next = std::max(cur, v);
      break;
    case CUCPU_RED_AND:
      next = cur & v;
      break;
    default:
      next = cur | v;
      break;
    }
    if (a.compare_exchange_weak(cur, next))
      return;
  }
}

} // namespace

bool accessSurface(const SurfaceObject &s, const cucpu_surf_request &r, void *data) {
  const ImageView &v = s.image;
  const ImageLevel &L = v.levels[0];
  const unsigned eb = v.elementBytes;
  const bool bytesX = r.op != CUCPU_SURF_STORE_P && !(r.op == CUCPU_SURF_RED && r.bytes == 0);
  int64_t x = r.coord[0], y = 0, z = 0, layer = 0;
  unsigned dims = 1;
  switch (r.geometry) {
  case CUCPU_GEOM_2D:
    dims = 2;
    break;
  case CUCPU_GEOM_3D:
    dims = 3;
    break;
  case CUCPU_GEOM_A2D:
    dims = 2;
    break;
  default:
    break;
  }
  if (dims >= 2)
    y = r.coord[1];
  if (dims == 3)
    z = r.coord[2];
  const bool layered = r.geometry == CUCPU_GEOM_A1D || r.geometry == CUCPU_GEOM_A2D;
  if (layered)
    layer = r.layer;
  const unsigned bytes = r.op == CUCPU_SURF_STORE_P ? eb : r.bytes;
  // The last valid x: in bytes, room for the whole access; in samples, the last element.
  const int64_t maxX = bytesX ? int64_t(L.width) * eb - std::max<unsigned>(bytes, 1) : L.width - 1;
  const int64_t maxY = int64_t(L.height) - 1, maxZ = int64_t(L.depth) - 1;
  const int64_t maxLayer = layered ? int64_t(v.layers) - 1 : 0;
  const bool out =
      x < 0 || x > maxX || y < 0 || y > maxY || z < 0 || z > maxZ || layer < 0 || layer > maxLayer;
  if (out) {
    if (r.clamp == CUCPU_SURF_TRAP)
      return false;
    if (r.clamp == CUCPU_SURF_ZERO) {
      if (r.op == CUCPU_SURF_LOAD)
        std::memset(data, 0, bytes);
      return true;
    }
    x = std::clamp<int64_t>(x, 0, std::max<int64_t>(maxX, 0));
    if (bytesX)
      x -= x % eb;
    y = std::clamp<int64_t>(y, 0, maxY);
    z = std::clamp<int64_t>(z, 0, maxZ);
    layer = std::clamp<int64_t>(layer, 0, maxLayer);
  }
  const size_t byteX = bytesX ? size_t(x) : size_t(x) * eb;
  uint8_t *p = L.data + size_t(layer + z) * L.slicePitch + size_t(y) * L.pitch + byteX;
  switch (r.op) {
  case CUCPU_SURF_LOAD:
    std::memcpy(data, p, bytes);
    break;
  case CUCPU_SURF_STORE:
    std::memcpy(p, data, bytes);
    break;
  case CUCPU_SURF_STORE_P: {
    const Format f = formatOf(v.format);
    const uint32_t *vals = static_cast<const uint32_t *>(data);
    for (unsigned c = 0; c < v.channels; ++c) {
      const uint32_t w = formatValue(f, vals[c]);
      std::memcpy(p + c * f.bytes, &w, f.bytes);
    }
    break;
  }
  default: {
    const uint32_t op = r.red & 0xff, type = r.red & ~0xffu;
    if (type == CUCPU_RED_U32)
      reduce<uint32_t>(p, op, *static_cast<const uint32_t *>(data));
    else if (type == CUCPU_RED_S32)
      reduce<int32_t>(p, op, *static_cast<const int32_t *>(data));
    else if (type == CUCPU_RED_U64)
      reduce<uint64_t>(p, op, *static_cast<const uint64_t *>(data));
    else
      reduce<int64_t>(p, op, *static_cast<const int64_t *>(data));
  }
  }
  return true;
}

namespace {

// Channel data type and order codes of txq/suq (OpenCL's values, which PTX reports).
int32_t channelDataType(const Format &f) {
  if (f.isFloat)
    return f.bytes == 2 ? 0x10DD : 0x10DE;
  if (f.normalized)
    return f.bytes == 1 ? (f.isSigned ? 0x10D0 : 0x10D2) : (f.isSigned ? 0x10D1 : 0x10D3);
  switch (f.bytes) {
  case 1:
    return f.isSigned ? 0x10D7 : 0x10DA;
  case 2:
    return f.isSigned ? 0x10D8 : 0x10DB;
  default:
    return f.isSigned ? 0x10D9 : 0x10DC;
  }
}

int32_t channelOrder(unsigned channels) {
  return channels == 1 ? 0x10B0 : channels == 2 ? 0x10B2 : 0x10B5; // R, RG, RGBA
}

// Sizes as txq and suq report them: 0 for a dimension the resource lacks and for a level it does
// not have; a 1D layered array's layers as its height; a cubemap's layers as a surface's depth,
// its cubes as a texture's.
int32_t queryShape(const ImageView &v, uint32_t q, size_t level, bool surface) {
  if (level >= v.levels.size())
    return 0;
  const ImageLevel &L = v.levels[level];
  const bool cube = v.arrayFlags & CUDA_ARRAY3D_CUBEMAP;
  const bool layered = v.arrayFlags & CUDA_ARRAY3D_LAYERED;
  switch (q) {
  case CUCPU_Q_WIDTH:
    return int32_t(L.width);
  case CUCPU_Q_HEIGHT:
    if (v.dims >= 2)
      return int32_t(L.height);
    return layered ? int32_t(v.layers) : v.isArray && !surface ? 1 : 0;
  case CUCPU_Q_DEPTH:
    if (v.dims == 3)
      return int32_t(L.depth);
    if (cube)
      return surface ? int32_t(v.layers) : layered ? int32_t(v.layers / 6) : 0;
    return layered && v.dims == 2 ? int32_t(v.layers) : 0;
  case CUCPU_Q_CHANNEL_DATA_TYPE:
    return channelDataType(formatOf(v.format));
  case CUCPU_Q_CHANNEL_ORDER:
    return channelOrder(v.channels);
  case CUCPU_Q_ARRAY_SIZE:
    return (v.arrayFlags & CUDA_ARRAY3D_CUBEMAP)   ? int32_t(v.layers / 6)
           : (v.arrayFlags & CUDA_ARRAY3D_LAYERED) ? int32_t(v.layers)
                                                   : 0;
  case CUCPU_Q_NUM_MIPMAP_LEVELS:
    return int32_t(v.levels.size());
  case CUCPU_Q_MEMORY_LAYOUT:
    return v.isArray ? 0 : 1;
  default:
    return 0;
  }
}

} // namespace

int32_t queryTexture(const TextureObject &t, uint32_t query, int32_t level) {
  switch (query) {
  case CUCPU_Q_NORMALIZED_COORDS:
    return (t.tex.flags & CU_TRSF_NORMALIZED_COORDINATES) ? 1 : 0;
  case CUCPU_Q_FILTER_MODE:
    return int32_t(t.tex.filterMode);
  case CUCPU_Q_ADDR_MODE_0:
    return int32_t(t.tex.addressMode[0]);
  case CUCPU_Q_ADDR_MODE_1:
    return int32_t(t.tex.addressMode[1]);
  case CUCPU_Q_ADDR_MODE_2:
    return int32_t(t.tex.addressMode[2]);
  case CUCPU_Q_FORCE_UNNORMALIZED_COORDS:
    return 0;
  case CUCPU_Q_NUM_SAMPLES:
    return 0;
  default:
    return queryShape(t.image, query, size_t(std::max(level, 0)), false);
  }
}

int32_t querySurface(const SurfaceObject &s, uint32_t query) {
  return queryShape(s.image, query, 0, true);
}

} // namespace cucpu::driver
