// The register limit of a run-time compile or link written into its PTX kernels.
#include "cucpu/rtc/register_limit.h"

#include <cstdlib>
#include <string_view>

namespace cucpu::rtc {

unsigned maxRegistersOption(const std::vector<std::string> &options) {
  unsigned n = 0;
  for (std::string_view o : options) {
    while (o.starts_with('-'))
      o.remove_prefix(1);
    if (o.starts_with("maxrregcount="))
      n = unsigned(std::strtoul(std::string(o.substr(13)).c_str(), nullptr, 10));
  }
  return n;
}

std::string limitRegisters(const std::string &ptx, unsigned n) {
  if (n == 0)
    return ptx;
  std::string out;
  size_t from = 0;
  for (size_t at = ptx.find(".entry", from); at != std::string::npos;
       at = ptx.find(".entry", from)) {
    // `.entry name (params)` or `.entry name`: the directives after it run up to the body's `{`.
    size_t close = ptx.find_first_not_of(" \t\r\n", at + 6);
    close = close == std::string::npos ? close : ptx.find_first_of(" \t\r\n({", close);
    const size_t next =
        close == std::string::npos ? close : ptx.find_first_not_of(" \t\r\n", close);
    if (next != std::string::npos && ptx[next] == '(')
      close = ptx.find(')', next);
    const size_t body = close == std::string::npos ? close : ptx.find('{', close);
    if (body == std::string::npos)
      break;
    out.append(ptx, from, body - from);
    if (ptx.substr(close, body - close).find(".maxnreg") == std::string::npos)
      out += ".maxnreg " + std::to_string(n) + "\n";
    from = body;
  }
  out.append(ptx, from, std::string::npos);
  return out;
}

} // namespace cucpu::rtc
