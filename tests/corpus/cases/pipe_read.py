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
    if ctx.rank == 1:
        r, w = os.pipe()  # this process holds the write end: no end of file
        os.read(r, 1)  # CULPRIT
    dist.all_reduce(t)

if __name__ == "__main__":
    corpus_common.main(body)
