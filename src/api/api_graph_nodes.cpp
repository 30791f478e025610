// Entry points: adding graph nodes of each kind, reading and changing their parameters in a graph
// and in an executable graph, and the generic cuGraphAddNode / cuGraph(Exec)NodeSetParams.
#include "api_graph.h"

#include "cucpu/driver/context.h"
#include "cucpu/driver/reason.h"
#include "cucpu/driver/stream.h"
#include "entry_points.h"
#include "graph_nodes.h"

#include <cstring>

namespace cucpu::api::impl {
namespace {

using Make = std::function<CUresult(driver::NodeSpec *)>;

// A node's parameters of kind T, if it is of that kind.
template <typename T> CUresult paramsOf(CUgraphNode h, T **out) {
  driver::Node *n;
  if (CUresult r = nodeOf(h, &n); r != CUDA_SUCCESS)
    return r;
  *out = std::get_if<T>(&n->spec.params);
  return *out ? CUDA_SUCCESS
              : driver::fail(CUDA_ERROR_INVALID_VALUE, "node {} is of another type",
                             static_cast<void *>(h));
}

// Copies a node's parameter member `field` of kind T to *out.
template <typename T, typename F> CUresult getParam(CUgraphNode h, F *out, F T::*field) {
  T *p;
  if (CUresult r = paramsOf(h, &p); r != CUDA_SUCCESS)
    return r;
  if (!out)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "out is NULL");
  *out = p->*field;
  return CUDA_SUCCESS;
}

// Replaces a node's parameters with those `make` describes (same kind).
CUresult setNode(CUgraphNode h, const Make &make) {
  driver::Node *n;
  if (CUresult r = nodeOf(h, &n); r != CUDA_SUCCESS)
    return r;
  driver::NodeSpec spec;
  if (CUresult r = make(&spec); r != CUDA_SUCCESS)
    return r;
  if (spec.type != n->spec.type)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "the node is of another type");
  if (auto *k = std::get_if<driver::KernelNodeParams>(&n->spec.params)) // attributes stay
    std::get<driver::KernelNodeParams>(spec.params).attributes = k->attributes;
  n->spec = std::move(spec);
  return CUDA_SUCCESS;
}

// Changes the executable graph's node made from `h`.
CUresult setExecNode(CUgraphExec hExec, CUgraphNode h, const Make &make) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  auto *e = reinterpret_cast<driver::GraphExec *>(hExec);
  if (!driver::isLiveGraphExec(e) || !h)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "hGraphExec is not live or hNode is NULL");
  driver::NodeSpec spec;
  if (CUresult r = make(&spec); r != CUDA_SUCCESS)
    return r;
  return e->setSpec(reinterpret_cast<driver::Node *>(h), std::move(spec));
}

CUresult contextOf(CUcontext h, driver::Context **out) {
  return resolveContext(h, out) == CUDA_SUCCESS
             ? CUDA_SUCCESS
             : driver::fail(CUDA_ERROR_INVALID_CONTEXT, "context {} is not live",
                            static_cast<void *>(h));
}

Make memcpyMake(const CUDA_MEMCPY3D *p, CUcontext ctx) {
  return [p, ctx](driver::NodeSpec *n) {
    driver::Context *c;
    if (!p)
      return driver::fail(CUDA_ERROR_INVALID_VALUE, "nodeParams is NULL");
    if (CUresult r = contextOf(ctx, &c); r != CUDA_SUCCESS)
      return r;
    return copyNode(*p, c, n);
  };
}

Make memsetMake(const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx) {
  return [p, ctx](driver::NodeSpec *n) {
    driver::Context *c;
    if (!p)
      return driver::fail(CUDA_ERROR_INVALID_VALUE, "nodeParams is NULL");
    if (CUresult r = contextOf(ctx, &c); r != CUDA_SUCCESS)
      return r;
    return memsetNode(*p, c, n);
  };
}

Make kernelMake(const CUDA_KERNEL_NODE_PARAMS *p) {
  return [p](driver::NodeSpec *n) {
    return p ? kernelNode(*p, n) : driver::fail(CUDA_ERROR_INVALID_VALUE, "nodeParams is NULL");
  };
}

