import os
import sys
import time

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import corpus_common  # noqa: E402


def prepare(rank):
    if rank == 1:
        time.sleep(3600)  # CULPRIT


def body(ctx):
    prepare(ctx.rank)
    dist.init_process_group(**ctx.init_args())
    t = torch.ones(4)
    dist.all_reduce(t)

if __name__ == "__main__":
    corpus_common.main(body)
