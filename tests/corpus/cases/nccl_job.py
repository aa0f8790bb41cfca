import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from corpus_nccl import Nccl


def main():
    n = Nccl()
    uid = n.unique_id()
    n.init_rank(uid)  # CULPRIT (where a rank of another nranks waits)
    for _ in range(3):
        n.all_reduce()
    n.destroy()


main()
