// What the graph entry points share: handle checks and adding a node of any kind.
#pragma once

#include "checks.h"
#include "cucpu/driver/graph.h"

#include <functional>

namespace cucpu::api {

// INVALID_VALUE for a null or unknown handle, as NVIDIA's driver answers.
CUresult graphOf(CUgraph h, driver::Graph **out);
CUresult nodeOf(CUgraphNode h, driver::Node **out);
// Edge data other than the default (no ports, a full dependency) is not supported.
bool defaultEdges(const CUgraphEdgeData *edges, size_t count);
// Adds the node `make` describes behind `deps`.
CUresult addNode(CUgraphNode *out, CUgraph hGraph, const CUgraphNode *deps, size_t count,
                 const std::function<CUresult(driver::NodeSpec *)> &make);

} // namespace cucpu::api
