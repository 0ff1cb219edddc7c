// The subscribers of bench/live/run.mjs, in their own process so that reading their streams
// never stalls the writer's event loop: S live streams on `<base>/api/notes/live`, read as raw
// events over node:http. MODE "count" only counts events, scanning the bytes for each event's
// `id:` line (on a two-core machine this process shares a core with the load generator, and
// decoding a million events a second would cost more than the server spends sending them);
// MODE "latency" decodes each event for its row's send time. Talks to its parent over IPC:
//   parent → { count: true }     child → { received }          (events so far, all streams)
//   parent → { latencies: true } child → { latencies: [ms…] }  (per event whose row title is
//                                         "lat <send time>", send time = timeOrigin + now())
//   parent → { stop: true }      child closes its streams and exits.
// usage (forked by run.mjs): subscribers.mjs BASE S [count|latency]
import { request } from "node:http";

const [base, count, mode] = [process.argv[2], Number(process.argv[3]), process.argv[4] ?? "count"];
const now = () => performance.timeOrigin + performance.now();
let received = 0;
const latencies = [];
const requests = [];
const idLine = Buffer.from("\nid: ");

/** Counts events in raw bytes; `carry` keeps the bytes of a marker split between chunks. */
function counter() {
  let carry = Buffer.alloc(0);
  return (chunk) => {
    const bytes = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    for (let at = bytes.indexOf(idLine); at >= 0; at = bytes.indexOf(idLine, at + idLine.length)) received++;
    // Shorter than the marker, so a marker is never counted twice.
    carry = bytes.subarray(Math.max(0, bytes.length - (idLine.length - 1)));
  };
}

/** Decodes whole events: the latency rows carry their send time. */
function decoder() {
  let pending = "";
  return (chunk) => {
    pending += chunk.toString("utf8");
    let cut;
    while ((cut = pending.indexOf("\n\n")) >= 0) {
      const block = pending.slice(0, cut);
      pending = pending.slice(cut + 2);
      if (!block.startsWith("event:")) continue;
      received++;
      const m = /"title":"lat ([0-9.]+)"/.exec(block);
      if (m) latencies.push(now() - Number(m[1]));
    }
  };
}

function subscribe() {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/api/notes/live`, { agent: false, headers: { accept: "text/event-stream" } }, (res) => {
      res.on("data", mode === "latency" ? decoder() : counter());
      resolve();
    });
    req.on("error", reject);
    req.end();
    requests.push(req);
  });
}

await Promise.all(Array.from({ length: count }, subscribe));
process.on("message", (msg) => {
  if (msg.count) process.send({ received });
  if (msg.latencies) process.send({ latencies });
  if (msg.stop) {
    for (const r of requests) r.destroy();
    process.exit(0);
  }
});
process.send({ ready: true });
