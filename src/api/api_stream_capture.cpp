// Entry points: stream capture (begin, end, queries, dependencies, the thread's interaction
// mode). What a capturing stream records is decided where work is queued (graph_nodes.h).
#include "api_graph.h"

#include "cucpu/driver/capture.h"
#include "entry_points.h"
#include "stream_ref.h"

namespace cucpu::api::impl {
namespace {

thread_local std::vector<CUgraphEdgeData> edgeData; // what cuStreamGetCaptureInfo_v3 points to

bool validMode(CUstreamCaptureMode mode) {
  return mode == CU_STREAM_CAPTURE_MODE_GLOBAL || mode == CU_STREAM_CAPTURE_MODE_THREAD_LOCAL ||
         mode == CU_STREAM_CAPTURE_MODE_RELAXED;
}

CUresult begin(CUstream h, CUgraph hGraph, const CUgraphNode *deps, const CUgraphEdgeData *edges,
               size_t count, CUstreamCaptureMode mode, bool perThread) {
  if (!validMode(mode)) // before the stream, as an H200 checks
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "capture mode {} is unknown",
                        static_cast<int>(mode));
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(h, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  if (s->legacy()) // the legacy stream cannot be captured
    return driver::fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                        "the legacy stream cannot be captured");
  if (count && !deps)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "{} dependencies without their array", count);
  driver::Graph *g = nullptr;
  if (hGraph) {
    if (CUresult r = graphOf(hGraph, &g); r != CUDA_SUCCESS)
      return r;
    if (!defaultEdges(edges, count))
      return driver::fail(CUDA_ERROR_NOT_SUPPORTED,
                          "edge data with ports or types other than the default");
    for (size_t i = 0; i < count; ++i)
      if (!g->contains(reinterpret_cast<driver::Node *>(deps[i])))
        return driver::fail(CUDA_ERROR_INVALID_VALUE, "dependency {} is not a node of the graph",
                            i);
  }
  return driver::beginCapture(s, g, reinterpret_cast<driver::Node *const *>(deps), count, mode);
}

CUresult end(CUstream h, CUgraph *out, bool perThread) {
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(h, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  if (!out)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "out is NULL");
  driver::Graph *g;
  CUresult r = driver::endCapture(s, &g);
  *out = reinterpret_cast<CUgraph>(g);
  return r;
}

// Like NVIDIA's driver, only the status is written unless the capture is active.
CUresult info(CUstream h, CUstreamCaptureStatus *status, cuuint64_t *id, CUgraph *graph,
              const CUgraphNode **deps, const CUgraphEdgeData **edges, size_t *count,
              bool perThread) {
  if (!status) // before the stream, as an H200 checks
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "status is NULL");
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(h, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  if (s->legacy()) // asking about the legacy stream while a blocking stream captures
    if (CUresult r = driver::legacyUseDuringCapture(c, /*query=*/true); r != CUDA_SUCCESS)
      return r;
  const driver::CaptureState st = driver::captureState(s);
  *status = st.status;
  if (st.status != CU_STREAM_CAPTURE_STATUS_ACTIVE)
    return CUDA_SUCCESS;
  if (id)
    *id = st.id;
  if (graph)
    *graph = reinterpret_cast<CUgraph>(st.graph);
  if (deps)
    *deps = st.deps->empty() ? nullptr : reinterpret_cast<const CUgraphNode *>(st.deps->data());
  if (edges) {
    edgeData.assign(st.deps->size(), CUgraphEdgeData{});
    *edges = edgeData.empty() ? nullptr : edgeData.data();
  }
  if (count)
    *count = st.deps->size();
  return CUDA_SUCCESS;
}

CUresult updateDeps(CUstream h, CUgraphNode *deps, const CUgraphEdgeData *edges, size_t count,
                    unsigned flags, bool perThread) {
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(h, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  if ((count && !deps) || !defaultEdges(edges, count))
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "{} dependencies without their array, or edges other than the default",
                        count);
  return driver::updateCaptureDependencies(s, reinterpret_cast<driver::Node *const *>(deps), count,
                                           flags);
}

} // namespace

