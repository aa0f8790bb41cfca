"""What the rank's walk (shim/net.c, shim/pystack.c) adds to a connect:
N connects to a listening socket on 127.0.0.1 from D Python frames deep,
the median of 5 rounds per connect.  Run it plain and under dltrace and
compare; the walk reads every frame's function name, so its cost grows
with D (at most 64 frames).  With "match", the connect is made inside
the stand-in torch.distributed of tests/py/pyrank/ (PYTHONPATH), whose
frames and locals are read every time.

  python3 tests/bench/py_rank_cost.py [N] [D...] [match]
"""
import socket
import statistics
import sys
import time


def connect_n(addr, n):
    t0 = time.perf_counter()
    for _ in range(n):
        s = socket.socket()
        s.connect(addr)
        s.close()
    return (time.perf_counter() - t0) / n


def deep(d, fn, *args):
    if d <= 1:
        return fn(*args)
    return deep(d - 1, fn, *args)


def main():
    args = [a for a in sys.argv[1:] if a != "match"]
    n = int(args[0]) if args else 2000
    depths = [int(a) for a in args[1:]] or [1, 20, 60]
    lst = socket.socket()
    lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lst.bind(("127.0.0.1", 0))
    lst.listen(4096)
    addr = lst.getsockname()
    if "match" in sys.argv:
        from torch.distributed import distributed_c10d as c10d

        def fn(addr, n):
            t0 = time.perf_counter()
            for _ in range(n):
                c10d.init_process_group("gloo", "tcp://%s:%d" % addr,
                                        world_size=2, rank=1)
            return (time.perf_counter() - t0) / n
    else:
        fn = connect_n
    for d in depths:
        rounds = []
        for _ in range(5):
            rounds.append(deep(d, fn, addr, n))
            # Drain the backlog so that connects never wait for room.
            lst.setblocking(False)
            try:
                while True:
                    lst.accept()[0].close()
            except BlockingIOError:
                pass
            lst.setblocking(True)
        print("depth %3d: %.2f us per connect" %
              (d, statistics.median(rounds) * 1e6))


main()