CUDA_KERNEL_NODE_PARAMS fromV1(const CUDA_KERNEL_NODE_PARAMS_v1 &v1) {
  CUDA_KERNEL_NODE_PARAMS p;
  std::memset(&p, 0, sizeof p);
  std::memcpy(&p, &v1, sizeof v1); // v1 is v2's prefix
  return p;
}

Make hostMake(const CUDA_HOST_NODE_PARAMS *p) {
  return [p](driver::NodeSpec *n) {
    return p ? hostNode(*p, n) : driver::fail(CUDA_ERROR_INVALID_VALUE, "nodeParams is NULL");
  };
}

Make eventMake(CUgraphNodeType type, CUevent e) {
  return [type, e](driver::NodeSpec *n) { return eventNode(type, e, n); };
}

CUresult kernelParams(CUgraphNode h, CUDA_KERNEL_NODE_PARAMS *out) {
  driver::KernelNodeParams *k;
  if (CUresult r = paramsOf(h, &k); r != CUDA_SUCCESS)
    return r;
  if (!out)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "out is NULL");
  std::memset(out, 0, sizeof *out);
  out->func = reinterpret_cast<CUfunction>(k->function);
  out->kern = k->kernel;
  out->gridDimX = k->cfg.grid[0];
  out->gridDimY = k->cfg.grid[1];
  out->gridDimZ = k->cfg.grid[2];
  out->blockDimX = k->cfg.block[0];
  out->blockDimY = k->cfg.block[1];
  out->blockDimZ = k->cfg.block[2];
  out->sharedMemBytes = k->cfg.sharedBytes;
  out->kernelParams = k->args->pointers.empty() ? nullptr : k->args->pointers.data();
  out->extra = k->args->extra.empty() ? nullptr : k->args->extra.data();
  return CUDA_SUCCESS;
}

// The parameters of a generic node description as the per-kind entry points take them.
Make genericMake(const CUgraphNodeParams *p) {
  return [p](driver::NodeSpec *n) -> CUresult {
    if (!p || p->reserved0[0] || p->reserved0[1] || p->reserved0[2] || p->reserved2)
      return driver::fail(CUDA_ERROR_INVALID_VALUE,
                          "nodeParams is NULL or its reserved fields are not 0");
    switch (p->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: {
      CUDA_KERNEL_NODE_PARAMS k;
      std::memcpy(&k, &p->kernel, sizeof k);
      return kernelNode(k, n);
    }
    case CU_GRAPH_NODE_TYPE_MEMCPY:
      if (p->memcpy.flags || p->memcpy.reserved)
        return driver::fail(CUDA_ERROR_INVALID_VALUE,
                            "the copy's flags or reserved field are not 0");
      return memcpyMake(&p->memcpy.copyParams, p->memcpy.copyCtx)(n);
    case CU_GRAPH_NODE_TYPE_MEMSET: {
      const auto &m = p->memset;
      CUDA_MEMSET_NODE_PARAMS v1{m.dst, m.pitch, m.value, m.elementSize, m.width, m.height};
      return memsetMake(&v1, m.ctx)(n);
    }
    case CU_GRAPH_NODE_TYPE_HOST:
      return hostNode(CUDA_HOST_NODE_PARAMS{p->host.fn, p->host.userData}, n);
    case CU_GRAPH_NODE_TYPE_GRAPH:
      return childNode(p->graph.graph, n);
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
      return eventNode(p->type, p->eventWait.event, n);
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
      return eventNode(p->type, p->eventRecord.event, n);
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
      return memFreeNode(p->free.dptr, n);
    case CU_GRAPH_NODE_TYPE_EMPTY:
      n->type = CU_GRAPH_NODE_TYPE_EMPTY;
      return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP: {
      const auto &b = p->memOp;
      return batchMemOpNode(CUDA_BATCH_MEM_OP_NODE_PARAMS{b.ctx, b.count, b.paramArray, b.flags},
                            n);
    }
    default: // external semaphores: not supported; conditional nodes cannot change kind
      return driver::fail(CUDA_ERROR_NOT_SUPPORTED, "p->type = {} is not a value this call takes",
                          static_cast<long long>(p->type));
    }
  };
}

