"""A program's own init_process_group, in a file that is not
torch.distributed's: its rank is no rank of the job's (tests/test_pyrank.c)."""
import socket


def init_process_group(url, rank, world_size):
    host, port = url[len("tcp://"):].rsplit(":", 1)
    s = socket.create_connection((host, int(port)))
    s.close()
