"""Many jobs in a local backend's state, cheaply (for the scale test and bench/dashboard_jobs.py).

Submitting thousands of jobs through the CLI would start thousands of processes; instead lanectl
creates its state (schema, projects, a node) and the rows are inserted into its `jobs` table in
one transaction, as bench/list_jobs does: 80 % Succeeded, 10 % Failed, 10 % Pending (asking for
more GPUs than the node has, so the scheduler leaves them pending), a third MPI with 3 pods.
Everything then reads them through the product's code (the local backend's list_jobs).
"""
import os
import sqlite3
import time


def seed_local_jobs(lane, count, projects=4):
    """Inserts `count` finished/pending jobs job-00000.. in projects team-0..team-(projects-1)."""
    lane.run("cluster", "set-nodes", "node-a=8")
    names = [f"team-{p}" for p in range(projects)]
    for name in names:
        lane.run("project", "create", name, "--gpu-quota", "2")
    now = int(time.time() * 1000)
    rows = []
    for i in range(count):
        project, name = names[i % projects], f"job-{i:05d}"
        pending, failed, mpi = i % 10 == 0, i % 10 == 5, i % 3 == 0
        status = "Pending" if pending else "Failed" if failed else "Succeeded"
        spec = '{"name":"%s","project":"%s","image":"scnn-train","gpu":1}' % (name, project)
        created = now - (count - i) * 1000
        ended = 0 if pending else created
        rows.append((project, name, "Mpi" if mpi else "Train", "bench", 16.0 if pending else 1.0, 3 if mpi else 1,
                     spec, status, "waiting for GPUs" if pending else "",
                     "[]" if pending else '[{"node":"node-a","gpus":[0],"share":1.0}]',
                     1 if failed else 0, created, ended, 0.0 if pending else 1.0, "" if pending else "node-a"))
    db = sqlite3.connect(os.path.join(lane.home, "state.db"), timeout=60)
    with db:
        db.executemany(
            "INSERT INTO jobs(project, name, type, image, user, gpu, pods, spec, status, reason, placement, "
            "exit_code, created_ms, started_ms, finished_ms, alloc, nodes) "
            "VALUES(?1,?2,?3,'scnn-train',?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?13,?14,?15)", rows)
    db.close()
    return names
