// Entry points: graphs as data (create, destroy, clone, nodes and edges and their queries, dot
// output), user objects and the device's graph memory attributes.
#include "api_graph.h"

#include "cucpu/driver/graph.h"
#include "cucpu/driver/reason.h"
#include "entry_points.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace cucpu::api {

CUresult graphOf(CUgraph h, driver::Graph **out) {
  *out = reinterpret_cast<driver::Graph *>(h);
  return check::graph(h, "hGraph");
}

CUresult nodeOf(CUgraphNode h, driver::Node **out) {
  *out = reinterpret_cast<driver::Node *>(h);
  return check::node(h, "hNode");
}

bool defaultEdges(const CUgraphEdgeData *edges, size_t count) {
  for (size_t i = 0; edges && i < count; ++i)
    if (edges[i].from_port || edges[i].to_port || edges[i].type)
      return false;
  return true;
}

CUresult addNode(CUgraphNode *out, CUgraph hGraph, const CUgraphNode *deps, size_t count,
                 const std::function<CUresult(driver::NodeSpec *)> &make) {
  driver::Graph *g;
  if (CUresult r = graphOf(hGraph, &g); r != CUDA_SUCCESS)
    return r;
  if (!out || (count && !deps))
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "phGraphNode is NULL, or {} dependencies have no array", count);
  driver::NodeSpec spec;
  if (CUresult r = make(&spec); r != CUDA_SUCCESS)
    return r;
  driver::Node *n;
  auto nodes = reinterpret_cast<driver::Node *const *>(deps);
  if (CUresult r = g->add(std::move(spec), nodes, count, &n); r != CUDA_SUCCESS)
    return r;
  *out = reinterpret_cast<CUgraphNode>(n);
  return CUDA_SUCCESS;
}

} // namespace cucpu::api

namespace cucpu::api::impl {
namespace {

// Fills up to *count entries of `out` (null: only counts); *count becomes what was written.
template <typename T, typename F> CUresult list(size_t total, T *out, size_t *count, F &&entry) {
  if (!count)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "count is NULL");
  if (!out) {
    *count = total;
    return CUDA_SUCCESS;
  }
  for (size_t i = 0; i < *count; ++i)
    out[i] = i < total ? entry(i) : T{};
  *count = std::min(*count, total);
  return CUDA_SUCCESS;
}

// Handles the registry's checks found live.
driver::Graph *checkedGraph(CUgraph h) { return reinterpret_cast<driver::Graph *>(h); }
driver::Node *checkedNode(CUgraphNode h) { return reinterpret_cast<driver::Node *>(h); }

CUgraphNode handle(const driver::Node *n) {
  return reinterpret_cast<CUgraphNode>(const_cast<driver::Node *>(n));
}

CUresult edges(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, CUgraphEdgeData *data,
               size_t *count) {
  driver::Graph *g;
  if (CUresult r = graphOf(hGraph, &g); r != CUDA_SUCCESS)
    return r;
  if (!count || (!from != !to))
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "numEdges is NULL, or only one of from and to is given");
  auto all = g->edges();
  const size_t n = *count;
  if (CUresult r = list(all.size(), from, count, [&](size_t i) { return handle(all[i].first); });
      r != CUDA_SUCCESS)
    return r;
  if (to) {
    size_t m = n;
    list(all.size(), to, &m, [&](size_t i) { return handle(all[i].second); });
    for (size_t i = 0; data && i < n; ++i)
      data[i] = CUgraphEdgeData{};
  }
  return CUDA_SUCCESS;
}

CUresult neighbours(CUgraphNode hNode, CUgraphNode *out, CUgraphEdgeData *data, size_t *count,
                    bool dependencies) {
  driver::Node *n;
  if (CUresult r = nodeOf(hNode, &n); r != CUDA_SUCCESS)
    return r;
  const auto &v = dependencies ? n->deps : n->dependents;
  const size_t given = count ? *count : 0;
  if (CUresult r = list(v.size(), out, count, [&](size_t i) { return handle(v[i]); });
      r != CUDA_SUCCESS)
    return r;
  for (size_t i = 0; out && data && i < given; ++i)
    data[i] = CUgraphEdgeData{};
  return CUDA_SUCCESS;
}

