// The floor under bench/live/run.mjs: CPU of one process writing one SSE-sized frame to each of 100 loopback sockets whose
// readers live in another process (on the other core).
// usage: node bench/live/socket-floor.mjs (compare with run.mjs's "server CPU per write")
import net from "node:net";
import { fork } from "node:child_process";
const S = 100,
  ROUNDS = 20000;
if (process.argv[2] === "reader") {
  for (let i = 0; i < S; i++) net.connect(Number(process.argv[3]), "127.0.0.1").on("data", () => {});
} else {
  const srv = net.createServer();
  const conns = [];
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  srv.on("connection", (c) => conns.push(c));
  const child = fork(new URL(import.meta.url).pathname, ["reader", String(srv.address().port)]);
  while (conns.length < S) await new Promise((r) => setTimeout(r, 10));
  const frame = Buffer.from(
    `event: update\nid: 123456\ndata: {"op":"update","id":1,"row":{"id":1,"title":"w","rank":0}}\n\n`,
  );
  const before = process.cpuUsage();
  for (let r = 0; r < ROUNDS; r++) {
    for (const c of conns) c.write(frame);
    if (r % 20 === 0) await new Promise((res) => setImmediate(res));
  }
  await new Promise((res) => setTimeout(res, 300));
  const cpu = process.cpuUsage(before);
  console.log(`writer CPU per round of ${S} socket writes: ${((cpu.user + cpu.system) / ROUNDS).toFixed(1)} µs`);
  child.kill();
  process.exit(0);
}
