import { cpus, loadavg, totalmem } from "node:os";

/** The machine a bench ran on, as docs/performance.md records it. */
export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  node: string;
  platform: string;
  arch: string;
  /** 1, 5 and 15 minute load averages when the bench started: other work skews the figures. */
  loadAverage: number[];
}

/** Reads the machine from `os` and `process`. */
export function readMachineInfo(): MachineInfo {
  const processors = cpus();
  return {
    cpuModel: processors[0]?.model.trim() ?? "unknown",
    cores: processors.length,
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    loadAverage: loadavg().map((load) => Math.round(load * 100) / 100),
  };
}
