// cucpu-ptx: check a PTX file, dump its AST, the LLVM IR of a kernel before and after
// optimisation and its native assembly, or run one kernel with arguments from the command line.
#include "cucpu/jit/program.h"
#include "cucpu/ptx/ast.h"
#include "cucpu/ptx/printer.h"

#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

int usage() {
  std::fputs(
      "usage: cucpu-ptx check FILE          parse and lower every kernel, print diagnostics\n"
      "       cucpu-ptx ast FILE            functions, parameters and statements with locations\n"
      "       cucpu-ptx print FILE          each function's body as PTX text, as parsed\n"
      "       cucpu-ptx ir FILE KERNEL      the kernel's block function as lowered (LLVM IR)\n"
      "       cucpu-ptx opt FILE KERNEL [BLOCK]  the same after the optimisation pipeline\n"
      "       cucpu-ptx asm FILE KERNEL [BLOCK]  native assembly for this CPU\n"
      "           BLOCK: specialise for blocks of X[,Y[,Z]] threads, as a launch does\n"
      "       cucpu-ptx run FILE KERNEL GRID BLOCK [ARG...]\n"
      "           GRID, BLOCK: X[,Y[,Z]]; ARG: i32:V u32:V i64:V f32:V f64:V, or buf:BYTES for a\n"
      "           zeroed device buffer, printed as 32-bit words (hex) after the run\n",
      stderr);
  return 2;
}

