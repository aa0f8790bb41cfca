"""A few convolutions forward and backward on the GPU, for gpu-check.sh.

Prints the shapes and a checksum so that traced and plain runs can be
compared.  Environment: DLT_BENCHMARK=1 turns cudnn.benchmark on."""
import os
import sys

import torch

torch.backends.cudnn.benchmark = os.environ.get("DLT_BENCHMARK") == "1"
dev = torch.device("cuda")
torch.manual_seed(0)
shapes = [(8, 3, 32, 32, 16, 3, 1), (8, 64, 56, 56, 64, 3, 1),
          (8, 128, 28, 28, 128, 1, 2)]
total = 0.0
for n, c, h, w, k, r, s in shapes:
    x = torch.randn(n, c, h, w, device=dev, requires_grad=True)
    conv = torch.nn.Conv2d(c, k, r, stride=s, padding=r // 2).to(dev)
    for _ in range(3):
        y = conv(x)
        y.sum().backward()
    torch.cuda.synchronize()
    total += float(y.float().abs().mean())
    print("conv", (n, c, h, w), "->", tuple(y.shape))
print("cudnn", torch.backends.cudnn.version(), "benchmark",
      torch.backends.cudnn.benchmark, "checksum %.3f" % total)
sys.stdout.flush()
