import torch
import torch.distributed as dist

import corpus_common  # tests/corpus, on PYTHONPATH (run.py)
import ctypes


def body(ctx):
    dist.init_process_group(**ctx.init_args())
    t = torch.ones(4)
    dist.all_reduce(t)
    if ctx.rank == 1:
        # PyDLL keeps the GIL through the call: a C extension that blocks
        ctypes.PyDLL(None).sleep(3600)  # CULPRIT
    dist.all_reduce(t)

if __name__ == "__main__":
    corpus_common.main(body)
