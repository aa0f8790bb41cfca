"""What every torch case of the fault corpus shares: the rank, the world,
how to call init_process_group under each launcher, and the ground truth
the runner reads back (the pid of each rank and DataLoader worker).

Launchers (CORPUS_LAUNCHER):
  spawn     torch.multiprocessing.spawn, init_method tcp://, no RANK variable
  torchrun  torchrun --nproc-per-node N: RANK/WORLD_SIZE/MASTER_* from it
  env       a shell starts each rank with RANK/WORLD_SIZE/MASTER_*
  single    one process, plain python, rank CORPUS_RANK, init_method tcp://

A case's per-rank overrides (a wrong WORLD_SIZE or MASTER_PORT on one rank)
come in CORPUS_RANK_ENV_<r>="WORLD_SIZE=3 MASTER_PORT=1234": the env
launcher's shell puts them in that rank's environment; under spawn and
torchrun this module passes them to init_process_group.
"""
import datetime
import os
import sys

LAUNCHER = os.environ.get("CORPUS_LAUNCHER", "env")
OUT = os.environ.get("CORPUS_TRUTH")  # where the pid files go


def _write(name, text):
    if OUT:
        path = os.path.join(OUT, name)
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.rename(path + ".tmp", path)


def _overrides(rank):
    out = {}
    for item in os.environ.get("CORPUS_RANK_ENV_%d" % rank, "").split():
        k, _, v = item.partition("=")
        out[k] = v
    return out


class Ctx:
    def __init__(self, rank, world):
        self.rank = rank
        self.world = world
        self.port = int(os.environ.get("CORPUS_PORT", "0") or 0)
        _write("rank-%d.pid" % rank, "%d\n" % os.getpid())

    def init_args(self, timeout_s=600):
        """Keyword arguments of dist.init_process_group for this launcher
        (the call itself stays in the case's script, on its own line)."""
        td = datetime.timedelta(seconds=timeout_s)
        ov = _overrides(self.rank)
        if LAUNCHER in ("spawn", "single"):
            port = int(ov.get("MASTER_PORT", self.port))
            world = int(ov.get("WORLD_SIZE", self.world))
            return dict(backend="gloo", timeout=td,
                        init_method="tcp://127.0.0.1:%d" % port,
                        rank=self.rank, world_size=world)
        if LAUNCHER == "torchrun" and ov:
            port = int(ov.get("MASTER_PORT", os.environ["MASTER_PORT"]))
            world = int(ov.get("WORLD_SIZE", self.world))
            return dict(backend="gloo", timeout=td,
                        init_method="tcp://127.0.0.1:%d" % port,
                        rank=self.rank, world_size=world)
        return dict(backend="gloo", timeout=td)  # env:// from the variables

    def mark_worker(self, *_):
        """worker_init_fn of a DataLoader: records the worker's pid."""
        _write("worker-%d.pid" % self.rank, "%d\n" % os.getpid())


def _spawn_entry(index, body, world, ranks):
    body(Ctx(ranks[index], world))


def main(body):
    world = int(os.environ.get("CORPUS_WORLD", os.environ.get("WORLD_SIZE",
                                                              "1")))
    if LAUNCHER == "spawn":
        import torch.multiprocessing as mp
        skip = {int(r) for r in os.environ.get("CORPUS_SKIP_RANKS",
                                               "").split()}
        ranks = [r for r in range(world) if r not in skip]
        mp.spawn(_spawn_entry, args=(body, world, ranks), nprocs=len(ranks))
        return
    if LAUNCHER == "single":
        rank = int(os.environ.get("CORPUS_RANK", "0"))
    else:
        rank = int(os.environ["RANK"])
        world = int(os.environ.get("WORLD_SIZE", world))
    body(Ctx(rank, world))
    sys.stdout.flush()