// A conditional node: its body graphs are created empty and handed back for the caller to fill.
CUresult conditionalNode(CUDA_CONDITIONAL_NODE_PARAMS &p, driver::Graph *g, driver::NodeSpec *out) {
  const bool sizeOk = p.type == CU_GRAPH_COND_TYPE_WHILE    ? p.size == 1
                      : p.type == CU_GRAPH_COND_TYPE_IF     ? p.size == 1 || p.size == 2
                      : p.type == CU_GRAPH_COND_TYPE_SWITCH ? p.size >= 1
                                                            : false;
  if (!sizeOk || !g->ownsConditional(p.handle))
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "the conditional's size or handle does not belong to the graph");
  driver::Context *c;
  if (CUresult r = p.ctx ? resolveContext(p.ctx, &c) : currentContext(&c); r != CUDA_SUCCESS)
    return r;
  driver::ConditionalNodeParams cond;
  cond.handle = p.handle;
  cond.type = p.type;
  cond.ctx = c;
  cond.handles = std::make_shared<std::vector<CUgraph>>();
  for (unsigned i = 0; i < p.size; ++i) {
    cond.bodies.emplace_back(driver::createGraph(), driver::destroyGraph);
    cond.handles->push_back(reinterpret_cast<CUgraph>(cond.bodies.back().get()));
  }
  p.phGraph_out = cond.handles->data(); // the driver's array, valid as long as the node
  out->type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
  out->params = std::move(cond);
  out->work = nullptr; // the schedule tests the value and runs a body
  return CUDA_SUCCESS;
}

CUresult addGeneric(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
                    const CUgraphEdgeData *edges, size_t count, CUgraphNodeParams *p) {
  if (!defaultEdges(edges, count))
    return driver::fail(CUDA_ERROR_NOT_SUPPORTED,
                        "edge data with ports or types other than the default");
  if (p && p->type == CU_GRAPH_NODE_TYPE_CONDITIONAL) {
    driver::Graph *graph;
    if (CUresult r = graphOf(g, &graph); r != CUDA_SUCCESS)
      return r;
    return addNode(out, g, deps, count,
                   [&](driver::NodeSpec *n) { return conditionalNode(p->conditional, graph, n); });
  }
  if (p && p->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC) { // writes the address back
    driver::Context *c;
    if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
      return r;
    CUDA_MEM_ALLOC_NODE_PARAMS a;
    std::memcpy(&a, &p->alloc, sizeof a);
    CUresult r =
        addNode(out, g, deps, count, [&](driver::NodeSpec *n) { return memAllocNode(a, c, n); });
    p->alloc.dptr = a.dptr;
    return r;
  }
  return addNode(out, g, deps, count, genericMake(p));
}

} // namespace

CUresult cuGraphAddKernelNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t n,
                              const CUDA_KERNEL_NODE_PARAMS_v1 *p) {
  CUDA_KERNEL_NODE_PARAMS v2 = p ? fromV1(*p) : CUDA_KERNEL_NODE_PARAMS{};
  return addNode(out, g, deps, n, kernelMake(p ? &v2 : nullptr));
}
CUresult cuGraphAddKernelNode_v2(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t n,
                                 const CUDA_KERNEL_NODE_PARAMS *p) {
  return addNode(out, g, deps, n, kernelMake(p));
}
CUresult cuGraphKernelNodeGetParams(CUgraphNode h, CUDA_KERNEL_NODE_PARAMS_v1 *out) {
  CUDA_KERNEL_NODE_PARAMS v2;
  if (CUresult r = kernelParams(h, out ? &v2 : nullptr); r != CUDA_SUCCESS)
    return r;
  std::memcpy(out, &v2, sizeof *out);
  return CUDA_SUCCESS;
}
CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode h, CUDA_KERNEL_NODE_PARAMS *out) {
  return kernelParams(h, out);
}
CUresult cuGraphKernelNodeSetParams(CUgraphNode h, const CUDA_KERNEL_NODE_PARAMS_v1 *p) {
  CUDA_KERNEL_NODE_PARAMS v2 = p ? fromV1(*p) : CUDA_KERNEL_NODE_PARAMS{};
  return setNode(h, kernelMake(p ? &v2 : nullptr));
}
CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode h, const CUDA_KERNEL_NODE_PARAMS *p) {
  return setNode(h, kernelMake(p));
}
CUresult cuGraphExecKernelNodeSetParams(CUgraphExec e, CUgraphNode h,
                                        const CUDA_KERNEL_NODE_PARAMS_v1 *p) {
  CUDA_KERNEL_NODE_PARAMS v2 = p ? fromV1(*p) : CUDA_KERNEL_NODE_PARAMS{};
  return setExecNode(e, h, kernelMake(p ? &v2 : nullptr));
}
CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec e, CUgraphNode h,
                                           const CUDA_KERNEL_NODE_PARAMS *p) {
  return setExecNode(e, h, kernelMake(p));
}

