// How a front end's C++ reaches NVIDIA's functions: the generated symbol table (one index per
// exported name) and the slots that the generated forwarding jumps go through.
#pragma once

#include "cucpu/rtc/real_library.h"

#include <atomic>
#include <cstddef>

namespace cucpu::rtc {

// A front end's table: `names[i]` is symbol i; `slots[i]` is NVIDIA's function once looked up;
// `missing` stands in for every function when NVIDIA's library cannot be found (it returns the
// API's internal-error code).
struct ForwardTable {
  RealLibrary &library;
  const char *const *names;
  void **slots;
  void *missing;

  void *resolve(unsigned index) {
    void *f = library.symbol(names[index]);
    if (!f)
      return missing;
    __atomic_store_n(&slots[index], f, __ATOMIC_RELEASE);
    return f;
  }
  void *get(unsigned index) {
    void *f = __atomic_load_n(&slots[index], __ATOMIC_ACQUIRE);
    return f ? f : resolve(index);
  }
  template <typename F> F function(unsigned index) { return reinterpret_cast<F>(get(index)); }
};

} // namespace cucpu::rtc
