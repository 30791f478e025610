// Executable graphs: instantiation into a schedule, launches as one stream operation, per-node
// changes (copy on write, so launches in flight keep the schedule they took) and whole-graph
// updates.
#include "cucpu/driver/graph.h"

#include "cucpu/driver/context.h"
#include "cucpu/driver/reason.h"
#include "cucpu/driver/stream.h"
#include "cucpu/support/log.h"

#include <set>

namespace cucpu::driver {
namespace {

std::mutex execMutex;
std::set<const GraphExec *> &execs() {
  static auto *s = new std::set<const GraphExec *>;
  return *s;
}

// The nodes of `g` in dependency order, child graphs' nodes in place of their node.
bool flatten(const Graph &g, GraphExec::Schedule *out) {
  std::vector<Node *> order;
  if (!g.topologicalOrder(&order))
    return false;
  for (Node *n : order) {
    if (auto *child = std::get_if<ChildNodeParams>(&n->spec.params)) {
      if (!flatten(*child->graph, out))
        return false;
      continue;
    }
    GraphExec::Step step{&n->spec, {}};
    if (auto *cond = std::get_if<ConditionalNodeParams>(&n->spec.params))
      for (auto &body : cond->bodies)
        if (!flatten(*body, &step.bodies.emplace_back()))
          return false;
    out->push_back(std::move(step));
  }
  return true;
}

} // namespace

bool isLiveGraphExec(const GraphExec *e) {
  std::lock_guard lk(execMutex);
  return execs().count(e) != 0;
}

CUresult GraphExec::instantiate(const Graph &g, unsigned long long flags, GraphExec **out) {
  std::vector<Node *> order;
  if (!g.topologicalOrder(&order)) {
    return fail(CUDA_ERROR_INVALID_VALUE, "graph instantiation: the graph has a cycle");
  }
  const bool exclusive =
      g.has(CU_GRAPH_NODE_TYPE_MEM_ALLOC) || g.has(CU_GRAPH_NODE_TYPE_CONDITIONAL);
  if (exclusive && g.exclusiveExecs > 0) {
    return fail(CUDA_ERROR_NOT_SUPPORTED, "graph instantiation: a graph with memory allocation or "
                                          "conditional nodes is instantiated once at a time");
  }
  auto e = std::make_unique<GraphExec>();
  std::map<const Node *, Node *> map;
  e->graph_ = g.clone(&map);
  e->fromOriginal_.insert(map.begin(), map.end());
  e->flags_ = flags;
  if (exclusive) {
    ++const_cast<Graph &>(g).exclusiveExecs;
    e->source_ = &g;
  }
  for (auto &n : e->graph_->nodes())
    if (auto *a = std::get_if<MemAllocNodeParams>(&n->spec.params))
      ++a->memory->execs;
  {
    std::lock_guard lk(e->mutex_);
    e->rebuild();
  }
  *out = e.release();
  std::lock_guard lk(execMutex);
  execs().insert(*out);
  return CUDA_SUCCESS;
}

void destroyGraphExec(GraphExec *e) {
  {
    std::lock_guard lk(execMutex);
    execs().erase(e);
  }
  delete e;
}

GraphExec::~GraphExec() {
  if (source_ && isLiveGraph(source_))
    --const_cast<Graph *>(source_)->exclusiveExecs;
  for (auto &n : graph_->nodes())
    if (auto *a = std::get_if<MemAllocNodeParams>(&n->spec.params))
      --a->memory->execs;
}

void GraphExec::rebuild() {
  auto c = std::make_shared<Compiled>();
  c->graph = graph_;
  Schedule all;
  flatten(*graph_, &all);
  std::set<const NodeSpec *> off;
  for (const Node *n : disabled_)
    off.insert(&n->spec);
  for (Step &s : all)
    if (!off.count(s.spec))
      c->steps.push_back(std::move(s));
  graph_->conditionals(&c->conditionals);
  compiled_ = std::move(c);
}

std::map<const Node *, Node *> GraphExec::copyOnWrite() {
  std::map<const Node *, Node *> map;
  auto copy = graph_->clone(&map);
  for (auto &[from, to] : fromOriginal_)
    to = map[to];
  std::set<const Node *> disabled;
  for (const Node *n : disabled_)
    disabled.insert(map[n]);
  disabled_ = std::move(disabled);
  graph_ = std::move(copy);
  return map;
}

Node *GraphExec::find(const Node *origin) {
  std::lock_guard lk(mutex_);
  auto it = fromOriginal_.find(origin);
  return it == fromOriginal_.end() ? nullptr : it->second;
}

CUresult GraphExec::setSpec(const Node *origin, NodeSpec spec) {
  std::lock_guard lk(mutex_);
  auto it = fromOriginal_.find(origin);
  if (it == fromOriginal_.end() || it->second->spec.type != spec.type)
    return fail(CUDA_ERROR_INVALID_VALUE,
                "the node is not of the graph this was instantiated from, or of another type");
  copyOnWrite();
  it->second->spec = std::move(spec);
  rebuild();
  return CUDA_SUCCESS;
}

CUresult GraphExec::setEnabled(const Node *origin, bool on) {
  std::lock_guard lk(mutex_);
  auto it = fromOriginal_.find(origin);
  if (it == fromOriginal_.end())
    return fail(CUDA_ERROR_INVALID_VALUE,
                "the node is not of the graph this was instantiated from");
  const CUgraphNodeType t = it->second->spec.type;
  if (t != CU_GRAPH_NODE_TYPE_KERNEL && t != CU_GRAPH_NODE_TYPE_MEMCPY &&
      t != CU_GRAPH_NODE_TYPE_MEMSET) // only these kinds can be disabled
    return fail(CUDA_ERROR_INVALID_VALUE,
                "only kernel, copy and memset nodes can be enabled or disabled");
  if (on)
    disabled_.erase(it->second);
  else
    disabled_.insert(it->second);
  rebuild();
  return CUDA_SUCCESS;
}

CUresult GraphExec::enabled(const Node *origin, bool *out) {
  std::lock_guard lk(mutex_);
  auto it = fromOriginal_.find(origin);
  if (it == fromOriginal_.end())
    return fail(CUDA_ERROR_INVALID_VALUE,
                "the node is not of the graph this was instantiated from");
  *out = !disabled_.count(it->second);
  return CUDA_SUCCESS;
}

CUresult GraphExec::update(const Graph &g, CUgraphExecUpdateResultInfo *info) {
  std::lock_guard lk(mutex_);
  info->result = CU_GRAPH_EXEC_UPDATE_SUCCESS;
  info->errorNode = info->errorFromNode = nullptr;
  auto fail = [&](CUgraphExecUpdateResult why, const Node *n, const Node *from = nullptr) {
    info->result = why;
    info->errorNode = reinterpret_cast<CUgraphNode>(const_cast<Node *>(n));
    info->errorFromNode = reinterpret_cast<CUgraphNode>(const_cast<Node *>(from));
    return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
  };
  // Nodes pair up in the order they were added; their edges must pair up too.
  const auto &mine = graph_->nodes();
  const auto &theirs = g.nodes();
  std::map<const Node *, const Node *> pair; // g's node -> the copy's
  for (size_t i = 0; i < theirs.size() && i < mine.size(); ++i)
    pair[theirs[i].get()] = mine[i].get();
  if (theirs.size() != mine.size())
    return fail(CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, nullptr);
  for (size_t i = 0; i < theirs.size(); ++i) {
    const Node *t = theirs[i].get(), *m = mine[i].get();
    if (t->deps.size() != m->deps.size())
      return fail(CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, t);
    for (const Node *d : t->deps)
      if (std::find(m->deps.begin(), m->deps.end(), pair[d]) == m->deps.end())
        return fail(CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, t, d);
    if (t->spec.type != m->spec.type)
      return fail(CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED, t);
    if (t->spec.type == CU_GRAPH_NODE_TYPE_MEM_ALLOC || t->spec.type == CU_GRAPH_NODE_TYPE_MEM_FREE)
      return fail(CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED, t);
  }
  const std::map<const Node *, Node *> map = copyOnWrite();
  for (size_t i = 0; i < theirs.size(); ++i) {
    Node *target = map.at(mine[i].get());
    target->spec = theirs[i]->spec;
    if (auto *child = std::get_if<ChildNodeParams>(&target->spec.params))
      child->graph = child->graph->clone();
    if (auto *cond = std::get_if<ConditionalNodeParams>(&target->spec.params))
      for (auto &body : cond->bodies)
        body = body->clone();
    fromOriginal_[theirs[i].get()] = target;
  }
  rebuild();
  return CUDA_SUCCESS;
}

void GraphExec::run(const Schedule &steps, Stream *s, const Waits &waits, size_t *wait) {
  for (const Step &st : steps) {
    const NodeSpec &spec = *st.spec;
    if (spec.type == CU_GRAPH_NODE_TYPE_WAIT_EVENT) {
      if (*wait >= waits.size()) // inside a conditional body: waits are taken at the top level
        continue;
      waitFor(waits[(*wait)++]);
    } else if (auto *cond = std::get_if<ConditionalNodeParams>(&spec.params)) {
      // Device code set the value with a plain store that the grid's end made visible.
      auto value = [&] {
        return std::atomic_ref(reinterpret_cast<ConditionalSlot *>(cond->handle)->value)
            .load(std::memory_order_acquire);
      };
      if (cond->type == CU_GRAPH_COND_TYPE_WHILE) {
        while (value() && s->context()->stickyError() == CUDA_SUCCESS)
          run(st.bodies[0], s, waits, wait);
      } else if (cond->type == CU_GRAPH_COND_TYPE_IF) {
        if (unsigned v = value(); v || st.bodies.size() > 1)
          run(st.bodies[v ? 0 : 1], s, waits, wait);
      } else if (unsigned v = value(); v < st.bodies.size()) { // switch
        run(st.bodies[v], s, waits, wait);
      }
    } else if (spec.work) {
      if (CUresult r = spec.work(); r != CUDA_SUCCESS)
        s->setError(r);
    }
  }
}

CUresult GraphExec::launch(Stream *s) {
  std::shared_ptr<const Compiled> c;
  {
    std::lock_guard lk(mutex_);
    c = compiled_;
  }
  // Graph memory is live from its allocation node to a free: a launch may not allocate it again.
  for (const Step &st : c->steps)
    if (auto *a = std::get_if<MemAllocNodeParams>(&st.spec->params)) {
      if (flags_ & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH)
        a->memory->live = false;
      if (a->memory->live) {
        return fail(CUDA_ERROR_INVALID_VALUE, "graph launch: its allocation {:#x} was not freed",
                    a->memory->ptr);
      }
    }
  Waits waits;
  for (const Step &st : c->steps) {
    if (auto *a = std::get_if<MemAllocNodeParams>(&st.spec->params))
      a->memory->live = true;
    else if (auto *f = std::get_if<MemFreeNodeParams>(&st.spec->params))
      releaseGraphMemory(f->ptr);
    else if (st.spec->type == CU_GRAPH_NODE_TYPE_WAIT_EVENT)
      waits.push_back(std::get<EventNodeParams>(st.spec->params).event->points());
  }
  s->enqueue([c, s, waits] {
    for (auto &slot : c->conditionals)
      if (slot->assignDefault)
        std::atomic_ref(slot->value).store(slot->defaultValue, std::memory_order_relaxed);
    size_t wait = 0;
    run(c->steps, s, waits, &wait);
  });
  // Event record nodes complete with the launch: never before the work they follow.
  for (const Step &st : c->steps)
    if (st.spec->type == CU_GRAPH_NODE_TYPE_EVENT_RECORD)
      std::get<EventNodeParams>(st.spec->params).event->record(s);
  // A fault of this launch's own work is reported later (synchronisation, the next launch), as a
  // GPU reports it: returning the sticky error here raced with the work just queued.
  return CUDA_SUCCESS;
}

} // namespace cucpu::driver
