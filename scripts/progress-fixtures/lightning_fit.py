"""PyTorch Lightning on the CPU: 3 epochs of 10 batches and a logged loss.

argv[1] "default" keeps the bar Lightning picks (RichProgressBar when rich is installed, as it is
with transformers), "tqdm" asks for its TQDMProgressBar, "ddp" the TQDMProgressBar under DDP on 2 CPU
processes that Lightning starts itself (rank 0 prints "Initializing distributed: GLOBAL_RANK: 0, MEMBER:
1/2" and "All distributed processes registered. Starting with 2 processes")."""
import sys

import pytorch_lightning as pl
from pytorch_lightning.callbacks import TQDMProgressBar
import torch
from torch.utils.data import DataLoader, TensorDataset


class Tiny(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(8, 1)

    def training_step(self, batch, _):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.layer(x), y)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


torch.manual_seed(0)
x = torch.randn(80, 8)
loader = DataLoader(TensorDataset(x, x.sum(dim=1, keepdim=True)), batch_size=8)
bars = [TQDMProgressBar()] if sys.argv[1] in ("tqdm", "ddp") else []
ddp = {"strategy": "ddp", "devices": 2} if sys.argv[1] == "ddp" else {}
trainer = pl.Trainer(
    max_epochs=3, accelerator="cpu", logger=False, enable_checkpointing=False, callbacks=bars, **ddp
)
trainer.fit(Tiny(), loader)
