"""A PyTorch DataLoader with forking workers, for scripts/bench.sh: every
epoch the loader forks its workers again, and each ends with os._exit.

    bench_dataloader.py WORKERS EPOCHS

Prints the sum of what the workers produced (the same in every run)."""
import sys

import torch
from torch.utils.data import DataLoader, Dataset


class Items(Dataset):
    def __len__(self):
        return 512

    def __getitem__(self, i):
        return torch.full((64,), float(i))


def main():
    workers, epochs = int(sys.argv[1]), int(sys.argv[2])
    loader = DataLoader(Items(), batch_size=32, num_workers=workers)
    total = 0.0
    for _ in range(epochs):
        for batch in loader:
            total += float(batch.sum())
    print(total)


if __name__ == "__main__":
    main()
