// The PTX ISA versions and `.target` architectures the front end accepts, and the ISA version each
// target needs, so a module's header is answered as NVIDIA's driver answers it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace cucpu::ptx {

struct IsaVersion {
  uint32_t major = 0, minor = 0;
  auto operator<=>(const IsaVersion &) const = default;
};

// The newest PTX ISA accepted: what the CUDA 13.5 compilers (NVRTC, nvJitLink, from the toolkit
// or NVIDIA's wheels) write, which cucpu's front ends hand to it. NVIDIA's driver 580 (CUDA 13.0)
// stops at 9.0; docs/architecture.md says why cucpu goes further.
inline constexpr IsaVersion kNewestIsa{9, 5};

// The ISA version that introduced `target` (sm_XX, with an `a` or `f` suffix where the
// architecture has one); nullopt for a name no PTX ISA defines.
std::optional<IsaVersion> targetIntroduced(std::string_view target);

} // namespace cucpu::ptx
