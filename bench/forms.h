// Factories of the bench's forms; each returns nullptr and sets error when it cannot start.
#ifndef CUCPU_BENCH_FORMS_H
#define CUCPU_BENCH_FORMS_H

#include "bench.h"

#include <memory>
#include <string>

namespace bench {

// cucpu through the driver API, loading bench/cuda/*.ptx from ptxDir. initMs: cuInit + context.
std::unique_ptr<Form> makeCudaForm(const std::string &ptxDir, double &initMs, std::string &error);

// PoCL's CPU device, building the program in clSource. platformMs: platform and context creation;
// coldBuildMs: clBuildProgram with an empty kernel cache (POCL_CACHE_DIR must name an empty
// directory); warmBuildMs: the same build again, served from that cache.
std::unique_ptr<Form> makeOpenCLForm(const std::string &clSource, double &platformMs,
                                     double &coldBuildMs, double &warmBuildMs,
                                     std::string &error);

// Hand-written C++ with OpenMP; the vector-math variant runs only Black-Scholes, built with
// -ffast-math so that GCC calls glibc's libmvec for expf and logf.
std::unique_ptr<Form> makeOpenMPForm();
std::unique_ptr<Form> makeOpenMPVectorMathForm();

} // namespace bench

#endif
