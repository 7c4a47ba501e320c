"""bench/peers/: the GGUF writer's files parse as GGUF v3 with the sizes ggml
expects for each weight type, and llama_bench.py turns llama-bench's JSON into
a peer row that peer_rows.py merges into a result JSON and its Markdown beside
the ONNX Runtime rows. No llama.cpp is needed: a stand-in prints llama-bench's
-o json output. Run: PYTHONPATH=bench/peers python3 -m unittest discover -s tests/bench"""
import json
import os
import stat
import struct
import sys
import tempfile
import types
import unittest

import llama_bench
import llama_shape_gguf
import peer_rows

# Bytes per 32 values of each ggml type (ggml.c's type traits).
BYTES_PER_32 = {0: 128, 1: 64, 30: 64, 2: 18, 8: 34}


def read_gguf(path):
    """(metadata {key: value}, [(name, dims, type, offset)], data start, file size)."""
    with open(path, "rb") as f:
        buf = f.read()
    pos = 0

    def take(fmt):
        nonlocal pos
        vals = struct.unpack_from(fmt, buf, pos)
        pos += struct.calcsize(fmt)
        return vals if len(vals) > 1 else vals[0]

    def string():
        nonlocal pos
        n = take("<Q")
        pos += n
        return buf[pos - n:pos].decode()

    scalar = {4: "<I", 5: "<i", 6: "<f"}

    def value(kind):
        if kind == 8:
            return string()
        if kind == 9:
            elem, n = take("<IQ")
            return [value(elem) for _ in range(n)]
        return take(scalar[kind])

    assert buf[:4] == b"GGUF"
    pos = 4
    version, n_tensors, n_kv = take("<IQQ")
    assert version == 3
    meta = {}
    for _ in range(n_kv):
        key = string()
        meta[key] = value(take("<I"))
    tensors = []
    for _ in range(n_tensors):
        name = string()
        dims = [take("<Q") for _ in range(take("<I"))]
        typ, offset = take("<IQ")
        tensors.append((name, dims, typ, offset))
    return meta, tensors, pos + (-pos % llama_shape_gguf.ALIGN), len(buf)


def llama_bench_json(prompt, gen, pp_ns, tg_ns):
    def test(n_prompt, n_gen, samples, tokens):
        return {"build_commit": "abc1234", "build_number": 4747, "backends": "CPU", "n_threads": 1,
                "n_prompt": n_prompt, "n_gen": n_gen, "avg_ns": sum(samples) // len(samples),
                "avg_ts": tokens / (sum(samples) / len(samples) / 1e9), "samples_ns": samples}
    return [test(prompt, 0, pp_ns, prompt), test(0, gen, tg_ns, gen)]


def stand_in_llama_bench(tmp, model_suffix):
    """A llama-bench that checks its arguments (the model path ends with
    model_suffix), logs its weight buffers to stderr and prints -o json's list:
    prefill 20 ms and generation 1.5 ms in each of 10 repetitions."""
    fake = os.path.join(tmp, "llama-bench")
    out = json.dumps(llama_bench_json(208, 5, [20_000_000] * 10, [1_500_000] * 10))
    with open(fake, "w") as f:
        f.write(f"#!{sys.executable}\nimport sys\n"
                "a = sys.argv[1:]\n"
                "assert a[a.index('-t') + 1] == '1' and a[a.index('-p') + 1] == '208', a\n"
                f"assert a[a.index('-o') + 1] == 'json' and a[a.index('-m') + 1].endswith({model_suffix!r}), a\n"
                "assert a[a.index('-r') + 1] in ('10', '1') and '-v' in a, a\n"
                "print('load_tensors:          AMX model buffer size =     3.02 MiB', file=sys.stderr)\n"
                "print('load_tensors:   CPU_Mapped model buffer size =     2.77 MiB', file=sys.stderr)\n"
                f"print({out!r})\n")
    os.chmod(fake, os.stat(fake).st_mode | stat.S_IXUSR)
    return fake