CUresult cuGraphKernelNodeGetAttribute(CUgraphNode h, CUkernelNodeAttrID attr,
                                       CUkernelNodeAttrValue *out) {
  driver::KernelNodeParams *k;
  if (CUresult r = paramsOf(h, &k); r != CUDA_SUCCESS)
    return r;
  if (!out)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "out is NULL");
  auto it = k->attributes.find(attr);
  if (it != k->attributes.end()) {
    *out = it->second;
    return CUDA_SUCCESS;
  }
  std::memset(out, 0, sizeof *out); // every attribute's default
  return CUDA_SUCCESS;
}
CUresult cuGraphKernelNodeSetAttribute(CUgraphNode h, CUkernelNodeAttrID attr,
                                       const CUkernelNodeAttrValue *value) {
  driver::KernelNodeParams *k;
  if (CUresult r = paramsOf(h, &k); r != CUDA_SUCCESS)
    return r;
  if (!value)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "value is NULL");
  if (attr == CU_LAUNCH_ATTRIBUTE_COOPERATIVE)
    k->cfg.cooperative = value->cooperative != 0;
  k->attributes[attr] = *value; // cache and scheduling hints: nothing to apply on a CPU
  return CUDA_SUCCESS;
}
CUresult cuGraphKernelNodeCopyAttributes(CUgraphNode dst, CUgraphNode src) {
  driver::KernelNodeParams *d, *s;
  if (CUresult r = paramsOf(dst, &d); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = paramsOf(src, &s); r != CUDA_SUCCESS)
    return r;
  d->attributes = s->attributes;
  return CUDA_SUCCESS;
}

CUresult cuGraphAddMemcpyNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t n,
                              const CUDA_MEMCPY3D *p, CUcontext ctx) {
  return addNode(out, g, deps, n, memcpyMake(p, ctx));
}
CUresult cuGraphMemcpyNodeGetParams(CUgraphNode h, CUDA_MEMCPY3D *out) {
  return getParam(h, out, &driver::MemcpyNodeParams::copy);
}
CUresult cuGraphMemcpyNodeSetParams(CUgraphNode h, const CUDA_MEMCPY3D *p) {
  driver::Context *c;
  if (CUresult r = getParam(h, &c, &driver::MemcpyNodeParams::ctx); r != CUDA_SUCCESS)
    return r;
  return setNode(h, memcpyMake(p, toHandle(c)));
}
CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec e, CUgraphNode h, const CUDA_MEMCPY3D *p,
                                        CUcontext ctx) {
  return setExecNode(e, h, memcpyMake(p, ctx));
}

CUresult cuGraphAddMemsetNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t n,
                              const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx) {
  return addNode(out, g, deps, n, memsetMake(p, ctx));
}
CUresult cuGraphMemsetNodeGetParams(CUgraphNode h, CUDA_MEMSET_NODE_PARAMS *out) {
  return getParam(h, out, &driver::MemsetNodeParams::memset);
}
CUresult cuGraphMemsetNodeSetParams(CUgraphNode h, const CUDA_MEMSET_NODE_PARAMS *p) {
  driver::Context *c;
  if (CUresult r = getParam(h, &c, &driver::MemsetNodeParams::ctx); r != CUDA_SUCCESS)
    return r;
  return setNode(h, memsetMake(p, toHandle(c)));
}
CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec e, CUgraphNode h,
                                        const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx) {
  return setExecNode(e, h, memsetMake(p, ctx));
}