CUresult cuStreamBeginCapture(CUstream h) {
  return begin(h, nullptr, nullptr, nullptr, 0, CU_STREAM_CAPTURE_MODE_GLOBAL, false);
}
CUresult cuStreamBeginCapture_ptsz(CUstream h) {
  return begin(h, nullptr, nullptr, nullptr, 0, CU_STREAM_CAPTURE_MODE_GLOBAL, true);
}
CUresult cuStreamBeginCapture_v2(CUstream h, CUstreamCaptureMode mode) {
  return begin(h, nullptr, nullptr, nullptr, 0, mode, false);
}
CUresult cuStreamBeginCapture_v2_ptsz(CUstream h, CUstreamCaptureMode mode) {
  return begin(h, nullptr, nullptr, nullptr, 0, mode, true);
}
CUresult cuStreamBeginCaptureToGraph(CUstream h, CUgraph g, const CUgraphNode *deps,
                                     const CUgraphEdgeData *edges, size_t n,
                                     CUstreamCaptureMode mode) {
  if (!g)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "g is NULL");
  return begin(h, g, deps, edges, n, mode, false);
}
CUresult cuStreamBeginCaptureToGraph_ptsz(CUstream h, CUgraph g, const CUgraphNode *deps,
                                          const CUgraphEdgeData *edges, size_t n,
                                          CUstreamCaptureMode mode) {
  if (!g)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "g is NULL");
  return begin(h, g, deps, edges, n, mode, true);
}
CUresult cuStreamEndCapture(CUstream h, CUgraph *g) { return end(h, g, false); }
CUresult cuStreamEndCapture_ptsz(CUstream h, CUgraph *g) { return end(h, g, true); }

CUresult cuStreamIsCapturing(CUstream h, CUstreamCaptureStatus *st) {
  return info(h, st, nullptr, nullptr, nullptr, nullptr, nullptr, false);
}
CUresult cuStreamIsCapturing_ptsz(CUstream h, CUstreamCaptureStatus *st) {
  return info(h, st, nullptr, nullptr, nullptr, nullptr, nullptr, true);
}
CUresult cuStreamGetCaptureInfo(CUstream h, CUstreamCaptureStatus *st, cuuint64_t *id) {
  return info(h, st, id, nullptr, nullptr, nullptr, nullptr, false);
}
CUresult cuStreamGetCaptureInfo_ptsz(CUstream h, CUstreamCaptureStatus *st, cuuint64_t *id) {
  return info(h, st, id, nullptr, nullptr, nullptr, nullptr, true);
}
CUresult cuStreamGetCaptureInfo_v2(CUstream h, CUstreamCaptureStatus *st, cuuint64_t *id,
                                   CUgraph *g, const CUgraphNode **deps, size_t *n) {
  return info(h, st, id, g, deps, nullptr, n, false);
}
CUresult cuStreamGetCaptureInfo_v2_ptsz(CUstream h, CUstreamCaptureStatus *st, cuuint64_t *id,
                                        CUgraph *g, const CUgraphNode **deps, size_t *n) {
  return info(h, st, id, g, deps, nullptr, n, true);
}
CUresult cuStreamGetCaptureInfo_v3(CUstream h, CUstreamCaptureStatus *st, cuuint64_t *id,
                                   CUgraph *g, const CUgraphNode **deps,
                                   const CUgraphEdgeData **edges, size_t *n) {
  return info(h, st, id, g, deps, edges, n, false);
}
CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream h, CUstreamCaptureStatus *st, cuuint64_t *id,
                                        CUgraph *g, const CUgraphNode **deps,
                                        const CUgraphEdgeData **edges, size_t *n) {
  return info(h, st, id, g, deps, edges, n, true);
}

CUresult cuStreamUpdateCaptureDependencies(CUstream h, CUgraphNode *deps, size_t n,
                                           unsigned int flags) {
  return updateDeps(h, deps, nullptr, n, flags, false);
}
CUresult cuStreamUpdateCaptureDependencies_ptsz(CUstream h, CUgraphNode *deps, size_t n,
                                                unsigned int flags) {
  return updateDeps(h, deps, nullptr, n, flags, true);
}
CUresult cuStreamUpdateCaptureDependencies_v2(CUstream h, CUgraphNode *deps,
                                              const CUgraphEdgeData *edges, size_t n,
                                              unsigned int flags) {
  return updateDeps(h, deps, edges, n, flags, false);
}
CUresult cuStreamUpdateCaptureDependencies_v2_ptsz(CUstream h, CUgraphNode *deps,
                                                   const CUgraphEdgeData *edges, size_t n,
                                                   unsigned int flags) {
  return updateDeps(h, deps, edges, n, flags, true);
}

CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!mode)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "mode is NULL");
  *mode = driver::exchangeCaptureMode(*mode);
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
