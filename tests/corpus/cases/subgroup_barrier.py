import torch
import torch.distributed as dist

import corpus_common  # tests/corpus, on PYTHONPATH (run.py)


def body(ctx):
    dist.init_process_group(**ctx.init_args())
    t = torch.ones(4)
    dist.all_reduce(t)
    g = dist.new_group([0, 1])
    if ctx.rank == 1:
        # rank 1 skips the subgroup barrier rank 0 waits in
        dist.all_reduce(t)
    else:
        if ctx.rank == 0:
            dist.barrier(group=g)  # CULPRIT
        dist.all_reduce(t)

if __name__ == "__main__":
    corpus_common.main(body)
