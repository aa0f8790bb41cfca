"""Connects the way torch.distributed's rendezvous does, with the stand-in
of tests/py/pyrank/ on PYTHONPATH (tests/test_pyrank.c).

  pyrank_main.py passed   the program's own init_process_group (rank 5 of
                          9: not taken), then init_process_group(rank=1,
                          world_size=2)
  pyrank_main.py env      init_process_group() with -1: the store gets
                          DLT_FAKE_RANK of DLT_FAKE_WORLD_SIZE
"""
import socket
import sys

import user_dist
from torch.distributed.distributed_c10d import init_process_group


def main():
    lst = socket.socket()
    lst.bind(("127.0.0.1", 0))
    lst.listen(16)
    url = "tcp://127.0.0.1:%d" % lst.getsockname()[1]
    if sys.argv[1] == "passed":
        user_dist.init_process_group(url, rank=5, world_size=9)
        init_process_group("gloo", init_method=url, world_size=2, rank=1)
    else:
        init_process_group("gloo", init_method=url)
    lst.close()
    print("ok")


main()
