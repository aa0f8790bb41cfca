import torch
import torch.distributed as dist

import corpus_common  # tests/corpus, on PYTHONPATH (run.py)


def body(ctx):
    dist.init_process_group(**ctx.init_args())
    t = torch.ones(4)
    dist.all_reduce(t)
    # rank 1 reduces 8 numbers, rank 0 four: gloo aborts rank 0
    # (gloo::EnforceNotMet, std::terminate, SIGABRT)
    t = torch.ones(8 if ctx.rank == 1 else 4)
    dist.all_reduce(t)  # CULPRIT

if __name__ == "__main__":
    corpus_common.main(body)
