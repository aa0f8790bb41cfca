import torch
import torch.distributed as dist

import corpus_common  # tests/corpus, on PYTHONPATH (run.py)


def compute(rank):
    n = 0
    while rank == 1:  # CULPRIT-ALT (the loop is both lines)
        n += 1  # CULPRIT
    return n


def body(ctx):
    dist.init_process_group(**ctx.init_args())
    t = torch.ones(4)
    dist.all_reduce(t)
    compute(ctx.rank)
    dist.all_reduce(t)

if __name__ == "__main__":
    corpus_common.main(body)
