import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from corpus_nccl import Nccl


def main():
    n = Nccl()
    uid = n.unique_id()
    n.init_rank(uid)
    steps = 2 if n.rank == 2 else 3
    for _ in range(steps):
        n.all_reduce()
    if n.rank == 2:
        r, w = os.pipe()  # rank 2 made one collective less, then waits here
        os.read(r, 1)  # CULPRIT
    n.destroy()


main()
