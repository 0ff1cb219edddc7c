// The floor under bench/live/run.mjs: the CPU one process spends writing SSE frames to 100
// loopback sockets whose readers live in another process (on another CPU when there are two).
// Each round writes one chunk of EVENTS frames to every socket and waits until the kernel has
// taken them all (only then is their cost paid); with GAP_MS it then idles that long, as a
// server does between flushes, so the readers go back to sleep and each write must wake them.
// EVENTS = 1, GAP_MS = 0 is per-commit delivery under load; EVENTS = n shows the cost of the
// bytes themselves (every subscriber receives every row); GAP_MS = 5 is a flush every 5 ms.
// usage: node bench/live/socket-floor.mjs [EVENTS=1] [ROUNDS=2000] [GAP_MS=0]
// (compare with run.mjs's "server CPU per write")
import { fork } from "node:child_process";
import net from "node:net";
import { moveToServerCpus, pinCpus } from "../node-process.mjs";

const S = 100;
if (process.argv[2] === "reader") {
  for (let i = 0; i < S; i++) net.connect(Number(process.argv[3]), "127.0.0.1").on("data", () => {});
} else {
  const events = Number(process.argv[2] ?? 1);
  const rounds = Number(process.argv[3] ?? 2000);
  const gapMs = Number(process.argv[4] ?? 0);
  // This process takes the last CPU; the readers, forked after, are moved to the others.
  const pinned = pinCpus();
  const srv = net.createServer();
  const conns = [];
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  srv.on("connection", (c) => conns.push(c));
  const child = fork(new URL(import.meta.url).pathname, ["reader", String(srv.address().port)]);
  // The readers run where bench servers run.
  moveToServerCpus(child.pid);
  while (conns.length < S) await new Promise((r) => setTimeout(r, 10));
  const one = `event: update\nid: 123456\ndata: {"op":"update","id":1,"row":{"id":1,"title":"w","rank":0}}\n\n`;
  const frame = Buffer.from(one.repeat(events));
  const before = process.cpuUsage();
  for (let r = 0; r < rounds; r++) {
    for (const c of conns) c.write(frame);
    // What the kernel did not take at once goes out as the readers read.
    while (conns.some((c) => c.writableLength > 0)) await new Promise((res) => setTimeout(res, 1));
    if (gapMs > 0) await new Promise((res) => setTimeout(res, gapMs));
    else if (r % 20 === 0) await new Promise((res) => setImmediate(res));
  }
  const used = process.cpuUsage(before);
  const cpu = (used.user + used.system) / rounds;
  console.log(
    `${S} sockets (${pinned}), ${events} event(s) of ${one.length} bytes per write, ${gapMs} ms between rounds: ${cpu.toFixed(1)} µs of CPU per round (${(cpu / S).toFixed(2)} per socket write), ${(cpu / events).toFixed(2)} µs per event delivered to all ${S}`,
  );
  child.kill();
  process.exit(0);
}
