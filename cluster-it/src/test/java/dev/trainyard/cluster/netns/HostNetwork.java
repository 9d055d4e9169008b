package dev.trainyard.cluster.netns;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Hosts made of Linux network namespaces: one namespace per host with an {@code eth0} of a veth
 * pair whose other end sits on a bridge inside a separate "switch" namespace, so the bridge, the
 * addresses and every packet exist only inside namespaces this harness made (none in the machine's
 * own namespace: its firewall and {@code br_netfilter} settings do not apply, and no host address
 * is reachable). Addresses are {@code 10.213.0.<2..>/24}; every run has its own switch, so runs
 * never see each other.
 *
 * <p>Namespaces are named {@code tyh<jvm-pid>-<n>-...}; {@link #close()} kills the processes left
 * in them ({@code ip netns pids}) and deletes them, and {@link #create()} first removes those of
 * JVMs that no longer run (a test JVM killed before its cleanup).
 */
final class HostNetwork implements AutoCloseable {
  /** A host: its namespace and its address on the bridge. */
  record Host(String netns, String address) {}

  static final String PREFIX = "tyh";
  private static final Pattern OWNED = Pattern.compile("^(" + PREFIX + "(\\d+)-\\d+-\\S+)");
  private static final AtomicInteger COUNTER = new AtomicInteger();
  private static final int MAX_HOSTS = 200;

  private final String name;
  private final String switchNs;
  private final List<Host> hosts = new ArrayList<>();

  private HostNetwork(String name) {
    this.name = name;
    this.switchNs = name + "-sw";
  }

  /** A new, empty network with its bridge up. */
  static HostNetwork create() {
    removeStale();
    HostNetwork network =
        new HostNetwork(PREFIX + ProcessHandle.current().pid() + "-" + COUNTER.incrementAndGet());
    try {
      HostCommand.check("ip", "netns", "add", network.switchNs);
      network.inSwitch("ip", "link", "add", "br0", "type", "bridge");
      network.inSwitch("ip", "link", "set", "br0", "up");
      return network;
    } catch (RuntimeException e) {
      network.close();
      throw e;
    }
  }

  /** Adds host number {@code hosts().size()} at {@code 10.213.0.<n+2>/24}. */
  Host addHost() {
    return addHost("10.213.0." + (hosts.size() + 2), 24);
  }

  /**
   * Adds a host at {@code address/prefix} (e.g. the pod IP a kwok node gave the pod, in kwok's
   * {@code --cidr}): its namespace, eth0 on the bridge, loopback up.
   */
  Host addHost(String address, int prefix) {
    int index = hosts.size();
    if (index >= MAX_HOSTS) {
      throw new IllegalStateException("at most " + MAX_HOSTS + " hosts per network");
    }
    Host host = new Host(name + "-" + index, address);
    hosts.add(host);
    HostCommand.check("ip", "netns", "add", host.netns());
    HostCommand.check(
        "ip",
        "link",
        "add",
        "eth0",
        "netns",
        host.netns(),
        "type",
        "veth",
        "peer",
        "name",
        "p" + index,
        "netns",
        switchNs);
    inSwitch("ip", "link", "set", "p" + index, "master", "br0", "up");
    inHost(host, "ip", "addr", "add", host.address() + "/" + prefix, "dev", "eth0");
    inHost(host, "ip", "link", "set", "eth0", "up");
    inHost(host, "ip", "link", "set", "lo", "up");
    return host;
  }

  List<Host> hosts() {
    return List.copyOf(hosts);
  }

  private void inSwitch(String... argv) {
    inHost(new Host(switchNs, ""), argv);
  }

  private static void inHost(Host host, String... argv) {
    List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", host.netns()));
    full.addAll(List.of(argv));
    HostCommand result = HostCommand.run(full);
    if (result.exit() != 0) {
      throw new IllegalStateException(
          String.join(" ", full) + " exited " + result.exit() + ": " + result.output());
    }
  }

  /**
   * Kills what still runs in the hosts and deletes every namespace of this network (bridge and
   * veths go with them).
   */
  @Override
  public void close() {
    for (Host host : hosts) {
      remove(host.netns());
    }
    remove(switchNs);
  }

  private static void remove(String netns) {
    for (int i = 0; i < 3; i++) {
      String pids = HostCommand.run("ip", "netns", "pids", netns).output().trim();
      if (pids.isEmpty() || pids.contains("No such file")) {
        break;
      }
      for (String pid : pids.split("\\s+")) {
        ProcessHandle.of(Long.parseLong(pid)).ifPresent(ProcessHandle::destroyForcibly);
      }
      sleepBriefly();
    }
    HostCommand.run("ip", "netns", "del", netns);
  }

  /** Deletes the namespaces of harness JVMs that are gone. */
  static void removeStale() {
    for (String line : HostCommand.run("ip", "netns", "list").output().split("\n")) {
      Matcher m = OWNED.matcher(line.trim());
      if (m.find()
          && ProcessHandle.of(Long.parseLong(m.group(2))).map(ProcessHandle::isAlive).orElse(false)
              == false) {
        remove(m.group(1));
      }
    }
  }

  /**
   * Names of this machine's namespaces that belong to this harness (any JVM); for cleanup
   * assertions.
   */
  static List<String> ownedNamespaces() {
    List<String> out = new ArrayList<>();
    for (String line : HostCommand.run("ip", "netns", "list").output().split("\n")) {
      Matcher m = OWNED.matcher(line.trim());
      if (m.find()) {
        out.add(m.group(1));
      }
    }
    return out;
  }

  /** Namespaces of this network that still exist. */
  List<String> remaining() {
    List<String> mine = new ArrayList<>();
    for (String ns : ownedNamespaces()) {
      if (ns.startsWith(name + "-")) {
        mine.add(ns);
      }
    }
    return mine;
  }

  private static void sleepBriefly() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
