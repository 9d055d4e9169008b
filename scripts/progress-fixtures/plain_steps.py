"""A hand-written loop printing "step N/M" with its loss, as scripts without a progress library do."""
import torch

torch.manual_seed(0)
model = torch.nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
total = 50
for step in range(1, total + 1):
    x = torch.randn(16, 8)
    loss = (model(x) - x.sum(dim=1, keepdim=True)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(f"step {step}/{total} loss {loss.item():.4f}", flush=True)
