import os
import sys
import time

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import corpus_common  # noqa: E402


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
