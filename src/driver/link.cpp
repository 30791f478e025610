// The JIT linker: PTX inputs joined into one module (device functions and variables that one
// input declares .extern and another defines are resolved by the module's own lookup).
#include "cucpu/driver/link.h"

#include "cucpu/driver/context.h"
#include "cucpu/driver/reason.h"
#include "cucpu/jit/program.h"
#include "cucpu/support/log.h"
#include "fatbin.h"

#include <cstdio>
#include <cstring>
#include <sstream>

namespace cucpu::driver {

std::string joinPtx(const std::vector<std::string> &inputs) {
  int best = -1;
  std::string version = "6.0", target;
  std::string body;
  for (const std::string &ptx : inputs) {
    std::istringstream in(ptx);
    for (std::string line; std::getline(in, line);) {
      size_t at = line.find_first_not_of(" \t");
      std::string_view text =
          at == std::string::npos ? std::string_view() : std::string_view(line).substr(at);
      if (text.starts_with(".version")) { // the highest one wins
        int major = 0, minor = 0;
        if (std::sscanf(line.c_str() + at, ".version %d.%d", &major, &minor) == 2 &&
            major * 100 + minor > best) {
          best = major * 100 + minor;
          version = std::to_string(major) + "." + std::to_string(minor);
        }
        continue;
      }
      if (text.starts_with(".target")) { // the first one wins
        if (target.empty())
          target = std::string(text);
        continue;
      }
      if (text.starts_with(".address_size"))
        continue;
      body += line;
      body += '\n';
    }
  }
  return ".version " + version + "\n" + (target.empty() ? ".target sm_75" : target) +
         "\n.address_size 64\n" + body;
}

CUresult Linker::fail(CUresult r, const std::string &message) {
  log::info(log::Component::Driver, "link: {}", message);
  size_t n = fillLog(opts_.errorLog, opts_.errorLogSize, message + "\n");
  if (opts_.errorLogSizeOut)
    *opts_.errorLogSizeOut = n;
  return driver::fail(r, "link: {}", message);
}

CUresult Linker::add(CUjitInputType type, const void *data, size_t size, const char *name) {
  const std::string what = name && *name ? std::string(name) : std::string("input");
  // cucpu's NVRTC and nvJitLink front ends hand out fat binaries carrying PTX where NVIDIA's
  // hand out cubins, so a "cubin" that is a fat binary is linked as one.
  if (type == CU_JIT_INPUT_CUBIN && data && size >= 16 && fatbin::isFatBinary(data))
    type = CU_JIT_INPUT_FATBINARY;
  switch (type) {
  case CU_JIT_INPUT_PTX: {
    const char *text = static_cast<const char *>(data);
    std::string ptx(text, strnlen(text, size));
    if (ptx.find(".version") == std::string::npos) // as cuModuleLoadData: not PTX at all
      return fail(CUDA_ERROR_INVALID_IMAGE, what + ": not PTX (no .version directive)");
    inputs_.push_back(std::move(ptx));
    return CUDA_SUCCESS;
  }
  case CU_JIT_INPUT_FATBINARY: {
    std::string ptx, log;
    Device *d = ctx_->device();
    if (CUresult r = fatbin::extractPtx(data, d->ccMajor() * 10 + d->ccMinor(), &ptx, &log);
        r != CUDA_SUCCESS)
      return fail(r, what + ": " + log);
    inputs_.push_back(std::move(ptx));
    return CUDA_SUCCESS;
  }
  case CU_JIT_INPUT_CUBIN:
    return fail(CUDA_ERROR_NO_BINARY_FOR_GPU,
                what + ": a cubin holds GPU machine code; a CPU can only link PTX");
  case CU_JIT_INPUT_OBJECT:
  case CU_JIT_INPUT_LIBRARY:
  case CU_JIT_INPUT_NVVM:
    return fail(CUDA_ERROR_NOT_SUPPORTED,
                what + ": host objects, libraries and NVVM IR are not linked by cucpu; pass "
                       "their PTX or fat binaries");
  default:
    return fail(CUDA_ERROR_INVALID_VALUE, what + ": unknown input type");
  }
}

CUresult Linker::complete(void **image, size_t *size) {
  // Nothing added links into an empty image, as on an H200 (tests/gpu/answers/misuse.txt).
  std::string ptx = inputs_.empty() ? std::string(".version 7.0\n.target sm_50\n.address_size 64\n")
                                    : joinPtx(inputs_);
  std::string log;
  auto program = jit::Program::load(ptx, log);
  if (!program.hasValue())
    return fail(static_cast<CUresult>(program.error().code()), log);
  if (!(*program)->unresolvedExterns().empty()) // a link must define every extern it uses
    return fail(CUDA_ERROR_INVALID_PTX,
                "undefined reference to '" + (*program)->unresolvedExterns().front() + "'");
  image_.assign(kLinkedImageMagic, kLinkedImageMagic + sizeof kLinkedImageMagic);
  image_.insert(image_.end(), ptx.begin(), ptx.end());
  image_.push_back('\0');
  *image = image_.data();
  *size = image_.size();
  if (opts_.infoLogSizeOut)
    *opts_.infoLogSizeOut = fillLog(opts_.infoLog, opts_.infoLogSize, "");
  return CUDA_SUCCESS;
}

} // namespace cucpu::driver
