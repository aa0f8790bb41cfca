"""A two-rank NCCL job in which rank 1 never reaches NCCL (gpu-check.sh).

Both ranks complete the store rendezvous; rank 0 then runs an all-reduce,
which creates the NCCL communicator (ncclCommInitRank) and waits for rank 1
inside it; rank 1 sleeps instead.  gpu-check.sh kills both after a few
seconds and asks `dltrace-analyze hangs` who was waiting for whom."""
import os
import time

import torch
import torch.distributed as dist

rank = int(os.environ["RANK"])
dist.init_process_group("nccl", rank=rank, world_size=2)
print("rank", rank, "past the rendezvous", flush=True)
if rank == 1:
    time.sleep(3600)
t = torch.ones(16, device="cuda:0")
dist.all_reduce(t)
print("never printed", flush=True)
