"""An Accelerate training loop as Hugging Face's `run_*_no_trainer.py` examples write it: the state logged on
every process (`logger.info(accelerator.state, main_process_only=False)`), then a tqdm bar over the steps.

Started with plain `python` (not `accelerate launch` or torchrun), Accelerate falls back to one process and
logs "Num processes: 1": what each node of a 2-node run does when train.yaml says `python train.py`, and
what a single-process fallback prints."""
import logging

import torch
from accelerate import Accelerator
from accelerate.logging import get_logger
from tqdm.auto import tqdm

logger = get_logger(__name__)
accelerator = Accelerator()
logging.basicConfig(
    format="%(asctime)s - %(levelname)s - %(name)s - %(message)s",
    datefmt="%m/%d/%Y %H:%M:%S",
    level=logging.INFO,
)
logger.info(accelerator.state, main_process_only=False)
torch.manual_seed(0)
model = torch.nn.Linear(8, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
model, optimizer = accelerator.prepare(model, optimizer)
max_train_steps = 20
progress_bar = tqdm(range(max_train_steps), disable=not accelerator.is_local_main_process)
for step in range(max_train_steps):
    x = torch.randn(16, 8)
    loss = (model(x) - x.sum(dim=1, keepdim=True)).pow(2).mean()
    accelerator.backward(loss)
    optimizer.step()
    optimizer.zero_grad()
    progress_bar.update(1)
