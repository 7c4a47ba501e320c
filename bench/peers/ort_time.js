// ort_time.js — times one ONNX encoder with ONNX Runtime (npm onnxruntime-node)
// on one thread: node ort_time.js MODEL.onnx TOKENS RUNS. Prints one JSON line
// {"p50_ms", "mean_ms", "min_ms", "wall_p50_ms", "runs", "tokens"}; the ms are
// the process's CPU time per run (user + system, process.cpuUsage), as
// amxqa-bench times an answer by thread CPU time, so a shared core's other
// work does not count; ort_bert.py runs it pinned with taskset. ORT_NODE names the onnxruntime-node folder (default: the
// package as node resolves it).
'use strict';
const ort = require(process.env.ORT_NODE || 'onnxruntime-node');

async function main() {
  const [model, tokensArg, runsArg] = process.argv.slice(2);
  const tokens = Number(tokensArg), runs = Number(runsArg);
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const ids = new BigInt64Array(tokens);
  for (let i = 0; i < tokens; ++i) ids[i] = BigInt(1000 + ((i * 7919) % 28000));
  const feeds = {
    input_ids: new ort.Tensor('int64', ids, [1, tokens]),
    attention_mask: new ort.Tensor('int64', new BigInt64Array(tokens).fill(1n), [1, tokens]),
    token_type_ids: new ort.Tensor('int64', new BigInt64Array(tokens), [1, tokens]),
  };
  for (let i = 0; i < 10; ++i) await session.run(feeds);  // warm-up
  const ms = [], wall = [];
  for (let i = 0; i < runs; ++i) {
    const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
    await session.run(feeds);
    const c = process.cpuUsage(c0);
    ms.push((c.user + c.system) / 1e3);
    wall.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  ms.sort((a, b) => a - b);
  wall.sort((a, b) => a - b);
  const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
  console.log(JSON.stringify({p50_ms: ms[ms.length >> 1], mean_ms: mean, min_ms: ms[0],
                              wall_p50_ms: wall[wall.length >> 1], runs, tokens}));
}
main().catch((e) => { console.error(String(e)); process.exit(1); });
