// The subscribers of bench/live/run.mjs, in their own process so that reading their streams
// never stalls the writer's event loop: S live streams on `<base>/api/notes/live`, read as raw
// events over node:http. Talks to its parent over IPC:
//   parent → { count: true }     child → { received }          (events so far, all streams)
//   parent → { latencies: true } child → { latencies: [ms…] }  (per event whose row title is
//                                         "lat <send time>", send time = timeOrigin + now())
//   parent → { stop: true }      child closes its streams and exits.
import { request } from "node:http";

const [base, count] = [process.argv[2], Number(process.argv[3])];
const now = () => performance.timeOrigin + performance.now();
let received = 0;
const latencies = [];
const requests = [];

function subscribe() {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/api/notes/live`, { agent: false, headers: { accept: "text/event-stream" } }, (res) => {
      let pending = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        pending += chunk;
        let cut;
        while ((cut = pending.indexOf("\n\n")) >= 0) {
          const block = pending.slice(0, cut);
          pending = pending.slice(cut + 2);
          if (!block.startsWith("event:")) continue;
          received++;
          const m = /"title":"lat ([0-9.]+)"/.exec(block);
          if (m) latencies.push(now() - Number(m[1]));
        }
      });
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
