// Texture sampling and surface accesses for generated code (tex, tld4, txq, suld, sust, sured,
// suq).
#pragma once

#include "cucpu/driver/image.h"
#include "kernel_abi.h"

namespace cucpu::driver {

// Fetches the texel(s) `r` asks for: four 32-bit words (f32 bits, or integers when the texture
// returns integers), packed as two f16x2 words when r.flags has CUCPU_TEX_F16X2.
void sampleTexture(const TextureObject &t, const cucpu_tex_request &r, uint32_t out[4]);

// Loads, stores or reduces one surface element; false when a .trap access is out of range.
bool accessSurface(const SurfaceObject &s, const cucpu_surf_request &r, void *data);

// txq / suq: the value of a CUCPU_Q_* query (level: txq.level's level of detail).
int32_t queryTexture(const TextureObject &t, uint32_t query, int32_t level);
int32_t querySurface(const SurfaceObject &s, uint32_t query);

} // namespace cucpu::driver
