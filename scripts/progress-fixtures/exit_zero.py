"""Exits 0 without training when it finds fewer than 2 GPUs, as pytorch/examples' minGPT-DDP does.

The check and its message are those of pytorch/examples distributed/minGPT-ddp/mingpt/main.py
(verify_min_gpu_count and its __main__ block). Upstream runs it with `torchrun --standalone
--nproc_per_node=N main.py` (run_example.sh): every rank prints the line and exits 0, so torchrun and
the run succeed; recorded here as rank 0 prints it."""
import sys

import torch


def verify_min_gpu_count(min_gpus: int = 2) -> bool:
    has_gpu = torch.accelerator.is_available()
    gpu_count = torch.accelerator.device_count()
    return has_gpu and gpu_count >= min_gpus


if __name__ == "__main__":
    _min_gpu_count = 2
    if not verify_min_gpu_count(min_gpus=_min_gpu_count):
        print(f"Unable to locate sufficient {_min_gpu_count} gpus to run this example. Exiting.")
        sys.exit()
    raise SystemExit("this fixture must not find GPUs")
