package dev.trainyard.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * An informer handler that only enqueues run keys (handlers never reconcile): an add, a delete or a
 * real update goes to {@code changed}; a periodic resync (fabric8 calls {@code onUpdate} with the
 * same resource version: nothing changed) goes to {@code resynced}, the work queue's background
 * lane. A delete first hands the final object to {@code gone} (the JobSet informer keeps it: its
 * provenance is needed to close the commit status of a run deleted before it finished), an add
 * tells {@code gone} nothing more is gone ({@code null}).
 */
final class RunEvents<T extends HasMetadata> implements ResourceEventHandler<T> {

  private final Function<T, Optional<RunKey>> key;
  private final Consumer<RunKey> changed;
  private final Consumer<RunKey> resynced;
  private final BiConsumer<RunKey, T> gone;

  RunEvents(
      Function<T, Optional<RunKey>> key, Consumer<RunKey> changed, Consumer<RunKey> resynced) {
    this(key, changed, resynced, (k, o) -> {});
  }

  /**
   * As above, with {@code gone} told of each delete (the final object) and each add ({@code null}).
   */
  RunEvents(
      Function<T, Optional<RunKey>> key,
      Consumer<RunKey> changed,
      Consumer<RunKey> resynced,
      BiConsumer<RunKey, T> gone) {
    this.key = key;
    this.changed = changed;
    this.resynced = resynced;
    this.gone = gone;
  }

  @Override
  public void onAdd(T obj) {
    key.apply(obj)
        .ifPresent(
            k -> {
              gone.accept(k, null);
              changed.accept(k);
            });
  }

  @Override
  public void onUpdate(T oldObj, T newObj) {
    boolean resync =
        Objects.equals(
            oldObj.getMetadata().getResourceVersion(), newObj.getMetadata().getResourceVersion());
    key.apply(newObj).ifPresent(resync ? resynced : changed);
  }

  @Override
  public void onDelete(T obj, boolean deletedFinalStateUnknown) {
    key.apply(obj)
        .ifPresent(
            k -> {
              gone.accept(k, obj);
              changed.accept(k);
            });
  }
}
