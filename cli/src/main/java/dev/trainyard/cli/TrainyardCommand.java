package dev.trainyard.cli;

import dev.trainyard.compiler.Compiler;
import picocli.CommandLine.Command;

/** The {@code trainyard} command: a thin CLI over the compiler library. */
@Command(
    name = "trainyard",
    version = "trainyard " + Compiler.VERSION,
    description = {"Compile train.yaml into JobSet + Kueue manifests for GitOps.", ""},
    mixinStandardHelpOptions = true,
    subcommands = {CompileCommand.class, ValidateCommand.class, StatusCommand.class, LogsCommand.class, RuntimesCommand.class, SchemaCommand.class, InitCommand.class, WarmupCommand.class},
    footer = {"", "Start with: trainyard init && trainyard compile train.yaml"})
final class TrainyardCommand {}
