package dev.trainyard.controller.forge;

import java.io.IOException;

/**
 * Sends one HTTP request, no retries; an IOException means no response (timeout, refused, reset).
 */
@FunctionalInterface
public interface Transport {

  HttpAnswer send(HttpCall call) throws IOException, InterruptedException;
}
