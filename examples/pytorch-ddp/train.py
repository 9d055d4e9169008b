"""Multi-node DistributedDataParallel training, in the style of the PyTorch DDP tutorial series.

Launch with torchrun; it sets RANK, LOCAL_RANK and WORLD_SIZE for every process:

    torchrun --nproc_per_node=2 train.py --epochs 5      # one machine, two processes
"""
import argparse
import os

import torch
import torch.nn.functional as F
from torch.distributed import barrier, destroy_process_group, init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class RandomRegression(Dataset):
    """A fixed, seeded set of (x, y) pairs, so every rank sees the same data without a download."""

    def __init__(self, size, features=20):
        generator = torch.Generator().manual_seed(0)
        self.x = torch.randn(size, features, generator=generator)
        true_w = torch.randn(features, 1, generator=generator)
        self.y = self.x @ true_w + 0.1 * torch.randn(size, 1, generator=generator)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        return self.x[index], self.y[index]


class Trainer:
    def __init__(self, model, loader, optimizer, save_every, snapshot_path):
        self.local_rank = int(os.environ["LOCAL_RANK"])
        self.global_rank = int(os.environ["RANK"])
        self.device = torch.device(f"cuda:{self.local_rank}" if torch.cuda.is_available() else "cpu")
        self.loader = loader
        self.optimizer = optimizer
        self.save_every = save_every
        self.snapshot_path = snapshot_path
        self.epochs_run = 0
        model = model.to(self.device)
        if os.path.exists(snapshot_path):
            self._load_snapshot(model)
        device_ids = [self.local_rank] if self.device.type == "cuda" else None
        self.model = DDP(model, device_ids=device_ids)

    def _load_snapshot(self, model):
        snapshot = torch.load(self.snapshot_path, map_location=self.device)
        model.load_state_dict(snapshot["MODEL_STATE"])
        self.epochs_run = snapshot["EPOCHS_RUN"]
        print(f"[rank {self.global_rank}] resuming from snapshot at epoch {self.epochs_run}")

    def _save_snapshot(self, epoch):
        snapshot = {"MODEL_STATE": self.model.module.state_dict(), "EPOCHS_RUN": epoch + 1}
        torch.save(snapshot, self.snapshot_path)
        print(f"epoch {epoch}: snapshot saved to {self.snapshot_path}")

    def _run_epoch(self, epoch):
        self.loader.sampler.set_epoch(epoch)
        total, batches = 0.0, 0
        for source, targets in self.loader:
            source, targets = source.to(self.device), targets.to(self.device)
            self.optimizer.zero_grad()
            loss = F.mse_loss(self.model(source), targets)
            loss.backward()
            self.optimizer.step()
            total, batches = total + loss.item(), batches + 1
        print(f"[rank {self.global_rank}] epoch {epoch}: {batches} batches, mean loss {total / batches:.4f}")

    def train(self, max_epochs):
        for epoch in range(self.epochs_run, max_epochs):
            self._run_epoch(epoch)
            if self.global_rank == 0 and (epoch + 1) % self.save_every == 0:
                self._save_snapshot(epoch)


def main():
    parser = argparse.ArgumentParser(description="multi-node DDP on a synthetic regression task")
    parser.add_argument("--epochs", type=int, default=10, help="total epochs to train")
    parser.add_argument("--save_every", type=int, default=1, help="save a snapshot every N epochs")
    parser.add_argument("--batch_size", type=int, default=32, help="batch size per process")
    parser.add_argument("--dataset_size", type=int, default=2048)
    parser.add_argument("--snapshot_path", default="snapshot.pt")
    args = parser.parse_args()

    backend = "nccl" if torch.cuda.is_available() else "gloo"
    if torch.cuda.is_available():
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    init_process_group(backend=backend)  # reads MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE from torchrun

    dataset = RandomRegression(args.dataset_size)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=False,
                        pin_memory=torch.cuda.is_available(), sampler=DistributedSampler(dataset))
    model = torch.nn.Linear(20, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
    Trainer(model, loader, optimizer, args.save_every, args.snapshot_path).train(args.epochs)
    # Every rank reaches the end before any tears the group down. Without it, a rank that finished
    # first sometimes died with SIGABRT in torch 2.13's gloo teardown ("terminate called without an
    # active exception") while rank 0 still saved its snapshot; with it, rarely still.
    barrier()
    destroy_process_group()


if __name__ == "__main__":
    main()
