"""Summarisation fine-tune of T5 with DeepSpeed ZeRO stage 2.

Started under mpirun, deepspeed.init_distributed() finds rank, world size and the master address
through MPI (mpi4py reads Open MPI's OMPI_COMM_WORLD_* environment). The `deepspeed` launcher works too:

    deepspeed --num_gpus 1 train.py --deepspeed_config ds_config.json --synthetic
    mpirun -np 2 python train.py --deepspeed_config ds_config.json --synthetic
"""
import argparse
import os

import deepspeed
import torch
from datasets import Dataset, load_dataset
from transformers import AutoConfig, AutoModelForSeq2SeqLM, AutoTokenizer

PREFIX = "summarize: "


def parse_args():
    parser = argparse.ArgumentParser(description="T5 summarisation with DeepSpeed")
    parser.add_argument("--model", default=os.environ.get("HF_MODEL", "t5-small"))
    parser.add_argument("--dataset", default="abisee/cnn_dailymail")
    parser.add_argument("--dataset_config", default="3.0.0")
    parser.add_argument("--train_samples", type=int, default=4000)
    parser.add_argument("--max_source_length", type=int, default=512)
    parser.add_argument("--max_target_length", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--checkpoint_dir", default="checkpoints")
    parser.add_argument("--synthetic", action="store_true",
                        help="tiny random T5 learning to copy random tokens: no download")
    parser.add_argument("--local_rank", type=int, default=-1,
                        help="passed by the deepspeed launcher; not needed under mpirun")
    parser = deepspeed.add_config_arguments(parser)  # adds --deepspeed and --deepspeed_config
    return parser.parse_args()


def synthetic_data(args):
    config = AutoConfig.for_model("t5", vocab_size=512, d_model=64, d_kv=16, d_ff=128, num_layers=2,
                                  num_heads=4, decoder_start_token_id=0, pad_token_id=0)
    model = AutoModelForSeq2SeqLM.from_config(config)
    generator = torch.Generator().manual_seed(0)
    source = torch.randint(2, config.vocab_size, (args.train_samples, 32), generator=generator)
    data = Dataset.from_dict({
        "input_ids": source.tolist(),
        "attention_mask": torch.ones_like(source).tolist(),
        "labels": source[:, :8].tolist(),  # the "summary" is the first eight tokens
    })
    return model, data


def cnn_dailymail_data(args):
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForSeq2SeqLM.from_pretrained(args.model)
    raw = load_dataset(args.dataset, args.dataset_config, split=f"train[:{args.train_samples}]")

    def tokenize(batch):
        inputs = tokenizer([PREFIX + text for text in batch["article"]], max_length=args.max_source_length,
                           truncation=True, padding="max_length")
        targets = tokenizer(text_target=batch["highlights"], max_length=args.max_target_length,
                            truncation=True, padding="max_length")
        # Padding in the labels must not count in the loss.
        inputs["labels"] = [[t if t != tokenizer.pad_token_id else -100 for t in seq]
                            for seq in targets["input_ids"]]
        return inputs

    return model, raw.map(tokenize, batched=True, remove_columns=raw.column_names)


def main():
    args = parse_args()
    deepspeed.init_distributed()  # no RANK in env: falls back to MPI discovery

    model, data = synthetic_data(args) if args.synthetic else cnn_dailymail_data(args)
    data.set_format("torch", columns=["input_ids", "attention_mask", "labels"])

    # DeepSpeed builds the optimizer and scheduler from ds_config.json, and a data loader with a
    # DistributedSampler over the data-parallel ranks.
    engine, _, loader, _ = deepspeed.initialize(
        args=args, model=model, model_parameters=model.parameters(), training_data=data)

    for epoch in range(args.epochs):
        for step, batch in enumerate(loader):
            batch = {key: value.to(engine.device) for key, value in batch.items()}
            loss = engine(**batch).loss
            engine.backward(loss)
            engine.step()
            if engine.global_rank == 0 and step % 20 == 0:
                print(f"epoch {epoch} step {step}: loss {loss.item():.4f} "
                      f"(world size {torch.distributed.get_world_size()})", flush=True)
        # Every rank saves its own ZeRO partition of the optimizer state.
        engine.save_checkpoint(args.checkpoint_dir, tag=f"epoch{epoch}")


if __name__ == "__main__":
    main()
