"""Hugging Face Trainer on a tiny GPT-2 built here (no hub download): 30 steps, a log dict every 5.

argv[1] is the Trainer's log_level: "passive" (the default: no banner) or "info" (the
"***** Running training *****" banner with Num Epochs and Total optimization steps)."""
import sys

import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config(vocab_size=64, n_positions=16, n_embd=16, n_layer=1, n_head=2))
data = [{"input_ids": torch.randint(0, 64, (16,))} for _ in range(64)]
for d in data:
    d["labels"] = d["input_ids"]
args = TrainingArguments(
    output_dir="out",
    max_steps=30,
    per_device_train_batch_size=4,
    logging_steps=5,
    report_to="none",
    save_strategy="no",
    log_level=sys.argv[1],
    use_cpu=True,
)
Trainer(model=model, args=args, train_dataset=data).train()
