// Entry points: texture and surface objects.
#include "entry.h"
#include "entry_points.h"

#include "cucpu/driver/image.h"

namespace cucpu::api::impl {

CUresult cuTexObjectCreate(CUtexObject *pTexObject, const CUDA_RESOURCE_DESC *pResDesc,
                           const CUDA_TEXTURE_DESC *pTexDesc,
                           const CUDA_RESOURCE_VIEW_DESC *pResViewDesc) {
  return driver::createTextureObject(driver::current(), *pResDesc, *pTexDesc, pResViewDesc,
                                     pTexObject);
}

CUresult cuTexObjectDestroy(CUtexObject texObject) {
  return driver::destroyTextureObject(texObject);
}

CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *pResDesc, CUtexObject texObject) {
  const driver::TextureObject *t = driver::findTexture(texObject);
  if (!t)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "the texture object is not live");
  *pResDesc = t->res;
  return CUDA_SUCCESS;
}

CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *pTexDesc, CUtexObject texObject) {
  const driver::TextureObject *t = driver::findTexture(texObject);
  if (!t)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "the texture object is not live");
  *pTexDesc = t->tex;
  return CUDA_SUCCESS;
}

CUresult cuTexObjectGetResourceViewDesc(CUDA_RESOURCE_VIEW_DESC *pResViewDesc,
                                        CUtexObject texObject) {
  const driver::TextureObject *t = driver::findTexture(texObject);
  if (!t)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "the texture object is not live");
  *pResViewDesc = t->hasView ? t->view : CUDA_RESOURCE_VIEW_DESC{}; // none: all zero
  return CUDA_SUCCESS;
}

CUresult cuSurfObjectCreate(CUsurfObject *pSurfObject, const CUDA_RESOURCE_DESC *pResDesc) {
  return driver::createSurfaceObject(driver::current(), *pResDesc, pSurfObject);
}

CUresult cuSurfObjectDestroy(CUsurfObject surfObject) {
  return driver::destroySurfaceObject(surfObject);
}

CUresult cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *pResDesc, CUsurfObject surfObject) {
  const driver::SurfaceObject *s = driver::findSurface(surfObject);
  if (!s)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "the surface object is not live");
  *pResDesc = s->res;
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
