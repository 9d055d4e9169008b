"""A hand-written DDP loop that prints its world size, as scripts without a trainer library do: under torchrun it
joins the process group (gloo) and prints "world_size=2"; started with plain `python`, as each node of a
`python train.py` run is, it finds no WORLD_SIZE, trains alone and prints "world_size=1"."""
import os

import torch
import torch.distributed as dist

world_size = int(os.environ.get("WORLD_SIZE", "1"))
if world_size > 1:
    dist.init_process_group("gloo")
rank = dist.get_rank() if world_size > 1 else 0
if rank == 0:
    print(f"world_size={world_size}", flush=True)
torch.manual_seed(0)
model = torch.nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
total = 20
for step in range(1, total + 1):
    x = torch.randn(16, 8)
    loss = (model(x) - x.sum(dim=1, keepdim=True)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    if world_size > 1:
        for p in model.parameters():
            dist.all_reduce(p.grad)
    opt.step()
    if rank == 0 and step % 5 == 0:
        print(f"step {step}/{total} loss {loss.item():.4f}", flush=True)
if world_size > 1:
    dist.destroy_process_group()
