"""Data-parallel linear regression with JAX across every device of every process.

jax.distributed.initialize() is called without arguments: JAX finds the coordinator, the process
count and this process's id from the cluster it runs in (Open MPI, Slurm, Kubernetes with jax[k8s]):

    mpirun -np 2 python train.py
"""
import argparse

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

FEATURES = 16


def true_weights():
    return np.random.default_rng(1234).normal(size=(FEATURES,)).astype(np.float32)


def local_batch(step, size):
    """This process's part of the global batch: different rows on every process and step."""
    rng = np.random.default_rng((step, jax.process_index()))
    x = rng.normal(size=(size, FEATURES)).astype(np.float32)
    y = x @ true_weights() + 0.5 + 0.01 * rng.normal(size=(size,)).astype(np.float32)
    return x, y


def init_params():
    return {"w": jnp.zeros((FEATURES,)), "b": jnp.zeros(())}


def loss_fn(params, x, y):
    prediction = x @ params["w"] + params["b"]
    return jnp.mean((prediction - y) ** 2)


def main():
    parser = argparse.ArgumentParser(description="data-parallel linear regression with JAX")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch_per_device", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()

    jax.distributed.initialize()
    if jax.process_index() == 0:
        print(f"{jax.process_count()} processes, {jax.device_count()} devices "
              f"({jax.local_device_count()} local, {jax.devices()[0].platform})", flush=True)

    # One mesh axis over all global devices: the batch is split along it, the parameters are
    # replicated, and XLA inserts the cross-process gradient all-reduce.
    mesh = Mesh(np.array(jax.devices()), ("data",))
    data_sharding = NamedSharding(mesh, P("data"))
    replicated = NamedSharding(mesh, P())

    params = jax.jit(init_params, out_shardings=replicated)()

    @jax.jit
    def train_step(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        params = jax.tree_util.tree_map(lambda p, g: p - args.lr * g, params, grads)
        return params, loss

    per_process = args.batch_per_device * jax.local_device_count()
    for step in range(args.steps):
        x, y = local_batch(step, per_process)
        x = jax.make_array_from_process_local_data(data_sharding, x)
        y = jax.make_array_from_process_local_data(data_sharding, y)
        params, loss = train_step(params, x, y)
        if jax.process_index() == 0 and (step % 50 == 0 or step == args.steps - 1):
            print(f"step {step}: loss {float(loss):.5f} (global batch {x.shape[0]})", flush=True)

    error = float(jnp.linalg.norm(params["w"] - true_weights()))
    if jax.process_index() == 0:
        print(f"|w - w_true| = {error:.4f}, b = {float(params['b']):.4f} (true 0.5)", flush=True)
    jax.distributed.shutdown()


if __name__ == "__main__":
    main()
