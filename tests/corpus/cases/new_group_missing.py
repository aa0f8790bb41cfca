import time

import torch
import torch.distributed as dist

import corpus_common  # tests/corpus, on PYTHONPATH (run.py)


def body(ctx):
    dist.init_process_group(**ctx.init_args())
    t = torch.ones(4)
    dist.all_reduce(t)
    if ctx.rank == 2:
        time.sleep(3600)  # CULPRIT
    g = dist.new_group([0, 1, 2])
    dist.all_reduce(t, group=g)

if __name__ == "__main__":
    corpus_common.main(body)
