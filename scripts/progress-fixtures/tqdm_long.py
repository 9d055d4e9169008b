"""A long run's tqdm bar: 1,500 steps of a torch loop, the bar redrawn at every step (mininterval=0), so the
whole bar is one line of ~150 KB in the container log, which containerd stores as 16 KiB partial entries."""
import torch
from tqdm import tqdm

torch.manual_seed(0)
model = torch.nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in tqdm(range(1500), mininterval=0):
    x = torch.randn(16, 8)
    loss = (model(x) - x.sum(dim=1, keepdim=True)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"final loss {loss.item():.4f}")
