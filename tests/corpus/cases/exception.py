import torch
import torch.distributed as dist

import corpus_common  # tests/corpus, on PYTHONPATH (run.py)


def step(rank):
    if rank == 1:
        raise RuntimeError("corpus: rank 1 fails in step")  # CULPRIT


def body(ctx):
    dist.init_process_group(**ctx.init_args())
    t = torch.ones(4)
    dist.all_reduce(t)
    step(ctx.rank)
    dist.all_reduce(t)

if __name__ == "__main__":
    corpus_common.main(body)
