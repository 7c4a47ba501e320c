#!/usr/bin/python3
"""Times ONNX Runtime on random-weight BERT encoders beside libamxqa, on one
pinned core, and adds the results to an amxqa-bench result JSON as peer rows.

The encoders are built here in the Hugging Face export layout (inputs
input_ids, attention_mask, token_type_ids; word, position and type
embeddings; post-LayerNorm layers of Q/K/V/O attention and a GELU FFN; output
last_hidden_state). Default: BERT-mini (L4 H256, 4 heads, FFN 1024), the
same work per token as the default model. Two graphs:
  fp32  plain MatMul + Add;
  int8  every weight MatMul as onnxruntime.quantization.quantize_dynamic
        writes it: DynamicQuantizeLinear of the activations (uint8, scale,
        zero point), MatMulInteger with int8 weights (per tensor, symmetric;
        7-bit with --reduce-range, as the quantiser does for CPUs without
        VNNI), Cast, and a Mul by activation scale x weight scale.
ONNX Runtime runs them through npm onnxruntime-node (bench/peers/ort_time.js),
one thread, pinned with taskset:

  mkdir -p /tmp/ort && cd /tmp/ort && \\
    ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node@1.31.1
  /usr/bin/python3 bench/peers/ort_bert.py --ort-node /tmp/ort/node_modules/onnxruntime-node \\
      --bench-json bench/results/CPU.json --core 1

Needs python3-onnx (Debian; sdk/setup-deps.sh). With --bench-json the rows
join the file's peers (bench/peers/peer_rows.py: summary.peer_ms and
summary.libamxqa_speedup, peer ms / libamxqa's shipped-model ms per backend,
the same 208-token prompt), which `amxqa-bench compare` lists per CPU. Re-run
it after `amxqa-bench report` rewrites the JSON. With --amxqa-bench
build/bin/amxqa-bench it then runs --rounds rounds of libamxqa's answer and
both graphs alternately on the same core (set AMXQA_DATA as for the bench) and
adds the medians of the rounds' ratios (summary.libamxqa_speedup_interleaved):
the figure to quote on a shared machine, whose speed moves between runs.

--isa-mask avx2 (or avx512) runs ONNX Runtime with the instruction sets above
that level hidden from its CPUID (bench/peers/isa_mask.c), so on an AVX-512 or
AMX machine it times the kernels it would pick on an AVX2-only (or AMX-less)
CPU; its rows get the suffix _<level> and the interleaved rounds time only
libamxqa's backend of that level, the like-for-like pair:

  AMXQA_DATA=../shared/data /usr/bin/python3 bench/peers/ort_bert.py --core 0 \\
      --ort-node … --bench-json bench/results/CPU.json --isa-mask avx2 \\
      --amxqa-bench build/bin/amxqa-bench --rounds 5"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import isa_mask
import peer_rows

HERE = os.path.dirname(os.path.abspath(__file__))


class Graph:
    """Nodes and initializers, with generated names."""

    def __init__(self, rng, int8, reduce_range):
        self.nodes, self.inits, self.rng = [], [], rng
        self.int8, self.reduce_range, self.n = int8, reduce_range, 0

    def name(self, base):
        self.n += 1
        return f"{base}_{self.n}"

    def init(self, base, array):
        n = self.name(base)
        self.inits.append(numpy_helper.from_array(array, n))
        return n

    def op(self, kind, inputs, n_out=1, **attrs):
        outs = [self.name(kind) for _ in range(n_out)]
        self.nodes.append(helper.make_node(kind, inputs, outs, name=self.name(kind + "_node"), **attrs))
        return outs[0] if n_out == 1 else outs

    def linear(self, x, d_in, d_out):
        w = (self.rng.standard_normal((d_in, d_out)) * 0.02).astype(np.float32)
        b = self.init("bias", np.zeros(d_out, np.float32))
        if not self.int8:
            return self.op("Add", [self.op("MatMul", [x, self.init("weight", w)]), b])
        qmax = 63.0 if self.reduce_range else 127.0
        scale = float(np.abs(w).max()) / qmax
        wq = np.clip(np.rint(w / scale), -qmax, qmax).astype(np.int8)
        xq, xs, xzp = self.op("DynamicQuantizeLinear", [x], n_out=3)
        acc = self.op("MatMulInteger", [xq, self.init("weight_quantized", wq), xzp,
                                        self.init("weight_zero_point", np.array(0, np.int8))])
        s = self.op("Mul", [xs, self.init("weight_scale", np.array(scale, np.float32))])
        y = self.op("Mul", [self.op("Cast", [acc], to=TensorProto.FLOAT), s])
        return self.op("Add", [y, b])

    def layer_norm(self, x, d):
        return self.op("LayerNormalization", [x, self.init("ln_gamma", np.ones(d, np.float32)),
                                              self.init("ln_beta", np.zeros(d, np.float32))],
                       axis=-1, epsilon=1e-12)


def build(layers, hidden, heads, ffn, vocab, int8, reduce_range, seed):
    g = Graph(np.random.default_rng(seed), int8, reduce_range)
    dh = hidden // heads
    rnd = lambda *s: (g.rng.standard_normal(s) * 0.02).astype(np.float32)
    # Embeddings: word + position (positions 0..S-1, as the export slices them) + type.
    shape = g.op("Shape", ["input_ids"])
    seq = g.op("Gather", [shape, g.init("one", np.array(1, np.int64))], axis=0)
    pos = g.op("Range", [g.init("zero", np.array(0, np.int64)), seq, g.init("one", np.array(1, np.int64))])
    pos = g.op("Unsqueeze", [pos, g.init("axes0", np.array([0], np.int64))])
    e = g.op("Add", [g.op("Gather", [g.init("word_embeddings", rnd(vocab, hidden)), "input_ids"]),
                     g.op("Gather", [g.init("position_embeddings", rnd(512, hidden)), pos])])
    e = g.op("Add", [e, g.op("Gather", [g.init("token_type_embeddings", rnd(2, hidden)), "token_type_ids"])])
    x = g.layer_norm(e, hidden)
    # Extended mask: (1 - mask) * -10000 over [B, 1, 1, S].
    m = g.op("Cast", [g.op("Unsqueeze", ["attention_mask", g.init("axes12", np.array([1, 2], np.int64))])],
             to=TensorProto.FLOAT)
    m = g.op("Mul", [g.op("Sub", [g.init("one_f", np.array(1, np.float32)), m]),
                     g.init("neg", np.array(-10000, np.float32))])
    split = g.init("bshd", np.array([0, 0, heads, dh], np.int64))
    merge = g.init("bsd", np.array([0, 0, hidden], np.int64))
    for _ in range(layers):
        q = g.op("Transpose", [g.op("Reshape", [g.linear(x, hidden, hidden), split])], perm=[0, 2, 1, 3])
        k = g.op("Transpose", [g.op("Reshape", [g.linear(x, hidden, hidden), split])], perm=[0, 2, 3, 1])
        v = g.op("Transpose", [g.op("Reshape", [g.linear(x, hidden, hidden), split])], perm=[0, 2, 1, 3])
        s = g.op("Div", [g.op("MatMul", [q, k]), g.init("sqrt_dh", np.array(math.sqrt(dh), np.float32))])
        p = g.op("Softmax", [g.op("Add", [s, m])], axis=-1)
        c = g.op("Reshape", [g.op("Transpose", [g.op("MatMul", [p, v])], perm=[0, 2, 1, 3]), merge])
        x = g.layer_norm(g.op("Add", [g.linear(c, hidden, hidden), x]), hidden)
        h = g.linear(x, hidden, ffn)
        # GELU as the export writes it: x · 0.5 · (1 + erf(x / √2)).
        h = g.op("Mul", [g.op("Mul", [h, g.init("half", np.array(0.5, np.float32))]),
                         g.op("Add", [g.op("Erf", [g.op("Div", [h, g.init("sqrt2", np.array(math.sqrt(2), np.float32))])]),
                                      g.init("one_f", np.array(1, np.float32))])])
        x = g.layer_norm(g.op("Add", [g.linear(h, ffn, hidden), x]), hidden)
    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
    ins = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"])
           for n in ("input_ids", "attention_mask", "token_type_ids")]
    out = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", hidden])
    model = helper.make_model(helper.make_graph(g.nodes, "bert", ins, [out], g.inits),
                              opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def time_model(path, args, env=None):
    """ort_time.js's row for one graph; env: the child's environment (an ISA mask's)."""
    cmd = ["node", os.path.join(HERE, "ort_time.js"), path, str(args.tokens), str(args.runs)]
    if args.core >= 0:
        cmd = ["taskset", "-c", str(args.core)] + cmd
    env = dict(os.environ if env is None else env)
    if args.ort_node:
        env["ORT_NODE"] = os.path.abspath(args.ort_node)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--ffn", type=int, default=1024)
    ap.add_argument("--vocab", type=int, default=30522)
    ap.add_argument("--tokens", type=int, default=208, help="prompt length (the shipped model's mean)")
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--core", type=int, default=1, help="pin to this core (-1: no pinning)")
    ap.add_argument("--ort-node", help="the onnxruntime-node package folder")
    ap.add_argument("--full-range", action="store_true", help="8-bit int8 weights (default: 7-bit, reduce_range)")
    ap.add_argument("--bench-json", help="amxqa-bench result JSON to add the peer rows to")
    ap.add_argument("--keep", help="write the .onnx files into this folder")
    ap.add_argument("--amxqa-bench", help="amxqa-bench binary: also run --rounds interleaved rounds of "
                    "libamxqa's shipped-model answer and both graphs on the same core, and add their "
                    "median ratios to --bench-json (summary.libamxqa_speedup_interleaved)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--isa-mask", choices=isa_mask.LEVELS,
                    help="hide the instruction sets above this level from ONNX Runtime (bench/peers/isa_mask.c)")
    args = ap.parse_args()

    tag = f"bert_L{args.layers}_H{args.hidden}"
    suffix, env, backends = "", None, None
    peers, paths = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        if args.isa_mask:
            suffix, env, backends = f"_{args.isa_mask}", isa_mask.prepare(args.isa_mask, tmp), (args.isa_mask,)
        where = args.keep or tmp
        os.makedirs(where, exist_ok=True)
        for kind in ("fp32", "int8"):
            model = build(args.layers, args.hidden, args.heads, args.ffn, args.vocab, kind == "int8",
                          not args.full_range, seed=7)
            path = os.path.join(where, f"{tag}_{kind}.onnx")
            onnx.save(model, path)
            paths[kind] = path
            r = time_model(path, args, env)
            r.update(peer="onnxruntime-node 1.31.1", model=f"BERT L{args.layers} H{args.hidden} FFN{args.ffn}"
                     + (f", {args.isa_mask.upper()} kernels (CPUID masked)" if args.isa_mask else ""),
                     weights=kind + ("" if kind == "fp32" else " (7-bit)" if not args.full_range else ""),
                     threads=1, core=args.core, work=f"{args.tokens}-token prompt", clock="cpu")
            if args.isa_mask:
                r["isa_mask"] = args.isa_mask
            peers[f"ort_{kind}_{tag}{suffix}"] = r
            print(f"ort {kind:5s} {tag}{suffix}: CPU time p50 {r['p50_ms']:.3f} ms, mean {r['mean_ms']:.3f} ms "
                  f"(wall p50 {r['wall_p50_ms']:.3f}) "
                  f"({args.tokens} tokens, {args.runs} runs, core {args.core})")
        if args.bench_json:
            peer_rows.add_peers(args.bench_json, peers)
        if args.amxqa_bench and args.bench_json:
            medians, rounds = peer_rows.interleave(
                args.rounds, lambda: peer_rows.amxqa_answer_ms(args.amxqa_bench, args.core, backends),
                lambda: {f"ort_{k}_{tag}{suffix}": time_model(p, args, env)["p50_ms"] for k, p in paths.items()})
            peer_rows.add_interleaved(args.bench_json, medians, rounds, args.core)


if __name__ == "__main__":
    sys.exit(main())
