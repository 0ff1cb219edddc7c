// The floor under bench/live/run.mjs: the CPU one process spends writing SSE frames to 100
// loopback sockets whose readers live in another process. With EVENTS = 1 it is one frame per
// socket per write (per-commit delivery); with EVENTS = n, n frames merged into one chunk, which
// shows the cost of the bytes themselves: every subscriber receives every row.
// usage: node bench/live/socket-floor.mjs [EVENTS=1] [ROUNDS=20000]
// (compare with run.mjs's "server CPU per write")
import { fork } from "node:child_process";
import net from "node:net";

const S = 100;
if (process.argv[2] === "reader") {
  for (let i = 0; i < S; i++) net.connect(Number(process.argv[3]), "127.0.0.1").on("data", () => {});
} else {
  const events = Number(process.argv[2] ?? 1);
  const rounds = Number(process.argv[3] ?? 20000);
  const srv = net.createServer();
  const conns = [];
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  srv.on("connection", (c) => conns.push(c));
  const child = fork(new URL(import.meta.url).pathname, ["reader", String(srv.address().port)]);
  while (conns.length < S) await new Promise((r) => setTimeout(r, 10));
  const one = `event: update\nid: 123456\ndata: {"op":"update","id":1,"row":{"id":1,"title":"w","rank":0}}\n\n`;
  const frame = Buffer.from(one.repeat(events));
  const before = process.cpuUsage();
  for (let r = 0; r < rounds; r++) {
    for (const c of conns) c.write(frame);
    // Let the sockets drain, as a server between commits would.
    if (r % 20 === 0 || events > 1) await new Promise((res) => setImmediate(res));
  }
  await new Promise((res) => setTimeout(res, 300));
  const used = process.cpuUsage(before);
  const cpu = (used.user + used.system) / rounds;
  console.log(
    `${S} sockets, ${events} event(s) of ${one.length} bytes per write: ${cpu.toFixed(1)} µs of CPU per round, ${(cpu / events).toFixed(2)} µs per event delivered to all ${S}`,
  );
  child.kill();
  process.exit(0);
}
