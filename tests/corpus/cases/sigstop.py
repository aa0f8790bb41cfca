import os

import torch
import torch.distributed as dist

import corpus_common  # tests/corpus, on PYTHONPATH (run.py)
import signal


def body(ctx):
    dist.init_process_group(**ctx.init_args())
    t = torch.ones(4)
    dist.all_reduce(t)
    if ctx.rank == 1:
        os.kill(os.getpid(), signal.SIGSTOP)  # CULPRIT
    dist.all_reduce(t)

if __name__ == "__main__":
    corpus_common.main(body)
