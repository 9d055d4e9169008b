"""Fine-tune a sequence classifier on IMDB with the Hugging Face Trainer.

Single process:   python train.py --output_dir out --max_steps 20 --synthetic
Several processes: torchrun --nproc_per_node=2 train.py --output_dir out --synthetic
The Trainer picks up RANK / LOCAL_RANK / WORLD_SIZE from torchrun by itself.
"""
import os
from dataclasses import dataclass, field

import numpy as np
from datasets import Dataset, load_dataset
from transformers import (
    AutoConfig,
    AutoModelForSequenceClassification,
    AutoTokenizer,
    DataCollatorWithPadding,
    HfArgumentParser,
    Trainer,
    TrainingArguments,
    default_data_collator,
    set_seed,
)


@dataclass
class ModelArguments:
    model_name_or_path: str = field(
        default_factory=lambda: os.environ.get("HF_MODEL", "distilbert-base-uncased"),
        metadata={"help": "Hub model id or local path (default: $HF_MODEL or distilbert-base-uncased)"},
    )


@dataclass
class DataArguments:
    dataset_name: str = field(default="stanfordnlp/imdb")
    max_train_samples: int = field(default=2000, metadata={"help": "small subset for a quick fine-tune"})
    max_eval_samples: int = field(default=500)
    max_seq_length: int = field(default=256)
    synthetic: bool = field(
        default=False,
        metadata={"help": "random tokens and a tiny untrained model: no download, for a CPU smoke test"},
    )


def synthetic_setup(data_args):
    """A 2-layer DistilBERT from a config and random token ids whose label is learnable."""
    config = AutoConfig.for_model(
        "distilbert", vocab_size=1000, dim=64, hidden_dim=128, n_layers=2, n_heads=2, num_labels=2
    )
    model = AutoModelForSequenceClassification.from_config(config)
    rng = np.random.default_rng(0)

    def make(n):
        ids = rng.integers(5, config.vocab_size, size=(n, 32))
        return Dataset.from_dict({
            "input_ids": ids.tolist(),
            "attention_mask": np.ones_like(ids).tolist(),
            "labels": (ids[:, 0] < config.vocab_size // 2).astype(int).tolist(),
        })

    return model, None, make(data_args.max_train_samples), make(data_args.max_eval_samples)


def hub_setup(model_args, data_args, training_args):
    tokenizer = AutoTokenizer.from_pretrained(model_args.model_name_or_path)
    model = AutoModelForSequenceClassification.from_pretrained(model_args.model_name_or_path, num_labels=2)
    raw = load_dataset(data_args.dataset_name)
    train = raw["train"].shuffle(seed=training_args.seed).select(range(data_args.max_train_samples))
    evaluation = raw["test"].shuffle(seed=training_args.seed).select(range(data_args.max_eval_samples))

    def tokenize(batch):
        return tokenizer(batch["text"], truncation=True, max_length=data_args.max_seq_length)

    # Rank 0 tokenizes first and caches; the other ranks then read the cache.
    with training_args.main_process_first(desc="tokenizing"):
        train = train.map(tokenize, batched=True, remove_columns=["text"])
        evaluation = evaluation.map(tokenize, batched=True, remove_columns=["text"])
    return model, tokenizer, train, evaluation


def compute_metrics(eval_pred):
    logits, labels = eval_pred
    return {"accuracy": float((np.argmax(logits, axis=-1) == labels).mean())}


def main():
    parser = HfArgumentParser((ModelArguments, DataArguments, TrainingArguments))
    model_args, data_args, training_args = parser.parse_args_into_dataclasses()
    set_seed(training_args.seed)

    if data_args.synthetic:
        model, tokenizer, train, evaluation = synthetic_setup(data_args)
        collator = default_data_collator
    else:
        model, tokenizer, train, evaluation = hub_setup(model_args, data_args, training_args)
        collator = DataCollatorWithPadding(tokenizer)

    trainer = Trainer(
        model=model,
        args=training_args,
        train_dataset=train,
        eval_dataset=evaluation,
        processing_class=tokenizer,
        data_collator=collator,
        compute_metrics=compute_metrics,
    )
    result = trainer.train()
    trainer.log_metrics("train", result.metrics)
    metrics = trainer.evaluate()
    trainer.log_metrics("eval", metrics)
    if trainer.is_world_process_zero():
        print(f"world size {training_args.world_size}, eval accuracy {metrics['eval_accuracy']:.3f}")
    trainer.save_model()


if __name__ == "__main__":
    main()