CUresult cuGraphAddHostNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t n,
                            const CUDA_HOST_NODE_PARAMS *p) {
  return addNode(out, g, deps, n, hostMake(p));
}
CUresult cuGraphHostNodeGetParams(CUgraphNode h, CUDA_HOST_NODE_PARAMS *out) {
  return getParam(h, out, &driver::HostNodeParams::host);
}
CUresult cuGraphHostNodeSetParams(CUgraphNode h, const CUDA_HOST_NODE_PARAMS *p) {
  return setNode(h, hostMake(p));
}
CUresult cuGraphExecHostNodeSetParams(CUgraphExec e, CUgraphNode h,
                                      const CUDA_HOST_NODE_PARAMS *p) {
  return setExecNode(e, h, hostMake(p));
}

CUresult cuGraphAddChildGraphNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t n,
                                  CUgraph child) {
  return addNode(out, g, deps, n, [child](driver::NodeSpec *s) { return childNode(child, s); });
}
CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode h, CUgraph *out) {
  driver::ChildNodeParams *c;
  if (CUresult r = paramsOf(h, &c); r != CUDA_SUCCESS)
    return r;
  if (!out)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "out is NULL");
  *out = reinterpret_cast<CUgraph>(c->graph.get());
  return CUDA_SUCCESS;
}
CUresult cuGraphExecChildGraphNodeSetParams(CUgraphExec e, CUgraphNode h, CUgraph child) {
  return setExecNode(e, h, [child](driver::NodeSpec *s) { return childNode(child, s); });
}

CUresult cuGraphAddEmptyNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t n) {
  return addNode(out, g, deps, n, [](driver::NodeSpec *) { return CUDA_SUCCESS; });
}

CUresult cuGraphAddEventRecordNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t n,
                                   CUevent e) {
  return addNode(out, g, deps, n, eventMake(CU_GRAPH_NODE_TYPE_EVENT_RECORD, e));
}
CUresult cuGraphAddEventWaitNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t n,
                                 CUevent e) {
  return addNode(out, g, deps, n, eventMake(CU_GRAPH_NODE_TYPE_WAIT_EVENT, e));
}
namespace {
CUresult eventOfNode(CUgraphNode h, CUgraphNodeType type, CUevent *out) {
  driver::Node *n;
  if (CUresult r = nodeOf(h, &n); r != CUDA_SUCCESS)
    return r;
  if (!out || n->spec.type != type)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "the output is NULL or the node is of another type");
  *out = reinterpret_cast<CUevent>(std::get<driver::EventNodeParams>(n->spec.params).event);
  return CUDA_SUCCESS;
}
} // namespace
CUresult cuGraphEventRecordNodeGetEvent(CUgraphNode h, CUevent *out) {
  return eventOfNode(h, CU_GRAPH_NODE_TYPE_EVENT_RECORD, out);
}
CUresult cuGraphEventWaitNodeGetEvent(CUgraphNode h, CUevent *out) {
  return eventOfNode(h, CU_GRAPH_NODE_TYPE_WAIT_EVENT, out);
}
CUresult cuGraphEventRecordNodeSetEvent(CUgraphNode h, CUevent e) {
  return setNode(h, eventMake(CU_GRAPH_NODE_TYPE_EVENT_RECORD, e));
}
CUresult cuGraphEventWaitNodeSetEvent(CUgraphNode h, CUevent e) {
  return setNode(h, eventMake(CU_GRAPH_NODE_TYPE_WAIT_EVENT, e));
}
CUresult cuGraphExecEventRecordNodeSetEvent(CUgraphExec x, CUgraphNode h, CUevent e) {
  return setExecNode(x, h, eventMake(CU_GRAPH_NODE_TYPE_EVENT_RECORD, e));
}
CUresult cuGraphExecEventWaitNodeSetEvent(CUgraphExec x, CUgraphNode h, CUevent e) {
  return setExecNode(x, h, eventMake(CU_GRAPH_NODE_TYPE_WAIT_EVENT, e));
}

CUresult cuGraphAddMemAllocNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t n,
                                CUDA_MEM_ALLOC_NODE_PARAMS *p) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  return addNode(out, g, deps, n, [&](driver::NodeSpec *s) {
    return p ? memAllocNode(*p, c, s)
             : driver::fail(CUDA_ERROR_INVALID_VALUE, "nodeParams is NULL");
  });
}
CUresult cuGraphMemAllocNodeGetParams(CUgraphNode h, CUDA_MEM_ALLOC_NODE_PARAMS *out) {
  driver::MemAllocNodeParams *a;
  if (CUresult r = paramsOf(h, &a); r != CUDA_SUCCESS)
    return r;
  if (!out)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "out is NULL");
  *out = a->params;
  out->accessDescs = a->access.empty() ? nullptr : a->access.data();
  out->accessDescCount = a->access.size();
  return CUDA_SUCCESS;
}
CUresult cuGraphAddMemFreeNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t n,
                               CUdeviceptr dptr) {
  return addNode(out, g, deps, n, [dptr](driver::NodeSpec *s) { return memFreeNode(dptr, s); });
}
CUresult cuGraphMemFreeNodeGetParams(CUgraphNode h, CUdeviceptr *out) {
  return getParam(h, out, &driver::MemFreeNodeParams::ptr);
}

CUresult cuGraphAddBatchMemOpNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t n,
                                  const CUDA_BATCH_MEM_OP_NODE_PARAMS *p) {
  return addNode(out, g, deps, n, [p](driver::NodeSpec *s) {
    return p ? batchMemOpNode(*p, s) : driver::fail(CUDA_ERROR_INVALID_VALUE, "nodeParams is NULL");
  });
}
CUresult cuGraphBatchMemOpNodeGetParams(CUgraphNode h, CUDA_BATCH_MEM_OP_NODE_PARAMS *out) {
  driver::BatchMemOpNodeParams *b;
  if (CUresult r = paramsOf(h, &b); r != CUDA_SUCCESS)
    return r;
  if (!out)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "out is NULL");
  *out = {toHandle(b->ctx), unsigned(b->ops.size()), b->ops.data(), b->flags};
  return CUDA_SUCCESS;
}
CUresult cuGraphBatchMemOpNodeSetParams(CUgraphNode h, const CUDA_BATCH_MEM_OP_NODE_PARAMS *p) {
  return setNode(h, [p](driver::NodeSpec *s) {
    return p ? batchMemOpNode(*p, s) : driver::fail(CUDA_ERROR_INVALID_VALUE, "nodeParams is NULL");
  });
}
CUresult cuGraphExecBatchMemOpNodeSetParams(CUgraphExec e, CUgraphNode h,
                                            const CUDA_BATCH_MEM_OP_NODE_PARAMS *p) {
  return setExecNode(e, h, [p](driver::NodeSpec *s) {
    return p ? batchMemOpNode(*p, s) : driver::fail(CUDA_ERROR_INVALID_VALUE, "nodeParams is NULL");
  });
}

CUresult cuGraphAddNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t n,
                        CUgraphNodeParams *p) {
  return addGeneric(out, g, deps, nullptr, n, p);
}
CUresult cuGraphAddNode_v2(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
                           const CUgraphEdgeData *edges, size_t n, CUgraphNodeParams *p) {
  return addGeneric(out, g, deps, edges, n, p);
}
CUresult cuGraphNodeSetParams(CUgraphNode h, CUgraphNodeParams *p) {
  return setNode(h, genericMake(p));
}
CUresult cuGraphExecNodeSetParams(CUgraphExec e, CUgraphNode h, CUgraphNodeParams *p) {
  return setExecNode(e, h, genericMake(p));
}

CUresult cuGraphConditionalHandleCreate(CUgraphConditionalHandle *out, CUgraph hGraph,
                                        CUcontext ctx, unsigned int defaultLaunchValue,
                                        unsigned int flags) {
  driver::Graph *g;
  if (CUresult r = graphOf(hGraph, &g); r != CUDA_SUCCESS)
    return r;
  driver::Context *c;
  if (CUresult r = contextOf(ctx, &c); r != CUDA_SUCCESS)
    return r;
  if (!out || (flags & ~unsigned(CU_GRAPH_COND_ASSIGN_DEFAULT)))
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "pHandle_out is NULL or flags = {:#x} has unknown bits", flags);
  *out = g->createConditional(defaultLaunchValue, flags & CU_GRAPH_COND_ASSIGN_DEFAULT);
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
