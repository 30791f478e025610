// Types of the OpenGL, EGL, VDPAU and profiler entry points, which cucpu exports (as stubs)
// without depending on those libraries' headers. Sizes and layouts are the C ABI's.
#pragma once

#include <cuda.h>

#include <cstdint>

using GLuint = unsigned int;
using GLenum = unsigned int;
typedef enum CUGLDeviceList_enum {
  CU_GL_DEVICE_LIST_ALL = 1,
  CU_GL_DEVICE_LIST_CURRENT_FRAME = 2,
  CU_GL_DEVICE_LIST_NEXT_FRAME = 3
} CUGLDeviceList;

using EGLint = int32_t;
using EGLImageKHR = void *;
using EGLStreamKHR = void *;
using EGLSyncKHR = void *;
typedef struct CUeglStreamConnection_st *CUeglStreamConnection;
// Passed by value to cuEGLStreamProducerPresentFrame: the layout must match NVIDIA's.
typedef struct CUeglFrame_st {
  union {
    CUarray pArray[3];
    void *pPitch[3];
  } frame;
  unsigned int width, height, depth, pitch, planeCount, numChannels;
  int frameType;
  int eglColorFormat;
  CUarray_format cuFormat;
} CUeglFrame;
static_assert(sizeof(CUeglFrame) == 64);

using VdpDevice = uint32_t;
using VdpVideoSurface = uint32_t;
using VdpOutputSurface = uint32_t;
using VdpGetProcAddress = int(VdpDevice device, uint32_t function_id, void **function_pointer);

typedef enum CUoutput_mode_enum { CU_OUT_KEY_VALUE_PAIR = 0, CU_OUT_CSV = 1 } CUoutput_mode;
