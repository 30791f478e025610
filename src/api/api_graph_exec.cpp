// Entry points: instantiating graphs, launching and uploading executable graphs, updating them
// whole, enabling and disabling their nodes.
#include "api_graph.h"

#include "cucpu/driver/context.h"
#include "cucpu/support/log.h"
#include "entry_points.h"
#include "graph_nodes.h"
#include "stream_ref.h"

namespace cucpu::api::impl {
namespace {

constexpr unsigned long long kInstantiateFlags = CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH |
                                                 CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD |
                                                 CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;

CUresult execOf(CUgraphExec h, driver::GraphExec **out) {
  *out = reinterpret_cast<driver::GraphExec *>(h);
  return check::graphExec(h, "hGraphExec");
}

CUresult instantiate(CUgraphExec *out, CUgraph hGraph, unsigned long long flags) {
  driver::Graph *g;
  if (CUresult r = graphOf(hGraph, &g); r != CUDA_SUCCESS)
    return r;
  if (!out)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "out is NULL");
  if (flags & CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH) {
    return driver::fail(CUDA_ERROR_NOT_SUPPORTED,
                        "graph instantiation: device launch is not supported");
  }
  if (flags & ~kInstantiateFlags)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "flags = {:#x} has bits outside kInstantiateFlags", flags);
  driver::GraphExec *e;
  if (CUresult r = driver::GraphExec::instantiate(*g, flags, &e); r != CUDA_SUCCESS)
    return r;
  *out = reinterpret_cast<CUgraphExec>(e);
  return CUDA_SUCCESS;
}

CUresult launch(CUgraphExec h, CUstream hStream, bool perThread) {
  driver::GraphExec *e;
  if (CUresult r = execOf(h, &e); r != CUDA_SUCCESS)
    return r;
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(hStream, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  bool captured; // a launch in a capture becomes a child graph node
  if (CUresult r = captureOr(s, &captured,
                             [&](driver::NodeSpec *n) {
                               n->type = CU_GRAPH_NODE_TYPE_GRAPH;
                               n->params = driver::ChildNodeParams{e->graph().clone()};
                               return CUDA_SUCCESS;
                             });
      captured || r != CUDA_SUCCESS)
    return r;
  if (CUresult r = c->stickyError(); r != CUDA_SUCCESS)
    return r;
  return e->launch(s);
}

CUresult upload(CUgraphExec h, CUstream hStream, bool perThread) {
  driver::GraphExec *e;
  if (CUresult r = execOf(h, &e); r != CUDA_SUCCESS)
    return r;
  driver::Context *c;
  driver::Stream *s;
  // Nothing to move to a device: the schedule is ready from instantiation.
  return contextAndStream(hStream, perThread, &c, &s);
}

CUresult instantiateWithParams(CUgraphExec *out, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p,
                               bool perThread) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!p)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "p is NULL");
  p->hErrNode_out = nullptr;
  CUresult r = instantiate(out, g, p->flags);
  p->result_out = r == CUDA_SUCCESS ? CUDA_GRAPH_INSTANTIATE_SUCCESS
                  : r == CUDA_ERROR_NOT_SUPPORTED
                      ? CUDA_GRAPH_INSTANTIATE_MULTIPLE_CTXS_NOT_SUPPORTED
                      : CUDA_GRAPH_INSTANTIATE_ERROR;
  if (r == CUDA_SUCCESS && (p->flags & CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD))
    return upload(*out, p->hUploadStream, perThread);
  return r;
}

CUresult updateExec(CUgraphExec h, CUgraph hGraph, CUgraphExecUpdateResultInfo *info) {
  driver::GraphExec *e;
  if (CUresult r = execOf(h, &e); r != CUDA_SUCCESS)
    return r;
  driver::Graph *g;
  if (CUresult r = graphOf(hGraph, &g); r != CUDA_SUCCESS)
    return r;
  if (!info)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "info is NULL");
  return e->update(*g, info);
}

} // namespace

