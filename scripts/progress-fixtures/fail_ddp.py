"""Torch DDP (gloo, CPU) on 2 processes: rank 0 trains 3 steps, then its data has the wrong shape."""
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

dist.init_process_group("gloo")
rank = dist.get_rank()
model = DistributedDataParallel(torch.nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(1, 4):
    x = torch.randn(16, 8 if step < 3 or rank != 0 else 7)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if rank == 0:
        print(f"step {step}/100 loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
