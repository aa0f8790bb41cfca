import torch
import torch.distributed as dist

import corpus_common  # tests/corpus, on PYTHONPATH (run.py)
import threading

from torch.utils.data import DataLoader, Dataset


class Batches(Dataset):
    def __init__(self, rank):
        self.rank = rank

    def __len__(self):
        return 4

    def __getitem__(self, i):
        if self.rank == 1 and i == 2:
            threading.Event().wait()  # CULPRIT
        return torch.ones(4)


def body(ctx):
    dist.init_process_group(**ctx.init_args())
    loader = DataLoader(Batches(ctx.rank), batch_size=1, num_workers=1,
                        worker_init_fn=ctx.mark_worker)
    for batch in loader:
        dist.all_reduce(batch)

if __name__ == "__main__":
    corpus_common.main(body)
