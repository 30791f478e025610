// `.target` architectures and the PTX ISA version that introduced each (the PTX ISA's release
// history; suffixed targets: `a` architecture-specific, `f` family-specific).
#include "cucpu/ptx/targets.h"

#include <array>
#include <string>

namespace cucpu::ptx {
namespace {

struct Target {
  std::string_view name;
  IsaVersion introduced;
};

constexpr std::array kTargets{
    Target{"sm_10", {1, 0}},   Target{"sm_11", {1, 0}},   Target{"sm_12", {1, 2}},
    Target{"sm_13", {1, 2}},   Target{"sm_20", {2, 0}},   Target{"sm_21", {2, 0}},
    Target{"sm_30", {3, 0}},   Target{"sm_32", {4, 0}},   Target{"sm_35", {3, 1}},
    Target{"sm_37", {4, 1}},   Target{"sm_50", {4, 0}},   Target{"sm_52", {4, 1}},
    Target{"sm_53", {4, 2}},   Target{"sm_60", {5, 0}},   Target{"sm_61", {5, 0}},
    Target{"sm_62", {5, 0}},   Target{"sm_70", {6, 0}},   Target{"sm_72", {6, 1}},
    Target{"sm_75", {6, 3}},   Target{"sm_80", {7, 0}},   Target{"sm_86", {7, 1}},
    Target{"sm_87", {7, 4}},   Target{"sm_88", {9, 0}},   Target{"sm_89", {7, 8}},
    Target{"sm_90", {7, 8}},   Target{"sm_90a", {8, 0}},  Target{"sm_100", {8, 6}},
    Target{"sm_100a", {8, 6}}, Target{"sm_100f", {8, 8}}, Target{"sm_101", {8, 6}},
    Target{"sm_101a", {8, 6}}, Target{"sm_101f", {8, 8}}, Target{"sm_103", {8, 8}},
    Target{"sm_103a", {8, 8}}, Target{"sm_103f", {8, 8}}, Target{"sm_110", {9, 0}},
    Target{"sm_110a", {9, 0}}, Target{"sm_110f", {9, 0}}, Target{"sm_120", {8, 7}},
    Target{"sm_120a", {8, 7}}, Target{"sm_120f", {8, 8}}, Target{"sm_121", {8, 8}},
    Target{"sm_121a", {8, 8}}, Target{"sm_121f", {8, 8}},
};

} // namespace

std::optional<IsaVersion> targetIntroduced(std::string_view target) {
  for (const Target &t : kTargets)
    if (t.name == target)
      return t.introduced;
  return std::nullopt;
}

} // namespace cucpu::ptx
