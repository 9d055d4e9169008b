package dev.trainyard.controller.forge;

import java.net.URI;
import java.util.Map;
import java.util.TreeMap;

/**
 * One HTTP request to a forge: method (GET or POST), URI, headers (the auth header among them;
 * never logged) and a JSON body ("" for GET).
 */
public record HttpCall(String method, URI uri, Map<String, String> headers, String body) {

  public HttpCall {
    headers = Map.copyOf(new TreeMap<>(headers));
    body = body == null ? "" : body;
  }

  /** "METHOD path" for messages: no query, no headers, no body. */
  public String describe() {
    return method + " " + uri.getPath();
  }
}