def stand_in_amxqa_bench(tmp):
    """An amxqa-bench that checks its arguments, writes the --benchmark_filter
    it got to tmp/filter and the rows below to --benchmark_out: avx2 9.5 ms
    (avx512's row is an aggregate and amx's an error, which are left out)."""
    fake = os.path.join(tmp, "amxqa-bench")
    rows = [{"name": "BM_default_model_answer_avx2/iterations:500", "run_type": "iteration",
             "label": "avx2", "p50_ms": 9.5},
            {"name": "BM_default_model_answer_avx512/iterations:500", "run_type": "aggregate",
             "label": "avx512", "p50_ms": 1.0},
            {"name": "BM_default_model_answer_amx/iterations:500", "run_type": "iteration",
             "label": "amx", "error_occurred": True, "error_message": "architecture unsupported"}]
    with open(fake, "w") as f:
        f.write(f"#!{sys.executable}\nimport json, sys\n"
                "a = sys.argv[1:]\n"
                "assert '--no-report' in a and '--benchmark_out_format=json' in a, a\n"
                "f = [x for x in a if x.startswith('--benchmark_filter=')]\n"
                f"open({os.path.join(tmp, 'filter')!r}, 'w').write(f[0])\n"
                "out = [x for x in a if x.startswith('--benchmark_out=')][0].split('=', 1)[1]\n"
                "print('console table')\n"
                f"json.dump({{'benchmarks': {rows!r}}}, open(out, 'w'))\n")
    os.chmod(fake, os.stat(fake).st_mode | stat.S_IXUSR)
    return fake


class GgufWriter(unittest.TestCase):
    def test_every_type_parses_with_ggml_sizes(self):
        shape = llama_shape_gguf.Shape(d=64, layers=1, heads=2, kv_heads=1, head_dim=32, ffn=96, vocab=300)
        with tempfile.TemporaryDirectory() as tmp:
            for wtype, ggml_type in llama_shape_gguf.GGML_TYPE.items():
                path = os.path.join(tmp, wtype + ".gguf")
                llama_shape_gguf.write_gguf(path, wtype, shape)
                meta, tensors, data_start, size = read_gguf(path)
                self.assertEqual(meta["general.architecture"], "llama")
                self.assertEqual(meta["llama.embedding_length"], 64)
                self.assertEqual(meta["llama.feed_forward_length"], 96)
                self.assertEqual(len(meta["tokenizer.ggml.tokens"]), 300)
                self.assertEqual(len(tensors), 2 + 9 * shape.layers)
                end = data_start
                for name, dims, typ, offset in tensors:
                    n = dims[0] * (dims[1] if len(dims) > 1 else 1)
                    self.assertEqual(typ, 0 if name.endswith("norm.weight") else ggml_type, name)
                    self.assertEqual(offset % llama_shape_gguf.ALIGN, 0)
                    self.assertEqual(data_start + offset, end, name)  # packed in order, aligned
                    nbytes = n // 32 * BYTES_PER_32[typ]
                    end += nbytes + (-nbytes % llama_shape_gguf.ALIGN)
                self.assertEqual(end, size, wtype)

    def test_block_types_refuse_rows_not_a_multiple_of_32(self):
        with tempfile.TemporaryDirectory() as tmp, self.assertRaises(ValueError):
            llama_shape_gguf.write_gguf(os.path.join(tmp, "x.gguf"), "q4_0", llama_shape_gguf.Shape(ffn=427))


