// Entry points: texture and surface objects.
#include "entry.h"
#include "entry_points.h"

#include "cucpu/driver/image.h"

namespace cucpu::api::impl {

CUresult cuTexObjectCreate(CUtexObject *pTexObject, const CUDA_RESOURCE_DESC *pResDesc,
                           const CUDA_TEXTURE_DESC *pTexDesc,
                           const CUDA_RESOURCE_VIEW_DESC *pResViewDesc) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!pTexObject || !pResDesc || !pTexDesc)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "pTexObject, pResDesc or pTexDesc is NULL");
  return driver::createTextureObject(c, *pResDesc, *pTexDesc, pResViewDesc, pTexObject);
}

CUresult cuTexObjectDestroy(CUtexObject texObject) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  return driver::destroyTextureObject(texObject);
}

CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *pResDesc, CUtexObject texObject) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  const driver::TextureObject *t = driver::findTexture(texObject);
  if (!t || !pResDesc)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "t or pResDesc is NULL");
  *pResDesc = t->res;
  return CUDA_SUCCESS;
}

CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *pTexDesc, CUtexObject texObject) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  const driver::TextureObject *t = driver::findTexture(texObject);
  if (!t || !pTexDesc)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "t or pTexDesc is NULL");
  *pTexDesc = t->tex;
  return CUDA_SUCCESS;
}

CUresult cuTexObjectGetResourceViewDesc(CUDA_RESOURCE_VIEW_DESC *pResViewDesc,
                                        CUtexObject texObject) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  const driver::TextureObject *t = driver::findTexture(texObject);
  if (!t || !pResViewDesc)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "t or pResViewDesc is NULL");
  *pResViewDesc = t->hasView ? t->view : CUDA_RESOURCE_VIEW_DESC{}; // none: all zero
  return CUDA_SUCCESS;
}

CUresult cuSurfObjectCreate(CUsurfObject *pSurfObject, const CUDA_RESOURCE_DESC *pResDesc) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!pSurfObject || !pResDesc)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "pSurfObject or pResDesc is NULL");
  return driver::createSurfaceObject(c, *pResDesc, pSurfObject);
}

CUresult cuSurfObjectDestroy(CUsurfObject surfObject) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  return driver::destroySurfaceObject(surfObject);
}

CUresult cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *pResDesc, CUsurfObject surfObject) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  const driver::SurfaceObject *s = driver::findSurface(surfObject);
  if (!s || !pResDesc)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "s or pResDesc is NULL");
  *pResDesc = s->res;
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
