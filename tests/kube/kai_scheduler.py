"""A small KAI-like GPU scheduler for the test API server (fake_apiserver.py, opt-in with
/_test/settings {"kai_scheduler": true}).

It decides what a client of a real cluster with KAI-Scheduler would see of its workloads' pods:
Running on a declared Node, Pending with a reason, or evicted to give a queue its quota back.
It is a model of KAI's rules (docs/queues, docs/fairness of NVIDIA/KAI-Scheduler), not a copy:

* queues are the scheduling.run.ai Queue objects: spec.resources.gpu.quota is the deserved quota,
  .limit the most a queue may hold (-1: no limit, i.e. over-quota allowed);
* a workload's pods are one gang (all placed or none), each pod on one node with enough free GPUs
  (Node status.allocatable nvidia.com/gpu, minus the running pods there);
* pending gangs are served queue furthest below its quota first, then oldest first;
* a gang over its queue's quota runs only when it is preemptible (priority class train,
  build-preemptible) and the queue has no limit below what it would hold;
* a gang within its queue's quota that does not fit reclaims GPUs: the youngest preemptible gangs
  of queues above their quota are evicted (never taking a queue below its quota) until it fits;
* what stays pending gets a reason (KAI's unschedulable reasons: NonPreemptibleOverQuota,
  OverLimit, QueueDoesNotExist, or not enough free GPUs on the nodes).

Pure: schedule() takes the state and returns the decision; fake_apiserver.py applies it.
"""


class Gang:
    """The pods of one workload. `pods`: [(pod name, GPUs, node or None)]; `order`: submission order."""

    def __init__(self, gid, queue, order, preemptible, pods, running):
        self.id, self.queue, self.order, self.preemptible = gid, queue, order, preemptible
        self.pods, self.running = pods, running
        self.gpus = sum(g for _, g, _ in pods)


def place(free, gang):
    """{pod name: node} for every pod of the gang (first fit, nodes by name), or None. `free` is
    left unchanged."""
    left = dict(free)
    out = {}
    for name, gpus, _ in sorted(gang.pods, key=lambda p: -p[1]):
        node = next((n for n in sorted(left) if left[n] >= gpus), None)
        if node is None:
            return None
        left[node] -= gpus
        out[name] = node
    return out


def take(free, placement, gang):
    for name, gpus, _ in gang.pods:
        free[placement[name]] -= gpus


def give_back(free, gang):
    for _, gpus, node in gang.pods:
        if node in free:
            free[node] += gpus


def schedule(nodes, queues, gangs):
    """nodes {name: GPUs}, queues {name: (quota, limit)}, gangs [Gang] -> (start {gang id:
    {pod: node}}, evict [gang id], pending {gang id: (reason, message)})."""
    free = dict(nodes)
    allocated = {q: 0.0 for q in queues}
    for g in gangs:
        if g.running:
            for _, gpus, node in g.pods:
                if node in free:
                    free[node] -= gpus
            allocated[g.queue] = allocated.get(g.queue, 0.0) + g.gpus
    running = [g for g in gangs if g.running]
    start, evict, pending = {}, [], {}

    def below(g):
        quota = queues.get(g.queue, (0, 0))[0]
        return (allocated.get(g.queue, 0.0) / quota if quota > 0 else float("inf"), g.order)

    for g in sorted((g for g in gangs if not g.running), key=below):
        if g.queue not in queues:
            pending[g.id] = ("QueueDoesNotExist", "queue %s does not exist" % g.queue)
            continue
        quota, limit = queues[g.queue]
        holds = allocated[g.queue] + g.gpus
        if holds > quota and not g.preemptible:
            pending[g.id] = ("NonPreemptibleOverQuota", "non-preemptible workload needs %g GPUs; queue %s would "
                             "hold %g, over its quota of %g" % (g.gpus, g.queue, holds, quota))
            continue
        if holds > quota and 0 <= limit < holds:
            pending[g.id] = ("OverLimit", "queue %s would hold %g GPUs, over its limit of %g (over-quota is "
                             "disabled)" % (g.queue, holds, limit))
            continue
        placement = place(free, g)
        victims = []
        if placement is None and holds <= quota:
            victims, placement = reclaim(free, allocated, queues, running, g)
        if placement is None:
            pending[g.id] = ("Unschedulable", "not enough free GPUs: the workload needs %g on %d pod(s), "
                             "%g free on the nodes" % (g.gpus, len(g.pods), sum(free.values())))
            continue
        for v in victims:
            running.remove(v)
            give_back(free, v)
            allocated[v.queue] -= v.gpus
            evict.append(v.id)
        take(free, placement, g)
        allocated[g.queue] += g.gpus
        start[g.id] = placement
    return start, evict, pending


def reclaim(free, allocated, queues, running, gang):
    """The youngest preemptible gangs of queues above their quota to evict so that `gang` fits
    (never taking a queue below its quota): (victims, placement), or ([], None)."""
    left, held, victims = dict(free), dict(allocated), []
    for v in sorted(running, key=lambda r: -r.order):
        quota = queues.get(v.queue, (0, 0))[0]
        if v.queue == gang.queue or not v.preemptible or held[v.queue] - v.gpus < quota:
            continue
        give_back(left, v)
        held[v.queue] -= v.gpus
        victims.append(v)
        placement = place(left, gang)
        if placement is not None:
            return victims, placement
    return [], None
