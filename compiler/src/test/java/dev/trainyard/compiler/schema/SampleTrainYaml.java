package dev.trainyard.compiler.schema;

/** A train.yaml that sets every field of contract v1. */
public final class SampleTrainYaml {
  private SampleTrainYaml() {}

  public static final String FULL =
      """
      name: llama-finetune
      runtime: torch@2.5
      image: ghcr.io/acme/trainer:2024.06
      workdir: recipes/llama
      setup: pip install -r requirements.txt
      run: torchrun train.py --epochs 3
      nodes: 2
      procsPerNode: auto
      resources:
        gpus: 4
        gpuType: H100
        cpu: 4
        memory: 128Gi
        shm: 16Gi
      env:
        HF_MODEL: t5-small
        LR: 1.0
        DEBUG: true
        EPOCHS: 3
      secrets:
        - {name: hf-token, key: token, env: HF_TOKEN}
        - {name: wandb, path: /etc/wandb}
      volumes:
        - {claim: datasets, path: /data, readOnly: true}
        - {claim: checkpoints, path: /ckpt}
      queue: team-a
      priority: high
      retries: 0
      timeout: 1h30m
      """;
}
