import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from corpus_nccl import Nccl


def prepare(rank):
    if rank == 2:
        time.sleep(3600)  # CULPRIT


def main():
    n = Nccl()
    uid = n.unique_id()
    prepare(n.rank)
    n.init_rank(uid)
    n.all_reduce()
    n.destroy()


main()
