// PTX's special registers (%tid, %laneid, %clock64, %envreg<32>, ...) and the type each reads as.
#include "special_registers.h"

#include <array>
#include <charconv>

namespace cucpu::ptx {
namespace {

constexpr std::array kSpecialRegisters{
    SpecialRegister{"%tid", Type::U32, true},
    SpecialRegister{"%ntid", Type::U32, true},
    SpecialRegister{"%ctaid", Type::U32, true},
    SpecialRegister{"%nctaid", Type::U32, true},
    SpecialRegister{"%clusterid", Type::U32, true},
    SpecialRegister{"%nclusterid", Type::U32, true},
    SpecialRegister{"%cluster_ctaid", Type::U32, true},
    SpecialRegister{"%cluster_nctaid", Type::U32, true},
    SpecialRegister{"%cluster_ctarank", Type::U32, false},
    SpecialRegister{"%cluster_nctarank", Type::U32, false},
    SpecialRegister{"%is_explicit_cluster", Type::Pred, false},
    SpecialRegister{"%laneid", Type::U32, false},
    SpecialRegister{"%warpid", Type::U32, false},
    SpecialRegister{"%nwarpid", Type::U32, false},
    SpecialRegister{"%smid", Type::U32, false},
    SpecialRegister{"%nsmid", Type::U32, false},
    SpecialRegister{"%gridid", Type::U64, false},
    SpecialRegister{"%lanemask_eq", Type::U32, false},
    SpecialRegister{"%lanemask_le", Type::U32, false},
    SpecialRegister{"%lanemask_lt", Type::U32, false},
    SpecialRegister{"%lanemask_ge", Type::U32, false},
    SpecialRegister{"%lanemask_gt", Type::U32, false},
    SpecialRegister{"%clock", Type::U32, false},
    SpecialRegister{"%clock_hi", Type::U32, false},
    SpecialRegister{"%clock64", Type::U64, false},
    SpecialRegister{"%globaltimer", Type::U64, false},
    SpecialRegister{"%globaltimer_lo", Type::U32, false},
    SpecialRegister{"%globaltimer_hi", Type::U32, false},
    SpecialRegister{"%total_smem_size", Type::U32, false},
    SpecialRegister{"%aggr_smem_size", Type::U32, false},
    SpecialRegister{"%dynamic_smem_size", Type::U32, false},
    SpecialRegister{"%current_graph_exec", Type::U64, false},
    SpecialRegister{"%reserved_smem_offset_begin", Type::U32, false},
    SpecialRegister{"%reserved_smem_offset_end", Type::U32, false},
    SpecialRegister{"%reserved_smem_offset_cap", Type::U32, false},
};

} // namespace

const SpecialRegister *specialRegister(std::string_view name) {
  for (const auto &s : kSpecialRegisters)
    if (s.name == name)
      return &s;
  auto numbered = [&](std::string_view prefix, int limit) {
    if (!name.starts_with(prefix))
      return false;
    int n = -1;
    auto rest = name.substr(prefix.size());
    auto [p, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), n);
    return ec == std::errc() && p == rest.data() + rest.size() && n >= 0 && n < limit;
  };
  static constexpr SpecialRegister env{"%envreg", Type::B32, false};
  static constexpr SpecialRegister pm{"%pm", Type::U32, false};
  static constexpr SpecialRegister pm64{"%pm_64", Type::U64, false};
  static constexpr SpecialRegister offset{"%reserved_smem_offset", Type::U32, false};
  if (numbered("%envreg", 32))
    return &env;
  if (name.size() == 7 && name.starts_with("%pm") && name[3] >= '0' && name[3] <= '7' &&
      name.ends_with("_64"))
    return &pm64;
  if (numbered("%pm", 8))
    return &pm;
  if (numbered("%reserved_smem_offset_", 3))
    return &offset;
  return nullptr;
}

} // namespace cucpu::ptx