namespace {
// The first instantiation entry points: an error node and a log buffer, no flags.
CUresult instantiateWithLog(CUgraphExec *out, CUgraph g, CUgraphNode *errorNode, char *log,
                            size_t logSize) {
  if (errorNode)
    *errorNode = nullptr;
  if (log && logSize)
    log[0] = '\0';
  return instantiate(out, g, 0);
}
} // namespace

CUresult cuGraphInstantiate(CUgraphExec *out, CUgraph g, CUgraphNode *errorNode, char *log,
                            size_t logSize) {
  return instantiateWithLog(out, g, errorNode, log, logSize);
}
CUresult cuGraphInstantiate_v2(CUgraphExec *out, CUgraph g, CUgraphNode *errorNode, char *log,
                               size_t logSize) {
  return instantiateWithLog(out, g, errorNode, log, logSize);
}
CUresult cuGraphInstantiateWithFlags(CUgraphExec *out, CUgraph g, unsigned long long flags) {
  return instantiate(out, g, flags);
}
CUresult cuGraphInstantiateWithParams(CUgraphExec *out, CUgraph g,
                                      CUDA_GRAPH_INSTANTIATE_PARAMS *p) {
  return instantiateWithParams(out, g, p, false);
}
CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *out, CUgraph g,
                                           CUDA_GRAPH_INSTANTIATE_PARAMS *p) {
  return instantiateWithParams(out, g, p, true);
}

CUresult cuGraphExecGetFlags(CUgraphExec h, cuuint64_t *flags) {
  driver::GraphExec *e;
  if (CUresult r = execOf(h, &e); r != CUDA_SUCCESS)
    return r;
  if (!flags)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "flags is NULL");
  *flags = e->flags();
  return CUDA_SUCCESS;
}

CUresult cuGraphExecDestroy(CUgraphExec h) {
  // Launches in flight keep the schedule they took.
  driver::destroyGraphExec(reinterpret_cast<driver::GraphExec *>(h));
  return CUDA_SUCCESS;
}

CUresult cuGraphLaunch(CUgraphExec h, CUstream s) { return launch(h, s, false); }
CUresult cuGraphLaunch_ptsz(CUgraphExec h, CUstream s) { return launch(h, s, true); }
CUresult cuGraphUpload(CUgraphExec h, CUstream s) { return upload(h, s, false); }
CUresult cuGraphUpload_ptsz(CUgraphExec h, CUstream s) { return upload(h, s, true); }

CUresult cuGraphExecUpdate(CUgraphExec h, CUgraph g, CUgraphNode *errorNode,
                           CUgraphExecUpdateResult *result) {
  CUgraphExecUpdateResultInfo info{};
  CUresult r = updateExec(h, g, &info);
  if (errorNode)
    *errorNode = info.errorNode;
  if (result)
    *result = info.result;
  return r;
}
CUresult cuGraphExecUpdate_v2(CUgraphExec h, CUgraph g, CUgraphExecUpdateResultInfo *info) {
  return updateExec(h, g, info);
}

CUresult cuGraphNodeSetEnabled(CUgraphExec h, CUgraphNode node, unsigned int isEnabled) {
  driver::GraphExec *e;
  if (CUresult r = execOf(h, &e); r != CUDA_SUCCESS)
    return r;
  return e->setEnabled(reinterpret_cast<driver::Node *>(node), isEnabled != 0);
}

CUresult cuGraphNodeGetEnabled(CUgraphExec h, CUgraphNode node, unsigned int *isEnabled) {
  driver::GraphExec *e;
  if (CUresult r = execOf(h, &e); r != CUDA_SUCCESS)
    return r;
  if (!isEnabled)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "isEnabled is NULL");
  bool on;
  if (CUresult r = e->enabled(reinterpret_cast<driver::Node *>(node), &on); r != CUDA_SUCCESS)
    return r;
  *isEnabled = on;
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
