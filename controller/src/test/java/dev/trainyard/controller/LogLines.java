package dev.trainyard.controller;

import java.text.MessageFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * What a class logged through {@code System.Logger} (the JDK routes it to java.util.logging under
 * the same name), as "LEVEL message" lines with the parameters filled in, for as long as it is
 * open.
 */
final class LogLines extends Handler implements AutoCloseable {

  final List<String> lines = new CopyOnWriteArrayList<>();
  private final Logger logger;

  LogLines(Class<?> source) {
    logger = Logger.getLogger(source.getName());
    logger.addHandler(this);
  }

  @Override
  public void publish(LogRecord r) {
    String text =
        r.getParameters() == null
            ? r.getMessage()
            : MessageFormat.format(r.getMessage(), r.getParameters());
    lines.add(
        r.getLevel().getName()
            + " "
            + text
            + (r.getThrown() == null ? "" : " [" + r.getThrown() + "]"));
  }

  @Override
  public void flush() {}

  @Override
  public void close() {
    logger.removeHandler(this);
  }
}
