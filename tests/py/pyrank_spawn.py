"""Two ranks started with torch.multiprocessing.spawn, no launcher's
variables: each passes its rank to init_process_group with a tcp://
init_method, and both complete one all_reduce (tests/test_pyrank.c).

  pyrank_spawn.py PORT"""
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def work(rank, url, world):
    dist.init_process_group("gloo", init_method=url, rank=rank,
                            world_size=world)
    t = torch.ones(2)
    dist.all_reduce(t)
    assert float(t.sum()) == 2.0 * world
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(work, args=("tcp://127.0.0.1:%s" % sys.argv[1], 2), nprocs=2)
    print("ok")