CUresult changeEdges(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                     const CUgraphEdgeData *data, size_t count, bool add) {
  driver::Graph *g;
  if (CUresult r = graphOf(hGraph, &g); r != CUDA_SUCCESS)
    return r;
  if (count && (!from || !to))
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "{} edges without their from and to arrays",
                        count);
  if (!defaultEdges(data, count)) // ports and programmatic edges: kernels only, none here
    return driver::fail(CUDA_ERROR_NOT_SUPPORTED,
                        "edge data with ports or types other than the default");
  auto f = reinterpret_cast<driver::Node *const *>(from);
  auto t = reinterpret_cast<driver::Node *const *>(to);
  return add ? g->addEdges(f, t, count) : g->removeEdges(f, t, count);
}

} // namespace

CUresult cuGraphCreate(CUgraph *phGraph, unsigned int) {
  *phGraph = reinterpret_cast<CUgraph>(driver::createGraph());
  return CUDA_SUCCESS;
}

CUresult cuGraphDestroy(CUgraph hGraph) {
  driver::destroyGraph(checkedGraph(hGraph));
  return CUDA_SUCCESS;
}

CUresult cuGraphClone(CUgraph *phGraphClone, CUgraph originalGraph) {
  driver::Graph *copy = driver::createGraph(); // the application's until cuGraphDestroy
  checkedGraph(originalGraph)->cloneInto(*copy);
  *phGraphClone = reinterpret_cast<CUgraph>(copy);
  return CUDA_SUCCESS;
}

CUresult cuGraphNodeFindInClone(CUgraphNode *phNode, CUgraphNode hOriginalNode,
                                CUgraph hClonedGraph) {
  driver::Node *n =
      checkedGraph(hClonedGraph)->cloneOf(reinterpret_cast<driver::Node *>(hOriginalNode));
  if (!n)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "hOriginalNode has no clone in this graph");
  *phNode = handle(n);
  return CUDA_SUCCESS;
}

CUresult cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType *type) {
  *type = checkedNode(hNode)->spec.type;
  return CUDA_SUCCESS;
}

CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes) {
  const auto &all = checkedGraph(hGraph)->nodes();
  return list(all.size(), nodes, numNodes, [&](size_t i) { return handle(all[i].get()); });
}

CUresult cuGraphGetRootNodes(CUgraph hGraph, CUgraphNode *rootNodes, size_t *numRootNodes) {
  auto roots = checkedGraph(hGraph)->roots();
  return list(roots.size(), rootNodes, numRootNodes, [&](size_t i) { return handle(roots[i]); });
}

CUresult cuGraphGetEdges(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, size_t *numEdges) {
  return edges(hGraph, from, to, nullptr, numEdges);
}
CUresult cuGraphGetEdges_v2(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to,
                            CUgraphEdgeData *edgeData, size_t *numEdges) {
  return edges(hGraph, from, to, edgeData, numEdges);
}
CUresult cuGraphNodeGetDependencies(CUgraphNode hNode, CUgraphNode *deps, size_t *n) {
  return neighbours(hNode, deps, nullptr, n, true);
}
CUresult cuGraphNodeGetDependencies_v2(CUgraphNode hNode, CUgraphNode *deps,
                                       CUgraphEdgeData *edgeData, size_t *n) {
  return neighbours(hNode, deps, edgeData, n, true);
}
CUresult cuGraphNodeGetDependentNodes(CUgraphNode hNode, CUgraphNode *nodes, size_t *n) {
  return neighbours(hNode, nodes, nullptr, n, false);
}
CUresult cuGraphNodeGetDependentNodes_v2(CUgraphNode hNode, CUgraphNode *nodes,
                                         CUgraphEdgeData *edgeData, size_t *n) {
  return neighbours(hNode, nodes, edgeData, n, false);
}
CUresult cuGraphAddDependencies(CUgraph g, const CUgraphNode *from, const CUgraphNode *to,
                                size_t n) {
  return changeEdges(g, from, to, nullptr, n, true);
}
CUresult cuGraphAddDependencies_v2(CUgraph g, const CUgraphNode *from, const CUgraphNode *to,
                                   const CUgraphEdgeData *edgeData, size_t n) {
  return changeEdges(g, from, to, edgeData, n, true);
}
CUresult cuGraphRemoveDependencies(CUgraph g, const CUgraphNode *from, const CUgraphNode *to,
                                   size_t n) {
  return changeEdges(g, from, to, nullptr, n, false);
}
CUresult cuGraphRemoveDependencies_v2(CUgraph g, const CUgraphNode *from, const CUgraphNode *to,
                                      const CUgraphEdgeData *edgeData, size_t n) {
  return changeEdges(g, from, to, edgeData, n, false);
}

CUresult cuGraphDestroyNode(CUgraphNode hNode) {
  driver::Node *n = checkedNode(hNode);
  n->graph->destroy(n);
  return CUDA_SUCCESS;
}

