package dev.trainyard.controller;

/** A run as the work queue knows it: the namespace and name of its JobSet. */
public record RunKey(String namespace, String name) {

  /** "namespace/name", the informer cache key. */
  public String cacheKey() {
    return namespace + "/" + name;
  }

  /** The key for cache key "namespace/name". */
  public static RunKey parse(String cacheKey) {
    int slash = cacheKey.indexOf('/');
    return new RunKey(cacheKey.substring(0, slash), cacheKey.substring(slash + 1));
  }
}
