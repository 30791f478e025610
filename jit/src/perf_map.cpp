// perf(1) symbol map for generated code: one "address size name" line per linked function.
#include "perf_map.h"

#include "cucpu/support/env.h"
#include "cucpu/support/log.h"

#include <llvm/ExecutionEngine/JITLink/JITLink.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>

#include <cstdio>
#include <mutex>
#include <unistd.h>

namespace cucpu::jit {

namespace {

class PerfMapPlugin : public llvm::orc::ObjectLinkingLayer::Plugin {
public:
  explicit PerfMapPlugin(std::FILE *out) : out_(out) {}

  void modifyPassConfig(llvm::orc::MaterializationResponsibility &, llvm::jitlink::LinkGraph &,
                        llvm::jitlink::PassConfiguration &config) override {
    config.PostFixupPasses.push_back([this](llvm::jitlink::LinkGraph &g) {
      std::lock_guard lk(mutex_);
      const auto exec = static_cast<unsigned>(llvm::orc::MemProt::Exec);
      for (auto *sym : g.defined_symbols())
        if (sym->hasName() && sym->getSize() > 0 &&
            (static_cast<unsigned>(sym->getBlock().getSection().getMemProt()) & exec))
          std::fprintf(
              out_, "%llx %llx %s\n", static_cast<unsigned long long>(sym->getAddress().getValue()),
              static_cast<unsigned long long>(sym->getSize()), sym->getName().str().c_str());
      std::fflush(out_);
      return llvm::Error::success();
    });
  }
  llvm::Error notifyFailed(llvm::orc::MaterializationResponsibility &) override {
    return llvm::Error::success();
  }
  llvm::Error notifyRemovingResources(llvm::orc::JITDylib &, llvm::orc::ResourceKey) override {
    return llvm::Error::success();
  }
  void notifyTransferringResources(llvm::orc::JITDylib &, llvm::orc::ResourceKey,
                                   llvm::orc::ResourceKey) override {}

private:
  std::FILE *out_;
  std::mutex mutex_;
};

} // namespace

void enablePerfMapIfRequested(llvm::orc::LLJIT &jit) {
  if (env::get("CUCPU_PERF_MAP").value_or("0") == "0")
    return;
  auto *layer = llvm::dyn_cast<llvm::orc::ObjectLinkingLayer>(&jit.getObjLinkingLayer());
  if (!layer) {
    log::warn(log::Component::Jit, "CUCPU_PERF_MAP: this JIT links without JITLink; no map");
    return;
  }
  std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
  std::FILE *out = std::fopen(path.c_str(), "a");
  if (!out) {
    log::warn(log::Component::Jit, "CUCPU_PERF_MAP: cannot write {}", path);
    return;
  }
  layer->addPlugin(std::make_unique<PerfMapPlugin>(out));
  log::info(log::Component::Jit, "perf map: {}", path);
}

} // namespace cucpu::jit
