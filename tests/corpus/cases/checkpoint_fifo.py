import os

import torch
import torch.distributed as dist

import corpus_common  # tests/corpus, on PYTHONPATH (run.py)


def save_checkpoint(path):
    # a FIFO nobody reads: open() for writing blocks for good
    with open(path, "wb") as f:  # CULPRIT
        f.write(b"weights")


def body(ctx):
    dist.init_process_group(**ctx.init_args())
    t = torch.ones(4)
    dist.all_reduce(t)
    if ctx.rank == 0:
        fifo = os.path.join(os.environ["CORPUS_TMP"], "ckpt.fifo")
        os.mkfifo(fifo)
        save_checkpoint(fifo)
    dist.barrier()

if __name__ == "__main__":
    corpus_common.main(body)
