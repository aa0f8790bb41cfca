"""torch.distributed's rendezvous as the shim sees it (tests/test_pyrank.c):
init_process_group(backend, init_method, timeout, world_size, rank) hands
the rank to _create_c10d_store(hostname, port, rank, world_size, timeout),
whose store connects to the master.  Ranks of -1 are read from the
environment, as env:// does (here from DLT_FAKE_RANK and
DLT_FAKE_WORLD_SIZE, not a launcher's variables)."""
import os
import socket


def _create_c10d_store(hostname, port, rank, world_size, timeout):
    s = socket.create_connection((hostname, port), timeout=timeout)
    s.close()


def init_process_group(backend, init_method=None, timeout=None,
                       world_size=-1, rank=-1):
    host, port = init_method[len("tcp://"):].rsplit(":", 1)
    store_rank = rank if rank >= 0 else int(os.environ["DLT_FAKE_RANK"])
    store_size = (world_size if world_size > 0
                  else int(os.environ["DLT_FAKE_WORLD_SIZE"]))
    _create_c10d_store(host, int(port), store_rank, store_size, 30)