bool readFile(const char *path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::stringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

int check(const std::string &ptx) {
  std::string log;
  auto p = cucpu::jit::Program::load(ptx, log);
  std::fputs(log.c_str(), stderr);
  if (!p.hasValue())
    return 1;
  for (const auto &k : (*p)->kernels())
    std::printf("%s: %zu parameters (%u bytes), %u bytes static shared, %u bytes local per thread, "
                "%u regions, %s scheduler\n",
                k.name.c_str(), k.params.size(), k.paramBytes, k.staticSharedBytes,
                k.localBytesPerThread, k.regions, k.warpScheduled ? "warp" : "block");
  return 0;
}

void printOperand(const cucpu::ptx::Operand &o) {
  using K = cucpu::ptx::Operand::Kind;
  switch (o.kind) {
  case K::Imm:
    std::printf("%lld", static_cast<long long>(o.imm));
    break;
  case K::FImm:
    std::printf("%g", o.fval);
    break;
  case K::Address:
    std::printf("[%s%+lld]", o.name.c_str(), static_cast<long long>(o.imm));
    break;
  case K::Sink:
    std::printf("_");
    break;
  case K::Vector:
  case K::List:
    std::printf(o.kind == K::Vector ? "{" : "(");
    for (size_t i = 0; i < o.elems.size(); ++i) {
      if (i)
        std::printf(", ");
      printOperand(o.elems[i]);
    }
    std::printf(o.kind == K::Vector ? "}" : ")");
    break;
  default:
    std::printf("%s%s", o.negate ? "!" : "", o.name.c_str());
  }
}

int ast(const std::string &ptx) {
  auto r = cucpu::ptx::parse(ptx);
  for (const auto &d : r.errors)
    std::fprintf(stderr, "%s\n", d.format().c_str());
  if (!r.ok())
    return 1;
  std::printf("PTX %u.%u, target %s, %zu module variables\n", r.module.versionMajor,
              r.module.versionMinor, r.module.target.c_str(), r.module.globals.size());
  for (const auto &f : r.module.functions) {
    std::printf("%u:%u: %s %s (%zu params)%s\n", f.loc.line, f.loc.col,
                f.isEntry ? ".entry" : ".func", f.name.c_str(), f.params.size(),
                f.hasBody ? "" : " declaration");
    for (const auto &st : f.body) {
      if (auto *in = std::get_if<cucpu::ptx::Instruction>(&st)) {
        std::printf("  %u:%u: %s", in->loc.line, in->loc.col, in->opcode.c_str());
        for (const auto &m : in->mods)
          std::printf(".%s", m.c_str());
        for (auto t : in->types)
          std::printf(".%s", std::string(cucpu::ptx::typeName(t)).c_str());
        for (size_t i = 0; i < in->operands.size(); ++i) {
          std::printf(i ? ", " : " ");
          printOperand(in->operands[i]);
        }
        std::printf("\n");
      } else if (auto *l = std::get_if<cucpu::ptx::Label>(&st)) {
        std::printf("  %u:%u: %s:\n", l->loc.line, l->loc.col, l->name.c_str());
      }
    }
  }
  return 0;
}

int print(const std::string &ptx) {
  auto r = cucpu::ptx::parse(ptx);
  for (const auto &d : r.errors)
    std::fprintf(stderr, "%s\n", d.format().c_str());
  if (!r.ok())
    return 1;
  for (const auto &f : r.module.functions)
    if (f.hasBody)
      std::printf("// %s %s\n%s\n", f.isEntry ? ".entry" : ".func", f.name.c_str(),
                  cucpu::ptx::printBody(f).c_str());
  return 0;
}

bool parseDims(const char *s, unsigned d[3]) {
  d[0] = d[1] = d[2] = 1;
  for (int i = 0; i < 3 && *s; ++i) {
    char *end;
    d[i] = static_cast<unsigned>(std::strtoul(s, &end, 0));
    if (end == s)
      return false;
    s = *end == ',' ? end + 1 : end;
  }
  return *s == '\0';
}

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    if (CUresult r_ = (x); r_ != CUDA_SUCCESS) {                                                   \
      const char *n_ = "?";                                                                        \
      cuGetErrorName(r_, &n_);                                                                     \
      std::fprintf(stderr, "cucpu-ptx: %s: %s\n", #x, n_);                                         \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

int run(const std::string &ptx, const char *kernel, const char *grid, const char *block, int argc,
        char **argv) {
  unsigned g[3], bl[3];
  if (!parseDims(grid, g) || !parseDims(block, bl))
    return usage();
  CHECK(cuInit(0));
  CUdevice dev;
  CUcontext ctx;
  CHECK(cuDeviceGet(&dev, 0));
  CHECK(cuCtxCreate(&ctx, nullptr, 0, dev));
  char errorLog[8192] = {};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[] = {errorLog, reinterpret_cast<void *>(sizeof errorLog)};
  CUmodule mod;
  if (cuModuleLoadDataEx(&mod, ptx.c_str(), 2, opts, vals) != CUDA_SUCCESS) {
    std::fprintf(stderr, "%s", errorLog);
    return 1;
  }
  CUfunction f;
  CHECK(cuModuleGetFunction(&f, mod, kernel));
  std::vector<std::vector<unsigned char>> storage(argc);
  std::vector<void *> params(argc);
  std::vector<std::pair<CUdeviceptr, size_t>> buffers;
  for (int i = 0; i < argc; ++i) {
    const char *colon = std::strchr(argv[i], ':');
    if (!colon)
      return usage();
    std::string kind(argv[i], colon - argv[i]);
    const char *v = colon + 1;
    auto put = [&](const void *p, size_t n) {
      storage[i].assign(static_cast<const unsigned char *>(p),
                        static_cast<const unsigned char *>(p) + n);
    };
    if (kind == "i32" || kind == "u32") {
      uint32_t x = static_cast<uint32_t>(std::strtoll(v, nullptr, 0));
      put(&x, 4);
    } else if (kind == "i64") {
      int64_t x = std::strtoll(v, nullptr, 0);
      put(&x, 8);
    } else if (kind == "f32") {
      float x = std::strtof(v, nullptr);
      put(&x, 4);
    } else if (kind == "f64") {
      double x = std::strtod(v, nullptr);
      put(&x, 8);
    } else if (kind == "buf") {
      size_t n = std::strtoull(v, nullptr, 0);
      CUdeviceptr p;
      CHECK(cuMemAlloc(&p, n));
      CHECK(cuMemsetD8(p, 0, n));
      buffers.emplace_back(p, n);
      put(&p, sizeof p);
    } else {
      return usage();
    }
    params[i] = storage[i].data();
  }
  CHECK(cuLaunchKernel(f, g[0], g[1], g[2], bl[0], bl[1], bl[2], 0, nullptr,
                       params.empty() ? nullptr : params.data(), nullptr));
  CHECK(cuCtxSynchronize());
  for (size_t i = 0; i < buffers.size(); ++i) {
    std::vector<uint32_t> words((buffers[i].second + 3) / 4);
    CHECK(cuMemcpyDtoH(words.data(), buffers[i].first, buffers[i].second));
    std::printf("buffer %zu:", i);
    for (size_t w = 0; w < words.size(); ++w)
      std::printf("%s%08x", w % 8 ? " " : "\n  ", words[w]);
    std::printf("\n");
  }
  return cuCtxDestroy(ctx) == CUDA_SUCCESS ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3)
    return usage();
  std::string cmd = argv[1], ptx;
  if (!readFile(argv[2], ptx)) {
    std::fprintf(stderr, "cucpu-ptx: cannot read %s\n", argv[2]);
    return 1;
  }
  if (cmd == "check")
    return check(ptx);
  if (cmd == "ast")
    return ast(ptx);
  if (cmd == "print")
    return print(ptx);
  if ((cmd == "ir" && argc == 4) || ((cmd == "opt" || cmd == "asm") && (argc == 4 || argc == 5))) {
    using S = cucpu::jit::Program::Stage;
    unsigned block[3] = {0, 0, 0};
    if (argc == 5 && !parseDims(argv[4], block))
      return usage();
    auto out = cucpu::jit::Program::inspect(ptx, argv[3],
                                            cmd == "ir"    ? S::LoweredIR
                                            : cmd == "opt" ? S::OptimizedIR
                                                           : S::Assembly,
                                            argc == 5 ? block : nullptr);
    if (!out.hasValue()) {
      std::fprintf(stderr, "cucpu-ptx: %s\n", out.error().message().c_str());
      return 1;
    }
    std::fputs(out->c_str(), stdout);
    return 0;
  }
  if (cmd == "run" && argc >= 6)
    return run(ptx, argv[3], argv[4], argv[5], argc - 6, argv + 6);
  return usage();
}