class LlamaBenchRows(unittest.TestCase):
    def test_answer_is_median_prefill_plus_median_generation(self):
        row = llama_bench.answer_row(llama_bench_json(208, 5, [20_000_000, 22_000_000, 21_000_000],
                                                      [1_600_000, 1_500_000, 1_700_000]), 208, 5)
        self.assertAlmostEqual(row["p50_ms"], 21.0 + 1.6)
        self.assertAlmostEqual(row["mean_ms"], 21.0 + 1.6)
        self.assertAlmostEqual(row["min_ms"], 20.0 + 1.5)
        self.assertEqual((row["runs"], row["tokens"], row["gen_tokens"], row["clock"]), (3, 208, 5, "wall"))
        self.assertEqual(row["peer"], "llama.cpp b4747 (abc1234)")
        with self.assertRaises(ValueError):
            llama_bench.answer_row(llama_bench_json(100, 5, [1], [1]), 208, 5)

    def test_stand_in_llama_bench_rows_join_the_bench_json_and_markdown(self):
        with tempfile.TemporaryDirectory() as tmp:
            fake = stand_in_llama_bench(tmp, "M.gguf")
            args = types.SimpleNamespace(llama_bench=fake, prompt=208, gen=5, reps=10)
            row = llama_bench.time_gguf([], "M.gguf", args)
            self.assertAlmostEqual(row["p50_ms"], 21.5)
            self.assertEqual(row["weight_buffers"], ["AMX", "CPU_Mapped"])
            self.assertGreaterEqual(row["cpu_mean_ms"], 0.0)  # the stand-in's own CPU time: no fixed value

            bench = os.path.join(tmp, "cpu.json")
            ort = {"p50_ms": 5.0, "peer": "onnxruntime-node 1.31.1", "model": "BERT", "weights": "int8",
                   "tokens": 208}
            with open(bench, "w") as f:
                json.dump({"summary": {"shipped_model_p50_ms": {"scalar": 500.0, "avx512": 4.3, "amx": 2.15},
                                       "peer_ms": {"ort_int8": 5.0}},
                           "peers": {"ort_int8": ort}}, f)
            with open(os.path.join(tmp, "cpu.md"), "w") as f:
                f.write("# Run\n\nrooflines\n\n## Peers\n\nold table\n")
            speedup = peer_rows.add_peers(bench, {"llama_cpp_q4_0": dict(row, weights="Q4_0", model="llama",
                                                                         cpu_mean_ms=21.0)})
            self.assertEqual(speedup, {"avx512_vs_ort_int8": round(5.0 / 4.3, 4),
                                       "avx512_vs_llama_cpp_q4_0": 5.0,
                                       "amx_vs_ort_int8": round(5.0 / 2.15, 4),
                                       "amx_vs_llama_cpp_q4_0": 10.0})
            with open(bench) as f:
                doc = json.load(f)
            self.assertEqual(set(doc["peers"]), {"ort_int8", "llama_cpp_q4_0"})
            self.assertEqual(doc["summary"]["peer_ms"], {"ort_int8": 5.0, "llama_cpp_q4_0": 21.5})
            with open(os.path.join(tmp, "cpu.md")) as f:
                md = f.read()
            self.assertTrue(md.startswith("# Run\n\nrooflines\n\n## Peers\n"))
            self.assertNotIn("old table", md)
            self.assertEqual(md.count("## Peers"), 1)
            self.assertIn("| llama.cpp b4747 (abc1234) llama | Q4_0 | 208-token prefill + 5 generated | wall (CPU mean 21.00 ms) | "
                          "21.50 | 5.00x | 10.00x |", md)
            self.assertIn("| onnxruntime-node 1.31.1 BERT | int8 | 208-token prompt | cpu | 5.00 | 1.16x | 2.33x |", md)
            self.assertIn("- Fastest llama.cpp b4747 (abc1234): Q4_0, 21.50 ms; libamxqa avx512 5.00x, amx 10.00x", md)
            # A row timed under an ISA mask is its own peer: it gets its own "Fastest" line.
            peer_rows.add_peers(bench, {"llama_cpp_q4_0_avx2": dict(row, weights="Q4_0", model="llama",
                                                                    isa_mask="avx2", p50_ms=43.0)})
            with open(os.path.join(tmp, "cpu.md")) as f:
                md = f.read()
            self.assertIn("- Fastest llama.cpp b4747 (abc1234): Q4_0, 21.50 ms;", md)
            self.assertIn("- Fastest llama.cpp b4747 (abc1234) as on AVX2 (CPUID masked): Q4_0, 43.00 ms; "
                          "libamxqa avx512 10.00x, amx 20.00x", md)


