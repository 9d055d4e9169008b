package dev.trainyard.controller;

/**
 * A controller configuration mistake: the message names the file, the field and what is expected.
 */
public final class ConfigException extends Exception {

  private static final long serialVersionUID = 1L;

  public ConfigException(String message) {
    super(message);
  }
}
