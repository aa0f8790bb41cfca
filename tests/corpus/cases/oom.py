import os

import torch
import torch.distributed as dist

import corpus_common  # tests/corpus, on PYTHONPATH (run.py)


def eat(cgroup):
    with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
        f.write("%d\n" % os.getpid())
    hog = []
    while True:
        hog.append(bytearray(b"x") * (16 << 20))  # CULPRIT


def body(ctx):
    dist.init_process_group(**ctx.init_args())
    t = torch.ones(4)
    dist.all_reduce(t)
    if ctx.rank == 1:
        eat(os.environ["CORPUS_CGROUP"])
    dist.all_reduce(t)

if __name__ == "__main__":
    corpus_common.main(body)
