"""A script that exits 0 without training, as pytorch/examples' minGPT-DDP does without enough GPUs."""
import sys

import torch

if torch.cuda.device_count() < 2:
    print("Unable to locate sufficient 2 gpus to run this example. Exiting.")
    sys.exit(0)
