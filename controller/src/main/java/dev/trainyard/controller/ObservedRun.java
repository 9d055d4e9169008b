package dev.trainyard.controller;

import dev.trainyard.controller.state.RunObservation;

/** One run as {@code trainyard status} reads it: its key, provenance and what the cluster shows. */
public record ObservedRun(RunKey key, RunProvenance provenance, RunObservation observation) {}
