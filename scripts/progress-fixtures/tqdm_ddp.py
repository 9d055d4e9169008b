"""Torch DDP (gloo, CPU) on 2 processes; rank 0 shows a tqdm bar over 40 steps, as many scripts do."""
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from tqdm import tqdm

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = DistributedDataParallel(torch.nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
steps = range(40)
for step in tqdm(steps, disable=rank != 0):
    x = torch.randn(16, 8)
    loss = (model(x) - x.sum(dim=1, keepdim=True)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    time.sleep(0.05)
if rank == 0:
    print(f"final loss {loss.item():.4f}")
dist.destroy_process_group()
