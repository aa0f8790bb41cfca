import time

import torch
import torch.distributed as dist

import corpus_common  # tests/corpus, on PYTHONPATH (run.py)


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