CUresult cuGraphDebugDotPrint(CUgraph hGraph, const char *path, unsigned int flags) {
  const driver::Graph *g = checkedGraph(hGraph);
  FILE *f = std::fopen(path, "w");
  if (!f)
    return driver::fail(CUDA_ERROR_OPERATING_SYSTEM, "cannot open {}: {}", path,
                        std::strerror(errno));
  const std::string text = g->dot(flags);
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  return std::fclose(f) == 0 && ok
             ? CUDA_SUCCESS
             : driver::fail(CUDA_ERROR_OPERATING_SYSTEM, "cannot write {}", path);
}

CUresult cuUserObjectCreate(CUuserObject *object_out, void *ptr, CUhostFn destroy,
                            unsigned int initialRefcount, unsigned int flags) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  // NVIDIA's driver requires CU_USER_OBJECT_NO_DESTRUCTOR_SYNC (tests/gpu/answers/graphs.txt).
  if (!object_out || !destroy || initialRefcount == 0 || flags != CU_USER_OBJECT_NO_DESTRUCTOR_SYNC)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "object_out or destroy is NULL, initialRefcount is 0 or flags = {:#x} is "
                        "not NO_DESTRUCTOR_SYNC",
                        flags);
  *object_out =
      reinterpret_cast<CUuserObject>(driver::createUserObject(ptr, destroy, initialRefcount));
  return CUDA_SUCCESS;
}

CUresult cuUserObjectRetain(CUuserObject object, unsigned int count) {
  if (count == 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "count is 0");
  reinterpret_cast<driver::UserObject *>(object)->retain(count);
  return CUDA_SUCCESS;
}

CUresult cuUserObjectRelease(CUuserObject object, unsigned int count) {
  if (count == 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "count is 0");
  reinterpret_cast<driver::UserObject *>(object)->release(count);
  return CUDA_SUCCESS;
}

CUresult cuGraphRetainUserObject(CUgraph graph, CUuserObject object, unsigned int count,
                                 unsigned int flags) {
  driver::Graph *g;
  if (CUresult r = graphOf(graph, &g); r != CUDA_SUCCESS)
    return r;
  auto *o = reinterpret_cast<driver::UserObject *>(object);
  if (!driver::isLiveUserObject(o) || count == 0 || (flags & ~unsigned(CU_GRAPH_USER_OBJECT_MOVE)))
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "the user object is not live, count is 0 or flags = {:#x} has unknown bits",
                        flags);
  g->retainUserObject(o, count);
  if (flags & CU_GRAPH_USER_OBJECT_MOVE) // the caller's references move to the graph
    o->release(count);
  return CUDA_SUCCESS;
}

CUresult cuGraphReleaseUserObject(CUgraph graph, CUuserObject object, unsigned int count) {
  driver::Graph *g;
  if (CUresult r = graphOf(graph, &g); r != CUDA_SUCCESS)
    return r;
  auto *o = reinterpret_cast<driver::UserObject *>(object);
  if (!driver::isLiveUserObject(o) || count == 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "the user object is not live or count is 0");
  return g->releaseUserObject(o, count);
}

CUresult cuDeviceGetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr, void *value) {
  driver::Device *d;
  if (CUresult r = deviceOf(device, &d); r != CUDA_SUCCESS)
    return r;
  if (!value)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "value is NULL");
  auto *v = static_cast<cuuint64_t *>(value);
  switch (attr) {
  case CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT:
  case CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT:
    *v = driver::graphMemoryInUse();
    return CUDA_SUCCESS;
  case CU_GRAPH_MEM_ATTR_USED_MEM_HIGH:
  case CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH:
    *v = driver::graphMemoryHigh();
    return CUDA_SUCCESS;
  default:
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "attr = {} is not a value this call takes",
                        static_cast<long long>(attr));
  }
}

CUresult cuDeviceSetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr, void *value) {
  driver::Device *d;
  if (CUresult r = deviceOf(device, &d); r != CUDA_SUCCESS)
    return r;
  if (!value)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "value is NULL");
  // Only the high-water marks may be set, and only to 0 (a reset).
  if ((attr != CU_GRAPH_MEM_ATTR_USED_MEM_HIGH && attr != CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH) ||
      *static_cast<cuuint64_t *>(value) != 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "only the high watermarks can be set, and only to 0");
  driver::resetGraphMemoryHigh();
  return CUDA_SUCCESS;
}

CUresult cuDeviceGraphMemTrim(CUdevice device) {
  driver::Device *d;
  // Memory of destroyed executable graphs goes back at once: nothing is cached to trim.
  return deviceOf(device, &d);
}

} // namespace cucpu::api::impl
