// The JIT linker behind cuLink*: collects PTX inputs (text, or the PTX of fat binaries) and joins
// them into one PTX module, which cuModuleLoadData accepts as a "linked image".
#pragma once

#include "cucpu/driver/module.h"

#include <cuda.h>

#include <string>
#include <vector>

namespace cucpu::driver {

class Context;

// A linked image: these 8 bytes, then the joined PTX text with its terminating NUL.
inline constexpr char kLinkedImageMagic[8] = {'C', 'U', 'C', 'P', 'U', 'L', 'N', 'K'};

class Linker {
public:
  Linker(Context *ctx, const LoadOptions &opts) : ctx_(ctx), opts_(opts) {}
  Context *context() const { return ctx_; }
  // One input. PTX and fat binaries are taken; GPU machine code (cubins), host objects,
  // libraries and NVVM IR are not (their error names the input).
  CUresult add(CUjitInputType type, const void *data, size_t size, const char *name);
  // Joins the inputs and checks that the result lowers (unresolved or malformed PTX fails here,
  // with the reason in the error log). *image stays valid until the linker is destroyed.
  CUresult complete(void **image, size_t *size);

private:
  CUresult fail(CUresult r, const std::string &message);
  Context *ctx_;
  LoadOptions opts_;
  std::vector<std::string> inputs_;
  std::vector<char> image_;
};

// The PTX inputs as one module: the highest .version, the first .target, every body.
std::string joinPtx(const std::vector<std::string> &inputs);

} // namespace cucpu::driver