class InterleavedRounds(unittest.TestCase):
    """peer_rows.interleave / amxqa_answer_ms / add_interleaved: each round's
    own ratio, their median, and amxqa-bench's --benchmark_out rows read
    through a stand-in binary."""

    def test_medians_are_of_each_rounds_own_ratio(self):
        ours = iter([{"avx2": 10.0, "amx": 2.0}, {"avx2": 20.0, "amx": 4.0}, {"avx2": 12.0, "amx": 3.0}])
        peers = iter([{"ort_int8": 5.0}, {"ort_int8": 12.0}, {"ort_int8": 6.0}])
        medians, rounds = peer_rows.interleave(3, lambda: next(ours), lambda: next(peers))
        # avx2: 0.5, 0.6, 0.5; amx: 2.5, 3.0, 2.0. (The ratio of the medians, 6.0 / 12.0 and
        # 6.0 / 3.0, would be 0.5 and 2.0: the rounds are kept apart on purpose.)
        self.assertEqual(medians, {"avx2_vs_ort_int8": 0.5, "amx_vs_ort_int8": 2.5})
        self.assertEqual(len(rounds), 3)
        self.assertEqual(rounds[1], {"libamxqa": {"avx2": 20.0, "amx": 4.0}, "peers": {"ort_int8": 12.0}})

    def test_stand_in_amxqa_bench_rows_and_the_json(self):
        with tempfile.TemporaryDirectory() as tmp:
            fake = stand_in_amxqa_bench(tmp)
            self.assertEqual(peer_rows.amxqa_answer_ms(fake, -1), {"avx2": 9.5})
            with open(os.path.join(tmp, "filter")) as f:
                self.assertEqual(f.read(), "--benchmark_filter=BM_default_model_answer_(avx2|avx512|amx)/")
            # An ISA-masked peer's rounds time only libamxqa's backend of that level.
            peer_rows.amxqa_answer_ms(fake, -1, ("avx2",))
            with open(os.path.join(tmp, "filter")) as f:
                self.assertEqual(f.read(), "--benchmark_filter=BM_default_model_answer_(avx2)/")

            bench = os.path.join(tmp, "cpu.json")
            with open(bench, "w") as f:
                json.dump({"summary": {"libamxqa_speedup_interleaved": {"avx2_vs_old": 1.0}}}, f)
            with open(os.path.join(tmp, "cpu.md"), "w") as f:
                f.write("# Run\n\n## Peers\n\nold\n")
            rounds = [{"libamxqa": {"avx2": 9.5}, "peers": {"ort_int8": 5.0, "ort_fp32": 12.0}}]
            peer_rows.add_interleaved(bench, {"avx2_vs_ort_int8": 0.5263}, rounds, 0)
            with open(os.path.join(tmp, "cpu.md")) as f:
                md = f.read()
            self.assertIn("- libamxqa avx2 vs ort_int8: 0.53x (1 rounds)", md)
            self.assertIn("- libamxqa avx2 vs old: 1.00x", md)
            with open(bench) as f:
                doc = json.load(f)
            self.assertEqual(doc["summary"]["libamxqa_speedup_interleaved"],
                             {"avx2_vs_old": 1.0, "avx2_vs_ort_int8": 0.5263})
            self.assertEqual(doc["interleaved"], {"ort_fp32+ort_int8": {"core": 0, "rounds": rounds}})

    def test_llama_bench_main_interleaves_with_amxqa_bench(self):
        """llama_bench.py end to end with both stand-ins: rows, then 2 rounds
        whose ratios (21.5 / 9.5) land in the JSON."""
        with tempfile.TemporaryDirectory() as tmp:
            llama = stand_in_llama_bench(tmp, "shape-q8_0.gguf")
            bench = os.path.join(tmp, "cpu.json")
            with open(bench, "w") as f:
                json.dump({"summary": {"shipped_model_p50_ms": {"avx2": 9.5}}}, f)
            argv = ["llama_bench.py", "--llama-bench", llama, "--core", "-1", "--types", "q8_0",
                    "--bench-json", bench, "--amxqa-bench", stand_in_amxqa_bench(tmp), "--rounds", "2"]
            saved = sys.argv
            try:
                sys.argv = argv
                llama_bench.main()
            finally:
                sys.argv = saved
            with open(bench) as f:
                doc = json.load(f)
            self.assertEqual(doc["summary"]["libamxqa_speedup_interleaved"],
                             {"avx2_vs_llama_cpp_q8_0": round(21.5 / 9.5, 4)})
            self.assertEqual(len(doc["interleaved"]["llama_cpp_q8_0"]["rounds"]), 2)
            with open(os.path.join(tmp, "filter")) as f:
                self.assertEqual(f.read(), "--benchmark_filter=BM_default_model_answer_(avx2|avx512|amx)/")

if __name__ == "__main__":
    unittest.main()
