"""Data-parallel MLP training on handwritten digits with MLX.

Every process trains on its own shard of the data and averages gradients with all_sum:

    mpirun -np 2 python main.py        # two processes, MPI backend
    python main.py                     # one process (the group falls back to size 1)

The digits are scikit-learn's bundled 8x8 handwritten-digit set, so nothing is downloaded.
"""
import argparse
import time

import mlx.core as mx
import mlx.nn as nn
import mlx.optimizers as optim
import numpy as np
from mlx.utils import tree_map
from sklearn.datasets import load_digits


class MLP(nn.Module):
    def __init__(self, in_dims, hidden_dims, out_dims, num_layers=2):
        super().__init__()
        sizes = [in_dims] + [hidden_dims] * num_layers + [out_dims]
        self.layers = [nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])]

    def __call__(self, x):
        for layer in self.layers[:-1]:
            x = nn.relu(layer(x))
        return self.layers[-1](x)


def load_shard(rank, size, test_fraction=0.2):
    """The same shuffled split on every rank; each rank keeps its own slice of the training set."""
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int32)
    order = np.random.default_rng(0).permutation(len(x))
    x, y = x[order], y[order]
    n_test = int(len(x) * test_fraction)
    # Equal-sized shards, so every rank runs the same number of all_sum steps.
    per_rank = (len(x) - n_test) // size
    train = slice(n_test + rank * per_rank, n_test + (rank + 1) * per_rank)
    train_x, train_y = x[train], y[train]
    test_x, test_y = x[:n_test][rank::size], y[:n_test][rank::size]
    return mx.array(train_x), mx.array(train_y), mx.array(test_x), mx.array(test_y)


def batches(x, y, batch_size):
    order = mx.array(np.random.permutation(x.shape[0]))
    for start in range(0, x.shape[0] - batch_size + 1, batch_size):
        index = order[start:start + batch_size]
        yield x[index], y[index]


def loss_fn(model, x, y):
    return nn.losses.cross_entropy(model(x), y, reduction="mean")


def main():
    parser = argparse.ArgumentParser(description="data-parallel MLP on handwritten digits with MLX")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch_size", type=int, default=16, help="batch size per process")
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--cpu", action="store_true", help="run on the CPU even when a GPU is present")
    args = parser.parse_args()
    if args.cpu:
        mx.set_default_device(mx.cpu)

    world = mx.distributed.init()
    rank, size = world.rank(), world.size()
    if rank == 0:
        print(f"distributed group of size {size}", flush=True)
    np.random.seed(rank)
    mx.random.seed(0)  # same initial weights on every rank

    train_x, train_y, test_x, test_y = load_shard(rank, size)
    model = MLP(train_x.shape[1], args.hidden, 10)
    mx.eval(model.parameters())
    optimizer = optim.Adam(learning_rate=args.lr)
    loss_and_grad = nn.value_and_grad(model, loss_fn)

    def all_average(grads):
        # All-reduce each gradient, then divide: every rank takes the same step.
        return tree_map(lambda g: mx.distributed.all_sum(g) / size, grads)

    def step(x, y):
        loss, grads = loss_and_grad(model, x, y)
        optimizer.update(model, all_average(grads))
        mx.eval(loss, model.parameters(), optimizer.state)
        return loss

    for epoch in range(args.epochs):
        tic = time.perf_counter()
        losses = [step(x, y) for x, y in batches(train_x, train_y, args.batch_size)]
        mean_loss = mx.distributed.all_sum(mx.mean(mx.array(losses))).item() / size
        correct = mx.distributed.all_sum(mx.sum(mx.argmax(model(test_x), axis=1) == test_y)).item()
        total = mx.distributed.all_sum(mx.array(test_y.shape[0])).item()
        if rank == 0:
            print(f"epoch {epoch}: loss {mean_loss:.3f}, test accuracy {correct / total:.3f}, "
                  f"{time.perf_counter() - tic:.2f}s", flush=True)


if __name__ == "__main__":
    main()
