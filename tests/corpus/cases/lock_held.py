import time

import torch
import torch.distributed as dist

import corpus_common  # tests/corpus, on PYTHONPATH (run.py)
import threading

lock = threading.Lock()


def holder(started):
    with lock:
        started.set()
        time.sleep(3600)  # CULPRIT-ALT (the thread that holds the lock)


def body(ctx):
    dist.init_process_group(**ctx.init_args())
    t = torch.ones(4)
    dist.all_reduce(t)
    if ctx.rank == 1:
        started = threading.Event()
        threading.Thread(target=holder, args=(started,), daemon=True).start()
        started.wait()
        lock.acquire()  # CULPRIT
    dist.all_reduce(t)

if __name__ == "__main__":
    corpus_common.main(body)
